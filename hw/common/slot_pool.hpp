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

#include <cstddef>
#include <cstdint>
#include <vector>

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
    release_until(t);
    if (count_ + undecided_ < slots_) return t;
    return count_ == 0 ? kUndecided : held_[head_];
  }

  // A request takes a slot at `t` (no earlier than free_at(t)) and holds it
  // until `release`.
  void hold(uint64_t t, uint64_t release) {
    if (!limited()) return;
    release_until(t);
    insert(release);
  }

  // A request takes a slot now, to be released at a time decided later.
  void hold_undecided() {
    if (limited()) ++undecided_;
  }
  // One slot held by hold_undecided() is released at `release`.
  void decide(uint64_t release) {
    if (!limited()) return;
    --undecided_;
    insert(release);
  }

  // Slots held at `t` (by the calls so far).
  uint32_t held(uint64_t t) {
    release_until(t);
    return static_cast<uint32_t>(count_ + undecided_);
  }

 private:
  void release_until(uint64_t t) {
    const size_t mask = held_.size() - 1;
    while (count_ != 0 && held_[head_] <= t) {
      head_ = (head_ + 1) & mask;
      --count_;
    }
  }
  // Keeps the release times in increasing order. Releases are mostly held
  // in increasing order (an L2 slice's fills come back in its channel's
  // order), so the new one usually goes last without moving any.
  void insert(uint64_t release) {
    if (count_ == held_.size()) grow();
    const size_t mask = held_.size() - 1;
    size_t i = count_;
    for (; i > 0 && held_[(head_ + i - 1) & mask] > release; --i) held_[(head_ + i) & mask] = held_[(head_ + i - 1) & mask];
    held_[(head_ + i) & mask] = release;
    ++count_;
  }
  void grow() {
    std::vector<uint64_t> bigger(held_.empty() ? 16 : held_.size() * 2);
    for (size_t i = 0; i < count_; ++i) bigger[i] = held_[(head_ + i) & (held_.size() - 1)];
    held_.swap(bigger);
    head_ = 0;
  }

  uint32_t slots_;
  uint32_t undecided_ = 0;
  // The held slots' release times, earliest first: `count_` of them from
  // `head_` on, in a ring whose size is a power of two (a binary heap paid
  // a sift at every hold and every release: 44 M host instructions more on
  // the bench trace, 6 M on hotspot).
  std::vector<uint64_t> held_;
  size_t head_ = 0;
  size_t count_ = 0;
};

}  // namespace smshare
