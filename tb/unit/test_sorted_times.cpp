// SortedTimes must hold exactly the times a sorted multiset would, in
// order, through out-of-order inserts, drops, wrapping and growth.
#include "hw/common/sorted_times.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <set>

namespace smshare {
namespace {

TEST(SortedTimes, CountsTheTimesAfterAnInstant) {
  SortedTimes t;
  EXPECT_EQ(t.count_after(0), 0u);
  for (uint64_t x : {10u, 30u, 20u, 30u, 5u}) t.insert(x);  // out of order, a repeat
  t.append(40);
  EXPECT_EQ(t.front(), 5u);
  EXPECT_EQ(t.count_after(4), 6u);
  EXPECT_EQ(t.count_after(10), 4u);
  EXPECT_EQ(t.count_after(29), 3u);
  EXPECT_EQ(t.count_after(30), 1u);
  t.drop_through(20);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.front(), 30u);
  t.drop_through(40);
  EXPECT_TRUE(t.empty());
}

TEST(SortedTimes, MatchesAMultisetThroughWrappingAndGrowth) {
  std::mt19937_64 rng(11);
  SortedTimes t;
  std::multiset<uint64_t> ref;
  uint64_t now = 0;
  for (int step = 0; step < 200000; ++step) {
    now += rng() % 3;
    // Mostly later than everything held, sometimes earlier (a release out of order).
    const uint64_t x = rng() % 8 == 0 ? now + rng() % 20 : now + 50 + rng() % 5;
    // In order when it is: append(), as a caller that knows would.
    if (t.empty() || x >= *ref.rbegin()) t.append(x);
    else t.insert(x);
    ref.insert(x);
    if (rng() % 2) {
      const uint64_t until = now + rng() % 40;
      t.drop_through(until);
      ref.erase(ref.begin(), ref.upper_bound(until));
    }
    ASSERT_EQ(t.size(), ref.size());
    if (!ref.empty()) {
      ASSERT_EQ(t.front(), *ref.begin());
    }
    const uint64_t probe = now + rng() % 60;
    ASSERT_EQ(t.count_after(probe), static_cast<size_t>(std::distance(ref.upper_bound(probe), ref.end())));
  }
}

}  // namespace
}  // namespace smshare
