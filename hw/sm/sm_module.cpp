#include "hw/sm/sm_module.hpp"

#include <cstdio>
#include <string>

#include "hw/common/error.hpp"

namespace smshare {

using sc_core::sc_time;
using sc_core::SC_PS;

SmModule::SmModule(sc_core::sc_module_name name, uint32_t sm_id, const GpuSpec& gpu)
    : sc_module(name),
      socket("socket"),
      sm_id_(sm_id),
      period_ps_(gpu.core_period_ps()),
      core_(std::make_unique<SmCore>(sm_id, gpu, static_cast<GlobalMemoryPort&>(*this))) {
  payload_.set_streaming_width(0);
  payload_.set_byte_enable_ptr(nullptr);
  payload_.set_dmi_allowed(false);
}

void SmModule::trace(sc_core::sc_trace_file* tf, std::function<uint32_t()> dram_queue_depth,
                     const std::vector<std::string>& mechanism_probes) {
  const std::string p = std::string(name()) + ".";
  const SmProbes& probes = core_->probes();
  sc_core::sc_trace(tf, probes.issued_warp, p + "issued_warp");
  sc_core::sc_trace(tf, probes.issued_count, p + "issued_count");
  sc_core::sc_trace(tf, probes.stall_reason, p + "stall_reason");
  sc_core::sc_trace(tf, probes.active_warps, p + "active_warps");
  sc_core::sc_trace(tf, probes.schedulable_warps, p + "schedulable_warps");
  sc_core::sc_trace(tf, probes.resident_ctas, p + "resident_ctas");
  sc_core::sc_trace(tf, probes.pending_loads, p + "pending_loads");
  sc_core::sc_trace(tf, dram_queue_probe_, p + "dram_queue_depth");
  core_->enable_mechanism_probes(mechanism_probes.size());
  for (size_t i = 0; i < mechanism_probes.size(); ++i)
    sc_core::sc_trace(tf, core_->probes().mechanism[i], p + mechanism_probes[i]);
  dram_queue_depth_ = std::move(dram_queue_depth);
  core_->set_cycle_by_cycle(true);
}

uint64_t SmModule::tick(uint64_t cycle) {
  const uint64_t next = core_->tick(cycle);
  if (dram_queue_depth_) dram_queue_probe_ = dram_queue_depth_();
  return next;
}

uint64_t SmModule::access(uint64_t line_addr, uint32_t bytes, bool is_write, uint64_t cycle) {
  payload_.set_command(is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  payload_.set_address(line_addr);
  payload_.set_data_ptr(nullptr);
  payload_.set_data_length(bytes);
  payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  const uint64_t now_ps = sc_core::sc_time_stamp().value();
  const uint64_t issue_ps = cycle * period_ps_;
  sc_time delay(static_cast<double>(issue_ps > now_ps ? issue_ps - now_ps : 0), SC_PS);
  socket->b_transport(payload_, delay);
  if (payload_.is_response_error()) {
    SC_REPORT_ERROR("smshare/sm", (std::string(name()) + ": memory access to " + hex(line_addr) +
                                   " failed: " + payload_.get_response_string() +
                                   " (outside global memory [0, dram.swap_base) and the swap region)")
                                      .c_str());
  }
  const uint64_t ready_ps = now_ps + delay.value();
  return (ready_ps + period_ps_ - 1) / period_ps_;  // first core cycle at or after the data is back
}

}  // namespace smshare
