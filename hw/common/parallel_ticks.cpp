#include "hw/common/parallel_ticks.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace smshare {

namespace {

// Waiting for another thread: spinning briefly, then yielding, and a worker
// idle for long (a kernel launch, the report, cycles with one SM due) sleeps
// rather than burn a core. The spin is short because the thread waited for
// may be waiting for this one's core: when the host is busy, the scheduler
// puts a worker on the SystemC thread's core (at start-up, while the
// process that launched the run still has the other one; and now and then
// mid-run), and then every cycle cost each side its whole spin before the
// other could run. With a 50 µs spin such 256-cycle stretches of hotspot
// took 6,000 to 17,500 ns an SM tick instead of 200 to 300, and three of
// them at start-up a tenth of the run; with both threads held to one core
// (taskset) the 2 µs spin ran hotspot ten times as fast on the threads
// (0.15 M -> 1.58 M warp-inst/s; docs/performance.md, "Many cores"). On a
// free core a yield returns at once, so a longer wait costs a system call,
// not the core.
class Backoff {
 public:
  void pause() {
    if (waits_++ % kCheckEvery == 0) elapsed_ = std::chrono::steady_clock::now() - start_;
    if (elapsed_ < kSpin) {
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
    } else {
      std::this_thread::yield();
    }
  }
  bool long_idle() const { return elapsed_ > kIdleBeforeSleep; }

 private:
  static constexpr std::chrono::microseconds kSpin{2};
  static constexpr std::chrono::microseconds kIdleBeforeSleep{1000};
  static constexpr unsigned kCheckEvery = 64;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::nanoseconds elapsed_{0};
  uint64_t waits_ = 0;
};

}  // namespace

ParallelTicks::ParallelTicks(unsigned threads, uint32_t num_sms)
    : main_id_(std::this_thread::get_id()),
      threads_(threads),
      finished_(new PaddedEpoch[num_sms]),
      had_turn_(new PaddedEpoch[num_sms]),
      worker_epoch_(new PaddedEpoch[threads]) {
  for (unsigned t = 1; t < threads; ++t) workers_.emplace_back([this, t] { worker_loop(t); });
}

ParallelTicks::~ParallelTicks() {
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ParallelTicks::run_cycle(const std::vector<Unit>& units, const std::vector<uint8_t>& due,
                              const std::function<void(const Unit&)>& tick_unit) {
  const uint64_t epoch = epoch_.load(std::memory_order_relaxed) + 1;
  units_ = &units;
  tick_unit_ = &tick_unit;
  due_units_.clear();
  for (uint32_t u = 0; u < units.size(); ++u) {
    if (due[u]) {
      due_units_.push_back(u);
    } else {
      for (uint32_t sm = units[u].first_sm; sm <= units[u].last_sm; ++sm)
        finished_[sm].epoch.store(epoch, std::memory_order_relaxed);
    }
  }
  in_cycle_ = true;
  epoch_.store(epoch, std::memory_order_seq_cst);  // publishes everything above to the workers
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    wake_.notify_all();
  }
  take_units(0);
  // Every worker done with the cycle: its units ticked and its list read (a
  // worker with no unit must not read the next cycle's list while it is
  // written). Each says so on its own cache line: a shared count of units
  // done, raised by every worker and polled here, cost more than the ticks'
  // hand-off itself.
  for (unsigned t = 1; t < threads_; ++t)
    for (Backoff b; worker_epoch_[t].epoch.load(std::memory_order_acquire) != epoch; b.pause())
      serve();
  in_cycle_ = false;
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void ParallelTicks::take_units(unsigned thread) {
  for (const uint32_t u : due_units_) {
    if (u % threads_ != thread) continue;
    const Unit& unit = (*units_)[u];
    try {
      (*tick_unit_)(unit);
    } catch (...) {
      // The lowest unit's: in SM order the SMs above it would not have ticked.
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_ || u < error_unit_) {
        error_ = std::current_exception();
        error_unit_ = u;
      }
      // The SMs above must not wait for this unit's.
      for (uint32_t sm = unit.first_sm; sm <= unit.last_sm; ++sm) finished(sm);
    }
    if (thread == 0) serve();
  }
}

void ParallelTicks::worker_loop(unsigned thread) {
  uint64_t seen = 0;
  for (;;) {
    Backoff b;
    while (epoch_.load(std::memory_order_acquire) == seen && !stop_.load(std::memory_order_relaxed)) {
      if (!b.long_idle()) {
        b.pause();
        continue;
      }
      std::unique_lock<std::mutex> lock(sleep_mutex_);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      wake_.wait(lock, [&] { return epoch_.load(std::memory_order_seq_cst) != seen || stop_.load(); });
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (stop_.load()) return;
    seen = epoch_.load(std::memory_order_acquire);
    take_units(thread);
    // Done with this cycle's list (even with no unit in it): the main thread
    // may write the next one.
    worker_epoch_[thread].epoch.store(seen, std::memory_order_release);
  }
}

void ParallelTicks::await(uint32_t sm) {
  if (on_main() && !in_cycle_) return;  // a serial cycle, or a kernel launch
  const uint64_t epoch = epoch_.load(std::memory_order_relaxed);
  // Once the SM has had its turn this cycle it keeps it (only its thread
  // reads or writes its entry).
  if (had_turn_[sm].epoch.load(std::memory_order_relaxed) == epoch) return;
  had_turn_[sm].epoch.store(epoch, std::memory_order_relaxed);
  for (uint32_t lower = 0; lower < sm; ++lower) {
    for (Backoff b; finished_[lower].epoch.load(std::memory_order_acquire) != epoch; b.pause())
      if (on_main()) serve();  // the SM being waited for may be asking the main thread
  }
}

void ParallelTicks::on_main_thread(uint32_t sm, CallRef call) {
  await(sm);
  if (on_main()) {
    if (in_cycle_ && before_main_call_) before_main_call_(sm);
    call();
    return;
  }
  served_.store(false, std::memory_order_relaxed);
  posted_sm_ = sm;
  posted_.store(&call, std::memory_order_release);
  for (Backoff b; !served_.load(std::memory_order_acquire);) b.pause();
  if (served_error_) {
    std::exception_ptr e = served_error_;
    served_error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void ParallelTicks::serve() {
  const CallRef* call = posted_.load(std::memory_order_acquire);
  if (!call) return;
  posted_.store(nullptr, std::memory_order_relaxed);
  try {
    if (before_main_call_) before_main_call_(posted_sm_);
    (*call)();
  } catch (...) {
    served_error_ = std::current_exception();
  }
  served_.store(true, std::memory_order_release);
}

void ParallelPace::record(uint64_t sm_ticks) {
  ++cycles_;
  parallel_cycles_ += parallel();
  if (mode_ == PaceMode::AlwaysThreads) return;
  stretch_ticks_ += sm_ticks;
  if (++stretch_cycles_ < kStretch) {
    if (probing_ && parallel_ && stretch_cycles_ % kGiveUpCheckEvery == 0) give_up_probe_if_slow();
    return;
  }
  if (mode_ == PaceMode::Alternate) {
    stretch_cycles_ = 0;
    stretch_ticks_ = 0;
    parallel_ = !parallel_;
    return;
  }
  // A stretch is timed from the previous one's end (the run's first is not
  // timed), over the SM ticks of every cycle in it (add_ticks).
  const auto now = clock_();
  const bool timed = stretch_start_ != std::chrono::steady_clock::time_point{} && !warming_up_;
  if (timed) ns_per_tick_[parallel_] = ns_per_tick_until(now);
  begin_stretch(now);
  // The first stretch after a change of way is not timed: the SMs' state is
  // still in the other threads' caches and the workers may be asleep, which
  // made every probe of the threads look slower than they are.
  if (!timed) {
    warming_up_ = false;
    return;
  }
  const bool was_parallel = parallel_;
  choose();
  warming_up_ = parallel_ != was_parallel;
}

void ParallelPace::give_up_probe_if_slow() {
  if (ns_per_tick_[0] == 0) return;  // nothing to compare with
  const auto now = clock_();
  if (now - stretch_start_ < kGiveUpAfter) return;
  const double ns_per_tick = ns_per_tick_until(now);
  if (ns_per_tick < kGiveUpFactor * ns_per_tick_[0]) return;
  // As a probe that found the threads slower, but ended now: the next
  // stretch, serial, warms up again.
  ns_per_tick_[1] = ns_per_tick;
  end_probe(/*parallel_is_faster=*/false);
  warming_up_ = true;
  begin_stretch(now);
  ++probes_given_up_;
}

double ParallelPace::ns_per_tick_until(std::chrono::steady_clock::time_point now) const {
  return std::chrono::duration<double, std::nano>(now - stretch_start_).count() / static_cast<double>(stretch_ticks_);
}

void ParallelPace::begin_stretch(std::chrono::steady_clock::time_point now) {
  stretch_start_ = now;
  stretch_cycles_ = 0;
  stretch_ticks_ = 0;
}

void ParallelPace::end_probe(bool parallel_is_faster) {
  probing_ = false;
  // While probes find the other way slower, probe ever more rarely (a
  // probe can cost much on a busy host).
  probe_every_ = parallel_ == parallel_is_faster ? kProbeEvery : std::min(2 * probe_every_, kProbeEveryMax);
  parallel_ = parallel_is_faster;
  stretches_since_probe_ = 0;
}

void ParallelPace::choose() {
  if (ns_per_tick_[!parallel_] == 0) {  // the other way not measured yet: a first probe
    parallel_ = !parallel_;
    probing_ = true;
    return;
  }
  if (probing_) {
    // The probe's stretch and the other way's last one were measured one
    // after the other (with a warm-up between): the same phase of the run
    // and the same state of the host, so the faster of the two is the way
    // until the next probe.
    end_probe(ns_per_tick_[1] < ns_per_tick_[0]);
    return;
  }
  // Between probes the way stays. Its own stretches are not compared with
  // the other way's last one, measured in another phase of the run or state
  // of the host: one slow stretch of the way taken (a stall of the host)
  // then looked slower than the other way, and the way switched until the
  // next probe.
  if (++stretches_since_probe_ >= probe_every_) {
    probing_ = true;  // now and then the other way again: the host's load may have changed
    parallel_ = !parallel_;
  }
}

std::vector<TickUnit> tick_units(const std::vector<int32_t>& neighbours) {
  const auto n = static_cast<uint32_t>(neighbours.size());
  std::vector<uint32_t> reach(n);  // the highest SM an SM's unit reaches
  for (uint32_t i = 0; i < n; ++i) reach[i] = i;
  for (uint32_t i = 0; i < n; ++i) {
    if (neighbours[i] < 0) continue;
    const auto nb = static_cast<uint32_t>(neighbours[i]);
    reach[std::min(i, nb)] = std::max(reach[std::min(i, nb)], std::max(i, nb));
  }
  std::vector<TickUnit> units;
  for (uint32_t first = 0; first < n;) {
    uint32_t last = reach[first];
    for (uint32_t i = first; i <= last; ++i) last = std::max(last, reach[i]);
    units.push_back({first, last});
    first = last + 1;
  }
  return units;
}

}  // namespace smshare
