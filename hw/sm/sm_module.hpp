// The SM as a SystemC module: it owns the SM's TLM-2.0 initiator socket,
// turning the LDST unit's line transactions into b_transport calls (loosely
// timed: the target annotates the delay; nothing waits), and registers its
// waveform probes (scope gpu.smN). Its clock comes from the GPU (GpuModule's
// clock method ticks the SMs that are due in a cycle in SM order, so the
// order in which SMs reach the memory system never depends on how SystemC
// orders processes).
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hw/common/waveform.hpp"
#include "hw/sm/mechanism_module.hpp"
#include "hw/sm/sm_core.hpp"

namespace smshare {

class SmModule : public sc_core::sc_module, private GlobalMemoryPort {
 public:
  tlm_utils::simple_initiator_socket<SmModule> socket;

  // Creates the run's mechanism's structure modules for SM `sm_id`; called
  // while the SM module is being constructed, so they are its children
  // (gpu.smN.lock_array). The GPU fills it from the mechanism's registry
  // entry (mechanism_module.hpp explains the scheme).
  using MechanismModuleFactory =
      std::function<std::vector<std::unique_ptr<MechanismStructureModule>>(uint32_t sm_id)>;

  SmModule(sc_core::sc_module_name name, uint32_t sm_id, const GpuSpec& gpu,
           const MechanismModuleFactory& make_mechanism_modules = {});

  SmCore& core() { return *core_; }
  const SmCore& core() const { return *core_; }

  // Starts `kernel` on the core with `mechanism`, the SM's instance of the
  // run's mechanism for it, and binds the mechanism's modules to it.
  void begin_kernel(KernelSource& kernel, Mechanism mechanism, CtaDispatcher& dispatcher);

  // Registers this SM's probes on `wave` under its scope (gpu.smN.*).
  // `dram_queue_depth` samples the memory system's queue for the waveform.
  // Whether the SM ticks every cycle is the GPU's choice (the window). The
  // mechanism's modules trace their own probes, like every structure.
  void trace(Waveform& wave, std::function<uint32_t()> dram_queue_depth);

  // Runs cycle `cycle` (the current simulation time) and returns the next
  // cycle the SM needs, or SmCore::kNever when it has no work left.
  uint64_t tick(uint64_t cycle);

 private:
  uint64_t access(uint64_t line_addr, uint32_t bytes, bool is_write, uint64_t cycle) override;

  const uint32_t sm_id_;
  const uint64_t period_ps_;
  std::unique_ptr<SmCore> core_;
  std::vector<std::unique_ptr<MechanismStructureModule>> mechanism_modules_;
  tlm::tlm_generic_payload payload_;
  std::function<uint32_t()> dram_queue_depth_;
  uint32_t dram_queue_probe_ = 0;
};

}  // namespace smshare
