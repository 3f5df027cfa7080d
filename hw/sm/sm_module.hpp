// The SM as a SystemC module: one clocked method per SM that ticks SmCore,
// sleeps through cycles in which nothing can happen, and turns the LDST
// unit's line transactions into TLM-2.0 b_transport calls (loosely timed: the
// target annotates the delay; nothing waits).
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hw/sm/sm_core.hpp"

namespace smshare {

class SmModule : public sc_core::sc_module, private GlobalMemoryPort {
 public:
  tlm_utils::simple_initiator_socket<SmModule> socket;

  SmModule(sc_core::sc_module_name name, uint32_t sm_id, const GpuSpec& gpu);

  SmCore& core() { return *core_; }
  const SmCore& core() const { return *core_; }

  // Registers this SM's probes on `tf` and ticks every cycle from then on.
  // `dram_queue_depth` samples the memory system's queue for the waveform.
  // `mechanism_probes` names the mechanism's probes (mechanism_probe_names).
  void trace(sc_core::sc_trace_file* tf, std::function<uint32_t()> dram_queue_depth,
             const std::vector<std::string>& mechanism_probes = {});

  // Called when the SM has run out of work (or deadlocked); it then sleeps
  // until wake() (a new kernel) in a later delta cycle or time step.
  void on_finished(std::function<void(uint32_t sm_id)> cb) { finished_cb_ = std::move(cb); }
  void wake() { wake_.notify(sc_core::SC_ZERO_TIME); }

 private:
  SC_HAS_PROCESS(SmModule);
  void clock_method();
  uint64_t access(uint64_t line_addr, uint32_t bytes, bool is_write, uint64_t cycle) override;

  const uint32_t sm_id_;
  const uint64_t period_ps_;
  std::unique_ptr<SmCore> core_;
  tlm::tlm_generic_payload payload_;
  std::function<uint32_t()> dram_queue_depth_;
  uint32_t dram_queue_probe_ = 0;
  std::function<void(uint32_t)> finished_cb_;
  sc_core::sc_event wake_;
};

}  // namespace smshare
