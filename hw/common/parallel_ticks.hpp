// The SMs of one cycle ticked on several host threads, with the result of
// ticking them one after another in SM order (tick_turn.hpp says what that
// takes of an SM). Plain C++: the GPU's clock method calls run_cycle() from
// the SystemC thread, which ticks SMs too and serves, in their turn, the
// memory calls the other threads' SMs make.
//
// Work is dealt in units: a range of SMs one thread ticks in order. SMs that
// reach into each other's state (cross-SM sharing's borrowed register banks)
// are one unit. Units are taken in SM order, so an SM waiting for its turn
// only ever waits for SMs that some thread is already ticking: no deadlock.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "hw/common/tick_turn.hpp"

namespace smshare {

class ParallelTicks final : public TickTurn {
 public:
  struct Unit {
    uint32_t first_sm = 0;
    uint32_t last_sm = 0;  // inclusive
  };

  // `threads` host threads in all (this one and threads - 1 workers), for
  // `num_sms` SMs. threads >= 2.
  ParallelTicks(unsigned threads, uint32_t num_sms);
  ~ParallelTicks() override;
  ParallelTicks(const ParallelTicks&) = delete;
  ParallelTicks& operator=(const ParallelTicks&) = delete;

  // Ticks a cycle: tick_unit(u) for each unit u with due[u], on all threads,
  // and returns when every one has returned; rethrows the first exception one
  // threw. tick_unit ticks the unit's SMs in order and calls finished(sm)
  // after each (the others' turn may come); an SM of a unit not due this
  // cycle has no turn to wait for.
  void run_cycle(const std::vector<Unit>& units, const std::vector<uint8_t>& due,
                 const std::function<void(const Unit&)>& tick_unit);
  // SM `sm` has finished the cycle: no more shared state from it.
  void finished(uint32_t sm) { finished_[sm].store(epoch_.load(std::memory_order_relaxed), std::memory_order_release); }

  void await(uint32_t sm) override;
  void on_main_thread(uint32_t sm, CallRef call) override;

 private:
  void worker_loop();
  // Ticks units of cycle `epoch` until none is left to take (any thread).
  void take_units(uint64_t epoch);
  // Main thread: runs the call a worker's SM posted, if any.
  void serve();
  bool on_main() const { return std::this_thread::get_id() == main_id_; }

  const std::thread::id main_id_;
  const bool oversubscribed_;  // more threads than the host has cores
  std::vector<std::thread> workers_;
  // Per SM: the epoch (ticked cycle's number) in which it finished.
  std::unique_ptr<std::atomic<uint64_t>[]> finished_;
  const uint32_t num_sms_;

  // The cycle being ticked (read by workers after epoch_ changes).
  std::atomic<uint64_t> epoch_{0};
  bool in_cycle_ = false;  // only the main thread reads it outside a cycle
  const std::vector<Unit>* units_ = nullptr;
  std::vector<uint32_t> due_units_;  // indices into *units_, in SM order
  const std::function<void(const Unit&)>* tick_unit_ = nullptr;
  // The cycle's claims on its due units: (epoch mod 2^32) << 32 | due units
  // << 16 | units taken. A thread takes a unit by raising the count with
  // the epoch it was woken for: a worker that wakes after its cycle ended
  // takes nothing of the next one's half-written list.
  std::atomic<uint64_t> claims_{0};
  std::atomic<uint32_t> units_done_{0};
  std::atomic<bool> stop_{false};

  // A worker's SM asking the main thread to run a call (one at a time: only
  // the lowest SM still ticking has its turn).
  std::atomic<const CallRef*> posted_{nullptr};
  std::atomic<bool> served_{false};
  std::exception_ptr served_error_;

  std::mutex error_mutex_;
  std::exception_ptr error_;  // the first exception of the cycle

  // Workers idle for long sleep here (not spinning through the serial
  // parts of a run: kernel launches, report, a cycle with one SM due).
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::atomic<uint32_t> sleepers_{0};
};

}  // namespace smshare
