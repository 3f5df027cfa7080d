#include "hw/top/gpu_module.hpp"

namespace smshare {

GpuModule::GpuModule(sc_core::sc_module_name name, const GpuSpec& spec, KernelSource& kernel,
                     const std::string& mechanism, const std::string& kernel_origin)
    : sc_module(name), spec_(spec), dispatcher_(kernel.resources().grid_ctas) {
  memory_ = std::make_unique<MemorySystem>("memory", spec);
  for (uint32_t i = 0; i < spec.num_sms; ++i) {
    auto sm = std::make_unique<SmModule>(("sm" + std::to_string(i)).c_str(), i, spec, kernel,
                                         make_mechanism(mechanism, spec.sm, kernel.resources(), kernel_origin),
                                         dispatcher_);
    sm->socket.bind(memory_->sm_socket(i));
    sms_.push_back(std::move(sm));
  }
}

void GpuModule::launch_kernel() {
  for (bool any = true; any;) {
    any = false;
    for (auto& sm : sms_) any |= sm->core().launch_one_cta(0);
  }
}

void GpuModule::trace(sc_core::sc_trace_file* tf) {
  const MemorySystem* mem = memory_.get();
  for (auto& sm : sms_)
    sm->trace(tf, [mem] { return mem->dram_queue_depth(sc_core::sc_time_stamp()); });
}

}  // namespace smshare
