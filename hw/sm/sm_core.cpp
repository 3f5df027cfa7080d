#include "hw/sm/sm_core.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "hw/sm/memory_access.hpp"

namespace smshare {

const char* to_string(StallReason r) {
  switch (r) {
    case StallReason::None: return "none";
    case StallReason::NoWarp: return "no_warp";
    case StallReason::Drain: return "drain";
    case StallReason::Fetch: return "fetch";
    case StallReason::Barrier: return "barrier";
    case StallReason::Scoreboard: return "scoreboard";
    case StallReason::Gate: return "gate";
    case StallReason::Pipeline: return "pipeline";
  }
  return "unknown";
}

// 128 bytes (a static_assert in the constructor), so that warps_[slot] is
// a shift: at 160 it took two host instructions an index, in tick() and
// issue_from() among others. The small fields share the first eight bytes
// and the word after the instruction buffer's head: the buffer is an
// array of sm.ibuffer_entries (at most 16: gpu_config.cpp), so its count
// and size fit a byte each.
struct SmCore::Warp {
  bool valid = false;
  bool stream_done = false;  // the program has no more instructions
  bool exhausted = false;    // ... and every instruction has issued: it can reach no more barriers
  bool at_barrier = false;
  bool gate_refused = false;                  // the gate refused it last cycle (shown to the policy once)
  bool counted = false;                       // included in its scheduler's wait_count
  uint8_t need = 0;                           // while ready: its ready_need entry (pipeline_need of the head)
  StallReason wait = StallReason::NoWarp;     // cached blocking_reason()
  // The slot's scheduler (slot mod sm.num_schedulers) and place in its warp
  // list (slot / sm.num_schedulers), fixed for the SM's life: refresh() and
  // the round-robin walk read them instead of dividing (a division by the
  // run's scheduler count per refresh and turn).
  uint32_t scheduler = 0;
  uint32_t list_position = 0;
  WarpContext ctx;
  std::unique_ptr<WarpProgram> program;
  // The instruction buffer (sm.ibuffer_entries; the SM's ibuffers_ hold
  // every warp's): fetch refills it only once it is empty, from its first
  // entry, so it is a plain array issue consumes from the head on (no wrap
  // around). The head is kept as a pointer, not an index: an instruction is
  // 288 bytes, so an index took a multiply at every head() and pop().
  WarpInstruction* ib_head = nullptr;
  uint8_t ib_count = 0;
  uint8_t ib_entries = 0;  // sm.ibuffer_entries, beside the indices fetch compares it with
  // Mechanism::wide_warps: whether it is the upper half of its wide warp
  // (other_half below).
  bool upper = false;
  uint32_t in_flight = 0;                    // issued, not yet written back
  // First cycle issue may see the buffered fetch group: the instruction
  // cache's hit latency after its read; kNever while its line is being
  // filled (GPGPU-Sim's imiss_pending). 0 without an instruction cache.
  uint64_t ib_visible = 0;
  std::bitset<kMaxArchRegs> pending_writes;  // the scoreboard
  uint32_t pending_loads = 0;                // global loads in flight (long latency)
  // Mechanism::wide_warps: the slot of the other half of its wide warp
  // (kNoHalf: none).
  static constexpr uint32_t kNoHalf = ~0u;
  uint32_t other_half = kNoHalf;
  // The lower half of a wide warp (its upper half, if still the same pair,
  // issues with it: issue_upper_half()).
  bool may_lead_upper_half() const { return !upper && other_half != kNoHalf; }
  uint64_t issued = 0;  // instructions issued (a wide warp's halves are in step when equal)

  const WarpInstruction& head() const { return *ib_head; }
  void pop() {
    ++ib_head;
    --ib_count;
  }
};

struct SmCore::Cta {
  bool valid = false;
  uint32_t cta_id = 0;
  CtaAllocation alloc;
  std::vector<uint32_t> warp_slots;
  uint32_t live_warps = 0;       // not yet retired
  uint32_t streams_ended = 0;    // live warps whose instruction stream has ended (may_take_a_cta())
  uint32_t may_arrive = 0;       // warps that can still reach a barrier (not exhausted)
  uint32_t arrived = 0;          // warps waiting at the current barrier
  bool release_pending = false;  // every warp arrived: opens at the start of the next cycle
};

void SmStats::add(const SmStats& o) {
  active_cycles += o.active_cycles;
  issue_cycles += o.issue_cycles;
  stall_cycles += o.stall_cycles;
  idle_cycles += o.idle_cycles;
  empty_cycles += o.empty_cycles;
  for (unsigned r = 0; r < kNumStallReasons; ++r) reason_cycles[r] += o.reason_cycles[r];
  warp_instructions += o.warp_instructions;
  thread_instructions += o.thread_instructions;
  for (unsigned i = 0; i < kNumOpClasses; ++i) op_counts[i] += o.op_counts[i];
  for (unsigned i = 0; i < kNumOpClasses; ++i) thread_op_counts[i] += o.thread_op_counts[i];
  ctas_completed += o.ctas_completed;
  max_resident_ctas = std::max(max_resident_ctas, o.max_resident_ctas);
  max_resident_warps = std::max(max_resident_warps, o.max_resident_warps);
  resident_cta_cycles += o.resident_cta_cycles;
  resident_warp_cycles += o.resident_warp_cycles;
  rf_allocated_cycles += o.rf_allocated_cycles;
  smem_allocated_cycles += o.smem_allocated_cycles;
  rf_bank_reads.resize(std::max(rf_bank_reads.size(), o.rf_bank_reads.size()), 0);
  rf_bank_writes.resize(std::max(rf_bank_writes.size(), o.rf_bank_writes.size()), 0);
  for (size_t b = 0; b < o.rf_bank_reads.size(); ++b) rf_bank_reads[b] += o.rf_bank_reads[b];
  for (size_t b = 0; b < o.rf_bank_writes.size(); ++b) rf_bank_writes[b] += o.rf_bank_writes[b];
  rf_bank_conflicts += o.rf_bank_conflicts;
  route_retries += o.route_retries;
  smem_accesses += o.smem_accesses;
  smem_conflict_cycles += o.smem_conflict_cycles;
  l1_hits += o.l1_hits;
  l1_misses += o.l1_misses;
  l1_fills += o.l1_fills;
  l1_pending_hits += o.l1_pending_hits;
  icache_hits += o.icache_hits;
  icache_misses += o.icache_misses;
  icache_fills += o.icache_fills;
  icache_pending_hits += o.icache_pending_hits;
  l1_sector_misses += o.l1_sector_misses;
  l1_mshr_stall_cycles += o.l1_mshr_stall_cycles;
  global_transactions += o.global_transactions;
  global_load_lines += o.global_load_lines;
  global_store_lines += o.global_store_lines;
  barriers += o.barriers;
  last_cycle = std::max(last_cycle, o.last_cycle);
}

namespace {
// The LDST unit's transactions are lines (and sectors) of the L1, or of the
// L2 when there is no L1.
const CacheSpec* l1_if_present(const GpuSpec& gpu) { return gpu.l1.size_bytes ? &gpu.l1 : nullptr; }
uint32_t request_line_bytes(const GpuSpec& gpu) {
  return l1_if_present(gpu) ? gpu.l1.line_bytes : gpu.l2.line_bytes;
}
uint32_t request_sector_bytes(const GpuSpec& gpu) {
  const uint32_t sector = l1_if_present(gpu) ? gpu.l1.sector_bytes : gpu.l2.sector_bytes;
  return sector ? sector : request_line_bytes(gpu);  // 0: not sectored, the whole line
}
}  // namespace

SmCore::SmCore(uint32_t sm_id, const GpuSpec& gpu, GlobalMemoryPort& memory)
    : SmCore(sm_id, gpu, memory, physical_slots(gpu.sm)) {}

SmCore::SmCore(uint32_t sm_id, const GpuSpec& gpu, GlobalMemoryPort& memory, SmSlots slots)
    : sm_id_(sm_id),
      gpu_(gpu),
      spec_(gpu.sm),
      slots_(slots),
      memory_(memory),
      pipelined_(spec_.pipeline_registers),
      first_scheduler_mask_(pipelined_ && is_power_of_two(spec_.num_schedulers) ? spec_.num_schedulers - 1 : 0),
      first_scheduler_by_division_(pipelined_ && !is_power_of_two(spec_.num_schedulers)),
      // GPGPU-Sim: a result enters EX_WB (an ALU's) or the LDST unit's
      // writeback register m_next_wb the cycle after it is ready, and the
      // writeback stage of the next cycle writes it.
      result_to_writeback_(spec_.pipeline_registers ? 2 : 0),
      num_schedulers_(spec_.num_schedulers),
      fetch_per_cycle_(spec_.fetch_per_cycle),
      warps_(slots.warps),
      ctas_(slots.ctas),
      line_bytes_(request_line_bytes(gpu)),
      line_chunks_(ChunkMask::line(line_bytes_)),
      to_sectors_(request_sector_bytes(gpu) / ChunkMask::kChunkBytes),
      arbitrator_(spec_.register_banks, spec_.scratchpad_banks, spec_.register_bank_ports),
      collectors_(spec_),
      scratchpad_(spec_, arbitrator_),
      l1d_(gpu.l1),
      icache_(gpu.icache) {
  answers_later_ok_ = spec_.ldst_transactions_per_cycle == 1 && spec_.fetch_per_cycle == 1;
  for (unsigned op = 0; op < kNumOpClasses; ++op) unit_timings_[op] = &timing_rule(spec_, static_cast<OpClass>(op));
  static_assert(sizeof(Warp) == 128, "a power of two: an index into warps_ is a shift");
  ibuffers_ = std::make_unique<WarpInstruction[]>(warps_.size() * spec_.ibuffer_entries);
  for (uint32_t slot = 0; slot < warps_.size(); ++slot) {
    Warp& w = warps_[slot];
    w.ib_head = ibuffer_of(slot);
    w.ib_entries = static_cast<uint8_t>(spec_.ibuffer_entries);
    w.scheduler = slot % spec_.num_schedulers;
    w.list_position = slot / spec_.num_schedulers;
  }
  decoding_.ring.resize(warps_.size());
  fetch_wanted_slots_ = bit_words(static_cast<uint32_t>(warps_.size()));
  unit_next_free_[static_cast<int>(ExecUnit::Sp)].assign(spec_.sp_units, 0);
  unit_next_free_[static_cast<int>(ExecUnit::Sfu)].assign(spec_.sfu_units, 0);
  unit_next_free_[static_cast<int>(ExecUnit::Mem)].assign(spec_.ldst_units, 0);
  if (pipelined_) {
    uint32_t longest_latency = 0;  // of any instruction (an SP or SFU pipeline's is at most this)
    for (const UnitTiming* t : unit_timings_) longest_latency = std::max(longest_latency, t->latency);
    for (unsigned u = 0; u < kNumExecUnits; ++u) {
      const auto width = static_cast<uint32_t>(unit_next_free_[u].size());
      id_oc_[u] = FifoPipelineRegister<IssuedInstruction>(width);
      oc_ex_[u] = PipelineRegister<OperandCollectors::CollectorUnit>(width);
      if (static_cast<ExecUnit>(u) != ExecUnit::Mem) result_cycles_[u].assign(width, ResultCycles(longest_latency));
    }
  }
  for (uint32_t s = 0; s < spec_.num_schedulers; ++s) {
    schedulers_.push_back(make_scheduler_policy(spec_.scheduler, spec_.two_level_active_warps));
    SchedulerWarps& list = sched_warps_.emplace_back();
    for (uint32_t slot = s; slot < slots_.warps; slot += spec_.num_schedulers) {
      WarpView v;
      v.slot = slot;
      list.views.push_back(v);
    }
    list.size = static_cast<uint32_t>(list.views.size());
    list.ready_bits = bit_words(list.size);
    list.round_robin = schedulers_.back()->round_robin();
  }
  scheduler_probes_.resize(spec_.num_schedulers);
  stateless_orders_ = std::all_of(schedulers_.begin(), schedulers_.end(),
                                  [](const auto& policy) { return policy->stateless_order(); });
  views_read_ = !std::all_of(sched_warps_.begin(), sched_warps_.end(),
                             [](const SchedulerWarps& list) { return list.round_robin; });
}

SmCore::~SmCore() = default;

void SmCore::begin_kernel(KernelSource& kernel, Mechanism mechanism, CtaDispatcher& dispatcher) {
  if (resident_ctas_ != 0 || !completions_.empty() || ldst_busy_ || reads_in_flight_ != 0 || ctas_near_end_ != 0)
    throw std::logic_error("SmCore::begin_kernel: the previous kernel has not drained");
  kernel_ = &kernel;
  settle_residency();  // the allocation's tracking may change with the mechanism
  mechanism_ = std::move(mechanism);
  allocation_tracked_ = mechanism_.admission->allocation_changes_only_on_admit_and_release();
  track_allocation();
  arbitrator_.set_banks(BankGroup::OperandCache, mechanism_.operand_cache_banks);
  collectors_.set_home_split(mechanism_.own_collector_units);
  mechanism_.hooks->bind(arbitrator_);
  mechanism_.hooks->bind_memory(*this);
  // Each kernel starts with a cold L1 (GPGPU-Sim flushes it at kernel
  // launch); the L2 keeps its contents across kernels.
  l1d_.flush();
  icache_.flush();
  // The SM slept since its last kernel drained: that time is nobody's
  // cycle (not active, not empty).
  last_ticked_ = kNotTicked;
  dispatcher_ = &dispatcher;
  hook_wake_ = mechanism_.hooks->next_wake();
  priority_epoch_ = mechanism_.hooks->priority_epoch();
  inert_gate_ = mechanism_.gate->inert();
  skip_full_schedulers_ = stateless_orders_ && inert_gate_;
  plain_issue_ = pipelined_ && inert_gate_ && !views_read_ && !spec_.dual_issue;
  for (auto& policy : schedulers_) policy->kernel_started();
  for (uint32_t slot = 0; slot < warps_.size(); ++slot) update_view(slot);
}

bool SmCore::launch_one_cta() {
  if (dispatcher_ == nullptr) return false;
  uint32_t cta_slot = 0;
  while (cta_slot < ctas_.size() && ctas_[cta_slot].valid) ++cta_slot;
  if (cta_slot == ctas_.size()) return false;
  const uint32_t warps_needed = kernel_->resources().warps_per_cta(spec_.warp_size);
  if (resident_warps_ + warps_needed > slots_.warps) return false;
  if (turn_) turn_->await(sm_id_);  // the dispatcher deals CTAs to SMs in SM order within a cycle
  if (!dispatcher_->has_next()) return false;
  CtaAllocation alloc;
  settle_residency();
  if (!mechanism_.admission->try_admit(cta_slot, alloc)) return false;
  track_allocation();

  Cta& cta = ctas_[cta_slot];
  cta.valid = true;
  cta.cta_id = dispatcher_->take();
  cta.alloc = alloc;
  cta.warp_slots.clear();
  cta.arrived = 0;
  cta.release_pending = false;
  for (uint32_t w = 0, first_free = 0; w < warps_needed; ++w) {
    while (warps_[first_free].valid) ++first_free;  // free slots exist: checked against the warp slots above
    uint32_t slot = first_free;
    // A wide warp's upper half takes a slot of its lower half's scheduler,
    // which issues the wide warp (when one is free; else the two run as
    // separate warps).
    if (mechanism_.wide_warps && (w & 1))
      for (uint32_t s = cta.warp_slots[w - 1] % spec_.num_schedulers; s < warps_.size(); s += spec_.num_schedulers)
        if (!warps_[s].valid) {
          slot = s;
          break;
        }
    Warp& warp = warps_[slot];
    warp.valid = true;
    warp.stream_done = false;
    warp.exhausted = false;
    if (warp.gate_refused) {  // left by the slot's previous warp
      warp.gate_refused = false;
      --sched_warps_[warp.scheduler].gate_refused;
    }
    warp.at_barrier = false;
    warp.ctx = {slot, cta_slot, w, next_age_++, alloc.home};
    warp.ctx.home = mechanism_.route->home(warp.ctx);
    warp.other_half = Warp::kNoHalf;
    warp.upper = false;
    warp.issued = 0;
    warp.program = mechanism_.hooks->decode(warp.ctx, kernel_->warp_program(cta.cta_id, w));
    warp.ib_head = ibuffer_of(slot);
    warp.ib_count = 0;
    warp.ib_visible = 0;
    warp.pending_writes.reset();
    warp.in_flight = warp.pending_loads = 0;
    cta.warp_slots.push_back(slot);
    set_fetch_wanted(slot, true);
    refresh(slot);
  }
  if (mechanism_.wide_warps)
    for (uint32_t w = 0; w + 1 < warps_needed; w += 2) {
      const uint32_t lower = cta.warp_slots[w], upper = cta.warp_slots[w + 1];
      if (lower % spec_.num_schedulers != upper % spec_.num_schedulers) continue;
      warps_[lower].other_half = upper;
      warps_[upper].other_half = lower;
      warps_[upper].upper = true;
    }
  cta.live_warps = cta.may_arrive = warps_needed;
  cta.streams_ended = 0;
  ctas_near_end_ += warps_needed <= 1;
  ++resident_ctas_;
  resident_warps_ += warps_needed;
  stats_.max_resident_ctas = std::max<uint64_t>(stats_.max_resident_ctas, resident_ctas_);
  stats_.max_resident_warps = std::max<uint64_t>(stats_.max_resident_warps, resident_warps_);
  progress_ = true;
  return true;
}

void SmCore::account_gap(uint64_t cycles) {
  // Cycles skipped since the last tick behave like the last ticked cycle:
  // nothing progressed, so the same warps waited for the same reason.
  if (cycles == 0) return;
  if (resident_warps_ == 0) {
    stats_.empty_cycles += cycles;
  } else {
    if (last_reason_ == StallReason::Pipeline) stats_.stall_cycles += cycles;
    else stats_.idle_cycles += cycles;
    if (last_waited_on_memory_) {
      memory_wait_cycles_ += cycles;
      if (last_reason_ != StallReason::Pipeline) memory_wait_idle_cycles_ += cycles;
    }
    stats_.reason_cycles[static_cast<int>(last_reason_)] += cycles;
    accumulate_residency(cycles);
    stats_.route_retries += cycles * route_retries_this_cycle_;
  }
}

void SmCore::accumulate_residency(uint64_t cycles) {
  stats_.active_cycles += cycles;
  if (allocation_tracked_) return;
  stats_.rf_allocated_cycles += cycles * mechanism_.admission->registers_allocated();
  stats_.smem_allocated_cycles += cycles * mechanism_.admission->smem_allocated();
}

void SmCore::settle_residency() {
  add_residency(stats_, stats_.active_cycles - residency_settled_at_);
  residency_settled_at_ = stats_.active_cycles;
}

void SmCore::add_residency(SmStats& s, uint64_t cycles) const {
  s.resident_cta_cycles += cycles * resident_ctas_;
  s.resident_warp_cycles += cycles * resident_warps_;
  if (!allocation_tracked_) return;
  s.rf_allocated_cycles += cycles * registers_allocated_;
  s.smem_allocated_cycles += cycles * smem_allocated_;
}

void SmCore::track_allocation() {
  if (!allocation_tracked_) return;
  registers_allocated_ = mechanism_.admission->registers_allocated();
  smem_allocated_ = mechanism_.admission->smem_allocated();
}

uint64_t SmCore::tick(uint64_t cycle) {
  if (cycle > last_ticked_ + 1) account_gap(cycle - last_ticked_ - 1);
  last_ticked_ = cycle;
  now_ = cycle;
  progress_ = false;
  wake_hint_ = kNever;
  if (probes_traced_) {
    arbitrator_.begin_cycle(cycle);
    scratchpad_.begin_cycle();
    l1d_.begin_cycle();
    icache_.begin_cycle();
  }
  route_retries_this_cycle_ = 0;
  refusal_shown_ = false;
  probes_.issued_count = 0;

  const bool had_warps = resident_warps_ > 0;
  counts_as_active_ = had_warps;
  if (!inert_gate_) mechanism_.hooks->begin_cycle(cycle);
  if (cycle >= hook_wake_) {
    // A mechanism's kernel-wide state is read and written here only (KernelSharedState).
    if (turn_ && mechanism_.shared_state) turn_->await(sm_id_);
    mechanism_.hooks->at_wake(cycle,
                              {stats_.idle_cycles, stats_.stall_cycles, memory_wait_cycles_, memory_wait_idle_cycles_});
    hook_wake_ = mechanism_.hooks->next_wake();
  }
  open_barriers();
  if (completions_.may_be_due(cycle)) writeback();
  ldst_step();
  if (pipelined_) {
    execute();
    collect_operands();
  } else {
    dispatch();
    read_operands();
  }
  if (views_read_ && mechanism_.hooks->priority_epoch() != priority_epoch_) {
    // The mechanism reassigned priority classes (e.g. CTA ownership passed);
    // only an order() reads them (a virtual call a tick saved otherwise).
    priority_epoch_ = mechanism_.hooks->priority_epoch();
    for (uint32_t slot = 0; slot < warps_.size(); ++slot) update_view(slot);
  }
  decode();
  issue();
  fetch();
  // Issue and fetch may have given the mechanism work that waits on time
  // (EXPARS: a warp queued for its registers): ask again when it is due.
  if (!inert_gate_) hook_wake_ = mechanism_.hooks->next_wake();

  if (had_warps) {
    accumulate_residency(1);
    stats_.last_cycle = cycle;
  }
  probes_.resident_ctas = resident_ctas_;
  probes_.active_warps = resident_warps_;

  if (!has_tick_work()) return kNever;
  if (progress_) {
    refusal_only_cycles_ = 0;
    return cycle + 1;
  }
  if (!completions_.empty()) note_wake(completions_.top_cycle());
  note_wake(decoding_.first_visible);
  note_wake(fill_waits_.first_ready);
  const bool time_wait = mechanism_.hooks->waits_on_time(cycle);
  const bool hook_wait = hook_wake_ != kNever && mechanism_.hooks->wake_ends_a_wait();
  if (wake_hint_ == kNever && !time_wait && !hook_wait && reads_in_flight_ == 0 && later_.empty()) {
    // A policy that keeps state (two-level, LTLWS) demotes a warp whose
    // refusal it was shown and takes it back in a later order, and sees a
    // refusal of this cycle only in the next: its next order may try a
    // warp the gate lets through. Run that cycle first; a bounded number of
    // times, so that warps the gate refuses for good still end in a deadlock.
    if (!stateless_orders_ && (refusal_shown_ || refusals_unseen()) && refusal_only_cycles_++ < 2 * slots_.warps)
      return cycle + 1;
    // Warps are resident, nothing moved, and nothing is due: no future
    // event can change that (e.g. a barrier or lock that can never open).
    // Checked with tracing on too: a waveform run must stop the same way.
    deadlocked_ = true;
    return kNever;
  }
  if (cycle_by_cycle_) return cycle + 1;
  if (time_wait) note_wake(cycle + 1);  // a probability draw may differ next cycle
  note_wake(hook_wake_);                // the mechanism's time-based state updates on time
  return wake_hint_ == kNever ? kAwaitMemory : wake_hint_;  // a deferred read is still to come
}

// --- writeback: results due this cycle write their registers and clear the scoreboard.
void SmCore::writeback() {
  // As for operand reads (OperandCollectors::read): the baseline's route,
  // interleaved over banks that all exist in the register file (which holds
  // no claim), is compiled into the loop with its answers known (never a
  // retry, always the register file); any other route is asked per
  // destination.
  // The baseline's inert gate, whose hook is never called, is compiled in
  // with it.
  const uint32_t banks = mechanism_.route->interleaved_banks_within(arbitrator_.unclaimed_register_banks());
  const auto interleaved = [banks](const WarpContext& w, uint16_t reg) {
    return RegisterRoute::interleaved_bank(w, reg, banks);
  };
  if (banks != 0 && inert_gate_)
    write_results<true, true>(interleaved);
  else if (banks != 0)
    write_results<true, false>(interleaved);
  else
    write_results<false, false>(
        [this](const WarpContext& w, uint16_t reg) { return mechanism_.route->route_of(w, reg, true, now_); });
}

template <bool kInterleaved, bool kInertGate, class RouteOf>
void SmCore::write_results(RouteOf route_of) {
  // Taken in one batch: what the loop pushes (a retry) is due next cycle.
  const auto due = completions_.take_due(now_);
  // The cycle and each completion's destination count in locals: the bank
  // and scoreboard stores below could alias them for all the compiler
  // knows, and it reloaded both at every register written.
  const uint64_t now = now_;
  for (Completion& c : due) {
    Warp& warp = warps_[c.warp];
    const uint8_t num_dst = c.num_dst;
    // Each destination needs its bank's one write port this cycle: the ones
    // that get it are written; the rest (a busy bank, a route that says
    // wait) try again next cycle.
    uint8_t written = 0;
    for (; written < num_dst; ++written) {
      const uint16_t reg = c.dst[written];
      if constexpr (kInterleaved) {
        // route_of() gives the bank itself (the route never retries).
        if (!arbitrator_.request_register_file(route_of(warp.ctx, reg), /*is_write=*/true, now)) break;
      } else {
        const OperandRoute r = route_of(warp.ctx, reg);
        if (r.retry) {
          stats_.route_retries++;
          break;
        }
        if (!arbitrator_.request(r.group, r.bank, /*is_write=*/true, now)) break;
      }
      // As issue set it: a destination is below kMaxArchRegs (reset()'s
      // range check is not needed).
      warp.pending_writes[reg] = false;
      if (!kInertGate && !inert_gate_) mechanism_.hooks->register_written(warp.ctx, reg);
    }
    if (written < num_dst) {
      // Part of the result is written: the warp may be ready now (when all
      // of it is, the refresh below covers everything at once).
      if (written > 0) {
        progress_ = true;
        refresh(c.warp);
      }
      for (uint8_t i = written; i < num_dst; ++i) c.dst[i - written] = c.dst[i];
      c.num_dst = static_cast<uint8_t>(num_dst - written);
      c.cycle = now + 1;
      c.seq = completion_seq_++;
      completions_.push(c);
      continue;
    }
    if (c.long_latency) {
      --warp.pending_loads;
      --probes_.pending_loads;
    }
    --warp.in_flight;
    progress_ = true;
    // A written result changes only the scoreboard (and, for a load, the
    // views' pending loads): clearing its bits creates no hazard, and a warp
    // held by anything else is held as before (a fetch group that became
    // visible this cycle is refreshed by decode() later in this tick). So
    // only a warp that waited on the scoreboard needs a refresh, and one
    // whose Drain this refresh has always been the first to see (its last
    // issue refreshed it before note_if_exhausted marked it exhausted).
    const bool drain_unseen = warp.wait == StallReason::Fetch && warp.exhausted;
    if (warp.wait == StallReason::Scoreboard) refresh<RefreshAfter::ScoreboardWrite>(c.warp);
    else if (drain_unseen) refresh(c.warp);
    else if (c.long_latency) update_view(c.warp);
    maybe_retire</*kValid=*/true>(c.warp);  // it had this result in flight
  }
}

// Pinned inline, as the calendar's push() is (its far path a call): GCC's
// inliner otherwise makes this a call from SmCore::tick's stages, a
// completion each instruction, at nearly any edit of push().
[[gnu::always_inline]] inline void SmCore::schedule_completion(uint32_t warp, const WarpInstruction& inst,
                                                               uint64_t cycle, bool long_latency) {
  schedule_completion<true>(warp, inst, cycle, long_latency, completion_seq_++);
}

template <bool kSeqOrder>
[[gnu::always_inline]] inline void SmCore::schedule_completion(uint32_t warp, const WarpInstruction& inst,
                                                               uint64_t cycle, bool long_latency, uint64_t seq) {
  Completion c{cycle + result_to_writeback_, seq, warp, {kNoReg, kNoReg}, 0, long_latency};
  for (uint8_t i = 0; i < inst.num_dst; ++i)
    if (inst.dst[i] != kNoReg) c.dst[c.num_dst++] = inst.dst[i];
  if constexpr (kSeqOrder) completions_.push(c);
  else completions_.push_out_of_seq_order(c);
}

// --- LDST: scratchpad accesses and global line transactions.
void SmCore::start_ldst(const OperandCollectors::CollectorUnit& c) {
  const WarpInstruction& inst = c.inst;
  if (is_shared_memory(inst.op)) {
    const Scratchpad::Timing t = scratchpad_.access(inst, now_);
    unit_next_free_[static_cast<int>(ExecUnit::Mem)][0] = t.unit_free;
    schedule_completion(c.warp.slot, inst, t.data_ready, false);
    return;
  }
  ldst_busy_ = true;
  ldst_.warp = c.warp.slot;
  // The lane addresses are coalesced here, from the collector's copy, and
  // never read again: the 256 bytes of them stay behind (copying them was
  // 40 host instructions a global access).
  copy_without_addresses(ldst_.inst, inst);
  ldst_.next_line = 0;
  ldst_.data_ready = now_;
  ldst_.undecided.clear();
  coalesce(inst, line_bytes_, ldst_.lines);
  if (is_load(inst.op)) {
    warps_[c.warp.slot].pending_loads++;
    ++probes_.pending_loads;
    update_view(c.warp.slot);
  }
}

void SmCore::ldst_step() {
  if (!ldst_busy_) return;
  if (now_ < ldst_.mshr_wait_until) {
    // Nothing else can free an L1 MSHR (kNever: a deferred fill's decision will).
    if (ldst_.mshr_wait_until != kNever) note_wake(ldst_.mshr_wait_until);
    return;
  }
  progress_ = true;
  const WarpInstruction& inst = ldst_.inst;
  const bool load = is_load(inst.op);
  for (uint32_t n = 0; n < spec_.ldst_transactions_per_cycle && ldst_.next_line < ldst_.lines.size(); ++n) {
    const LineAccess& access = ldst_.lines[ldst_.next_line];
    const uint64_t line = access.line;
    // Whole sectors of what the lanes touch (the whole line when not sectored).
    const ChunkMask sectors = to_sectors_(access.chunks) & line_chunks_;
    L1DataCache::Lookup l1{};
    if (load) {
      // A miss finding every L1 MSHR held waits, with the rest of the
      // instruction, until one is released (the LDST unit stalls).
      const uint64_t accept = l1d_.load_if_accepted(line, sectors, now_, l1, &ldst_.undecided);
      if (accept > now_) {
        // The stall is counted when it ends (a deferred fill's decision can end it sooner than known now).
        if (ldst_.mshr_stall_from == kNever) ldst_.mshr_stall_from = now_;
        ldst_.mshr_wait_until = accept;  // kNever (SlotPool::kUndecided): until a deferred fill is decided
        if (accept != SlotPool::kUndecided) note_wake(accept);
        return;
      }
      if (ldst_.mshr_stall_from != kNever) {
        stats_.l1_mshr_stall_cycles += now_ - ldst_.mshr_stall_from;
        ldst_.mshr_stall_from = kNever;
      }
    }
    ++ldst_.next_line;
    stats_.global_transactions++;
    if (load) {
      stats_.global_load_lines++;
      ldst_.data_ready = std::max(ldst_.data_ready, l1.ready);
      if (l1.hit) continue;
      // One request for the line's missing sectors.
      const uint32_t token = take_read_token();
      const uint64_t answer = access_memory(line, l1.missing, false, token);
      if (answer == GlobalMemoryPort::kLater) {
        later_.push_back({LaterAnswer::Use::LoadLine, token, 0, line, l1.missing, 0});
        ++ldst_.later_lines;
        continue;
      }
      load_line_answered(token, line, l1.missing, answer, ldst_.data_ready, ldst_.undecided);
    } else {
      // Fermi's L1 is write-evict for global stores: stores go to L2.
      stats_.global_store_lines++;
      l1d_.store(line);
      // A write is never deferred, and nothing waits for its acknowledgement.
      if (access_memory(line, sectors, true, 0) == GlobalMemoryPort::kLater) later_.push_back({});
    }
  }
  if (ldst_.next_line < ldst_.lines.size()) return;
  ldst_busy_ = false;
  if (load) {
    finish_load();
  } else {
    schedule_completion(ldst_.warp, inst, now_ + 1, false);  // stores retire once sent
  }
}

void SmCore::finish_load() {
  if (ldst_.later_lines > 0) {
    // Its last lines' answers come after the tick: it finishes then, in the
    // place among completions it would take now.
    later_load_.pending = true;
    later_load_.warp = ldst_.warp;
    copy_without_addresses(later_load_.inst, ldst_.inst);
    later_load_.data_ready = ldst_.data_ready;
    later_load_.undecided.swap(ldst_.undecided);
    ldst_.undecided.clear();
    later_load_.seq = completion_seq_++;
    ldst_.later_lines = 0;
    return;
  }
  finish_load_with(ldst_.warp, ldst_.inst, ldst_.data_ready, ldst_.undecided, kNever);
}

void SmCore::finish_load_with(uint32_t warp, const WarpInstruction& inst, uint64_t data_ready,
                              std::vector<uint32_t>& undecided, uint64_t seq) {
  const uint64_t ready = std::max(data_ready, now_ + 1);
  if (undecided.empty()) {
    if (seq == kNever) schedule_completion(warp, inst, ready, true);
    else schedule_completion<false>(warp, inst, ready, true, seq);
    return;
  }
  // Its data is back with the last of the reads whose return is not decided
  // yet, each counted once (a single one, a load of one line, needs no sort).
  if (undecided.size() > 1) {
    std::sort(undecided.begin(), undecided.end());
    undecided.erase(std::unique(undecided.begin(), undecided.end()), undecided.end());
  }
  uint32_t id;
  if (free_deferred_loads_.empty()) {
    id = static_cast<uint32_t>(deferred_loads_.size());
    deferred_loads_.emplace_back();
  } else {
    id = free_deferred_loads_.back();
    free_deferred_loads_.pop_back();
  }
  DeferredLoad& load = deferred_loads_[id];
  load.warp = warp;
  // Its completion reads the destinations only: the 256 bytes of lane
  // addresses stay behind (a whole copy, twice through a temporary, was
  // about 100 host instructions a deferred load).
  copy_without_addresses(load.inst, inst);
  load.ready = ready;
  load.waiting = static_cast<uint32_t>(undecided.size());
  for (uint32_t token : undecided) reads_[token].loads.push_back(id);
  undecided.clear();
}

uint32_t SmCore::take_read_token() {
  if (free_reads_.empty()) {
    reads_.emplace_back();
    return static_cast<uint32_t>(reads_.size() - 1);
  }
  const uint32_t token = free_reads_.back();
  free_reads_.pop_back();
  return token;
}

void SmCore::record_read(uint32_t token, bool icache, uint64_t line, ChunkMask sectors) {
  DeferredRead& r = reads_[token];
  r.icache = icache;
  r.line = line;
  r.sectors = sectors;
  ++reads_in_flight_;
}

uint64_t SmCore::access(uint64_t line_addr, bool is_write, uint64_t cycle, uint64_t tag) {
  const uint32_t token = take_read_token();
  if (!is_write) reads_[token].tag = tag;  // the token is this read's until its answer
  // Later when the LDST unit's lines may be (answers_later_ok_): the
  // mechanism is told kDeferred and hears the time in memory_response(),
  // from apply_later_answers(). Nothing in the tick can tell the two apart:
  // a read's data is at least the interconnect's round trip away.
  const uint64_t ready = answers_later_ok_
                             ? memory_.access_or_later(line_addr, line_chunks_, is_write, cycle, token)
                             : memory_.access(line_addr, line_chunks_, is_write, cycle, token);
  if (ready == GlobalMemoryPort::kLater) {
    LaterAnswer a;
    if (is_write) {
      free_reads_.push_back(token);
    } else {
      a.use = LaterAnswer::Use::MechanismRead;
      a.token = token;
      a.line = line_addr;
    }
    later_.push_back(a);
    return is_write ? cycle : MechanismMemoryPort::kDeferred;
  }
  if (ready != GlobalMemoryPort::kDeferred || is_write) {
    free_reads_.push_back(token);
    // A write held at the L2 (FR-FCFS) is never acknowledged: nothing waits for it.
    return ready != GlobalMemoryPort::kDeferred ? ready : cycle;
  }
  record_mechanism_read(token, line_addr);
  return MechanismMemoryPort::kDeferred;
}

void SmCore::record_mechanism_read(uint32_t token, uint64_t line) {
  record_read(token, /*icache=*/false, line, ChunkMask());
  reads_[token].mechanism = true;
}

void SmCore::answer_mechanism_read(uint32_t token, uint64_t cycle) {
  free_reads_.push_back(token);
  mechanism_.hooks->memory_response(reads_[token].tag, cycle);
}

MechanismMemoryPort::SwapRegion SmCore::swap_region() const {
  const uint64_t share = gpu_.dram.swap_bytes / gpu_.num_sms / line_bytes_ * line_bytes_;
  return {gpu_.dram.swap_base + sm_id_ * share, share};
}

void SmCore::load_line_answered(uint32_t token, uint64_t line, ChunkMask sectors, uint64_t answer,
                                uint64_t& data_ready, std::vector<uint32_t>& undecided) {
  if (answer == GlobalMemoryPort::kDeferred) {
    record_read(token, /*icache=*/false, line, sectors);
    l1d_.fill_requested(line, sectors, token);
    undecided.push_back(token);
    return;
  }
  free_reads_.push_back(token);
  l1d_.fill_in_flight(line, sectors, answer, now_);
  data_ready = std::max(data_ready, answer);
}

void SmCore::instruction_fill_answered(uint32_t slot, uint32_t token, uint64_t line, uint64_t answer, uint64_t seq) {
  if (answer == GlobalMemoryPort::kDeferred) {
    record_read(token, /*icache=*/true, line, ChunkMask());
    icache_.fill_requested(line, token);
    reads_[token].fetches.push_back({seq, slot});
    return;
  }
  free_reads_.push_back(token);
  icache_.fill_in_flight(line, answer, now_);
  fill_waits_.push({answer, seq, slot});
}

uint64_t SmCore::apply_later_answers(const uint64_t* answers, size_t count) {
  if (count != later_.size())
    throw std::logic_error("SmCore::apply_later_answers: " + std::to_string(count) + " answers for " +
                           std::to_string(later_.size()) + " accesses");
  // A line of the load still in the LDST unit adds to it; the finished
  // load's last line, to later_load_.
  uint64_t& data_ready = later_load_.pending ? later_load_.data_ready : ldst_.data_ready;
  std::vector<uint32_t>& undecided = later_load_.pending ? later_load_.undecided : ldst_.undecided;
  uint64_t wake = kNever;
  const bool had_work = has_tick_work();  // as the tick ended
  bool mechanism_answered = false;
  for (size_t i = 0; i < count; ++i) {
    const LaterAnswer& a = later_[i];
    const uint64_t answer = answers[i];
    switch (a.use) {
      case LaterAnswer::Use::None:
        break;
      case LaterAnswer::Use::LoadLine:
        load_line_answered(a.token, a.line, a.sectors, answer, data_ready, undecided);
        break;
      case LaterAnswer::Use::InstructionFill:
        instruction_fill_answered(a.warp, a.token, a.line, answer, a.seq);
        if (answer != GlobalMemoryPort::kDeferred) wake = std::min(wake, answer);
        break;
      case LaterAnswer::Use::MechanismRead:
        if (answer == GlobalMemoryPort::kDeferred) {
          record_mechanism_read(a.token, a.line);
        } else {
          answer_mechanism_read(a.token, answer);
          mechanism_answered = true;
        }
        break;
    }
  }
  // The tick asked the mechanism when it wakes without these answers;
  // answered at once, they were in that answer (a read's data time). Ask
  // again, as the tick does (not for an inert gate), and take the new one
  // in unless the tick ended with nothing to do (kNever: the mechanism's
  // wake was not in it). The tick's other returns: the next cycle (it made
  // progress), which the new wake cannot precede; kNever for a deadlock,
  // which it does not find with requests left for later.
  if (mechanism_answered && !inert_gate_) {
    hook_wake_ = mechanism_.hooks->next_wake();
    if (had_work && hook_wake_ > now_) wake = std::min(wake, hook_wake_);
  }
  later_.clear();
  ldst_.later_lines = 0;
  if (later_load_.pending) {
    later_load_.pending = false;
    finish_load_with(later_load_.warp, later_load_.inst, later_load_.data_ready, later_load_.undecided,
                     later_load_.seq);
  }
  if (!completions_.empty()) wake = std::min(wake, completions_.top_cycle());
  return wake;
}

uint64_t SmCore::memory_response(uint64_t token, uint64_t cycle) {
  DeferredRead& r = reads_[token];
  if (r.mechanism) {
    r.mechanism = false;
    --reads_in_flight_;
    answer_mechanism_read(static_cast<uint32_t>(token), cycle);
    return cycle;
  }
  if (r.icache) {
    icache_.fill_decided(r.line, static_cast<uint32_t>(token), cycle, now_);
    // The warps waiting for it fetch in the order they missed, as with a decided fill.
    for (const FillWaitTicket& t : r.fetches) fill_waits_.push({cycle, t.seq, t.warp});
  } else {
    l1d_.fill_decided(r.line, r.sectors, static_cast<uint32_t>(token), cycle, now_);
    // An LDST unit waiting for an MSHR looks again when this one is released: it may be the first.
    if (ldst_.mshr_wait_until > cycle) ldst_.mshr_wait_until = cycle;
    // The load the LDST unit is still sending may wait for this read (its
    // own miss, or a pending hit on it). finish_load() registers a load only
    // with the reads still undecided when its last line is sent, and this
    // token is free from here (a later read may take it), so the answer's
    // time joins the load's now.
    auto& undecided = ldst_.undecided;
    const auto answered = std::remove(undecided.begin(), undecided.end(), static_cast<uint32_t>(token));
    if (answered != undecided.end()) {
      undecided.erase(answered, undecided.end());
      ldst_.data_ready = std::max(ldst_.data_ready, cycle);
    }
  }
  for (uint32_t id : r.loads) {
    DeferredLoad& load = deferred_loads_[id];
    load.ready = std::max(load.ready, cycle);
    if (--load.waiting) continue;
    schedule_completion(load.warp, load.inst, load.ready, true);
    free_deferred_loads_.push_back(id);
  }
  r.loads.clear();
  r.fetches.clear();
  free_reads_.push_back(static_cast<uint32_t>(token));
  --reads_in_flight_;
  return cycle;
}

// --- dispatch: collector units with all operands read go to a free pipeline
// of their type (the collectors offer them in their documented order).
void SmCore::dispatch() {
  const uint64_t next_ready = collectors_.dispatch(now_, [this](const OperandCollectors::CollectorUnit& c) {
    auto& pipes = unit_next_free_[static_cast<int>(c.unit)];
    auto pipe = std::min_element(pipes.begin(), pipes.end());
    if (*pipe > now_) {
      note_wake(*pipe);
      return false;
    }
    if (c.unit == ExecUnit::Mem) {
      if (ldst_busy_) return false;  // ldst_step() runs every cycle while busy
      *pipe = now_ + 1;
      start_ldst(c);
    } else {
      const UnitTiming& t = unit_timing(c.inst.op);
      *pipe = now_ + t.initiation_interval;
      schedule_completion(c.warp.slot, c.inst, now_ + t.latency, false);
    }
    if (!inert_gate_) mechanism_.hooks->operands_read(c.warp, c.inst);
    progress_ = true;
    return true;
  });
  note_wake(next_ready);
}

const UnitTiming& SmCore::timing_rule(const SmSpec& spec, OpClass op) {
  return op == OpClass::Sfu ? spec.sfu : op == OpClass::FpAlu ? spec.fp_alu : spec.int_alu;
}

// --- operand read: the collector units read through the route and the bank arbitrator.
void SmCore::read_operands(uint32_t step) {
  const OperandCollectors::ReadResult r = collectors_.read(now_, *mechanism_.route, arbitrator_, step);
  // Tested, not added blindly: the built-in route never defers a read, and
  // its reads then leave both counts alone.
  if (r.route_retries != 0) {
    route_retries_this_cycle_ += r.route_retries;
    stats_.route_retries += r.route_retries;
  }
  if (r.granted) progress_ = true;
}

// --- with pipeline registers (sm.pipeline_registers), GPGPU-Sim's execute()
// and opndcoll_rfu_t::step (shader.cc). Each SP/SFU pipeline takes the oldest
// instruction of its type's OC_EX register when its dispatch register is free
// (initiation_interval after the last) and no instruction in it leaves in the
// same cycle (pipelined_simd_unit::can_issue); the result is ready `latency`
// cycles later (and written back result_to_writeback_ after that). The LDST
// unit takes one when it is free, and starts the access in this cycle.
void SmCore::execute() {
  // The registers holding an instruction, from their bits (most cycles
  // find one or none: visiting all three registers was about a third of
  // this stage on the bench trace). A busy LDST unit takes nothing, so its
  // register is not visited (0.39 M of the bench trace's 3.01 M visits),
  // and the visit would have noted no wake-up: its one pipeline
  // (sm.ldst_units is 1) was held only for the cycle its access started in.
  const uint32_t ldst_waits = uint32_t{ldst_busy_} << static_cast<unsigned>(ExecUnit::Mem);
  const uint32_t filled = oc_ex_filled_ & ~ldst_waits;
  if (filled == 0) return;
  // Unrolled, in unit order (SP, SFU, LDST): each unit's register,
  // pipelines and kind (LDST or not) at fixed places instead of found from
  // the index of its bit at run time (bench trace 4,173.5 M -> 4,147.2 M
  // host instructions, hotspot 761.0 M -> 757.1 M, before
  // schedule_completion() was pinned inline: with it 4,102.2 M and 751.2 M
  // together with the far queue's block ring).
#pragma GCC unroll 3
  for (unsigned u = 0; u < kNumExecUnits; ++u) {
    if ((filled & (1u << u)) == 0) continue;
    PipelineRegister<OperandCollectors::CollectorUnit>& waiting = oc_ex_[u];
    std::vector<uint64_t>& pipes = unit_next_free_[u];
    // As wide as the unit has pipelines; its kept width, read once (the
    // vector's size is two loads and a shift, and the calls below could
    // change it for all the compiler knows).
    const uint32_t num_pipes = waiting.width();
    for (uint32_t p = 0; p < num_pipes; ++p) {
      if (pipes[p] > now_) {
        note_wake(pipes[p]);
        continue;
      }
      const OperandCollectors::CollectorUnit& c = waiting.oldest();
      if (static_cast<ExecUnit>(u) == ExecUnit::Mem) {
        if (ldst_busy_) continue;  // ldst_step() progresses every cycle while busy
        pipes[p] = now_ + 1;
        start_ldst(c);
      } else {
        const UnitTiming& t = unit_timing(c.inst.op);
        const uint64_t ready = now_ + t.latency;
        if (result_cycles_[u][p].taken(ready)) {
          note_wake(now_ + 1);
          continue;
        }
        result_cycles_[u][p].take(ready);
        pipes[p] = now_ + t.initiation_interval;
        schedule_completion(c.warp.slot, c.inst, ready, false);
      }
      waiting.pop_oldest();
      progress_ = true;
      if (waiting.empty()) {
        oc_ex_filled_ &= ~(1u << u);
        break;
      }
    }
  }
}

// The operand collector steps sm.register_bank_ports times a cycle; each
// step dispatches ready collector units into OC_EX, reads, then allocates
// units to the oldest instructions of ID_OC, so an instruction allocated in
// a step reads from the next one and leaves the step after its last read.
// Compiled into tick(), its one caller, like fetch(): left to the link-time
// inliner it was taken out of tick() when dispatch() learned to pass over
// full OC_EX registers (+9.4 M host instructions on hotspot, +69 M on the
// bench trace).
[[gnu::always_inline]] inline void SmCore::collect_operands() {
  if (collectors_.busy_units() == 0 && staged(id_oc_) == 0) return;
  // At least one step (sm.register_bank_ports >= 1): the first needs no
  // test (bench trace 4,282.2 M -> 4,265.1 M host instructions, hotspot
  // 779.3 M -> 776.5 M).
  uint32_t step = 0;
  do {
    dispatch_to_oc_ex(step);
    // Asked here, not in the call: in many steps every busy unit has read
    // its operands (0.9 M of the bench trace's 2.4 M), and the call alone
    // costs about 30 host instructions.
    if (collectors_.reading_units() > 0) read_operands(step);
    allocate_collectors(step);
  } while (++step < collectors_.steps_per_cycle());
}

// A unit type has as many dispatch ports (collector units leaving per step)
// and allocation ports (instructions entering per step) as pipelines, like
// its OC_EX and ID_OC registers (GTX480: gpgpu_operand_collector_num_in_ports_sp
// = num_out_ports_sp = gpgpu_num_sp_units = 2; 1 for SFU and LDST). The
// dispatch ports need no count of their own: each unit that leaves in the
// step takes one of the OC_EX register's width() slots, so a full register
// stops the step's dispatch of its type before its ports could.
void SmCore::dispatch_to_oc_ex(uint32_t step) {
  const uint64_t next_ready = collectors_.dispatch(
      now_,
      [&](const OperandCollectors::CollectorUnit& c) {
        PipelineRegister<OperandCollectors::CollectorUnit>& oc_ex = oc_ex_[static_cast<unsigned>(c.unit)];
        if (!oc_ex.has_free()) return false;
        OperandCollectors::CollectorUnit& waiting = oc_ex.move_in(c.seq);
        oc_ex_filled_ |= 1u << static_cast<unsigned>(c.unit);
        waiting.unit = c.unit;
        waiting.warp = c.warp;
        copy_decoded(waiting.inst, c.inst);
        if (!inert_gate_) mechanism_.hooks->operands_read(c.warp, c.inst);
        progress_ = true;
        return true;
      },
      [this](ExecUnit unit) { return oc_ex_[static_cast<unsigned>(unit)].has_free(); }, step);
  note_wake(next_ready);
}

void SmCore::allocate_collectors(uint32_t step) {
  // Oldest first, in order: an instruction that finds no free collector
  // (none of its type, or with a home split none on its warp's side) holds
  // up the younger ones behind it, as GPGPU-Sim's allocate_cu does. A
  // register whose type has no free unit is passed over without asking
  // allocate(), which would refuse (a third of the asks on the bench trace).
  // Unrolled: each pool's register, free units and allocate_for() argument
  // at fixed places (the loop cost about 30 host instructions a step; the
  // bench trace 4,345.1 M -> 4,301.5 M, hotspot 789.4 M -> 781.8 M).
#pragma GCC unroll 3
  for (unsigned u = 0; u < kNumExecUnits; ++u) {
    FifoPipelineRegister<IssuedInstruction>& issued = id_oc_[u];
    if (issued.empty() || !collectors_.has_free_unit(static_cast<ExecUnit>(u))) continue;
    // One allocation port per pipeline, as many as the register is wide: at
    // most all it holds enters.
    for (uint32_t left = issued.size(); left > 0; --left) {
      const IssuedInstruction& i = issued.oldest();
      if (!collectors_.allocate_for(static_cast<ExecUnit>(u), i.warp, i.inst, now_, step)) break;
      issued.pop_oldest();
      progress_ = true;
    }
  }
}

// --- issue: each scheduler issues the first ready warp in its policy's order
// (with sm.dual_issue, up to two instructions of that warp).
// Inline: refresh() is its only caller, after most events of a warp
// (pinned: see issue()).
template <SmCore::RefreshAfter kAfter>
[[gnu::always_inline]] inline StallReason SmCore::blocking_reason(const Warp& w) const {
  constexpr bool kPlainIssue = kAfter == RefreshAfter::PlainIssue;
  constexpr bool kDecode = kAfter == RefreshAfter::Decode;
  // After a writeback to a warp that waited on the scoreboard, every test
  // before the scoreboard's passed at the refresh that recorded that wait,
  // and only events that refresh the warp change them.
  constexpr bool kPastScoreboardWait = kAfter == RefreshAfter::ScoreboardWrite;
  if (!kPlainIssue && !kPastScoreboardWait && w.at_barrier) return StallReason::Barrier;
  if (!kDecode && !kPastScoreboardWait && w.ib_count == 0) return w.exhausted ? StallReason::Drain : StallReason::Fetch;
  if (!kPlainIssue && !kDecode && !kPastScoreboardWait && w.ib_visible > now_)
    return StallReason::Fetch;  // still in the instruction cache or decode
  // A pending write belongs to an issued instruction not yet written back:
  // with none in flight the scoreboard is empty.
  if (!kPlainIssue && w.in_flight == 0) return StallReason::None;
  // Operands are below kMaxArchRegs (or kNoReg, tested first): the bitset's
  // operator[], without test()'s range check.
  const WarpInstruction& inst = w.head();
  for (uint8_t i = 0; i < inst.num_src; ++i)
    if (inst.src[i] != kNoReg && w.pending_writes[inst.src[i]]) return StallReason::Scoreboard;
  for (uint8_t i = 0; i < inst.num_dst; ++i)
    if (inst.dst[i] != kNoReg && w.pending_writes[inst.dst[i]]) return StallReason::Scoreboard;
  return StallReason::None;
}

void SmCore::update_view(uint32_t slot) {
  if (!views_read_) return;
  const Warp& w = warps_[slot];
  WarpView& v = sched_warps_[w.scheduler].views[w.list_position];
  v.valid = w.valid;
  v.age = w.ctx.age;
  v.waiting = w.pending_loads > 0 || w.at_barrier || w.exhausted || w.gate_refused;
  v.priority_class = w.valid && !inert_gate_ ? mechanism_.gate->priority_class(w.ctx) : 1;
}

inline void SmCore::set_fetch_wanted(uint32_t slot, bool wanted) {
  uint64_t& word = fetch_wanted_slots_[slot / 64];
  const uint64_t bit = uint64_t{1} << (slot % 64);
  if (wanted == ((word & bit) != 0)) return;
  word ^= bit;
  wanted ? ++fetch_wanted_ : --fetch_wanted_;
}

// Compiled into its callers: after every issue, visible fetch group and
// scoreboard write (about 3.4 M calls on the bench trace), the call's saved
// registers were a tenth of its cost.
template <SmCore::RefreshAfter kAfter>
[[gnu::always_inline]] inline void SmCore::refresh_wait(uint32_t slot) {
  Warp& w = warps_[slot];
  const bool valid = kAfter != RefreshAfter::AnyEvent || w.valid;
  const bool counted = kAfter != RefreshAfter::AnyEvent || w.counted;
  const StallReason was = kAfter == RefreshAfter::PlainIssue        ? StallReason::None
                          : kAfter == RefreshAfter::ScoreboardWrite ? StallReason::Scoreboard
                                                                    : w.wait;
  const StallReason wait = valid ? blocking_reason<kAfter>(w) : StallReason::NoWarp;
  const uint8_t need = wait == StallReason::None ? static_cast<uint8_t>(pipeline_need(w.head())) : 0;
  // Most events leave a warp's reason as it was (an operand of several
  // still pending, a fetched group still decoding): the counts hold.
  if (counted && valid && wait == was && (wait != StallReason::None || need == w.need)) return;
  SchedulerWarps& list = sched_warps_[w.scheduler];
  if (counted && valid && wait == was) {
    // Ready before and after, bound for another pipeline (on the bench trace
    // a fifth of the issues leave their warp so): only its need moves.
    --list.ready_need[w.need];
    ++list.ready_need[need];
    w.need = need;
    return;
  }
  most_advanced_wait_known_ = false;
  const uint32_t position = w.list_position;
  auto& counts = list.wait_count;
  if (counted) {
    --counts[static_cast<int>(was)];
    if (was == StallReason::None) {
      --ready_warps_;
      --list.ready_need[w.need];
      list.ready_slot_sum -= slot;
      set_bit(list.ready_bits, position, false);
    }
  }
  w.counted = valid;
  if (!valid) return;
  w.wait = wait;
  ++counts[static_cast<int>(w.wait)];
  if (w.wait == StallReason::None) {
    w.need = need;
    ++ready_warps_;
    ++list.ready_need[w.need];
    list.ready_slot_sum += slot;
    set_bit(list.ready_bits, position, true);
  }
}

template <SmCore::RefreshAfter kAfter>
[[gnu::always_inline]] inline void SmCore::refresh(uint32_t slot) {
  update_view(slot);
  refresh_wait<kAfter>(slot);
}

inline StallReason SmCore::most_advanced_wait() {
  if (most_advanced_wait_known_) return most_advanced_wait_;
  StallReason best = StallReason::NoWarp;
  for (const SchedulerWarps& list : sched_warps_)
    for (unsigned r = kNumStallReasons; r-- > 1;)
      if (list.wait_count[r]) {
        best = std::max(best, static_cast<StallReason>(r));
        break;
      }
  most_advanced_wait_ = best;
  most_advanced_wait_known_ = true;
  return best;
}

bool SmCore::may_issue_any(size_t scheduler) const {
  const auto& need = sched_warps_[scheduler].ready_need;
  if (need[kNoPipeline]) return true;
  // has_room()'s test of the timing mode taken out of the loop: asked per
  // pipeline, it cost about 3 host instructions each (a third of the call).
  if (pipelined_) {
    for (unsigned u = 0; u < kNumExecUnits; ++u)
      if (need[u] && id_oc_[u].has_free()) return true;
    return false;
  }
  for (unsigned u = 0; u < kNumExecUnits; ++u)
    if (need[u] && collectors_.has_free_unit(static_cast<ExecUnit>(u))) return true;
  return false;
}

template <class Visit>
bool SmCore::visit_ready_in_rotation(size_t scheduler, uint32_t last_position, Visit&& visit) const {
  const uint32_t n = num_schedulers_;
  const uint32_t list_size = sched_warps_[scheduler].size;
  const uint32_t start = last_position < list_size ? last_position + 1 : 0;
  return visit_set_bits_from(sched_warps_[scheduler].ready_bits, list_size, start,
                             [&](uint32_t pos) { return visit(static_cast<uint32_t>(scheduler) + pos * n); });
}

// Compiled into tick(), its one caller, as fetch() is (the inlining cliff):
// with issue_from()'s ready test moved to a policy's order, the inliner took
// issue() out of tick() (+13.5 M on the bench trace), and with issue() pinned
// it took out read_icache(), then blocking_reason() and
// next_fetch_candidate(), each pinned in turn.
[[gnu::always_inline]] inline void SmCore::issue() {
  full_pipelines_ = 0;
  StallReason best = StallReason::NoWarp;
  uint32_t schedulable = 0;
  bool issued_any = false;
  const size_t num_schedulers = schedulers_.size();
  // No scheduler's turn can issue without a ready warp (on the bench trace
  // 830 k of 2.80 M ticks have none): only a waveform, which samples the
  // turns' probes, needs them then.
  const size_t turns = ready_warps_ != 0 || probes_traced_ ? num_schedulers : 0;
  const size_t first =
      turns == 0 ? 0 : first_scheduler_by_division_ ? now_ % num_schedulers : now_ & first_scheduler_mask_;
  for (size_t left = turns, s = first; left != 0; --left, s = s + 1 == num_schedulers ? 0 : s + 1) {
    SchedulerWarps& list = sched_warps_[s];
    const uint32_t ready = list.wait_count[static_cast<int>(StallReason::None)];
    if (probes_traced_) {
      schedulable += ready;
      SchedulerProbes& probes = scheduler_probes_[s];
      probes.ready_warps = ready;
      probes.issued_warp = -1;
      probes.issued_this_cycle = 0;
    }
    if (ready == 0) continue;
    if (skip_full_schedulers_ && list.gate_refused == 0 && !may_issue_any(s)) {
      // What the loop below would find: every ready warp passes the open
      // gate and finds its pipeline full.
      best = std::max(best, StallReason::Pipeline);
      continue;
    }

    // A round-robin policy's order is walked on the ready bits below.
    const bool round_robin = list.round_robin;
    if (!round_robin) {
      if (ready == 1 && stateless_orders_) sched_order_.assign(1, list.ready_slot_sum);
      else schedulers_[s]->order(list.views, sched_order_);
    }
    // A refusal is shown to the policy in one ordering only: the gate may
    // say yes next time without any event on the warp.
    if (list.gate_refused) {
      refusal_shown_ = true;
      for (uint32_t slot = static_cast<uint32_t>(s); list.gate_refused && slot < warps_.size();
           slot += num_schedulers_)
        if (warps_[slot].gate_refused) {
          warps_[slot].gate_refused = false;
          --list.gate_refused;
          update_view(slot);
        }
    }
    // The ready bits name only ready warps; a policy's order lists every
    // valid warp, ready or not.
    // (The scheduler is taken by value: a reference would keep the loop's
    // index in memory.)
    auto issue_one = [this, s, &best](uint32_t slot) { return issue_from(s, slot, best); };
    auto issue_one_if_ready = [this, s, &best](uint32_t slot) {
      const Warp& w = warps_[slot];
      return w.valid && w.wait == StallReason::None && issue_from(s, slot, best);
    };
    const bool issued = round_robin ? visit_ready_in_rotation(s, list.last_issued_position, issue_one)
                                    : std::any_of(sched_order_.begin(), sched_order_.end(), issue_one_if_ready);
    issued_any = issued_any || issued;
  }
  if (probes_traced_) probes_.schedulable_warps = schedulable;
  if (issued_any) {
    last_reason_ = StallReason::None;
    probes_.stall_reason = static_cast<uint32_t>(StallReason::None);
    last_waited_on_memory_ = false;
    if (!counts_as_active_) return;
    stats_.reason_cycles[static_cast<int>(StallReason::None)]++;
    stats_.issue_cycles++;
    return;
  }
  // The most advanced reason any scheduler's waiting warps show: only needed
  // when nothing issued, and then nothing changed the counts in the loop
  // above (a refused or pipeline-full try changes no warp's reason).
  last_reason_ = std::max(best, most_advanced_wait());
  probes_.stall_reason = static_cast<uint32_t>(last_reason_);
  last_waited_on_memory_ =
      counts_as_active_ && ((probes_.pending_loads > 0 && (last_reason_ == StallReason::Scoreboard ||
                                                          last_reason_ == StallReason::Pipeline)) ||
                            (last_reason_ == StallReason::Gate && mechanism_.hooks->waits_on_memory(now_)));
  if (!counts_as_active_) return;
  if (last_waited_on_memory_) {
    ++memory_wait_cycles_;
    if (last_reason_ != StallReason::Pipeline) ++memory_wait_idle_cycles_;
  }
  stats_.reason_cycles[static_cast<int>(last_reason_)]++;
  if (last_reason_ == StallReason::Pipeline) stats_.stall_cycles++;
  else stats_.idle_cycles++;
}

// A warp bound for a pipeline a try found full this cycle changes nothing:
// that try set `best` to Pipeline, the most advanced reason, so neither this
// try's reason nor its other half's wait would move it. The test comes
// first, before any register is saved, so that this exit (a third of the
// calls on the bench trace) costs a few instructions; most cycles no
// pipeline is full, and one comparison says so. A plain issue follows, and
// any other is a tail call. Both functions are kept out of tick(): the
// inliner would take them, and tick()'s shape with them (with the test in
// the walk's visit: +12 M on hotspot, +84 M on the trace).
inline bool SmCore::issues_plainly(const Warp& w) const {
  return w.other_half == Warp::kNoHalf && !acts_at_issue(w.head().op) && !(w.stream_done && w.ib_count == 1);
}

[[gnu::noinline]] bool SmCore::issue_from(size_t s, uint32_t slot, StallReason& best) {
  const Warp& w = warps_[slot];
  if (full_pipelines_ != 0 && (full_pipelines_ >> w.need & 1)) return false;
  if (!plain_issue_ || !issues_plainly(w)) return issue_from_open_pipeline(s, slot, best);
  // The plain issue calls nothing, so this function needs no stack frame
  // and saves five registers, after the tests above (the general one's
  // prologue and epilogue were about 28 host instructions a try); its only
  // refusal is a full ID_OC register.
  if (try_issue<true>(s, slot) == IssueOutcome::Issued) return true;
  best = std::max(best, StallReason::Pipeline);
  full_pipelines_ |= 1u << w.need;
  return false;
}

[[gnu::noinline]] bool SmCore::issue_from_open_pipeline(size_t s, uint32_t slot, StallReason& best) {
  Warp& w = warps_[slot];
  if (const Warp* other = waits_for_other_half(w)) {
    best = std::max(best, other->wait);
    return false;
  }
  // The issued instruction's entry: issue only moves the buffer's head on
  // (fetch refills it, a later stage), so its op and PC are read from it
  // after the try, and only by a wide warp's lower half and dual issue.
  const WarpInstruction& first = w.head();
  const IssueOutcome outcome = try_issue<false>(s, slot);
  if (outcome == IssueOutcome::GateRefused) {
    best = std::max(best, StallReason::Gate);
    if (!w.gate_refused) {
      w.gate_refused = true;
      ++sched_warps_[s].gate_refused;
      update_view(slot);
    }
    return false;
  }
  if (outcome == IssueOutcome::PipelineFull) {
    best = std::max(best, StallReason::Pipeline);
    if (inert_gate_ && !has_room(w.need)) full_pipelines_ |= 1u << w.need;
    return false;
  }
  if (w.may_lead_upper_half()) issue_upper_half(w, first.pc);
  // Dual issue (GPGPU-Sim's scheduler_unit::cycle with
  // gpgpu_max_insn_issue_per_warp = 2): the same warp's next instruction,
  // if it has no hazard of its own after the first issued (refresh() saw
  // the first's destinations in the scoreboard, a barrier or EXIT, an
  // empty instruction buffer), with the diff-exec-units rule if set. A
  // second instruction that cannot go costs nothing: the cycle issued.
  if (spec_.dual_issue && w.valid && w.wait == StallReason::None &&
      !(spec_.dual_issue_different_units && exec_unit_of(w.head().op) == exec_unit_of(first.op)) &&
      !waits_for_other_half(w)) {
    const uint64_t second_pc = w.head().pc;
    if (try_issue<false>(s, slot) == IssueOutcome::Issued && w.may_lead_upper_half()) issue_upper_half(w, second_pc);
  }
  return true;
}

const SmCore::Warp* SmCore::other_half(const Warp& w) const {
  if (w.other_half == Warp::kNoHalf) return nullptr;
  const Warp& o = warps_[w.other_half];
  // The slot may hold another warp since the other half retired.
  const bool same_pair = o.valid && o.ctx.cta_slot == w.ctx.cta_slot && o.upper != w.upper &&
                         o.ctx.age == (w.upper ? w.ctx.age - 1 : w.ctx.age + 1);
  return same_pair ? &o : nullptr;
}

inline const SmCore::Warp* SmCore::waits_for_other_half(const Warp& w) const {
  return w.other_half == Warp::kNoHalf ? nullptr : paired_half_to_wait_for(w);
}

const SmCore::Warp* SmCore::paired_half_to_wait_for(const Warp& w) const {
  const Warp* o = other_half(w);
  // Halves out of step (one waits at a barrier, has no instruction left, or
  // has issued more) or at different instructions issue on their own.
  if (!o || o->exhausted || o->at_barrier || o->issued != w.issued) return nullptr;
  if (o->ib_count && o->head().pc != w.head().pc) return nullptr;
  // In step: the upper half issues with its lower half; the lower half waits
  // for an upper half that cannot issue the same instruction now.
  if (w.upper || o->wait != StallReason::None) return o;
  return nullptr;
}

void SmCore::issue_upper_half(const Warp& lower, uint64_t pc) {
  const Warp* u = other_half(lower);
  // In step before the lower half's issue, ready, at the same instruction.
  if (!u || u->issued + 1 != lower.issued || u->wait != StallReason::None || u->head().pc != pc) return;
  try_issue<false>(u->scheduler, lower.other_half);
}

// Compiled into its callers (issue_from(), twice with dual issue, and
// issue_upper_half()): a call per try paid about 20 host instructions of
// saved registers, a tenth of an issue.
template <bool kPlain>
[[gnu::always_inline]] inline SmCore::IssueOutcome SmCore::try_issue(size_t scheduler, uint32_t slot) {
  Warp& w = warps_[slot];
  const WarpInstruction& inst = w.head();
  if (!kPlain && !inert_gate_ && !mechanism_.gate->may_issue(w.ctx, inst, now_)) return IssueOutcome::GateRefused;
  // Barrier and exit need no operands and no pipeline: they act at issue.
  if (kPlain || !acts_at_issue(inst.op)) {
    if (kPlain || pipelined_) {
      // GPGPU-Sim's issue_warp: into a free slot of the unit's ID_OC register.
      FifoPipelineRegister<IssuedInstruction>& id_oc = id_oc_[static_cast<int>(exec_unit_of(inst.op))];
      if (!id_oc.has_free()) return IssueOutcome::PipelineFull;
      IssuedInstruction& issued = id_oc.move_in();
      issued.warp = w.ctx;
      copy_decoded(issued.inst, inst);
    } else if (!collectors_.allocate(w.ctx, inst, now_)) {
      return IssueOutcome::PipelineFull;
    }
    // num_dst read once: a store to the scoreboard's words may alias a byte
    // field, so the loop test reloaded it after every destination.
    const uint8_t num_dst = inst.num_dst;
    for (uint8_t i = 0; i < num_dst; ++i)
      if (inst.dst[i] != kNoReg) w.pending_writes[inst.dst[i]] = true;  // below kMaxArchRegs: no range check
    w.in_flight++;
  }
  if (!kPlain && !inert_gate_) mechanism_.gate->issued(w.ctx, inst);
  const bool is_barrier = !kPlain && inst.op == OpClass::Barrier;
  // warp_instructions and thread_instructions are these counts' sums,
  // added up by stats(): two counters fewer per issue.
  // Most warps issue with every lane active: no bit count (no popcnt
  // instruction in the baseline x86-64 target) for those.
  const unsigned lanes = inst.active_mask == ~0u ? kWarpLanes : inst.active_lanes();
  stats_.op_counts[static_cast<int>(inst.op)]++;
  stats_.thread_op_counts[static_cast<int>(inst.op)] += lanes;
  ++w.issued;
  w.pop();
  if (w.ib_count == 0 && !w.stream_done) {
    set_fetch_wanted(slot, true);
    // A later cycle's fetch asks the warp's program for its next group: its
    // object's first lines (the front ends' programs keep their state there)
    // are asked for now. Read at the fetch, the object was mostly out of the
    // host's caches, evicted by the other SMs' ticks, and the virtual call
    // waited for it (2 % of hotspot's rate, none of the trace's; asking for the
    // instruction buffer's lines as well gained nothing more).
    prefetch_lines(w.program.get(), 2 * kHostLineBytes);
  }
  SchedulerWarps& list = sched_warps_[scheduler];
  if (kPlain || list.round_robin) list.last_issued_position = w.list_position;
  else schedulers_[scheduler]->issued(slot);
  SchedulerProbes& probes = scheduler_probes_[scheduler];
  if (probes_traced_) {
    probes.issued_warp = static_cast<int32_t>(slot);
    ++probes.issued_this_cycle;
  }
  ++probes.issued;
  ++probes_.issued_count;
  progress_ = true;
  if (is_barrier) {
    stats_.barriers++;
    arrive_at_barrier(slot);
  }
  if (kPlain) {
    // No policy reads the views, and the program goes on: nothing to note
    // or retire.
    refresh_wait<RefreshAfter::PlainIssue>(slot);
    return IssueOutcome::Issued;
  }
  refresh(slot);
  note_if_exhausted(slot);
  maybe_retire(slot);  // an exit or barrier with nothing in flight ends the warp here
  return IssueOutcome::Issued;
}

// --- decode: fetch groups whose instruction-cache hit latency has passed
// become visible to issue (only with an instruction cache).
void SmCore::decode() {
  while (decoding_.first_visible <= now_) {
    const uint32_t slot = decoding_.front().slot;
    decoding_.pop_front();
    refresh<RefreshAfter::Decode>(slot);
  }
}

// --- fetch: refill one empty instruction buffer per fetch slot. With an
// instruction cache, a slot first serves a warp whose line fill has returned
// (GPGPU-Sim's fetch() takes m_L1I->access_ready() before a new lookup);
// otherwise the next warp in round-robin order with an empty buffer reads
// its next group from the program and looks up its first PC.
// Compiled into tick(), its one caller: left to the link-time inliner, whether
// it was inlined turned on unrelated edits elsewhere in the SM, and each flip
// moved 7 to 11 M host instructions on hotspot and up to 65 M on the bench
// trace (docs/performance.md, "An inlining cliff").
[[gnu::always_inline]] inline void SmCore::fetch() {
  uint32_t slots = fetch_per_cycle_;
  while (slots > 0 && fill_waits_.first_ready <= now_) {
    const uint32_t slot = fill_waits_.pop();
    --slots;
    progress_ = true;
    start_decode(slot);
  }
  // Most cycles every buffer is full, decoding or waiting for its line:
  // nothing to scan for.
  if (fetch_wanted_ == 0 || slots == 0) return;
  const uint32_t n = static_cast<uint32_t>(warps_.size());
  // The scan starts where the last cycle's fetches left off; fetch_rr_
  // moves as warps are fetched, so the scan keeps its own start (with
  // sm.fetch_per_cycle > 1 it would otherwise skip the slot after each).
  const uint32_t start = fetch_rr_;
  // The next candidate is looked for only while a slot is left: with one
  // fetch a cycle (fermi-gtx480, accelsim-qv100) that second look was about
  // 15 host instructions a fetch, its answer never used.
  for (uint32_t k = next_fetch_candidate(start, 0); k < n; k = next_fetch_candidate(start, k + 1)) {
    const uint32_t slot = (start + k) % n;
    Warp& w = warps_[slot];
    --slots;
    progress_ = true;
    set_fetch_wanted(slot, false);  // filled now, or its program has ended
    // The buffer is empty (it wants a fetch): fill it from the start.
    WarpInstruction* dst = ibuffer_of(slot);
    w.ib_head = dst;
    for (; w.ib_count < w.ib_entries; ++dst) {
      if (!w.program->next(*dst)) {
        end_stream(w);
        note_if_exhausted(slot);
        break;
      }
      ++w.ib_count;
      if (dst->op == OpClass::Exit) {  // issued like any instruction; nothing follows it
        end_stream(w);
        break;
      }
    }
    fetch_rr_ = (slot + 1) % n;
    if (icache_.present() && w.ib_count != 0) {
      // The group becomes visible in a later tick's decode(), which refreshes
      // the warp; until then it waits as before (for Fetch, or at its barrier).
      read_icache(slot);
    } else {
      refresh(slot);
      maybe_retire(slot);
    }
    if (slots == 0) break;
  }
}

// Inline: fetch()'s scan calls it for each warp it fetches (pinned: see issue()).
[[gnu::always_inline]] inline uint32_t SmCore::next_fetch_candidate(uint32_t start, uint32_t k) const {
  const uint32_t n = slots_.warps;  // warps_.size()
  if (n <= 64) {
    // One word (the SMs of most configurations): rotated so that bit k' is
    // slot (start + k') mod n, the answer is its lowest set bit from k on.
    const uint64_t word = fetch_wanted_slots_[0];  // no bit at n or above
    const uint64_t below_n = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
    const uint64_t rotated = (word >> start | (start == 0 ? 0 : word << (n - start))) & below_n;
    const uint64_t from_k = k < 64 ? rotated & (~uint64_t{0} << k) : 0;
    return from_k ? static_cast<uint32_t>(__builtin_ctzll(from_k)) : n;
  }
  // The first slot in [from, to) that wants a fetch, or `to`.
  auto first_in = [this](uint32_t from, uint32_t to) { return first_set_bit(fetch_wanted_slots_, from, to); };
  if (k < n - start) {  // slots start .. n-1
    const uint32_t slot = first_in(start + k, n);
    if (slot < n) return slot - start;
    k = n - start;
  }
  if (k < n) {  // then 0 .. start-1
    const uint32_t slot = first_in(k - (n - start), start);
    if (slot < start) return slot + (n - start);
  }
  return n;
}

// Compiled into fetch(), its one caller (see issue()).
[[gnu::always_inline]] inline void SmCore::read_icache(uint32_t slot) {
  Warp& w = warps_[slot];
  const uint64_t addr = instruction_address(w.head().pc);
  const InstructionCache::Lookup lookup = icache_.fetch(addr, now_);
  uint64_t fill_ready = lookup.fill_ready;
  switch (lookup.outcome) {
    case InstructionCache::Outcome::Hit:
      start_decode(slot);
      return;
    case InstructionCache::Outcome::Miss: {
      // One line read through the SM's memory port, like a load's miss.
      const uint64_t line = icache_.line_of(addr);
      const uint32_t token = take_read_token();
      const uint64_t answer =
          access_memory(line, ChunkMask::line(icache_.line_bytes()), /*is_write=*/false, token);
      w.ib_visible = kNever;
      const uint64_t seq = fill_wait_seq_++;
      if (answer == GlobalMemoryPort::kLater) {
        later_.push_back({LaterAnswer::Use::InstructionFill, token, slot, line, ChunkMask(), seq});
      } else {
        instruction_fill_answered(slot, token, line, answer, seq);
      }
      return;
    }
    case InstructionCache::Outcome::PendingHit:
      if (lookup.fill != InstructionCache::kDecided) {
        // Merged with a read whose return is not decided yet: wait for its decision.
        w.ib_visible = kNever;
        reads_[lookup.fill].fetches.push_back({fill_wait_seq_++, slot});
        return;
      }
      break;
  }
  w.ib_visible = kNever;
  fill_waits_.push({fill_ready, fill_wait_seq_++, slot});
}

void SmCore::start_decode(uint32_t slot) {
  Warp& w = warps_[slot];
  w.ib_visible = now_ + icache_.hit_latency();
  decoding_.push_back(w.ib_visible, slot);
}

// --- barriers: a CTA's barrier opens when every warp that can still reach it has.
void SmCore::arrive_at_barrier(uint32_t warp) {
  Warp& w = warps_[warp];
  w.at_barrier = true;
  refresh(warp);
  ctas_[w.ctx.cta_slot].arrived++;
  check_barrier(w.ctx.cta_slot);
}

// Inline: tested after every issue and fetch (mark_exhausted() is rare).
inline void SmCore::note_if_exhausted(uint32_t warp) {
  // A warp that has issued its last instruction counts as arrived at every
  // later barrier (CUDA: exited threads do not hold __syncthreads).
  const Warp& w = warps_[warp];
  if (!w.exhausted && w.stream_done && w.ib_count == 0) mark_exhausted(warp);
}

void SmCore::mark_exhausted(uint32_t warp) {
  Warp& w = warps_[warp];
  w.exhausted = true;
  update_view(warp);
  Cta& cta = ctas_[w.ctx.cta_slot];
  --cta.may_arrive;
  if (w.at_barrier) {
    // It arrived and then ran out of instructions: it no longer waits, and
    // must not be counted both as arrived and as gone.
    w.at_barrier = false;
    --cta.arrived;
    refresh(warp);
  }
  check_barrier(w.ctx.cta_slot);
}

// The compact timing opens the barrier at the start of the next cycle; with
// pipeline registers it opens at once, as GPGPU-Sim's
// barrier_set_t::warp_reaches_barrier clears m_warp_at_barrier when the last
// warp issues its barrier: schedulers that issue after it in the cycle can
// issue the released warps.
void SmCore::check_barrier(uint32_t cta_slot) {
  Cta& cta = ctas_[cta_slot];
  if (cta.arrived == 0 || cta.arrived < cta.may_arrive || cta.release_pending) return;
  progress_ = true;
  if (pipelined_) {
    release_barrier(cta);
  } else {
    cta.release_pending = true;
    barrier_to_open_ = true;
  }
}

void SmCore::open_barriers() {
  if (!barrier_to_open_) return;  // most cycles: no CTA to look at
  barrier_to_open_ = false;
  for (Cta& cta : ctas_)
    if (cta.valid && cta.release_pending) release_barrier(cta);
}

void SmCore::release_barrier(Cta& cta) {
  for (uint32_t slot : cta.warp_slots) {
    warps_[slot].at_barrier = false;
    refresh(slot);
  }
  cta.arrived = 0;
  cta.release_pending = false;
  progress_ = true;
}

// --- completion: a warp retires when drained; a CTA when all its warps have.
// Inline: a test after every issue, fetch and writeback (retire_warp() is rare);
// pinned, as the link-time inliner made it a call of its own when
// exec_unit_of() became a table lookup (+17 M host instructions on the bench trace).
template <bool kValid>
[[gnu::always_inline]] inline void SmCore::maybe_retire(uint32_t warp) {
  const Warp& w = warps_[warp];
  if ((kValid || w.valid) && w.stream_done && w.ib_count == 0 && w.in_flight == 0) retire_warp(warp);
}

void SmCore::retire_warp(uint32_t warp) {
  Warp& w = warps_[warp];
  w.valid = false;
  refresh(warp);
  settle_residency();
  --resident_warps_;
  schedulers_[w.scheduler]->warp_finished(warp);
  mechanism_.hooks->warp_finished(w.ctx);
  Cta& cta = ctas_[w.ctx.cta_slot];
  --cta.streams_ended;  // a warp retires only once its stream has ended
  if (--cta.live_warps == 0) {
    --ctas_near_end_;
    retire_cta(w.ctx.cta_slot);
  }
}

void SmCore::end_stream(Warp& w) {
  w.stream_done = true;
  w.program.reset();
  Cta& cta = ctas_[w.ctx.cta_slot];
  ctas_near_end_ += cta.live_warps - cta.streams_ended == 2;
  ++cta.streams_ended;
}

void SmCore::retire_cta(uint32_t cta_slot) {
  Cta& cta = ctas_[cta_slot];
  settle_residency();
  mechanism_.admission->release(cta.alloc);
  track_allocation();
  cta.valid = false;
  --resident_ctas_;
  stats_.ctas_completed++;
  while (launch_one_cta()) {
  }
}

SmStats SmCore::stats() const {
  SmStats s = stats_;
  // Issue counts per op class only (try_issue()); the totals are their sums.
  for (unsigned i = 0; i < kNumOpClasses; ++i) {
    s.warp_instructions += s.op_counts[i];
    s.thread_instructions += s.thread_op_counts[i];
  }
  add_residency(s, stats_.active_cycles - residency_settled_at_);
  const BankArray& rf = arbitrator_.register_file();
  s.rf_bank_reads = rf.reads();
  s.rf_bank_writes = rf.writes();
  s.rf_bank_conflicts = arbitrator_.total_conflicts();
  s.smem_accesses = scratchpad_.accesses();
  s.smem_conflict_cycles = scratchpad_.conflict_cycles();
  s.l1_hits = l1d_.hits();
  s.l1_misses = l1d_.misses();
  s.l1_fills = l1d_.fills();
  s.l1_pending_hits = l1d_.pending_hits();
  s.icache_hits = icache_.hits();
  s.icache_misses = icache_.misses();
  s.icache_fills = icache_.fills();
  s.icache_pending_hits = icache_.pending_hits();
  s.l1_sector_misses = l1d_.sector_misses();
  return s;
}

void SmCore::collect(ActivityCounters& out) const {
  const BankArray& banks = arbitrator_.register_file();
  auto& rf = out["register_file_bank"];
  rf.reads += banks.total_reads();
  rf.writes += banks.total_writes();
  rf.instances = banks.banks();  // per SM; the GPU multiplies by SMs
  auto& smem = out["scratchpad_bank"];
  const uint64_t smem_loads = stats_.op_counts[static_cast<int>(OpClass::SharedLoad)];
  const uint64_t smem_ops = smem_loads + stats_.op_counts[static_cast<int>(OpClass::SharedStore)];
  // Lane accesses split between reads and writes in proportion to the
  // issued LDS/STS; register accesses a mechanism routes to scratchpad
  // banks add their own reads and writes.
  const uint64_t reads = smem_ops ? scratchpad_.accesses() * smem_loads / smem_ops : 0;
  const BankArray& routed = arbitrator_.group(BankGroup::Scratchpad);
  smem.reads += reads + routed.total_reads();
  smem.writes += scratchpad_.accesses() - reads + routed.total_writes();
  smem.instances = scratchpad_.banks();
  l1d_.collect(out);
  mechanism_.hooks->collect(out);
}

}  // namespace smshare
