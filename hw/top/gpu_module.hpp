// The GPU top: N SMs bound to the memory system, one CTA dispatcher, and
// the kernel-launch round that fills the SMs before the clock starts.
#pragma once

#include <systemc>

#include <memory>
#include <string>
#include <vector>

#include "hw/common/gpu_config.hpp"
#include "hw/frontend/cta_dispatcher.hpp"
#include "hw/frontend/kernel.hpp"
#include "hw/mem/memory_system_module.hpp"
#include "hw/sm/sm_module.hpp"

namespace smshare {

class GpuModule : public sc_core::sc_module {
 public:
  GpuModule(sc_core::sc_module_name name, const GpuSpec& spec, KernelSource& kernel,
            const std::string& mechanism, const std::string& kernel_origin);

  // Gives each SM one CTA per round, round-robin, until no SM takes another
  // (GPGPU-Sim's CTA issue at kernel launch). Call before sc_start().
  void launch_kernel();

  // Registers every SM's probes on `tf`; the SMs then tick every cycle.
  void trace(sc_core::sc_trace_file* tf);

  const GpuSpec& spec() const { return spec_; }
  const CtaDispatcher& dispatcher() const { return dispatcher_; }
  const MemorySystem& memory() const { return *memory_; }
  const std::vector<std::unique_ptr<SmModule>>& sms() const { return sms_; }

 private:
  const GpuSpec& spec_;
  CtaDispatcher dispatcher_;
  std::unique_ptr<MemorySystem> memory_;
  std::vector<std::unique_ptr<SmModule>> sms_;
};

}  // namespace smshare
