// A DRAM channel's request queue under FR-FCFS (dram.scheduler: frfcfs), as
// GPGPU-Sim's frfcfs_scheduler (dram_sched.cc): per bank, the requests that
// wait for it in arrival order; when a bank is free it takes the oldest
// request to its open row, else the oldest request (first-ready,
// first-come-first-served). Plain C++, picoseconds; the channel
// (DramChannelTiming) owns the banks' timing and asks this queue which
// request a bank takes next.
//
// Rules:
//  * A request is in the queue from its entry time. With a depth limit
//    (dram.queue_depth > 0, GPGPU-Sim's gpgpu_frfcfs_dram_sched_queue_size)
//    a request that arrives while `depth` requests wait stays at the door,
//    in arrival order, and enters when a bank takes one of them
//    (dram_t::scheduler_frfcfs moves requests from mrqq only while
//    num_pending() < the queue size); its entry time is then that take.
//  * A bank free at `t` can take the requests that entered by `t`; its next
//    take is at max(bank free, earliest entry among its requests).
//  * Among those, the oldest (first entered) whose row is the bank's open
//    row, else the oldest. Ties between equal entry times go to the request
//    added first (the L2 slices add them in the order the SMs' requests
//    reach them: cycle, then SM index, then each SM's own order).
//  * Requests must be added in non-decreasing arrival order (one L2 slice's
//    port books in that order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hw/common/fifo_ring.hpp"

namespace smshare {

struct DramRequest {
  uint64_t arrival_ps = 0;  // reaches the channel
  uint64_t entry_ps = 0;    // enters the queue (after the door, with a depth limit)
  uint64_t local_addr = 0;
  uint64_t row = 0;
  uint32_t bank = 0;
  uint32_t bytes = 0;
  bool is_write = false;
  uint64_t token = 0;  // the owner's name for it, returned when served
  uint64_t seq = 0;    // order of adding: the age tie-break
};

class FrfcfsQueue {
 public:
  static constexpr uint64_t kNone = ~0ull;

  FrfcfsQueue(uint32_t banks, uint32_t depth) : banks_(banks), depth_(depth) {}

  // Adds a request arriving at req.arrival_ps (entry_ps and seq are set here).
  void add(DramRequest req);
  // When bank `bank`, free from `bank_free_ps`, next takes a request; kNone
  // when none waits for it.
  uint64_t next_take_ps(uint32_t bank, uint64_t bank_free_ps) const {
    const std::vector<DramRequest>& q = banks_[bank];
    if (q.empty()) return kNone;
    return q.front().entry_ps > bank_free_ps ? q.front().entry_ps : bank_free_ps;
  }
  // The request `bank` takes at `take_ps` (its next_take_ps) with `open_row`
  // open (`open` false: the bank is precharged): removed from the queue.
  // `reordered` tells whether an older request of that bank was passed over.
  DramRequest take(uint32_t bank, uint64_t take_ps, bool open, uint64_t open_row, bool& reordered);
  // The sequence number the next take of `bank` at `take_ps` would serve
  // (for ties between banks deciding at the same time).
  uint64_t next_seq(uint32_t bank, uint64_t take_ps, bool open, uint64_t open_row) const;

  // The first request at the door, the next to enter (null: none waits there).
  const DramRequest* door_front() const { return door_.empty() ? nullptr : &door_.front(); }

  size_t waiting() const { return queued_ + door_.size(); }  // in the queue and at its door
  uint64_t door_wait_ps() const { return door_wait_ps_; }    // total time requests waited at the door
  uint64_t queue_wait_ps() const { return queue_wait_ps_; }  // total time from entry to take
  uint32_t max_queued() const { return max_queued_; }        // most requests in the queue at once

 private:
  size_t pick(uint32_t bank, uint64_t take_ps, bool open, uint64_t open_row) const;
  void enter(DramRequest req, uint64_t entry_ps);

  // Per bank, in entry order. A vector, not a deque: a bank holds a few
  // requests (the channel's dram.queue_depth are shared by its banks), a
  // take removes any of them (the oldest row hit), and pick() indexes and
  // sizes it at every step, which a deque does by iterator arithmetic.
  std::vector<std::vector<DramRequest>> banks_;
  FifoRing<DramRequest> door_;                 // arrived while the queue was full
  uint32_t depth_;                             // 0: unlimited
  size_t queued_ = 0;
  uint64_t next_seq_ = 0;
  uint64_t door_wait_ps_ = 0;
  uint64_t queue_wait_ps_ = 0;
  uint32_t max_queued_ = 0;
};

}  // namespace smshare
