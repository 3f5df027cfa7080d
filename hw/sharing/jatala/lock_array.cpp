#include "hw/sharing/jatala/lock_array.hpp"

namespace smshare::jatala {

RegisterLockArray::RegisterLockArray(uint32_t pairs, uint32_t warps_per_cta, bool deadlock_avoidance)
    : warps_per_cta_(warps_per_cta),
      rule_(deadlock_avoidance),
      locks_(size_t{pairs} * warps_per_cta, -1),
      held_(size_t{pairs} * 2, 0) {}

LockResult RegisterLockArray::acquire(uint32_t pair, uint8_t member, uint32_t warp) {
  int8_t& lock = locks_[index(pair, warp)];
  if (lock >= 0 && lock != member) return LockResult::Busy;
  if (lock < 0 && rule_ && held_[pair * 2 + (1 - member)] > 0) return LockResult::Refused;
  if (lock == member) return LockResult::Held;
  lock = static_cast<int8_t>(member);
  ++held_[pair * 2 + member];
  ++writes_;
  ++acquisitions_;
  return LockResult::Granted;
}

bool RegisterLockArray::holds(uint32_t pair, uint8_t member, uint32_t warp) {
  ++reads_;
  return locks_[index(pair, warp)] == member;
}

void RegisterLockArray::release(uint32_t pair, uint8_t member, uint32_t warp) {
  int8_t& lock = locks_[index(pair, warp)];
  if (lock != member) return;
  lock = -1;
  --held_[pair * 2 + member];
  ++writes_;
}

LockResult ScratchpadLockArray::acquire(uint32_t pair, uint8_t member) {
  int8_t& lock = locks_[pair];
  if (lock >= 0 && lock != member) return LockResult::Busy;
  if (lock == member) return LockResult::Held;
  lock = static_cast<int8_t>(member);
  ++writes_;
  ++acquisitions_;
  return LockResult::Granted;
}

void ScratchpadLockArray::release(uint32_t pair, uint8_t member) {
  if (locks_[pair] != member) return;
  locks_[pair] = -1;
  ++writes_;
}

}  // namespace smshare::jatala
