// Times kept in increasing order in a ring that grows by doubling: added
// mostly in order (then appended, nothing moved) and forgotten from the
// front as time passes. A cache's and a DRAM queue's held slots
// (SlotPool: their release times) and a DRAM channel's booked requests
// (the times their data is off the bus) are such records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hw/common/fifo_ring.hpp"

namespace smshare {

class SortedTimes {
 public:
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The earliest time (not empty()).
  uint64_t front() const { return ring_[head_]; }

  // Adds `t` after every time not later than it.
  void insert(uint64_t t) {
    if (count_ == ring_.size()) grow();
    const size_t mask = ring_.size() - 1;
    size_t i = count_;
    for (; i > 0 && ring_[(head_ + i - 1) & mask] > t; --i) ring_[(head_ + i) & mask] = ring_[(head_ + i - 1) & mask];
    ring_[(head_ + i) & mask] = t;
    ++count_;
  }
  // insert() of a `t` no earlier than any time held (a caller that adds in
  // order: nothing to compare).
  void append(uint64_t t) {
    if (count_ == ring_.size()) grow();
    ring_[(head_ + count_) & (ring_.size() - 1)] = t;
    ++count_;
  }
  // Forgets every time at or before `t`.
  void drop_through(uint64_t t) {
    const size_t mask = ring_.size() - 1;
    while (count_ != 0 && ring_[head_] <= t) {
      head_ = (head_ + 1) & mask;
      --count_;
    }
  }
  // How many times are after `t` (a binary search).
  size_t count_after(uint64_t t) const {
    const size_t mask = ring_.size() - 1;
    size_t lo = 0, hi = count_;  // the first after t is in [lo, hi]
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (ring_[(head_ + mid) & mask] <= t) lo = mid + 1;
      else hi = mid;
    }
    return count_ - lo;
  }

 private:
  // Rare: only when more times are held than ever before.
  void grow() { grow_ring(ring_, head_, count_); }

  std::vector<uint64_t> ring_;  // a power of two long (or empty)
  size_t head_ = 0;             // the earliest time's index
  size_t count_ = 0;
};

}  // namespace smshare
