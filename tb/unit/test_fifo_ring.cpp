// FifoRing must give back what it was given, in order, as std::deque does,
// through wrapping around the ring and growing with elements held.
#include "hw/common/fifo_ring.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>

namespace smshare {
namespace {

struct Item {
  uint64_t a = 0;
  uint32_t b = 0;
  bool operator==(const Item& o) const { return a == o.a && b == o.b; }
};

TEST(FifoRing, GivesBackInOrderOfPushing) {
  FifoRing<Item> q;
  EXPECT_TRUE(q.empty());
  for (uint32_t i = 0; i < 40; ++i) q.push_back({i * 10ull, i});  // grows twice from empty
  EXPECT_EQ(q.size(), 40u);
  for (uint32_t i = 0; i < 40; ++i) {
    ASSERT_EQ(q.front(), (Item{i * 10ull, i}));
    q.pop_front();
  }
  EXPECT_TRUE(q.empty());
}

TEST(FifoRing, MatchesADequeThroughWrappingAndGrowth) {
  std::mt19937_64 rng(7);
  FifoRing<Item> q;
  std::deque<Item> ref;
  for (int step = 0; step < 200000; ++step) {
    // Mostly a few held (wrapping a small ring), now and then a burst (growth).
    const int pushes = rng() % 1000 == 0 ? 50 : static_cast<int>(rng() % 2);
    for (int i = 0; i < pushes; ++i) {
      const Item x{rng(), static_cast<uint32_t>(step)};
      q.push_back(x);
      ref.push_back(x);
    }
    if (!ref.empty() && rng() % 2) {
      ASSERT_EQ(q.front(), ref.front());
      q.pop_front();
      ref.pop_front();
    }
    ASSERT_EQ(q.size(), ref.size());
    ASSERT_EQ(q.empty(), ref.empty());
    if (!ref.empty()) {
      ASSERT_EQ(q.front(), ref.front());
    }
  }
}

}  // namespace
}  // namespace smshare
