// A limited number of identical slots, each held by one request from when it
// takes the slot until a release time known when it takes it; a request that
// finds every slot held waits for the first release. Two uses:
//  * a cache's MSHRs (l1.mshr_entries, l2.mshr_entries): a miss holds one
//    from when it is sent until its fill returns; a miss finding them all
//    held waits (GPGPU-Sim's MSHR_FULL reservation failure: gpu-cache.cc
//    baseline_cache::send_read_request / data_cache::rd_miss_base ->
//    mshr_table::full). Requests for sectors already in flight merge with
//    their fill without a slot (the owner's pending-fill table does that),
//    with no cap on the merges per entry;
//  * a DRAM channel's request queue (dram.queue_depth): a request holds an
//    entry from its arrival until its bank starts serving it.
//
// Loosely timed, like PortReservation: the owner learns the release time
// when the request takes its slot, so a held slot is a release time. Times
// are whatever unit the owner uses (core cycles for the L1, picoseconds
// below). With 0 slots the pool is unlimited and keeps nothing.
//
// Under dram.scheduler: frfcfs an L1 miss's fill time is decided after the
// miss takes its MSHR: hold_undecided() takes a slot whose release comes
// later with decide(release). While every slot is held and none has a
// release time yet, free_at() answers kUndecided: the owner waits for a
// decision.
#pragma once

#include <cstdint>

#include "hw/common/sorted_times.hpp"

namespace smshare {

class SlotPool {
 public:
  explicit SlotPool(uint32_t slots = 0) : slots_(slots) {}

  static constexpr uint64_t kUndecided = ~0ull;

  bool limited() const { return slots_ != 0; }
  uint32_t slots() const { return slots_; }

  // The earliest time from `t` on at which a slot is free: `t` itself, or
  // when the first of the held slots is released. Slots released by `t`
  // are forgotten: a later call with an earlier `t` (requests from several
  // SMs reaching an L2 slice slightly out of time order) sees them free, the
  // loosely timed approximation the ports make too.
  uint64_t free_at(uint64_t t) {
    if (!limited()) return t;
    held_.drop_through(t);
    if (held_.size() + undecided_ < slots_) return t;
    return held_.empty() ? kUndecided : held_.front();
  }

  // A request takes a slot at `t` (no earlier than free_at(t)) and holds it
  // until `release`.
  void hold(uint64_t t, uint64_t release) {
    if (!limited()) return;
    held_.drop_through(t);
    held_.insert(release);
  }

  // A request takes a slot now, to be released at a time decided later.
  void hold_undecided() {
    if (limited()) ++undecided_;
  }
  // One slot held by hold_undecided() is released at `release`.
  void decide(uint64_t release) {
    if (!limited()) return;
    --undecided_;
    held_.insert(release);
  }

  // Slots held at `t` (by the calls so far).
  uint32_t held(uint64_t t) {
    held_.drop_through(t);
    return static_cast<uint32_t>(held_.size() + undecided_);
  }

 private:
  uint32_t slots_;
  uint32_t undecided_ = 0;
  // The held slots' release times, earliest first (a binary heap paid a
  // sift at every hold and every release: 44 M host instructions more on
  // the bench trace, 6 M on hotspot). Releases are mostly held in
  // increasing order (an L2 slice's fills come back in its channel's
  // order), so a new one usually goes last without moving any.
  SortedTimes held_;
};

}  // namespace smshare
