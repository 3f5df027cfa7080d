// The SMs of one cycle ticked on several host threads, with the result of
// ticking them one after another in SM order (tick_turn.hpp says what that
// takes of an SM). Plain C++: the GPU's clock method calls run_cycle() from
// the SystemC thread, which ticks SMs too and serves, in their turn, the
// memory calls the other threads' SMs make.
//
// Work is dealt in units: a range of SMs one thread ticks in order. SMs that
// reach into each other's state (cross-SM sharing's borrowed register banks)
// are one unit. Unit u is always ticked by thread u mod threads, so an SM's
// state stays in one core's caches (dealing units to whichever thread is
// free moved every SM between cores each cycle, and 2 threads ran slower
// than 1). Each thread ticks its units in SM order, so the lowest SM not
// finished is always being ticked, and turns cannot deadlock.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "hw/common/tick_turn.hpp"

namespace smshare {

// How ParallelPace chooses: by measuring (the usual run), always the
// threads, however slow (tests of the threads' result; the bench's
// efficiency figures), or the two ways taking turns stretch by stretch
// (tests of run-ahead's windows, which the serial way runs, mixed with
// cycles on the threads).
enum class PaceMode : uint8_t { Measured, AlwaysThreads, Alternate };

// Whether to tick a cycle's SMs on the threads or on this one: whichever is
// faster on this host now, measured as host time per SM tick over stretches
// of cycles (a busy machine, where a thread waits for a core at every cycle,
// or cycles with little work per SM can make the threads slower). The way is
// decided only by a probe: a stretch of the other way compared with the
// stretch just before it, so that both are of the same phase of the run and
// state of the host. The report is the same either way, so the choice is
// free to follow the host.
class ParallelPace {
 public:
  using Clock = std::chrono::steady_clock::time_point (*)();
  // `clock`: the host clock (a test's own, to drive the choice).
  explicit ParallelPace(Clock clock = &std::chrono::steady_clock::now) : clock_(clock) {}
  static constexpr uint32_t kStretch = 256;  // cycles per measurement
  // Stretches the faster way per stretch the other way (a probe), doubling
  // while probes find the other way slower.
  static constexpr uint32_t kProbeEvery = 8;
  static constexpr uint32_t kProbeEveryMax = 128;
  // A probe of the threads is given up as soon as its time so far is this
  // many times what the serial way took for as many SM ticks, and more than
  // kGiveUpAfter (waking the workers takes some), looked at every
  // kGiveUpCheckEvery cycles: its first stretch is not timed (a warm-up),
  // and a worker woken onto this thread's core made one cost 81 ms where a
  // serial stretch costs 1.
  static constexpr double kGiveUpFactor = 8;
  static constexpr std::chrono::microseconds kGiveUpAfter{1000};
  static constexpr uint32_t kGiveUpCheckEvery = 4;

  bool parallel() const { return mode_ == PaceMode::AlwaysThreads || parallel_; }
  // Measured starts on this thread (the serial way is timed before the
  // threads' first probe, which can then be given up); Alternate on the threads.
  void set_mode(PaceMode mode) {
    mode_ = mode;
    parallel_ = mode != PaceMode::Measured;
  }
  // A cycle with SMs of two or more units due was ticked the way parallel()
  // said, `sm_ticks` SM ticks in all ...
  void record(uint64_t sm_ticks);
  // ... and the SM ticks of a cycle with fewer, which count in the
  // stretch's time as well (run-ahead's windows: the serial way ticks SMs
  // ahead in such cycles too).
  void add_ticks(uint64_t sm_ticks) { stretch_ticks_ += sm_ticks; }
  uint64_t parallel_cycles() const { return parallel_cycles_; }
  uint64_t cycles() const { return cycles_; }  // cycles recorded
  uint64_t probes_given_up() const { return probes_given_up_; }  // before their end (give_up_probe_if_slow)

 private:
  // After a stretch is timed: the way for the next one.
  void choose();
  // Inside a probe of the threads: back to one thread if it already costs
  // kGiveUpFactor times the serial way.
  void give_up_probe_if_slow();
  // The way until the next probe, sooner if the probed way won.
  void end_probe(bool parallel_is_faster);
  // The stretch's host time per SM tick so far, and a new stretch from `now`.
  double ns_per_tick_until(std::chrono::steady_clock::time_point now) const;
  void begin_stretch(std::chrono::steady_clock::time_point now);

  Clock clock_;
  bool warming_up_ = false;  // this stretch follows a change of way: not timed
  uint32_t probe_every_ = kProbeEvery;
  bool probing_ = false;
  PaceMode mode_ = PaceMode::Measured;
  bool parallel_ = false;
  double ns_per_tick_[2] = {0, 0};  // [serial, parallel]; 0: not measured yet
  uint32_t stretch_cycles_ = 0;
  uint64_t stretch_ticks_ = 0;
  uint32_t stretches_since_probe_ = 0;
  std::chrono::steady_clock::time_point stretch_start_{};
  uint64_t parallel_cycles_ = 0;
  uint64_t cycles_ = 0;
  uint64_t probes_given_up_ = 0;
};

// A range of SMs one thread ticks in order.
struct TickUnit {
  uint32_t first_sm = 0;
  uint32_t last_sm = 0;  // inclusive
  bool operator==(const TickUnit& o) const { return first_sm == o.first_sm && last_sm == o.last_sm; }
};

// The units of SMs whose `neighbours[i]` (-1: none) reach into each other's
// state: an SM and its neighbour are one unit, widened to a range of SM
// indices (a thread waits only for lower SMs, so a unit must not skip one).
std::vector<TickUnit> tick_units(const std::vector<int32_t>& neighbours);

class ParallelTicks final : public TickTurn {
 public:
  using Unit = TickUnit;

  // `threads` host threads in all (this one and threads - 1 workers), for
  // `num_sms` SMs. threads >= 2.
  ParallelTicks(unsigned threads, uint32_t num_sms);
  ~ParallelTicks() override;
  ParallelTicks(const ParallelTicks&) = delete;
  ParallelTicks& operator=(const ParallelTicks&) = delete;

  // Ticks a cycle: tick_unit(u) for each unit u with due[u], on all threads,
  // and returns when every one has returned; rethrows the exception of the
  // lowest unit that threw (as in SM order). tick_unit ticks the unit's SMs in order and calls finished(sm)
  // after each (the others' turn may come); an SM of a unit not due this
  // cycle has no turn to wait for.
  void run_cycle(const std::vector<Unit>& units, const std::vector<uint8_t>& due,
                 const std::function<void(const Unit&)>& tick_unit);
  // SM `sm` has finished the cycle: no more shared state from it.
  void finished(uint32_t sm) {
    finished_[sm].epoch.store(epoch_.load(std::memory_order_relaxed), std::memory_order_release);
  }

  void await(uint32_t sm) override;
  void on_main_thread(uint32_t sm, CallRef call) override;
  bool answers_later() const override { return in_cycle_; }
  // Called on the main thread before a call for SM `sm` (the GPU books the
  // requests left for later by the SMs up to `sm`).
  void before_main_calls(std::function<void(uint32_t sm)> book) { before_main_call_ = std::move(book); }

 private:
  void worker_loop(unsigned thread);
  // Ticks the cycle's due units that are thread `thread`'s (0: the main thread).
  void take_units(unsigned thread);
  // Main thread: runs the call a worker's SM posted, if any.
  void serve();
  bool on_main() const { return std::this_thread::get_id() == main_id_; }

  const std::thread::id main_id_;
  const unsigned threads_;
  std::vector<std::thread> workers_;
  // A cache line each: threads storing neighbouring ones do not contend.
  struct alignas(64) PaddedEpoch {
    std::atomic<uint64_t> epoch{0};
  };
  // Per SM: the epoch (ticked cycle's number) in which it finished, and the
  // last in which it had its turn.
  std::unique_ptr<PaddedEpoch[]> finished_;
  std::unique_ptr<PaddedEpoch[]> had_turn_;
  // Per worker: the last cycle it is done with (its units ticked, its list read).
  std::unique_ptr<PaddedEpoch[]> worker_epoch_;

  // The cycle being ticked (read by workers after epoch_ changes); a cache
  // line of its own, which every worker polls.
  alignas(64) std::atomic<uint64_t> epoch_{0};
  // Written by the main thread only between cycles; workers read it inside
  // one (after the epoch that publishes it).
  bool in_cycle_ = false;
  std::function<void(uint32_t sm)> before_main_call_;
  const std::vector<Unit>* units_ = nullptr;
  std::vector<uint32_t> due_units_;  // indices into *units_, in SM order
  const std::function<void(const Unit&)>* tick_unit_ = nullptr;
  std::atomic<bool> stop_{false};

  // A worker's SM asking the main thread to run a call (one at a time: only
  // the lowest SM still ticking has its turn).
  std::atomic<const CallRef*> posted_{nullptr};
  uint32_t posted_sm_ = 0;  // the SM whose call it is (published with posted_)
  std::atomic<bool> served_{false};
  std::exception_ptr served_error_;

  std::mutex error_mutex_;
  std::exception_ptr error_;  // the exception of the cycle's lowest unit that threw
  uint32_t error_unit_ = 0;

  // Workers idle for long sleep here (not spinning through the serial
  // parts of a run: kernel launches, report, a cycle with one SM due).
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::atomic<uint32_t> sleepers_{0};
};

}  // namespace smshare
