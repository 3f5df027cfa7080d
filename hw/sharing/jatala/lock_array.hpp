// The locks of Jatala Sec. III and V. Register sharing: one lock per pair of
// warps (warp k of each CTA of a shared pair), set to the member whose warp
// acquired the pair's shared registers; released when that warp finishes.
// The deadlock-avoidance rule of Sec. III-A: a warp may acquire a lock only
// while no warp of the partner CTA holds one (partner warps that acquired
// and finished no longer count). Scratchpad sharing: one lock per CTA pair,
// released when the holding CTA finishes (Fig. 4). Both count their
// accesses for the power model, none of them depending on how often a
// sleeping SM happens to poll:
//   reads  = one issue-time lookup per instruction that issued past its lock
//            (held, or free and taken), counted by the caller at issue with
//            count_issue_lookup(): a warp the pipeline stalls after the lock
//            let it through asks again in every cycle its SM ticks, yet the
//            lock cannot change under it (it holds it until it finishes);
//            and, for registers, each operand lookup of holds();
//   writes = acquisitions and releases.
// A refused attempt is a busy-wait the caller counts per waiting cycle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace smshare::jatala {

enum class LockResult : uint8_t {
  Held,     // the requester already holds it
  Granted,  // free, and now held by the requester
  Busy,     // held by the partner: retry later
  Refused,  // free, but the deadlock-avoidance rule forbids taking it now
};

class RegisterLockArray {
 public:
  RegisterLockArray(uint32_t pairs, uint32_t warps_per_cta, bool deadlock_avoidance);

  // The issue-time request; a grant takes the lock (a write). Its read is
  // count_issue_lookup()'s, once the instruction issues.
  LockResult acquire(uint32_t pair, uint8_t member, uint32_t warp);
  void count_issue_lookup() { ++reads_; }
  // Lookup only (Fig. 3 step (e) on an operand access): does `member` hold it?
  bool holds(uint32_t pair, uint8_t member, uint32_t warp);
  // Warp `warp` of `member` finished: its lock, if any, is released.
  void release(uint32_t pair, uint8_t member, uint32_t warp);
  // -1 free, else the holding member.
  int holder(uint32_t pair, uint32_t warp) const { return locks_[index(pair, warp)]; }
  uint32_t held_by(uint32_t pair, uint8_t member) const { return held_[pair * 2 + member]; }

  uint64_t reads() const { return reads_; }
  uint64_t writes() const { return writes_; }
  uint64_t acquisitions() const { return acquisitions_; }

 private:
  size_t index(uint32_t pair, uint32_t warp) const { return size_t{pair} * warps_per_cta_ + warp; }
  uint32_t warps_per_cta_;
  bool rule_;
  std::vector<int8_t> locks_;     // [pair][warp]: -1 or member
  std::vector<uint32_t> held_;    // [pair][member]: locks held
  uint64_t reads_ = 0, writes_ = 0, acquisitions_ = 0;
};

class ScratchpadLockArray {
 public:
  explicit ScratchpadLockArray(uint32_t pairs) : locks_(pairs, -1) {}

  // As RegisterLockArray::acquire.
  LockResult acquire(uint32_t pair, uint8_t member);
  void count_issue_lookup() { ++reads_; }
  // The CTA `member` of `pair` finished: releases the lock if it held it.
  void release(uint32_t pair, uint8_t member);
  int holder(uint32_t pair) const { return locks_[pair]; }

  uint64_t reads() const { return reads_; }
  uint64_t writes() const { return writes_; }
  uint64_t acquisitions() const { return acquisitions_; }

 private:
  std::vector<int8_t> locks_;
  uint64_t reads_ = 0, writes_ = 0, acquisitions_ = 0;
};

}  // namespace smshare::jatala
