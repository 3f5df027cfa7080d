#include "hw/common/parallel_ticks.hpp"

#include <chrono>
#include <stdexcept>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace smshare {

namespace {

// Waiting for another thread. With a core per thread, spinning: a cycle's
// work is a few microseconds, far less than a context switch. With more
// threads than cores, yielding: the thread waited for may need this core.
// Either way, a thread idle for long (a kernel launch, the report, cycles
// with one SM due) sleeps rather than burn a core.
class Backoff {
 public:
  explicit Backoff(bool oversubscribed) : oversubscribed_(oversubscribed) {}
  void pause() {
    ++waits_;
    if (!oversubscribed_ || waits_ < kSpins) {
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
    } else {
      std::this_thread::yield();
    }
  }
  bool long_idle() {
    if (waits_ % kCheckEvery != 0) return false;
    const auto now = std::chrono::steady_clock::now();
    if (waits_ == 0 || started_ == std::chrono::steady_clock::time_point{}) started_ = now;
    return now - started_ > kIdleBeforeSleep;
  }

 private:
  static constexpr unsigned kSpins = 256;
  static constexpr unsigned kCheckEvery = 1024;
  static constexpr std::chrono::microseconds kIdleBeforeSleep{500};
  const bool oversubscribed_;
  uint64_t waits_ = 0;
  std::chrono::steady_clock::time_point started_{};
};

}  // namespace

ParallelTicks::ParallelTicks(unsigned threads, uint32_t num_sms)
    : main_id_(std::this_thread::get_id()),
      oversubscribed_(threads > std::max(1u, std::thread::hardware_concurrency())),
      finished_(new std::atomic<uint64_t>[num_sms]),
      num_sms_(num_sms) {
  for (uint32_t i = 0; i < num_sms; ++i) finished_[i].store(0, std::memory_order_relaxed);
  for (unsigned t = 1; t < threads; ++t) workers_.emplace_back([this] { worker_loop(); });
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
        finished_[sm].store(epoch, std::memory_order_relaxed);
    }
  }
  if (due_units_.size() > 0xFFFF) throw std::logic_error("ParallelTicks: more than 65535 units in a cycle");
  claims_.store((epoch & 0xFFFFFFFFull) << 32 | uint64_t{due_units_.size()} << 16, std::memory_order_release);
  units_done_.store(0, std::memory_order_relaxed);
  in_cycle_ = true;
  epoch_.store(epoch, std::memory_order_seq_cst);  // publishes everything above to the workers
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    wake_.notify_all();
  }
  take_units(epoch);
  const auto total = static_cast<uint32_t>(due_units_.size());
  for (Backoff b(oversubscribed_); units_done_.load(std::memory_order_acquire) < total; b.pause()) serve();
  in_cycle_ = false;
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

void ParallelTicks::take_units(uint64_t epoch) {
  for (;;) {
    uint64_t c = claims_.load(std::memory_order_acquire);
    const uint64_t taken = c & 0xFFFF;
    if (c >> 32 != (epoch & 0xFFFFFFFFull) || taken == (c >> 16 & 0xFFFF)) return;
    if (!claims_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel)) continue;
    // The unit stays this cycle's until it is done: the main thread starts
    // the next cycle only when every unit is.
    const Unit& unit = (*units_)[due_units_[taken]];
    try {
      (*tick_unit_)(unit);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
    }
    // Also after an exception: the SMs above must not wait for this unit's.
    for (uint32_t sm = unit.first_sm; sm <= unit.last_sm; ++sm) finished(sm);
    units_done_.fetch_add(1, std::memory_order_release);
    if (on_main()) serve();
  }
}

void ParallelTicks::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    Backoff b(oversubscribed_);
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
    take_units(seen);
  }
}

void ParallelTicks::await(uint32_t sm) {
  if (on_main() && !in_cycle_) return;  // a serial cycle, or a kernel launch
  const uint64_t epoch = epoch_.load(std::memory_order_relaxed);
  for (uint32_t lower = 0; lower < sm; ++lower) {
    for (Backoff b(oversubscribed_); finished_[lower].load(std::memory_order_acquire) != epoch; b.pause())
      if (on_main()) serve();  // the SM being waited for may be asking the main thread
  }
}

void ParallelTicks::on_main_thread(uint32_t sm, CallRef call) {
  await(sm);
  if (on_main()) {
    call();
    return;
  }
  served_.store(false, std::memory_order_relaxed);
  posted_.store(&call, std::memory_order_release);
  for (Backoff b(oversubscribed_); !served_.load(std::memory_order_acquire);) b.pause();
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
    (*call)();
  } catch (...) {
    served_error_ = std::current_exception();
  }
  served_.store(true, std::memory_order_release);
}

}  // namespace smshare
