// A cache's miss status holding registers, counted rather than named: each
// miss sent below holds one entry from the moment it is sent until its fill
// returns; a miss that finds every entry held must wait for the first to
// return (GPGPU-Sim's MSHR_FULL reservation failure: gpu-cache.cc
// baseline_cache::send_read_request / data_cache::rd_miss_base ->
// mshr_table::full). Requests for sectors already in flight merge with their
// fill without taking an entry (the owner's pending-fill table does that),
// with no cap on the merges per entry.
//
// Loosely timed, like PortReservation: the owner learns a fill's return time
// when it sends the miss, so an entry is a release time. Times are whatever
// unit the owner uses (core cycles for the L1, picoseconds for the L2).
// With 0 entries the file is unlimited and keeps nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace smshare {

class MshrFile {
 public:
  explicit MshrFile(uint32_t entries = 0) : entries_(entries) {}

  bool limited() const { return entries_ != 0; }
  uint32_t entries() const { return entries_; }

  // The earliest time from `t` on at which an entry is free: `t` itself, or
  // when the first of the held entries is released. Entries released by `t`
  // are forgotten: a later call with an earlier `t` (requests from several
  // SMs reaching an L2 slice slightly out of time order) sees them free, the
  // loosely timed approximation the ports make too.
  uint64_t free_at(uint64_t t) {
    if (!limited()) return t;
    release_until(t);
    return held_.size() < entries_ ? t : held_.top();
  }

  // A miss sent at `t` (no earlier than free_at(t)) holds an entry until its
  // fill returns at `release`.
  void hold(uint64_t t, uint64_t release) {
    if (!limited()) return;
    release_until(t);
    held_.push(release);
  }

  // Entries held at `t` (by the calls so far).
  uint32_t held(uint64_t t) {
    release_until(t);
    return static_cast<uint32_t>(held_.size());
  }

 private:
  void release_until(uint64_t t) {
    while (!held_.empty() && held_.top() <= t) held_.pop();
  }

  uint32_t entries_;
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> held_;  // release times
};

}  // namespace smshare
