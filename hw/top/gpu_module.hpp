// The GPU top: N SMs bound to the memory system, the clock, and the kernel
// launcher. One clock method ticks, each cycle, the SMs that are due, in SM
// order (an SM that can do nothing sleeps until its next event), so the
// order of memory requests within a cycle is fixed by SM index: a run gives
// the same result whether SMs sleep through idle cycles or, in a waveform's
// window, tick every cycle; and with --host-threads, whether the SMs of a
// cycle are ticked one after another or on several host threads. The clock
// runs up to kCyclesAhead cycles in one SystemC activation, ahead of
// SystemC time (the SMs' transactions carry their cycle in the delay).
// Kernels run one after another (a stream): when every SM has drained
// kernel i, kernel i+1 is launched in the next cycle, its CTAs dealt
// round-robin over the SMs.
#pragma once

#include <systemc>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hw/common/gpu_config.hpp"
#include "hw/common/parallel_ticks.hpp"
#include "hw/common/structure_module.hpp"
#include "hw/common/waveform.hpp"
#include "hw/frontend/cta_dispatcher.hpp"
#include "hw/frontend/kernel.hpp"
#include "hw/mem/memory_system_module.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sm/occupancy.hpp"
#include "hw/sm/sm_module.hpp"
#include "hw/top/cta_dispatcher_module.hpp"
#include "hw/top/run_ahead_turn.hpp"

namespace smshare {

class GpuModule : public sc_core::sc_module {
 public:
  // Per kernel of the stream: what ran and when.
  struct KernelRecord {
    KernelSource* kernel = nullptr;
    Occupancy occupancy;
    uint64_t start_cycle = 0;
    uint64_t end_cycle = 0;            // cycle after the last SM drained it
    uint64_t warp_instructions = 0;
    uint64_t ctas_completed = 0;
    bool finished = false;
  };

  // Computes every kernel's occupancy up front, so impossible kernels are
  // rejected (InputError) before any simulation. `mechanism` creates its
  // structure modules under each SM now, and builds each SM's policies at
  // every kernel launch, to which the SM binds those modules.
  // `host_threads` > 1: the SMs due in a cycle are ticked on that many host
  // threads (this one among them), with the same result (parallel_ticks.hpp).
  // `host_threads_pace`: how the cycles with SMs of two units due choose
  // between the threads and one after another (SMSHARE_HOST_THREADS_ALWAYS:
  // tests, the bench).
  // `run_ahead`: an SM is ticked several cycles in a row where that cannot
  // change the report (tick_window(); with `host_threads` > 1, in the
  // stretches the pace gives to one thread); false: every SM one cycle at a time
  // (SMSHARE_RUN_AHEAD=0: tests, the bench).
  GpuModule(sc_core::sc_module_name name, const GpuSpec& spec, std::vector<KernelSource*> kernels,
            ConfiguredMechanism mechanism, const std::string& kernel_origin, unsigned host_threads = 1,
            PaceMode host_threads_pace = PaceMode::Measured, bool run_ahead = true);
  ~GpuModule() override;

  // Registers the probes of the SMs `wave` traces (--vcd-sms). In the
  // window's cycles those SMs tick every cycle and the clock samples `wave`
  // after ticking the SMs; outside it they sleep as in an untraced run.
  // `wave` must outlive the simulation. Before the simulation starts (the
  // DRAM channels then keep the record their queue-depth probe reads).
  void trace(Waveform& wave);

  // Calls `observe(cycle)` from the clock, after the SMs ticked, at the first
  // tick at or after every `period`-th cycle. For observers that only read
  // the GPU (the progress line): they run inside the clock's own process, so
  // the SystemC schedule stays that of an unobserved run, and between calls
  // they cost one comparison per tick.
  void observe_every(uint64_t period, std::function<void(uint64_t cycle)> observe);

  const GpuSpec& spec() const { return spec_; }
  const MemorySystem& memory() const { return *memory_; }
  const CtaDispatcherModule& cta_dispatcher() const { return *cta_dispatcher_; }
  const std::vector<std::unique_ptr<SmModule>>& sms() const { return sms_; }
  const SmConfiguration& sm_configuration(uint32_t sm) const { return sm_configs_.at(sm); }
  const std::vector<KernelRecord>& kernels() const { return records_; }
  bool deadlocked() const;
  uint64_t total_warp_instructions() const;  // issued so far, every SM and kernel
  // The cycle after the last one any SM worked in: the run's length, the
  // report's `cycles`.
  uint64_t end_cycle() const;
  size_t kernels_launched() const { return next_kernel_; }  // the one running is the last of them
  // --host-threads: cycles with SMs of two or more units due, and how many
  // of them were ticked on the threads (ParallelPace); both 0 with one thread.
  const ParallelPace& parallel_pace() const { return pace_; }
  // Run-ahead: SM ticks run ahead of the cycle the clock was at, and the
  // windows they were in (a window: the ticks of one SM in a row after one
  // at the clock's cycle); both 0 when no SM ran ahead.
  uint64_t sm_ticks_ahead() const { return ticks_ahead_; }
  uint64_t run_ahead_windows() const { return windows_ahead_; }

 private:
  SC_HAS_PROCESS(GpuModule);
  void start_of_simulation() override { launch(0, 0); }
  // How far the clock may run ahead of SystemC time in one activation, in
  // cycles: the memory system's own record of requests in flight is pruned
  // at SystemC time (DramChannelTiming::retire), so it holds at most this
  // many cycles more of them.
  static constexpr uint64_t kCyclesAhead = 256;
  void clock_method();
  // Runs GPU cycle `cycle` (launch, memory responses, the SMs' ticks, the
  // waveform, the observer); returns the next cycle anything is due
  // (SmCore::kNever: nothing left).
  uint64_t run_cycle(uint64_t cycle);
  // dram.scheduler: frfcfs. Takes the DRAM decisions due before cycle
  // `cycle`'s requests could matter (MemoryTiming::advance) and hands the
  // completed reads to their SMs, re-arming them; and the first cycle in
  // which the next decision is due (SmCore::kNever: none).
  void deliver_memory_responses(uint64_t cycle);
  uint64_t next_memory_cycle() const;
  // The first cycle whose deliver_memory_responses() takes a decision at
  // `decision_ps` (SmCore::kNever for MemoryTiming::kDeferred).
  uint64_t memory_cycle_of(uint64_t decision_ps) const;
  // SM `sm` must be ticked from `cycle` on (its memory answers): sooner than
  // it was due, or at all when it slept until a deferred response.
  void wake(uint32_t sm, uint64_t cycle);
  // Gives each SM one CTA of kernel `k` per round, round-robin, until no SM
  // takes another (GPGPU-Sim's CTA issue at kernel launch).
  void launch(size_t k, uint64_t cycle);
  void kernel_drained(uint64_t cycle);
  // What the SMs are due to do after a cycle's ticks, gathered in the pass
  // that ticks them (a second pass over due_ cost as much as the first:
  // 60 M host instructions on the bench trace).
  struct DueAfterTicks {
    bool any_was_due = false;  // some SM ticked in the cycle
    // The least of the SMs' due cycles, SmCore::kAwaitMemory (an SM asleep
    // until a deferred response, one below kNever) counted as one: a
    // minimum per SM, without a branch on kAwaitMemory.
    uint64_t least_due = SmCore::kNever;
    static_assert(SmCore::kAwaitMemory + 1 == SmCore::kNever, "no due cycle between kAwaitMemory and kNever");
    // Every SM asleep for good: the kernel has drained.
    bool all_asleep() const { return least_due == SmCore::kNever; }
    // The earliest cycle an SM is due, kAwaitMemory not counted.
    uint64_t earliest() const { return least_due >= SmCore::kAwaitMemory ? SmCore::kNever : least_due; }
    void note(uint64_t due) { least_due = std::min(least_due, due); }
  };
  // Ticks the SMs due in `cycle` (in SM order, or on the host threads).
  DueAfterTicks tick_due_sms(uint64_t cycle);
  // Run-ahead: ticks SM `sm`, due in `cycle` (the clock's cycle), and then
  // on, its later cycles ahead of the other SMs, while nothing another SM
  // does first could change what it does; returns its due cycle, or the
  // cycle of its last tick if the clock must visit it (held_next_).
  // The SMs' state stays in the host's caches across those ticks, where
  // ticking each SM once a cycle in turn finds it evicted by the others'.
  // `windows` false: only the SM's turn in `cycle` (its tick, or the booking
  // of its requests if it is held there), as on the threads' way.
  uint64_t tick_window(uint32_t sm, uint64_t cycle, bool windows = true);
  // Builds the units and, when there are two or more, the pool of up to
  // `host_threads` threads (one per unit at most).
  void start_host_threads(unsigned host_threads, PaceMode pace);
  // In a cycle ticked in parallel: books, in SM order, the requests SMs up
  // to `last_sm` left for later and that are not booked yet (main thread).
  void book_later_requests_through(uint32_t last_sm);
  uint64_t now_cycle() const;
  uint64_t total_ctas_completed() const;
  // Switches the traced SMs to ticking every cycle when `cycle` enters the
  // waveform's window, and back when it leaves it.
  void follow_window(uint64_t cycle);

  const GpuSpec& spec_;
  const uint64_t period_ps_;  // spec_.core_period_ps(), which rounds a division: read every cycle
  const sc_core::sc_time resolution_ = sc_core::sc_get_time_resolution();  // 1 ps: ps_time()'s unit
  const ConfiguredMechanism mechanism_;
  const std::string kernel_origin_;
  std::vector<KernelRecord> records_;
  std::vector<std::unique_ptr<CtaDispatcher>> dispatchers_;
  std::unique_ptr<CtaDispatcherModule> cta_dispatcher_;  // bound to dispatchers_[k] when kernel k launches
  std::unique_ptr<MemorySystem> memory_;
  // Per SM, its hardware in this run (the mechanism's configuration bits);
  // each SmModule holds a reference to its spec: sized once, never moved.
  std::vector<SmConfiguration> sm_configs_;
  std::vector<std::unique_ptr<SmModule>> sms_;
  // sms_[i]->core(), which the clock ticks: a tick reads no SmModule (a
  // cache line fewer per tick; docs/performance.md, "Locality").
  std::vector<SmCore*> cores_;
  size_t next_kernel_ = 0;
  std::vector<uint64_t> due_;                 // per SM: next cycle to tick, SmCore::kNever when asleep
                                              // (kAwaitMemory: until a deferred response)
  std::vector<MemCompletion> responses_;      // scratch for deliver_memory_responses()
  // --host-threads > 1: the pool, and the SMs as units of its work: ranges
  // of SMs one thread ticks in order (SMs joined by a neighbour's register
  // banks are one), with, per unit, whether it is due in the cycle ticked.
  std::unique_ptr<ParallelTicks> ticks_;
  std::vector<ParallelTicks::Unit> units_;
  std::vector<uint8_t> unit_due_;
  std::vector<uint32_t> unit_of_;  // per SM, its unit's index
  uint64_t ticking_cycle_ = 0;
  // What the threads' ticks return, a cache line per SM (due_ is read by
  // the clock every cycle; threads writing neighbouring entries of it would
  // contend), copied into due_ after the cycle.
  struct alignas(64) NextDue {
    uint64_t cycle = 0;
  };
  std::unique_ptr<NextDue[]> next_due_;
  uint32_t booked_through_ = 0;  // SMs below it have had every later request booked this cycle
  ParallelPace pace_;  // whether the threads are faster now
  // Run-ahead (no waveform): the turn of an SM ticked ahead
  // (null: run-ahead off for the run), and whether the running kernel's SMs
  // may run ahead (every one runs_ahead_ok(), none reaching a neighbour).
  std::unique_ptr<RunAheadTurn> run_ahead_turn_;
  bool kernel_runs_ahead_ = false;
  // Per SM: kNotHeld, or the due cycle its last tick returned when it
  // stopped ahead at due_[sm] with requests to book there in SM order (or
  // done: the clock visits the cycle of its last tick). 0 is never such a
  // due cycle: a tick of cycle t returns t + 1 or later.
  static constexpr uint64_t kNotHeld = 0;
  std::vector<uint64_t> held_next_;
  bool held(uint32_t sm) const { return held_next_[sm] != kNotHeld; }
  uint64_t ticks_ahead_ = 0;
  uint64_t windows_ahead_ = 0;
  std::function<void(const ParallelTicks::Unit&)> tick_unit_;
  uint64_t launch_at_ = SmCore::kNever;       // cycle the next kernel starts
  Waveform* wave_ = nullptr;                  // null: no waveform
  std::vector<uint32_t> traced_sms_;
  std::vector<StructureModule*> traced_structures_;  // modules whose probes the waveform shows
  bool in_window_ = false;
  std::function<void(uint64_t)> observer_;
  uint64_t observe_period_ = 0;
  uint64_t next_observation_ = SmCore::kNever;  // kNever: nobody observes
};

}  // namespace smshare
