// The cycle-level SM pipeline, in plain C++: fetch/decode into per-warp
// instruction buffers, scoreboard, warp schedulers, SP/SFU/LDST units,
// writeback, CTA barriers and CTA completion; and the named structures it
// drives, each a component of its own with its state, cycle rules and
// counters: the operand collectors (operand_collectors.hpp), the bank
// arbitrator and the register file's banks (bank_arbitrator.hpp), the
// scratchpad (scratchpad.hpp), the L1 data cache (l1_data_cache.hpp) and,
// when configured, the instruction cache (instruction_cache.hpp).
//
// One call of tick() is one core cycle; stages run back to front
// (writeback -> LDST -> dispatch -> operand read -> decode -> issue -> fetch) so a stage
// can use a slot its successor freed in the same cycle, as in GPGPU-Sim's
// shader core. With sm.pipeline_registers the instructions also pass
// GPGPU-Sim's pipeline registers (ID_OC, OC_EX, EX_WB): writeback -> LDST ->
// execute -> operand collector steps -> decode -> issue -> fetch. Time and wiring (the clock process, the TLM socket, VCD) live
// in SmModule; this class only sees cycle numbers and a GlobalMemoryPort.
#pragma once

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <memory>
#include <queue>
#include <stdexcept>
#include <vector>

#include "hw/common/activity.hpp"
#include "hw/common/bit_words.hpp"
#include "hw/common/calendar_queue.hpp"
#include "hw/common/chunk_mask.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/prefetch.hpp"
#include "hw/common/tick_turn.hpp"
#include "hw/frontend/cta_dispatcher.hpp"
#include "hw/frontend/kernel.hpp"
#include "hw/sm/bank_arbitrator.hpp"
#include "hw/sm/instruction_cache.hpp"
#include "hw/sm/l1_data_cache.hpp"
#include "hw/sm/mechanism.hpp"
#include "hw/sm/memory_access.hpp"
#include "hw/sm/operand_collectors.hpp"
#include "hw/sm/pipeline_register.hpp"
#include "hw/sm/scheduler_policy.hpp"
#include "hw/sm/scratchpad.hpp"

namespace smshare {

// The SM's view of the memory hierarchy below its L1 caches: the LDST
// unit's line transactions and the instruction cache's line fills.
class GlobalMemoryPort {
 public:
  // access()'s answer when the memory system decides the response's time
  // later (a read under dram.scheduler: frfcfs): it then calls
  // SmCore::memory_response(token, cycle) with the request's `token`.
  static constexpr uint64_t kDeferred = ~0ull;
  // access_or_later()'s answer when the port books the request after the
  // SM's tick (SMs ticked on several host threads: the memory system then
  // books a cycle's requests in SM order); SmCore::apply_later_answers()
  // gets the answers, in the order asked, before the SM's next tick.
  static constexpr uint64_t kLater = ~0ull - 1;

  virtual ~GlobalMemoryPort() = default;
  // One transaction leaving the SM at `cycle` for the `chunks` of the line at
  // `line_addr` (it moves chunks.bytes() bytes); returns the cycle at which
  // its response (read data, or write acknowledgement) is back, or
  // kDeferred. (A whole line: ChunkMask::line(line_bytes).)
  virtual uint64_t access(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle, uint64_t token) = 0;
  // The same, from a caller that can take the answer after its tick: it may
  // return kLater.
  virtual uint64_t access_or_later(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle,
                                   uint64_t token) {
    return access(line_addr, chunks, is_write, cycle, token);
  }
};

// Why the SM issued nothing in a cycle (the most advanced reason seen).
enum class StallReason : uint8_t {
  None = 0,        // something issued
  NoWarp = 1,      // no resident warp
  Drain = 2,       // warps have issued everything and wait for their last results
  Fetch = 3,       // instruction buffers empty
  Barrier = 4,     // warps wait at a CTA barrier
  Scoreboard = 5,  // data dependence on an in-flight result
  Gate = 6,        // held back by the mechanism (lock, coordinator, ...)
  Pipeline = 7,    // ready, but no free operand collector
};
constexpr unsigned kNumStallReasons = 8;
const char* to_string(StallReason r);

struct SmStats {
  uint64_t active_cycles = 0;   // cycles with at least one resident warp
  uint64_t issue_cycles = 0;    // ... in which an instruction issued
  uint64_t stall_cycles = 0;    // ... in which a ready warp found the pipeline full (Jatala: pipeline stall)
  uint64_t idle_cycles = 0;     // ... in which no warp was ready (Jatala: all warps issued, none ready)
  uint64_t empty_cycles = 0;    // cycles with no resident warp before the SM finished
  std::array<uint64_t, kNumStallReasons> reason_cycles{};
  // SmCore::stats() sums these two from the per-class counts below.
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;  // active lanes of issued instructions (GPGPU-Sim's instruction count)
  std::array<uint64_t, kNumOpClasses> op_counts{};
  std::array<uint64_t, kNumOpClasses> thread_op_counts{};  // active lanes per op class (the pipeline's lane energy)
  uint64_t ctas_completed = 0;
  uint64_t max_resident_ctas = 0;
  uint64_t max_resident_warps = 0;
  // Integrals over active cycles, for averages.
  uint64_t resident_cta_cycles = 0;
  uint64_t resident_warp_cycles = 0;
  uint64_t rf_allocated_cycles = 0;
  uint64_t smem_allocated_cycles = 0;
  // Structure activity, copied from the components' counters by
  // SmCore::stats() (the components count; nothing is counted twice).
  std::vector<uint64_t> rf_bank_reads, rf_bank_writes;  // the register file's banks
  uint64_t rf_bank_conflicts = 0;     // operand accesses deferred because the bank was busy (bank arbitrator)
  uint64_t route_retries = 0;         // operand accesses the register route deferred (the pipeline's own count)
  uint64_t smem_accesses = 0, smem_conflict_cycles = 0;  // scratchpad
  uint64_t l1_hits = 0, l1_misses = 0, l1_fills = 0;    // L1 data cache
  uint64_t l1_pending_hits = 0;  // hits on a line whose fill was still in flight: data waits for the fill
  uint64_t icache_hits = 0, icache_misses = 0, icache_fills = 0;  // instruction cache (0 when there is none)
  uint64_t icache_pending_hits = 0;  // fetches of a line whose fill was in flight: the warp waits for the fill
  uint64_t l1_sector_misses = 0;  // misses on a line present without all the sectors needed
  uint64_t l1_mshr_stall_cycles = 0;  // cycles the LDST unit held a miss because every L1 MSHR was busy
  uint64_t global_transactions = 0, global_load_lines = 0, global_store_lines = 0;
  uint64_t barriers = 0;
  uint64_t last_cycle = 0;            // cycle in which the SM last had work

  // Adds another SM's statistics (maxima for max_* and last_cycle): the
  // one place that lists every field, so a new counter is summed by adding
  // it here.
  void add(const SmStats& o);
};

// Probe values sampled into the VCD when tracing is on: the SM-wide
// summaries (gpu.smN.*); each structure has its own (gpu.smN.<structure>.*).
struct SmProbes {
  uint32_t issued_count = 0;     // instructions issued this cycle (all schedulers)
  uint32_t stall_reason = 0;
  uint32_t active_warps = 0;
  uint32_t schedulable_warps = 0;  // kept only for a waveform, as the schedulers' probes
  uint32_t resident_ctas = 0;
  uint32_t pending_loads = 0;
};

// One warp scheduler's activity, for its module (gpu.smN.scheduler<s>):
// plain stores in SmCore::issue(). Only a waveform reads the per-cycle
// ones, so they are kept only while one samples them
// (SmCore::set_probes_traced); `issued` always.
// With sm.dual_issue both instructions of a cycle come from one warp, so
// issued_warp names it and issued_this_cycle is 2.
struct SchedulerProbes {
  int32_t issued_warp = -1;         // warp slot it issued from this cycle; -1 = none
  uint32_t issued_this_cycle = 0;   // instructions it issued this cycle: 0, 1, or 2 with sm.dual_issue
  uint32_t ready_warps = 0;         // its warps ready to issue (no hazard of their own) at its turn this cycle
  uint64_t issued = 0;              // instructions it issued since elaboration (its activity counter)
};

class SmCore : private MechanismMemoryPort {
 public:
  static constexpr uint64_t kNever = ~0ull;
  // tick()'s answer when nothing can happen until a deferred memory response
  // arrives (memory_response() then says from which cycle the SM is due).
  static constexpr uint64_t kAwaitMemory = kNever - 1;

  // `slots`: the warp and CTA slots the SM holds (the run's mechanism's;
  // by default the SM's own).
  SmCore(uint32_t sm_id, const GpuSpec& gpu, GlobalMemoryPort& memory);
  SmCore(uint32_t sm_id, const GpuSpec& gpu, GlobalMemoryPort& memory, SmSlots slots);

  // Makes `kernel` the SM's workload, with `mechanism` built for it, fed by
  // `dispatcher`. Kernels run one after another: the SM must be empty.
  void begin_kernel(KernelSource& kernel, Mechanism mechanism, CtaDispatcher& dispatcher);
  ~SmCore();
  SmCore(const SmCore&) = delete;
  SmCore& operator=(const SmCore&) = delete;

  // Starts one more CTA from the dispatcher if it fits; the GPU calls this
  // round-robin over SMs at kernel launch, as GPGPU-Sim's CTA issuer does.
  bool launch_one_cta();

  // Runs cycle `cycle` and returns the next cycle that needs a tick, or
  // kNever when the SM has no work left (or is deadlocked: see deadlocked()),
  // or kAwaitMemory when only a deferred memory response can wake it.
  uint64_t tick(uint64_t cycle);
  // Asks the host to bring the 256 bytes every tick reads first (from now_:
  // the per-tick scalars and the due events' words after them) into its
  // cache. The clock calls it for the next SM before ticking this one:
  // ticked in turn, an SM finds them evicted by the others' ticks
  // (docs/performance.md, "Locality"), and its tick begins with a chain of
  // loads from them.
  void prefetch_tick_state() const {
    prefetch_lines(&now_, 4 * kHostLineBytes);
  }

  // The answers to this tick's accesses the port answered kLater, in the
  // order they were made (each a cycle or kDeferred): the SM does with each
  // what it would have done with it at once, in the same order among the
  // cycle's events. Returns the first cycle from which the SM must be
  // ticked for them (kNever: none sooner than it said).
  uint64_t apply_later_answers(const uint64_t* answers, size_t count);

  // The deferred read `token` (GlobalMemoryPort::kDeferred) is back at
  // `cycle`, decided before that cycle's tick: fills the L1 or instruction
  // cache, completes the loads waiting for it when it was their last, and
  // releases the fetches waiting for it. Returns `cycle`, from which the SM
  // must be ticked.
  uint64_t memory_response(uint64_t token, uint64_t cycle);

  bool has_work() const { return resident_ctas_ > 0; }
  const SmSlots& slots() const { return slots_; }
  bool deadlocked() const { return deadlocked_; }
  // The pipeline's statistics with the components' activity filled in.
  SmStats stats() const;
  const SmProbes& probes() const { return probes_; }
  const Mechanism& mechanism() const { return mechanism_; }
  void collect(ActivityCounters& out) const;

  // In a waveform's window tick() never skips cycles, so it shows every cycle.
  void set_cycle_by_cycle(bool on) { cycle_by_cycle_ = on; }
  // A waveform samples the SM's probes and its structures' (SmModule::trace).
  // Only then does tick() clear the structures' per-cycle probes
  // (begin_cycle): untraced, nobody reads them.
  void set_probes_traced() { probes_traced_ = true; }

  // With SMs ticked on several host threads: the turn the SM waits for
  // before it touches what SMs share (tick_turn.hpp). The memory port waits
  // for it itself.
  void set_tick_turn(TickTurn* turn) { turn_ = turn; }

  // What the GPU's clock asks before it ticks the SM ahead of the other SMs
  // (GpuModule, "run-ahead"; docs/performance.md):
  // - whether the running kernel's SM can be ticked ahead at all: it leaves
  //   every memory request for later, its mechanism's included (one LDST
  //   line and one fetch a cycle), and its mechanism keeps no kernel-wide
  //   state;
  bool runs_ahead_ok() const { return answers_later_ok_ && !mechanism_.shared_state; }
  // - whether its next tick may take a CTA from the dispatcher, which deals
  //   CTAs in (cycle, SM) order;
  bool may_take_a_cta() const { return ctas_near_end_ != 0 && dispatcher_ != nullptr && dispatcher_->has_next(); }
  // Whether the SM has ticked `cycle` or a later one since the kernel started.
  bool ticked_since(uint64_t cycle) const { return last_ticked_ != kNotTicked && last_ticked_ >= cycle; }

  // The SM's named structures, for the modules that name and trace them
  // (and for a mechanism that attaches a neighbour's register banks:
  // bank_arbitrator().attach_neighbour). The register file is the
  // arbitrator's RegisterFile bank array.
  BankArbitrator& bank_arbitrator() { return arbitrator_; }
  const BankArbitrator& bank_arbitrator() const { return arbitrator_; }
  const BankArray& register_file() const { return arbitrator_.register_file(); }
  OperandCollectors& operand_collectors() { return collectors_; }
  const OperandCollectors& operand_collectors() const { return collectors_; }
  Scratchpad& scratchpad() { return scratchpad_; }
  const Scratchpad& scratchpad() const { return scratchpad_; }
  L1DataCache& l1d() { return l1d_; }
  const L1DataCache& l1d() const { return l1d_; }
  // The instruction cache; present() is false with icache.size_bytes = 0.
  const InstructionCache& icache() const { return icache_; }
  // Warp scheduler s (sm.num_schedulers of them; warp slot w belongs to
  // scheduler w mod sm.num_schedulers): its policy and its probes, both
  // living as long as the SM.
  uint32_t num_schedulers() const { return static_cast<uint32_t>(schedulers_.size()); }
  const SchedulerPolicy& scheduler(uint32_t s) const { return *schedulers_.at(s); }
  const SchedulerProbes& scheduler_probes(uint32_t s) const { return scheduler_probes_.at(s); }

 private:
  struct Warp;
  struct Cta;
  struct Completion {
    uint64_t cycle;
    uint64_t seq;  // tie-break: deterministic order of same-cycle completions
    uint32_t warp;
    std::array<uint16_t, kMaxDstRegs> dst;
    uint8_t num_dst;
    bool long_latency;
    bool operator>(const Completion& o) const { return cycle != o.cycle ? cycle > o.cycle : seq > o.seq; }
  };

  void account_gap(uint64_t cycles);
  // Active cycles for `cycles` cycles at the current residency (one ticked
  // cycle, or a run of skipped ones). The residency integrals of the cycles
  // counted are added when the residency changes (settle_residency()), or
  // per cycle for an admission whose allocation may change at any time.
  void accumulate_residency(uint64_t cycles);
  // Adds the integrals of the active cycles counted since the last call, at
  // the residency they were counted at: called before the resident CTAs or
  // warps, or a tracked allocation, change.
  void settle_residency();
  // Adds `cycles` cycles at the current residency to `s`'s integrals (the
  // tracked allocation's too).
  void add_residency(SmStats& s, uint64_t cycles) const;
  // Reads the admission's allocation after try_admit() or release() (when
  // it changes only there).
  void track_allocation();
  void writeback();
  // writeback() with `route_of(warp, reg)` as the route of a destination
  // (kInterleaved: its bank in the register file, as for
  // OperandCollectors::read_units); kInertGate: the gate is known inert
  // (inert_gate_), otherwise it is asked. The route is taken by value:
  // through a reference, the interleaved route's bank count was reloaded
  // from writeback()'s frame at every completion.
  template <bool kInterleaved, bool kInertGate, class RouteOf>
  void write_results(RouteOf route_of);
  void ldst_step();
  void dispatch();
  void read_operands(uint32_t step = 0);
  // With sm.pipeline_registers: the SP, SFU and LDST pipelines take the
  // oldest instruction of their OC_EX register (GPGPU-Sim's execute()).
  void execute();
  // ... and the operand collector's steps: dispatch into OC_EX, read,
  // allocate from ID_OC (GPGPU-Sim's opndcoll_rfu_t::step).
  void collect_operands();
  void dispatch_to_oc_ex(uint32_t step);
  void allocate_collectors(uint32_t step);
  // The timing of the SP or SFU pipeline an operation takes.
  const UnitTiming& unit_timing(OpClass op) const { return *unit_timings_[static_cast<unsigned>(op)]; }
  static const UnitTiming& timing_rule(const SmSpec& spec, OpClass op);
  void decode();
  void issue();
  // Issues warp `slot`'s next instruction from `scheduler` if the gate lets
  // it and its unit's pipeline has room (a free collector unit; with
  // pipeline registers, a free ID_OC slot), with all the bookkeeping
  // of an issue (scoreboard, statistics, policy, probes, barrier arrival,
  // retirement).
  // kPlain: an issue the caller knows to be plain (plain_issue_ and
  // issues_plainly()): the rules that cannot apply are compiled out, and
  // it calls nothing.
  enum class IssueOutcome : uint8_t { Issued, GateRefused, PipelineFull };
  // (Pinned inline here, as refresh() is.)
  template <bool kPlain>
  [[gnu::always_inline]] inline IssueOutcome try_issue(size_t scheduler, uint32_t slot);
  // Mechanism::wide_warps. The other half of `w`'s wide warp (null: none,
  // or it retired).
  const Warp* other_half(const Warp& w) const;
  // The half `w` must wait for this cycle, or null: an upper half in step
  // with its lower half at the same instruction issues with it; a lower half
  // waits for such an upper half while it cannot issue. Halves out of step
  // or at different instructions (a trace whose halves diverge) issue on
  // their own. Inline for its first test (a warp without another half: every
  // warp but a mechanism's wide ones), paired_half_to_wait_for() out of line.
  const Warp* waits_for_other_half(const Warp& w) const;
  const Warp* paired_half_to_wait_for(const Warp& w) const;
  // The lower half `lower` just issued the instruction at `pc`: its upper
  // half issues the same one in this cycle (through its scheduler, the
  // lower half's) if it is ready, else later on its own.
  void issue_upper_half(const Warp& lower, uint64_t pc);
  void fetch();
  // The fetch group just put in warp `slot`'s instruction buffer looks up
  // the instruction cache: it decodes (a hit) or waits for a line fill.
  void read_icache(uint32_t slot);
  // The group's instruction-cache read happened this cycle (a hit, or its
  // returned fill): issue may see it icache.hit_latency cycles from now.
  void start_decode(uint32_t slot);
  void start_ldst(const OperandCollectors::CollectorUnit& c);
  // The load the LDST unit has sent all lines of is complete when its data
  // is back: at ldst_.data_ready, or after the undecided reads it waits for.
  void finish_load();
  // Deferred reads (FR-FCFS): takes a free token for a read to send (it
  // goes back to the free ones unless the answer is deferred), and records
  // the deferred read under it.
  uint32_t take_read_token();
  void record_read(uint32_t token, bool icache, uint64_t line, ChunkMask sectors);
  // A read of the mechanism's own (access(); its tag already in reads_[token]):
  // its answer goes to the mechanism under that tag.
  void record_mechanism_read(uint32_t token, uint64_t line);
  // ... and its answer, after the tick or decided later (access() returns
  // one known at once): the token is free again.
  void answer_mechanism_read(uint32_t token, uint64_t cycle);
  // Warps resident, results on their way or the LDST unit busy: without
  // any, a tick has nothing to do and the SM sleeps for good (kNever).
  bool has_tick_work() const { return resident_warps_ > 0 || !completions_.empty() || ldst_busy_; }
  // What the SM does with the port's answer (a cycle, or kDeferred) to a
  // load line's miss, at once or after the tick (apply_later_answers()):
  // the L1 fill and the load's data time, or the deferred read it waits for.
  void load_line_answered(uint32_t token, uint64_t line, ChunkMask sectors, uint64_t answer, uint64_t& data_ready,
                          std::vector<uint32_t>& undecided);
  // ... and to warp `slot`'s instruction-cache miss, `seq` its place among
  // the fetches waiting for fills.
  void instruction_fill_answered(uint32_t slot, uint32_t token, uint64_t line, uint64_t answer, uint64_t seq);
  // The LDST unit and the instruction cache ask the port through this: it
  // may answer kLater (GlobalMemoryPort) when nothing else in the tick can
  // look at the answer (one line and one fetch a cycle).
  uint64_t access_memory(uint64_t line, ChunkMask chunks, bool is_write, uint32_t token) {
    return answers_later_ok_ ? memory_.access_or_later(line, chunks, is_write, now_, token)
                             : memory_.access(line, chunks, is_write, now_, token);
  }
  // The load whose last line was sent this cycle, finishing when its later
  // answers are in (finish_load()).
  void finish_load_with(uint32_t warp, const WarpInstruction& inst, uint64_t data_ready,
                        std::vector<uint32_t>& undecided, uint64_t seq);
  // MechanismMemoryPort: the mechanism's own line transactions.
  uint64_t access(uint64_t line_addr, bool is_write, uint64_t cycle, uint64_t tag) override;
  SwapRegion swap_region() const override;
  void schedule_completion(uint32_t warp, const WarpInstruction& inst, uint64_t cycle, bool long_latency);
  // ... with `seq`, its place among the same cycle's completions.
  // kSeqOrder false: taken earlier, and completions pushed since have higher
  // ones (a load finished after its tick, on the host threads).
  template <bool kSeqOrder>
  void schedule_completion(uint32_t warp, const WarpInstruction& inst, uint64_t cycle, bool long_latency,
                           uint64_t seq);
  void arrive_at_barrier(uint32_t warp);
  void check_barrier(uint32_t cta_slot);
  void open_barriers();
  void release_barrier(Cta& cta);
  // Marks warp `warp` exhausted once it has issued its last instruction
  // (the test runs after every issue and fetch; its cheap half is inlined).
  void note_if_exhausted(uint32_t warp);
  void mark_exhausted(uint32_t warp);
  // Re-derives why warp `slot` cannot issue (or that it can) after any event
  // that may change it, and keeps per-scheduler counts of each reason, so a
  // cycle in which no warp is ready costs almost nothing.
  // kAfter: the event it follows, whose facts it takes as known instead of
  // reading them again. PlainIssue (try_issue<true>): the warp is valid and
  // was counted ready, is at no barrier, the rest of its fetch group is as
  // visible as the head it issued, and that instruction is in flight.
  // Decode (decode()): the warp is valid and counted, and its buffer holds
  // the group that just became visible. ScoreboardWrite (writeback()): the
  // warp waited on the scoreboard (so it is valid and counted, at no
  // barrier, its head visible) and a result of it was written.
  // (Pinned inline here, where each use sees it: on the definition alone the
  // pin does not hold for a template used before it, as writeback is.)
  enum class RefreshAfter : uint8_t { AnyEvent, PlainIssue, Decode, ScoreboardWrite };
  template <RefreshAfter kAfter = RefreshAfter::AnyEvent>
  [[gnu::always_inline]] inline void refresh(uint32_t slot);
  // refresh() less the view (update_view()).
  template <RefreshAfter kAfter>
  void refresh_wait(uint32_t slot);
  // Copies what the scheduler policy looks at into the warp's WarpView.
  void update_view(uint32_t slot);
  template <RefreshAfter kAfter>
  StallReason blocking_reason(const Warp& w) const;
  // Retires warp `warp` if it is drained (tested after every issue, fetch
  // and writeback; the retirement itself is rare).
  // kValid: the caller knows the warp is valid (a warp retires only with
  // nothing in flight). (Pinned here, as refresh() is: writeback's template
  // uses it before its definition.)
  template <bool kValid = false>
  [[gnu::always_inline]] inline void maybe_retire(uint32_t warp);
  void retire_warp(uint32_t warp);
  void retire_cta(uint32_t cta_slot);
  // Resident CTAs with at most one live warp whose instruction stream goes
  // on. A CTA ends when its last live warp retires, and a warp retires only
  // once its stream has ended; a tick ends at most one more stream (its one
  // fetch: sm.fetch_per_cycle = 1, which runs_ahead_ok() requires), so only
  // such a CTA can end in the next tick (may_take_a_cta()).
  uint32_t ctas_near_end_ = 0;
  // Warp `w`'s instruction stream has ended: it retires once drained.
  // Out of line: once per warp, in fetch's loop.
  [[gnu::noinline]] void end_stream(Warp& w);
  void note_wake(uint64_t cycle) {
    if (cycle > now_ && cycle < wake_hint_) wake_hint_ = cycle;
  }

  const uint32_t sm_id_;
  const GpuSpec& gpu_;
  const SmSpec& spec_;
  // timing_rule() per operation, looked up at every dispatch to a pipeline
  // (its two comparisons were about 7 host instructions).
  std::array<const UnitTiming*, kNumOpClasses> unit_timings_{};
  const SmSlots slots_;
  KernelSource* kernel_ = nullptr;
  Mechanism mechanism_;
  GlobalMemoryPort& memory_;
  CtaDispatcher* dispatcher_ = nullptr;
  TickTurn* turn_ = nullptr;  // null: ticked on the main thread only

  // The scalars (nearly) every tick reads or writes, together in a few
  // cache lines: ticked in turn with the other SMs, an SM finds its state
  // out of the host's L1 at each tick, and each line it touches is a miss
  // (docs/performance.md, "Locality").
  uint64_t now_ = 0;
  // The cycle last ticked, or kNotTicked when none was since the kernel
  // began (the time before is nobody's cycle): with it the gap test
  // `cycle > last_ticked_ + 1` is false, no flag to test as well.
  static constexpr uint64_t kNotTicked = ~0ull - 1;
  uint64_t last_ticked_ = kNotTicked;
  bool progress_ = false;
  bool counts_as_active_ = false;  // the cycle began with resident warps
  uint64_t wake_hint_ = kNever;
  uint64_t hook_wake_ = kNever;        // mechanism_.hooks->next_wake()
  uint64_t priority_epoch_ = 0;        // mechanism_.hooks->priority_epoch() the views reflect
  StallReason last_reason_ = StallReason::NoWarp;
  // The last ticked cycle issued nothing and waited on memory
  // (IssueActivity::memory_wait_cycles); skipped cycles count as it did.
  bool last_waited_on_memory_ = false;
  uint64_t memory_wait_cycles_ = 0;
  uint64_t memory_wait_idle_cycles_ = 0;  // of those, idle (not a full pipeline)
  bool cycle_by_cycle_ = false;
  bool probes_traced_ = false;
  bool deadlocked_ = false;
  uint32_t resident_ctas_ = 0;
  uint32_t resident_warps_ = 0;
  bool barrier_to_open_ = false;  // a CTA's barrier opens at the start of the next cycle (compact timing)
  bool ldst_busy_ = false;        // the LDST unit holds an instruction (ldst_): asked every tick
  uint32_t oc_ex_filled_ = 0;  // bit u: oc_ex_[u] holds an instruction
  uint32_t route_retries_this_cycle_ = 0;  // operand reads the route deferred in the last tick
  uint32_t fetch_rr_ = 0;
  uint32_t fetch_wanted_ = 0;  // set bits of fetch_wanted_slots_
  const bool pipelined_;  // sm.pipeline_registers: ID_OC and OC_EX (id_oc_, oc_ex_)
  // issue()'s first scheduler in cycle c: GPGPU-Sim's shader_core_ctx::issue
  // starts at one that rotates every cycle (Issue_Prio), c mod
  // sm.num_schedulers; the compact timing always starts at 0. Worked out
  // once: c & first_scheduler_mask_ (a count that is a power of two, as in
  // every shipped config, or 0 without pipeline registers), else by a
  // 64-bit division per tick.
  const uint32_t first_scheduler_mask_;
  const bool first_scheduler_by_division_;
  const uint32_t result_to_writeback_;  // a result ready at c is written at c + this (2 or 0)
  // sm.num_schedulers and sm.fetch_per_cycle, read by every issue and fetch:
  // here, not a line of the spec's each.
  const uint32_t num_schedulers_;
  const uint32_t fetch_per_cycle_;

  // What every tick asks of its due events, next to the scalars above (a
  // line each fewer to miss): the first cycles of the decoding groups and of
  // the fill waits, and the completions' first-cycle bound (CalendarQueue
  // keeps its scalars before its buckets).
  // Fetch groups read from the instruction cache, waiting out its hit
  // latency: (first cycle issue may see them, warp slot), in fetch order,
  // which is also the order of those cycles.
  // A warp has at most one group decoding (it is fetched only with an empty
  // buffer, and empties it only by issuing what is visible), so a ring of
  // one entry per warp slot holds them all: no deque allocation per group.
  struct DecodingGroups {
    struct Entry {
      uint64_t visible;  // first cycle issue may see the group
      uint32_t slot;
    };
    std::vector<Entry> ring;  // warps_.size() entries
    uint32_t head = 0, count = 0;
    // The front's visible cycle, kNever when empty: kept per push and pop so
    // that a tick asks with one comparison whether a group is due (most
    // ticks none is; the ring's own test was about 5 host instructions).
    uint64_t first_visible = kNever;

    const Entry& front() const { return ring[head]; }
    void pop_front() {
      if (++head == ring.size()) head = 0;
      --count;
      first_visible = count == 0 ? kNever : ring[head].visible;
    }
    void push_back(uint64_t visible, uint32_t slot) {
      if (count == ring.size()) throw std::logic_error("SmCore: more groups decoding than warp slots");
      uint32_t at = head + count;
      if (at >= ring.size()) at -= static_cast<uint32_t>(ring.size());
      ring[at] = {visible, slot};
      if (count++ == 0) first_visible = visible;  // a later push is visible no sooner
    }
  };
  DecodingGroups decoding_;
  // Warps whose fetch waits for an instruction-cache line fill, served in
  // the order the fills return (then in the order the warps missed).
  struct FillWait {
    uint64_t ready;
    uint64_t seq;
    uint32_t warp;
    bool operator>(const FillWait& o) const { return ready != o.ready ? ready > o.ready : seq > o.seq; }
  };
  struct FillWaits {
    std::priority_queue<FillWait, std::vector<FillWait>, std::greater<FillWait>> queue;
    // The first fill's ready cycle, kNever when none waits: kept per push
    // and pop, for fetch()'s test each tick (as DecodingGroups::first_visible).
    uint64_t first_ready = kNever;

    void push(const FillWait& f) {
      queue.push(f);
      first_ready = queue.top().ready;
    }
    // The first warp to fetch, taken out.
    uint32_t pop() {
      const uint32_t warp = queue.top().warp;
      queue.pop();
      first_ready = queue.empty() ? kNever : queue.top().ready;
      return warp;
    }
  };
  FillWaits fill_waits_;
  uint64_t fill_wait_seq_ = 0;
  CalendarQueue<Completion> completions_;
  uint64_t completion_seq_ = 0;

  std::vector<Warp> warps_;
  // Every warp's instruction buffer, sm.ibuffer_entries each, slot by slot
  // (a warp keeps only its head: Warp::ib_head).
  std::unique_ptr<WarpInstruction[]> ibuffers_;
  WarpInstruction* ibuffer_of(uint32_t slot) const { return ibuffers_.get() + size_t{slot} * spec_.ibuffer_entries; }
  std::vector<Cta> ctas_;
  std::vector<std::unique_ptr<SchedulerPolicy>> schedulers_;
  std::vector<SchedulerProbes> scheduler_probes_;  // per scheduler; sized once (the waveform holds addresses)
  // One scheduler's warps as its issue() turn sees them (kept by refresh()),
  // together, so that a turn finds them from one base.
  // 128 bytes (aligned to a cache line, from 120): an index into
  // sched_warps_ is a shift, where a multiply by 120 took four instructions
  // (at each scheduler turn, issue and change of a warp's readiness).
  struct alignas(64) SchedulerWarps {
    std::vector<WarpView> views;  // its warp list: position p holds slot scheduler + p * sm.num_schedulers
    uint32_t size = 0;            // views.size(), without the division by a view's size at each walk
    uint32_t gate_refused = 0;    // warps whose refusal the policy has not seen
    // wait_count[reason]: its warps in that state (reason None = ready to
    // issue as far as the warp itself is concerned).
    std::array<uint32_t, kNumStallReasons> wait_count{};
    // ready_need[n]: its ready warps whose next instruction needs a slot of
    // ExecUnit n, or (n = kNoPipeline) none: a barrier or exit.
    std::array<uint32_t, kNumExecUnits + 1> ready_need{};
    // The sum of its ready warps' slots, which is the slot of the ready warp
    // when there is one.
    uint32_t ready_slot_sum = 0;
    // A bit per position in its warp list, set while that warp is ready, so
    // a round-robin policy's order of the ready warps is a bit scan
    // (visit_ready_in_rotation) instead of a pass over every warp.
    std::vector<uint64_t> ready_bits;  // bit_words.hpp
    // Its policy is round-robin (SchedulerPolicy::round_robin()): its order
    // is walked on ready_bits from the position after last_issued_position,
    // the list position of the warp it last issued from (none yet: ~0u),
    // kept here instead of by the policy, without a virtual call per turn
    // or per issue (the policy is told neither).
    bool round_robin = false;
    uint32_t last_issued_position = ~0u;
  };
  static_assert(sizeof(SchedulerWarps) == 128, "a power of two");
  std::vector<SchedulerWarps> sched_warps_;
  // Its schedulers' ready warps (their wait_count[None]), kept by refresh().
  uint32_t ready_warps_ = 0;
  static constexpr unsigned kNoPipeline = kNumExecUnits;
  // Visits the ready warps of `scheduler` in list order from the position
  // after `last_position` (from the front when it is not in the list), which
  // is a round-robin order() less the warps not ready, until visit(slot)
  // returns true; returns whether one did. Visits must not change which warps
  // are ready before the one that returns true (a refused issue does not).
  template <class Visit>
  bool visit_ready_in_rotation(size_t scheduler, uint32_t last_position, Visit&& visit) const;
  // Tries to issue from ready warp `slot` of `scheduler` in issue()'s walk:
  // true when it issued (the scheduler is done), else `best` says why not.
  bool issue_from(size_t scheduler, uint32_t slot, StallReason& best);
  // issue_from() for a warp whose pipeline no try has found full this cycle
  // and whose issue is not plain (plain_issue_, issues_plainly()).
  bool issue_from_open_pipeline(size_t scheduler, uint32_t slot, StallReason& best);
  // Some policy calls order(), the only reader of the warp views: with only
  // round-robin policies (walked on the ready bits) update_view() has nothing
  // to keep.
  bool views_read_ = true;
  // Every policy's order keeps no state: a scheduler with one ready warp
  // tries it without ordering (the order could only put it first among the
  // ready), and ...
  bool stateless_orders_ = false;
  // The mechanism's gate does nothing (WarpGate::inert): it is never asked.
  bool inert_gate_ = false;
  // ... with an inert gate too, a scheduler whose ready warps all find their
  // pipeline full is not run.
  bool skip_full_schedulers_ = false;
  // Most issues need none of the rules around the common case: with
  // pipeline registers, an inert gate, round-robin policies only (no view
  // to keep, no policy to tell) and no dual issue, an instruction issued
  // plainly (issues_plainly()) goes into its ID_OC register with its
  // bookkeeping and the warp's new wait, and nothing else.
  bool plain_issue_ = false;
  // ... and the warp's next instruction: no wide-warp half to pair with, not
  // a barrier or an exit (they act at issue), not its program's last (whose
  // issue may end the warp).
  bool issues_plainly(const Warp& w) const;
  static unsigned pipeline_need(const WarpInstruction& inst) {
    return acts_at_issue(inst.op) ? kNoPipeline : static_cast<unsigned>(exec_unit_of(inst.op));
  }
  // Room for an instruction bound for `unit` at issue: a free ID_OC slot with
  // pipeline registers, else a free collector unit.
  bool has_room(unsigned unit) const {
    return pipelined_ ? id_oc_[unit].has_free() : collectors_.has_free_unit(static_cast<ExecUnit>(unit));
  }
  // ExecUnit bits: pipelines an issue() try found without room this cycle,
  // with an inert gate (nothing else to ask before the room). Issue only
  // takes room, so the other ready warps bound for one skip the try: ready
  // warps often queue up behind a busy unit (the LDST unit's, mostly).
  unsigned full_pipelines_ = 0;
  // Some ready warp of `scheduler` may issue (as far as its pipeline knows).
  bool may_issue_any(size_t scheduler) const;
  // The most advanced reason any scheduler's waiting warps show (their
  // wait_count), found again only after refresh() changed a count: on the
  // bench trace half the cycles issue nothing, and in nine in ten of those
  // no warp's reason changed since the cycle before.
  StallReason most_advanced_wait();
  StallReason most_advanced_wait_ = StallReason::NoWarp;
  bool most_advanced_wait_known_ = false;
  // A gate refusal the policies have not yet seen in an order.
  bool refusals_unseen() const {
    return std::any_of(sched_warps_.begin(), sched_warps_.end(),
                       [](const SchedulerWarps& list) { return list.gate_refused > 0; });
  }
  bool refusal_shown_ = false;  // this cycle's orders were shown a refusal
  // Consecutive cycles without progress run only because a stateful policy
  // was, or is still to be, shown a refusal.
  uint32_t refusal_only_cycles_ = 0;
  std::vector<uint32_t> sched_order_;
  std::array<std::vector<uint64_t>, kNumExecUnits> unit_next_free_;  // per ExecUnit, per pipeline
  // A warp waiting for an instruction fill whose return is not decided yet
  // (FR-FCFS), with its place in the order of misses.
  struct FillWaitTicket {
    uint64_t seq;
    uint32_t warp;
  };

  // The LDST unit's instruction while ldst_busy_.
  struct Ldst {
    uint32_t warp = 0;
    WarpInstruction inst;
    std::vector<LineAccess> lines;
    size_t next_line = 0;
    uint64_t data_ready = 0;
    uint64_t mshr_wait_until = 0;  // the next line's miss waits for an L1 MSHR until this cycle (kNever: a decision)
    uint64_t mshr_stall_from = kNever;  // first cycle of the MSHR stall in progress (kNever: none)
    std::vector<uint32_t> undecided;    // FR-FCFS: deferred reads the load waits for, not answered yet
    uint32_t later_lines = 0;           // lines sent this tick whose answer comes later (kLater)
  } ldst_;

  // FR-FCFS: reads sent below whose return the memory system decides later,
  // by token, and the loads waiting for them (deferred_loads_[i]).
  struct DeferredRead {
    bool icache = false;
    bool mechanism = false;            // the mechanism's own read (MechanismMemoryPort): its `tag`
    uint64_t tag = 0;
    uint64_t line = 0;
    ChunkMask sectors;                 // L1: the sectors it fills
    std::vector<uint32_t> loads;       // deferred_loads_ entries waiting for it
    std::vector<FillWaitTicket> fetches;  // warps whose fetch waits for it (icache)
  };
  struct DeferredLoad {
    uint32_t warp = 0;
    WarpInstruction inst;   // its lane addresses are not kept (copy_without_addresses)
    uint64_t ready = 0;     // the latest data time known so far
    uint32_t waiting = 0;   // deferred reads still to come
  };
  std::vector<DeferredRead> reads_;
  std::vector<uint32_t> free_reads_;
  uint32_t reads_in_flight_ = 0;
  std::vector<DeferredLoad> deferred_loads_;
  std::vector<uint32_t> free_deferred_loads_;

  // Accesses this tick the port answers later (GlobalMemoryPort::kLater),
  // in order, with what the SM does with each answer.
  struct LaterAnswer {
    // None: a write. MechanismRead: a read of the mechanism's own (access(): its tag in reads_[token]).
    enum class Use : uint8_t { None, LoadLine, InstructionFill, MechanismRead } use = Use::None;
    uint32_t token = 0;   // taken when asked: the read's name if it is deferred
    uint32_t warp = 0;    // InstructionFill: the warp fetching
    uint64_t line = 0;
    ChunkMask sectors;    // LoadLine: the L1 sectors it fills
    uint64_t seq = 0;     // InstructionFill: its place among the fetches waiting for fills
  };
  std::vector<LaterAnswer> later_;
  bool answers_later_ok_ = false;  // one LDST line and one fetch a cycle
  // The load whose last line waits for a later answer: finish_load() with
  // the completion order it took when the line was sent.
  struct LaterLoad {
    bool pending = false;
    uint32_t warp = 0;
    WarpInstruction inst;
    uint64_t data_ready = 0;
    std::vector<uint32_t> undecided;
    uint64_t seq = 0;
  } later_load_;
  uint32_t line_bytes_;
  ChunkMask line_chunks_;  // ChunkMask::line(line_bytes_)
  // Rounds to the sectors of the transactions the SM sends below: the L1's,
  // or the L2's without an L1 (the whole line when not sectored). Worked
  // out once, as the caches do (SectorRounding).
  SectorRounding to_sectors_;

  // sm.pipeline_registers: GPGPU-Sim's ID_OC and OC_EX registers per unit
  // type, as wide as the type has pipelines (GTX480: 2 SP, 1 SFU, 1 LDST),
  // ID_OC first in, first out (issue fills it in GPGPU-Sim's uid order);
  // each SP/SFU pipeline's result cycles.
  struct IssuedInstruction {
    WarpContext warp;
    WarpInstruction inst;
  };
  std::array<FifoPipelineRegister<IssuedInstruction>, kNumExecUnits> id_oc_;
  std::array<PipelineRegister<OperandCollectors::CollectorUnit>, kNumExecUnits> oc_ex_;
  std::array<std::vector<ResultCycles>, kNumExecUnits> result_cycles_;
  template <class Register>
  static uint32_t staged(const std::array<Register, kNumExecUnits>& registers) {  // instructions in them
    return registers[0].size() + registers[1].size() + registers[2].size();
  }

  BankArbitrator arbitrator_;
  OperandCollectors collectors_;
  Scratchpad scratchpad_;  // claims its banks in arbitrator_
  L1DataCache l1d_;
  InstructionCache icache_;

  // Valid warps with an empty instruction buffer and instructions left, a
  // bit per slot, so fetch() finds them without a scan; fetch_wanted_ counts
  // the set bits for its early return. Only a launch (wanted), an issue that
  // empties the buffer of a warp whose program goes on (wanted) and a fetch
  // (not wanted: filled, or the program ended) change it: a retiring warp has
  // no instructions left, so its bit is already clear.
  std::vector<uint64_t> fetch_wanted_slots_;
  void set_fetch_wanted(uint32_t slot, bool wanted);
  // The first k' >= k (k' < warp slots) for which slot (start + k') mod
  // warp slots wants a fetch; the warp slots if none: fetch()'s round-robin scan.
  uint32_t next_fetch_candidate(uint32_t start, uint32_t k) const;
  uint64_t next_age_ = 0;
  // SmStats::active_cycles when the residency integrals were last settled.
  uint64_t residency_settled_at_ = 0;
  // The admission's allocation changes only on admit and release
  // (CtaAdmission::allocation_changes_only_on_admit_and_release): it is
  // kept here, read after those calls, and integrated with the residency.
  bool allocation_tracked_ = false;
  uint32_t registers_allocated_ = 0;
  uint32_t smem_allocated_ = 0;


  SmStats stats_;
  SmProbes probes_;
};

}  // namespace smshare
