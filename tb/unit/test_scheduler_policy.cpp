// Warp scheduler policies: orders over scripted sequences of issued() calls.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/common/error.hpp"
#include "hw/sm/scheduler_policy.hpp"

namespace smshare {
namespace {

using Order = std::vector<uint32_t>;

// One scheduler's warps: slots as given, age = position unless set later.
std::vector<WarpView> warps_in(const std::vector<uint32_t>& slots) {
  std::vector<WarpView> w;
  for (size_t i = 0; i < slots.size(); ++i) {
    WarpView v;
    v.slot = slots[i];
    v.age = i;
    v.valid = true;
    w.push_back(v);
  }
  return w;
}

Order order_of(SchedulerPolicy& p, const std::vector<WarpView>& w) {
  Order o{99, 98};  // stale contents must be replaced
  p.order(w, o);
  return o;
}

TEST(SchedulerPolicyFactory, MakesTheNamedPoliciesAndRejectsOthers) {
  EXPECT_EQ(make_scheduler_policy("lrr", 8)->name(), "lrr");
  EXPECT_EQ(make_scheduler_policy("gto", 8)->name(), "gto");
  EXPECT_EQ(make_scheduler_policy("two-level", 8)->name(), "two-level");
  EXPECT_EQ(make_scheduler_policy("ltlws-lrr", 8)->name(), "ltlws-lrr");
  EXPECT_EQ(make_scheduler_policy("ltlws-gto", 8)->name(), "ltlws-gto");
  try {
    make_scheduler_policy("round-robin", 8);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("round-robin"), std::string::npos) << msg;
    EXPECT_NE(msg.find("lrr, gto, two-level, owf, ltlws-lrr, ltlws-gto"), std::string::npos) << msg;
  }
  EXPECT_THROW(make_scheduler_policy("two-level", 0), InputError);
  EXPECT_THROW(make_scheduler_policy("LRR", 8), InputError);
  EXPECT_THROW(make_scheduler_policy("ltlws", 8), InputError);
}

TEST(SchedulerLrr, StartsOnePastTheLastIssuedWarp) {
  auto p = make_scheduler_policy("lrr", 0);
  auto w = warps_in({0, 1, 2, 3});
  EXPECT_EQ(order_of(*p, w), (Order{0, 1, 2, 3}));  // nothing issued yet: from the front
  p->issued(1);
  EXPECT_EQ(order_of(*p, w), (Order{2, 3, 0, 1}));
  p->issued(3);
  EXPECT_EQ(order_of(*p, w), (Order{0, 1, 2, 3}));
  p->issued(0);
  EXPECT_EQ(order_of(*p, w), (Order{1, 2, 3, 0}));
  // No issue this cycle: the order stays.
  EXPECT_EQ(order_of(*p, w), (Order{1, 2, 3, 0}));
}

TEST(SchedulerLrr, SkipsInvalidWarpsAndKeepsThePositionOfAnExitedOne) {
  auto p = make_scheduler_policy("lrr", 0);
  // A scheduler supervising every other slot of the SM.
  auto w = warps_in({0, 2, 4, 6});
  p->issued(4);
  EXPECT_EQ(order_of(*p, w), (Order{6, 0, 2, 4}));
  w[1].valid = false;  // slot 2 empty
  EXPECT_EQ(order_of(*p, w), (Order{6, 0, 4}));
  w[2].valid = false;  // the last issued warp exits: rotation still starts after it
  EXPECT_EQ(order_of(*p, w), (Order{6, 0}));
  p->issued(6);
  EXPECT_EQ(order_of(*p, w), (Order{0, 6}));
  // A slot the scheduler does not supervise: back to the front.
  w = warps_in({0, 2, 4, 6});
  p->issued(5);
  EXPECT_EQ(order_of(*p, w), (Order{0, 2, 4, 6}));
}

TEST(SchedulerGto, LastIssuedFirstThenOldest) {
  auto p = make_scheduler_policy("gto", 0);
  auto w = warps_in({0, 1, 2, 3});
  w[0].age = 30;
  w[1].age = 10;
  w[2].age = 20;
  w[3].age = 40;
  EXPECT_EQ(order_of(*p, w), (Order{1, 2, 0, 3}));  // oldest first
  p->issued(3);
  EXPECT_EQ(order_of(*p, w), (Order{3, 1, 2, 0}));  // greedy on the youngest
  p->issued(3);
  EXPECT_EQ(order_of(*p, w), (Order{3, 1, 2, 0}));
  w[3].valid = false;  // the greedy warp exits: oldest first again
  EXPECT_EQ(order_of(*p, w), (Order{1, 2, 0}));
  p->issued(2);
  EXPECT_EQ(order_of(*p, w), (Order{2, 1, 0}));
  // A new warp in slot 3 is the youngest.
  w[3].valid = true;
  w[3].age = 50;
  EXPECT_EQ(order_of(*p, w), (Order{2, 1, 0, 3}));
}

TEST(SchedulerGto, EqualAgesAreOrderedBySlot) {
  auto p = make_scheduler_policy("gto", 0);
  auto w = warps_in({5, 3, 7});
  for (auto& v : w) v.age = 1;
  EXPECT_EQ(order_of(*p, w), (Order{3, 5, 7}));
}

TEST(SchedulerTwoLevel, ActiveSetIsOrderedLrr) {
  auto p = make_scheduler_policy("two-level", 2);
  auto w = warps_in({0, 1, 2, 3});
  EXPECT_EQ(order_of(*p, w), (Order{0, 1}));  // the two oldest are active
  p->issued(0);
  EXPECT_EQ(order_of(*p, w), (Order{1, 0}));
  p->issued(1);
  EXPECT_EQ(order_of(*p, w), (Order{0, 1}));
}

TEST(SchedulerTwoLevel, LongLatencyWarpsAreDemotedAndPendingWarpsPromoted) {
  auto p = make_scheduler_policy("two-level", 2);
  auto w = warps_in({0, 1, 2, 3});
  EXPECT_EQ(order_of(*p, w), (Order{0, 1}));
  p->issued(1);
  // Warp 0 issued a load earlier and now waits: demoted behind 2, 3; 2 promoted.
  // The rotation continues after 1, so the newly promoted 2 comes first.
  w[0].waiting = true;
  EXPECT_EQ(order_of(*p, w), (Order{2, 1}));  // pending: 3, 0
  p->issued(2);
  // Warp 1 waits too: 3 is promoted (0 still waits and is skipped).
  w[1].waiting = true;
  EXPECT_EQ(order_of(*p, w), (Order{3, 2}));  // pending: 0, 1
  // 0's load returns, but the active set is full: it stays pending.
  w[0].waiting = false;
  EXPECT_EQ(order_of(*p, w), (Order{3, 2}));
  p->issued(3);
  // 3 waits: demoted; 0 (pending longest, ready) is promoted, 1 still waits.
  // 0 is appended where 3 was, one past the last issued warp: it goes first.
  w[3].waiting = true;
  EXPECT_EQ(order_of(*p, w), (Order{0, 2}));  // pending: 1, 3
  // Everything but 2 waits: the active set stays under-full.
  w[0].waiting = true;
  EXPECT_EQ(order_of(*p, w), (Order{2}));  // pending: 1, 3, 0
  // 3 and 1 become ready: 1 is promoted (pending longer), 3 waits for room.
  w[3].waiting = false;
  w[1].waiting = false;
  EXPECT_EQ(order_of(*p, w), (Order{1, 2}));  // pending: 3, 0
  p->issued(1);
  EXPECT_EQ(order_of(*p, w), (Order{2, 1}));
}

TEST(SchedulerTwoLevel, ArrivalsJoinOldestFirstAndExitsLeave) {
  auto p = make_scheduler_policy("two-level", 2);
  auto w = warps_in({0, 1, 2, 3});
  w[0].age = 13;
  w[1].age = 12;
  w[2].age = 11;
  w[3].age = 10;
  EXPECT_EQ(order_of(*p, w), (Order{3, 2}));
  // An active warp exits: the oldest pending (slot 1, age 12) replaces it.
  w[3].valid = false;
  EXPECT_EQ(order_of(*p, w), (Order{2, 1}));
  // A new warp reuses slot 3; it queues behind slot 0.
  w[3].valid = true;
  w[3].age = 20;
  EXPECT_EQ(order_of(*p, w), (Order{2, 1}));
  w[2].valid = false;
  EXPECT_EQ(order_of(*p, w), (Order{1, 0}));
  w[1].valid = false;
  EXPECT_EQ(order_of(*p, w), (Order{0, 3}));
}

TEST(SchedulerTwoLevel, ANewWarpInTheSlotOfAnActiveWarpStartsPending) {
  auto p = make_scheduler_policy("two-level", 1);
  auto w = warps_in({0, 1});
  EXPECT_EQ(order_of(*p, w), (Order{0}));
  // Slot 0's warp exits and a new one takes the slot in the same cycle.
  w[0].age = 7;
  EXPECT_EQ(order_of(*p, w), (Order{1}));
  w[1].valid = false;
  EXPECT_EQ(order_of(*p, w), (Order{0}));
}

// Issues `count` instructions from `slot`.
void issue(SchedulerPolicy& p, uint32_t slot, int count) {
  for (int i = 0; i < count; ++i) p.issued(slot);
}

// The warp in `slot` retires: the SM tells the policy, and the slot is empty
// from the next order() on.
void finish(SchedulerPolicy& p, std::vector<WarpView>& w, uint32_t slot) {
  p.warp_finished(slot);
  for (WarpView& v : w)
    if (v.slot == slot) v.valid = false;
}

TEST(SchedulerLtlws, BeforeTheFirstFinishEveryWarpNotWaitingIsScheduled) {
  for (const char* name : {"ltlws-lrr", "ltlws-gto"}) {
    SCOPED_TRACE(name);
    auto p = make_scheduler_policy(name, 2);  // two-level's active set does not apply
    auto w = warps_in({0, 1, 2, 3, 4, 5, 6, 7});
    EXPECT_EQ(order_of(*p, w), (Order{0, 1, 2, 3, 4, 5, 6, 7}));
    w[1].waiting = true;
    w[6].waiting = true;
    EXPECT_EQ(order_of(*p, w), (Order{0, 2, 3, 4, 5, 7}));
    w[1].waiting = false;  // back as soon as it stops waiting
    EXPECT_EQ(order_of(*p, w).size(), 7u);
  }
}

TEST(SchedulerLtlws, InnerOrderIsTheNamedOne) {
  auto lrr = make_scheduler_policy("ltlws-lrr", 8);
  auto gto = make_scheduler_policy("ltlws-gto", 8);
  auto w = warps_in({0, 1, 2, 3, 4});
  order_of(*lrr, w);
  order_of(*gto, w);
  lrr->issued(3);
  gto->issued(3);
  EXPECT_EQ(order_of(*lrr, w), (Order{4, 0, 1, 2, 3}));  // one past the last issued
  EXPECT_EQ(order_of(*gto, w), (Order{3, 0, 1, 2, 4}));  // greedy, then oldest
}

TEST(SchedulerPolicy, ActiveLimitIsTwoLevelsSetAndNoneForTheOthers) {
  EXPECT_EQ(make_scheduler_policy("two-level", 8)->active_limit(), 8u);
  for (const char* name : {"lrr", "gto", "owf"}) EXPECT_EQ(make_scheduler_policy(name, 8)->active_limit(), 0u) << name;
}

TEST(SchedulerLtlws, FirstFinishedWarpSetsTheActiveSetByEq14) {
  // Four warps issued 10, 10, 5 and 5 instructions when warp 0 finishes
  // after its 10: W_opt = floor(30 / 10) = 3. Slots 4 and 5 are empty until
  // the next CTA arrives with slot 0.
  auto p = make_scheduler_policy("ltlws-lrr", 8);
  auto w = warps_in({0, 1, 2, 3, 4, 5});
  w[4].valid = false;
  w[5].valid = false;
  EXPECT_EQ(order_of(*p, w), (Order{0, 1, 2, 3}));
  EXPECT_EQ(p->active_limit(), 0u);  // no limit yet (the scheduler module's active_limit probe)
  issue(*p, 0, 10);
  issue(*p, 1, 10);
  issue(*p, 2, 5);
  issue(*p, 3, 5);
  finish(*p, w, 0);
  EXPECT_EQ(p->active_limit(), 3u);
  EXPECT_EQ(order_of(*p, w), (Order{1, 2, 3}));
  for (uint32_t slot : {0u, 4u, 5u}) {
    w[slot].valid = true;
    w[slot].age = 10 + slot;
  }
  EXPECT_EQ(order_of(*p, w), (Order{1, 2, 3}));  // the arrivals wait for room
  w[1].waiting = true;
  // The oldest arrival takes 1's place, first as the rotation is past 3.
  EXPECT_EQ(order_of(*p, w), (Order{0, 2, 3}));
  // Later finishes do not resize it.
  finish(*p, w, 2);
  EXPECT_EQ(order_of(*p, w), (Order{0, 4, 3}));
  w[1].waiting = false;
  EXPECT_EQ(order_of(*p, w).size(), 3u);
}

TEST(SchedulerLtlws, ShrinkingKeepsTheWarpsTheInnerOrderRanksFirst) {
  // Warp 0 finishes after 12; warps 1..4 issued 4 each: W_opt = 28 / 12 = 2
  // for the four warps left. The last issue was warp 4's.
  for (const char* name : {"ltlws-lrr", "ltlws-gto"}) {
    SCOPED_TRACE(name);
    const bool gto = std::string(name) == "ltlws-gto";
    auto p = make_scheduler_policy(name, 8);
    auto w = warps_in({0, 1, 2, 3, 4});
    order_of(*p, w);
    issue(*p, 0, 12);
    for (int round = 0; round < 4; ++round)
      for (uint32_t slot : {1u, 2u, 3u, 4u}) p->issued(slot);
    finish(*p, w, 0);
    // LRR: one past warp 4, wrapping: 1, 2. GTO: greedy 4, then the oldest, 1.
    EXPECT_EQ(order_of(*p, w), gto ? (Order{4, 1}) : (Order{1, 2}));
    // A kept warp waits: the first warp shrinking set aside takes its place.
    w[1].waiting = true;
    EXPECT_EQ(order_of(*p, w), gto ? (Order{4, 2}) : (Order{2, 3}));
  }
}

TEST(SchedulerLtlws, AWarpThatIssuedNothingDoesNotSizeTheSet) {
  auto p = make_scheduler_policy("ltlws-gto", 8);
  auto w = warps_in({0, 1, 2, 3});
  order_of(*p, w);
  issue(*p, 1, 4);
  issue(*p, 2, 2);
  issue(*p, 3, 2);
  finish(*p, w, 0);  // Inst_Max would be 0
  EXPECT_EQ(order_of(*p, w).size(), 3u);
  finish(*p, w, 1);  // W_opt = 8 / 4 = 2
  EXPECT_EQ(order_of(*p, w).size(), 2u);
  w[0].valid = true;
  w[0].age = 9;
  EXPECT_EQ(order_of(*p, w).size(), 2u);
}

TEST(SchedulerLtlws, EachKernelIsMeasuredAfresh) {
  auto p = make_scheduler_policy("ltlws-lrr", 8);
  auto w = warps_in({0, 1, 2, 3});
  order_of(*p, w);
  issue(*p, 0, 4);
  issue(*p, 1, 1);
  finish(*p, w, 0);  // W_opt = 5 / 4 = 1
  EXPECT_EQ(order_of(*p, w).size(), 1u);
  // The kernel drains; the next one's warps are all scheduled until one finishes.
  for (auto& v : w) v.valid = false;
  order_of(*p, w);
  p->kernel_started();
  w = warps_in({0, 1, 2, 3});
  for (auto& v : w) v.age += 100;
  EXPECT_EQ(order_of(*p, w), (Order{0, 1, 2, 3}));
  issue(*p, 2, 3);
  issue(*p, 3, 3);
  finish(*p, w, 2);  // W_opt = 6 / 3 = 2: the first kernel's counts are gone
  EXPECT_EQ(order_of(*p, w).size(), 2u);
}

TEST(SchedulerPolicies, OrderVectorIsReusedInSteadyState) {
  for (const char* name : {"lrr", "gto", "two-level", "ltlws-lrr", "ltlws-gto"}) {
    SCOPED_TRACE(name);
    auto p = make_scheduler_policy(name, 4);
    auto w = warps_in({0, 1, 2, 3, 4, 5, 6, 7});
    Order o;
    p->order(w, o);
    const uint32_t* data = o.data();
    for (uint32_t cycle = 0; cycle < 100; ++cycle) {
      p->issued(o.empty() ? 0 : o.front());
      w[cycle % 8].waiting = (cycle % 3 == 0);
      p->order(w, o);
      ASSERT_EQ(o.data(), data);
    }
  }
}

}  // namespace
}  // namespace smshare
