// Jatala's lock arrays (Sec. III, Fig. 3/4) and the deadlock-avoidance rule
// of Sec. III-A, driven directly.
#include <gtest/gtest.h>

#include "hw/sharing/jatala/lock_array.hpp"

namespace smshare::jatala {
namespace {

TEST(JatalaRegisterLocks, FirstComerOwnsPartnerRetriesUntilRelease) {
  RegisterLockArray locks(/*pairs=*/1, /*warps_per_cta=*/2, /*rule=*/true);
  EXPECT_EQ(locks.acquire(0, 0, 0), LockResult::Granted);
  EXPECT_EQ(locks.acquire(0, 0, 0), LockResult::Held);
  EXPECT_EQ(locks.acquire(0, 1, 0), LockResult::Busy);
  EXPECT_EQ(locks.holder(0, 0), 0);
  EXPECT_TRUE(locks.holds(0, 0, 0));
  EXPECT_FALSE(locks.holds(0, 1, 0));
  locks.release(0, 1, 0);  // not the holder: no effect
  EXPECT_EQ(locks.holder(0, 0), 0);
  locks.release(0, 0, 0);  // the owner warp finished
  EXPECT_EQ(locks.holder(0, 0), -1);
  EXPECT_EQ(locks.acquire(0, 1, 0), LockResult::Granted);
  EXPECT_EQ(locks.acquisitions(), 2u);
  EXPECT_EQ(locks.writes(), 3u);  // two acquisitions, one release
}

TEST(JatalaRegisterLocks, Figure5RuleRefusesTheCrossingAcquisition) {
  // TB1 = member 0 (W1 = warp 0, W2 = warp 1), TB2 = member 1 (W3, W4).
  RegisterLockArray with_rule(1, 2, true);
  EXPECT_EQ(with_rule.acquire(0, 0, 1), LockResult::Granted);  // W2
  EXPECT_EQ(with_rule.acquire(0, 1, 0), LockResult::Refused);  // W3: TB1 holds a lock
  EXPECT_EQ(with_rule.acquire(0, 0, 0), LockResult::Granted);  // W1 proceeds
  with_rule.release(0, 0, 0);
  with_rule.release(0, 0, 1);  // TB1's holders finished
  EXPECT_EQ(with_rule.acquire(0, 1, 0), LockResult::Granted);  // now TB2 may
  EXPECT_EQ(with_rule.acquire(0, 1, 1), LockResult::Granted);

  RegisterLockArray without(1, 2, false);
  EXPECT_EQ(without.acquire(0, 0, 1), LockResult::Granted);  // W2 takes lock 1
  EXPECT_EQ(without.acquire(0, 1, 0), LockResult::Granted);  // W3 takes lock 0: the crossing
  EXPECT_EQ(without.acquire(0, 0, 0), LockResult::Busy);     // W1 waits for W3
  EXPECT_EQ(without.acquire(0, 1, 1), LockResult::Busy);     // W4 waits for W2
}

TEST(JatalaRegisterLocks, PairsAreIndependent) {
  RegisterLockArray locks(2, 1, true);
  EXPECT_EQ(locks.acquire(0, 0, 0), LockResult::Granted);
  EXPECT_EQ(locks.acquire(1, 1, 0), LockResult::Granted);
  EXPECT_EQ(locks.held_by(0, 0), 1u);
  EXPECT_EQ(locks.held_by(1, 1), 1u);
  EXPECT_EQ(locks.held_by(1, 0), 0u);
}

TEST(JatalaScratchpadLocks, OnePerCtaPairHeldUntilTheCtaFinishes) {
  ScratchpadLockArray locks(2);
  EXPECT_EQ(locks.acquire(1, 1), LockResult::Granted);
  EXPECT_EQ(locks.acquire(1, 1), LockResult::Held);
  EXPECT_EQ(locks.acquire(1, 0), LockResult::Busy);
  EXPECT_EQ(locks.acquire(0, 0), LockResult::Granted);
  locks.release(1, 0);
  EXPECT_EQ(locks.holder(1), 1);
  locks.release(1, 1);
  EXPECT_EQ(locks.holder(1), -1);
  EXPECT_EQ(locks.acquire(1, 0), LockResult::Granted);
  // A lookup is read once its instruction issues (the caller says so): a
  // Busy one is the caller's busy-wait, counted per waiting cycle.
  EXPECT_EQ(locks.reads(), 0u);
  locks.count_issue_lookup();
  EXPECT_EQ(locks.reads(), 1u);
  EXPECT_EQ(locks.writes(), 4u);  // three acquisitions, one release
}

}  // namespace
}  // namespace smshare::jatala
