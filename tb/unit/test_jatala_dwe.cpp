// Jatala Sec. IV-C, dynamic warp execution: SM0 never issues non-owner memory
// instructions and publishes its stall cycles per 1000-cycle period; another
// SM's probability walks by p = 0.1 against them, saturating in [0, 1].
#include <gtest/gtest.h>

#include "hw/sharing/jatala/dynamic_warp_execution.hpp"

namespace smshare::jatala {
namespace {

TEST(JatalaDwe, ReferenceSmNeverIssuesAndPublishes) {
  DweReference ref;
  DynamicWarpExecution sm0(true, 1000, 10, &ref);
  EXPECT_EQ(sm0.probability_percent(), 0u);
  EXPECT_FALSE(sm0.allow(0));
  EXPECT_EQ(sm0.next_boundary(), 1000u);
  sm0.at_boundary(1000, 300);
  EXPECT_TRUE(ref.published);
  EXPECT_EQ(ref.period, 0u);
  EXPECT_EQ(ref.stalls, 300u);
  sm0.at_boundary(2000, 700);  // cumulative 700: 400 in period 1
  EXPECT_EQ(ref.period, 1u);
  EXPECT_EQ(ref.stalls, 400u);
  EXPECT_EQ(sm0.next_boundary(), 3000u);
}

TEST(JatalaDwe, ProbabilityWalksBySaturatingSteps) {
  DweReference ref;
  DynamicWarpExecution sm1(false, 1000, 10, &ref);
  EXPECT_EQ(sm1.probability_percent(), 100u);  // initially every memory instruction issues
  EXPECT_TRUE(sm1.allow(99));
  ref = {true, 0, 100};
  sm1.close_period(0, 150);  // more stalls than SM0: -0.1
  EXPECT_EQ(sm1.probability_percent(), 90u);
  EXPECT_TRUE(sm1.allow(89));
  EXPECT_FALSE(sm1.allow(90));
  for (uint64_t k = 1; k <= 12; ++k) {
    ref = {true, k, 100};
    sm1.close_period(k, 101);
  }
  EXPECT_EQ(sm1.probability_percent(), 0u);  // saturates at 0
  ref = {true, 13, 100};
  sm1.close_period(13, 100);  // equal: unchanged
  EXPECT_EQ(sm1.probability_percent(), 0u);
  for (uint64_t k = 14; k <= 30; ++k) {
    ref = {true, k, 100};
    sm1.close_period(k, 20);  // fewer stalls: +0.1
  }
  EXPECT_EQ(sm1.probability_percent(), 100u);  // saturates at 1
}

TEST(JatalaDwe, StaleOrMissingReferenceLeavesTheProbability) {
  DweReference ref;
  DynamicWarpExecution sm2(false, 1000, 10, &ref);
  sm2.close_period(0, 500);  // nothing published yet
  EXPECT_EQ(sm2.probability_percent(), 100u);
  ref = {true, 4, 0};
  sm2.close_period(4, 500);  // same period
  EXPECT_EQ(sm2.probability_percent(), 90u);
  sm2.close_period(5, 500);  // SM0's count is one period old (ticked later in the same step)
  EXPECT_EQ(sm2.probability_percent(), 80u);
  sm2.close_period(9, 500);  // SM0 stopped publishing (no work): no reference
  EXPECT_EQ(sm2.probability_percent(), 80u);
}

TEST(JatalaDwe, SkippedBoundariesCloseOnce) {
  DweReference ref;
  DynamicWarpExecution sm0(true, 1000, 10, &ref);
  sm0.at_boundary(3500, 900);  // slept from before 1000 to 3500
  EXPECT_EQ(ref.period, 2u);
  EXPECT_EQ(ref.stalls, 900u);
  EXPECT_EQ(sm0.next_boundary(), 4000u);
}

}  // namespace
}  // namespace smshare::jatala
