#include "hw/sm/sm_module.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "hw/common/error.hpp"
#include "hw/mem/memory_request_extension.hpp"
#include "hw/mem/ps_time.hpp"
#include "hw/sm/bank_arbitrator_module.hpp"
#include "hw/sm/instruction_cache_module.hpp"
#include "hw/sm/l1_data_cache_module.hpp"
#include "hw/sm/operand_collectors_module.hpp"
#include "hw/sm/register_file_module.hpp"
#include "hw/sm/scheduler_module.hpp"
#include "hw/sm/scratchpad_module.hpp"

namespace smshare {

using sc_core::sc_time;

SmModule::SmModule(sc_core::sc_module_name name, uint32_t sm_id, const GpuSpec& gpu,
                   const MechanismModuleFactory& make_mechanism_modules, std::optional<SmSlots> slots)
    : sc_module(name),
      socket("socket"),
      sm_id_(sm_id),
      period_ps_(gpu.core_period_ps()),
      core_(std::make_unique<SmCore>(sm_id, gpu, static_cast<GlobalMemoryPort&>(*this),
                                     slots.value_or(physical_slots(gpu.sm)))) {
  // What every request has in common is set once: transport() fills in
  // only what changes (the SM's transactions carry no data: timing only).
  payload_.set_data_ptr(nullptr);
  payload_.set_streaming_width(0);
  payload_.set_byte_enable_ptr(nullptr);
  payload_.set_dmi_allowed(false);
  request_ = new MemoryRequestExtension;
  payload_.set_extension(request_);  // owned (and freed) by the payload
  // The mechanism's structures first: the hierarchy listing and the
  // waveform's save file follow creation order, and in a run with a
  // mechanism its locks and tables are what one opens the waveform for.
  if (make_mechanism_modules) mechanism_modules_ = make_mechanism_modules(sm_id);
  add_structures();
}

void SmModule::begin_kernel(KernelSource& kernel, Mechanism mechanism, CtaDispatcher& dispatcher) {
  // The previous kernel's instance dies in core_->begin_kernel: its counters
  // are read first.
  for (const auto& m : mechanism_modules_) m->retire();
  core_->begin_kernel(kernel, std::move(mechanism), dispatcher);
  for (const auto& m : mechanism_modules_) m->bind(core_->mechanism());
}

void SmModule::add_structures() {
  const SmCore& core = *core_;
  structures_.push_back(std::make_unique<RegisterFileModule>("register_file", core.register_file(), sm_id_));
  structures_.push_back(std::make_unique<BankArbitratorModule>("bank_arbitrator", core.bank_arbitrator(), sm_id_));
  structures_.push_back(
      std::make_unique<OperandCollectorsModule>("operand_collectors", core.operand_collectors(), sm_id_));
  structures_.push_back(std::make_unique<ScratchpadModule>("scratchpad", core.scratchpad(), sm_id_));
  structures_.push_back(std::make_unique<L1DataCacheModule>("l1d", core.l1d(), sm_id_));
  if (core.icache().present())
    structures_.push_back(std::make_unique<InstructionCacheModule>("icache", core.icache(), sm_id_));
  for (uint32_t s = 0; s < core.num_schedulers(); ++s)
    structures_.push_back(std::make_unique<SchedulerModule>(("scheduler" + std::to_string(s)).c_str(),
                                                            core.scheduler(s), core.scheduler_probes(s), sm_id_));
}

namespace {

// GTKWave shows stall_reason by name through this translate filter.
const WaveEnum& stall_reason_names() {
  static const WaveEnum names = [] {
    WaveEnum e{"stall_reason", {}};
    for (unsigned r = 0; r < kNumStallReasons; ++r) e.values.push_back({r, to_string(static_cast<StallReason>(r))});
    return e;
  }();
  return names;
}

}  // namespace

void SmModule::trace(Waveform& wave) {
  const std::string p = std::string(name()) + ".";
  core_->set_probes_traced();
  const SmProbes& probes = core_->probes();
  wave.add(p + "issued_count", probes.issued_count);
  wave.add(p + "stall_reason", probes.stall_reason, 32, &stall_reason_names());
  wave.add(p + "active_warps", probes.active_warps);
  wave.add(p + "schedulable_warps", probes.schedulable_warps);
  wave.add(p + "resident_ctas", probes.resident_ctas);
  wave.add(p + "pending_loads", probes.pending_loads);
}

uint64_t SmModule::memory_response(uint64_t token, uint64_t done_ps) {
  return core_->memory_response(token, (done_ps + period_ps_ - 1) / period_ps_);
}

uint64_t SmModule::access(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle, uint64_t token) {
  if (!turn_) return transport(line_addr, chunks, is_write, cycle, token);
  return access_in_turn(line_addr, chunks, is_write, cycle, token, /*may_answer_later=*/false);
}

uint64_t SmModule::access_or_later(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle,
                                   uint64_t token) {
  // Ticked on the main thread alone (the usual run): straight to the socket,
  // as access() would go.
  if (!turn_) return transport(line_addr, chunks, is_write, cycle, token);
  return access_in_turn(line_addr, chunks, is_write, cycle, token, /*may_answer_later=*/true);
}

uint64_t SmModule::access_in_turn(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle,
                                  uint64_t token, bool may_answer_later) {
  if (may_answer_later && turn_->answers_later()) {
    later_requests_.push_back({line_addr, chunks, is_write, cycle, token});
    return kLater;
  }
  uint64_t ready = 0;
  auto call = [&] { ready = transport(line_addr, chunks, is_write, cycle, token); };
  turn_->on_main_thread(sm_id_, call);
  return ready;
}

void SmModule::book_later_requests() {
  for (; later_booked_ < later_requests_.size(); ++later_booked_) {
    const LaterRequest& r = later_requests_[later_booked_];
    later_answers_.push_back(transport(r.line_addr, r.chunks, r.is_write, r.cycle, r.token));
  }
}

uint64_t SmModule::apply_later_answers() {
  if (later_requests_.empty()) return SmCore::kNever;
  if (later_booked_ != later_requests_.size())
    throw std::logic_error(std::string(name()) + ": answers applied before every later request was booked");
  const uint64_t wake = core_->apply_later_answers(later_answers_.data(), later_answers_.size());
  later_requests_.clear();
  later_answers_.clear();
  later_booked_ = 0;
  return wake;
}

uint64_t SmModule::transport(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle, uint64_t token) {
  payload_.set_command(is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  payload_.set_address(line_addr);
  payload_.set_data_length(chunks.bytes());  // the bytes moved; the extension says which
  request_->chunks = chunks;
  request_->token = token;
  payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  // sc_time_stamp() through the module's own context: inline, where the free
  // function is a library call that looks the context up.
  const uint64_t now_ps = simcontext()->time_stamp().value();
  const uint64_t issue_ps = cycle * period_ps_;
  sc_time delay = ps_time(issue_ps > now_ps ? issue_ps - now_ps : 0, resolution_);
  socket->b_transport(payload_, delay);
  if (payload_.is_response_error()) report_failed_access(line_addr, cycle);
  if (request_->deferred) return GlobalMemoryPort::kDeferred;
  const uint64_t ready_ps = now_ps + delay.value();
  return (ready_ps + period_ps_ - 1) / period_ps_;  // first core cycle at or after the data is back
}

void SmModule::report_failed_access(uint64_t line_addr, uint64_t cycle) const {
  // The cycle is named: SystemC's "@ time" in the report is the clock's
  // activation, up to GpuModule::kCyclesAhead cycles earlier.
  SC_REPORT_ERROR("smshare/sm", (std::string(name()) + ": memory access to " + hex(line_addr) + " in cycle " +
                                 std::to_string(cycle) + " failed: " + payload_.get_response_string() +
                                 " (outside global memory [0, dram.swap_base) and the swap region)")
                                    .c_str());
}

}  // namespace smshare
