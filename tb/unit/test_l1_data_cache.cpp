// The L1 data cache on its own: hits, misses, hits on a fill still in
// flight, write-evict, cold start (rules in hw/sm/l1_data_cache.hpp).
#include <gtest/gtest.h>

#include "hw/sm/l1_data_cache.hpp"

namespace smshare {
namespace {

constexpr uint64_t kLine = 0x10000000;

struct L1Test : ::testing::Test {
  CacheSpec spec;  // Fermi: 16 KB, 128 B lines, 4 ways, hit latency 35
  L1DataCache l1{spec};
};

TEST_F(L1Test, AHitOnALineInFlightWaitsForTheFill) {
  // Cycle 0 misses and the fill returns in 150; a load of the line in cycle
  // 1 hits the allocated tag but gets its data at 150, not 1 + 35. Once the
  // fill is back, a hit costs the hit latency.
  ASSERT_EQ(spec.hit_latency, 35u);
  EXPECT_FALSE(l1.load(kLine, 0).hit);
  l1.fill_in_flight(kLine, 150, 0);
  const L1DataCache::Lookup early = l1.load(kLine, 1);
  EXPECT_TRUE(early.hit);
  EXPECT_EQ(early.ready, 150u);
  const L1DataCache::Lookup late = l1.load(kLine, 200);
  EXPECT_TRUE(late.hit);
  EXPECT_EQ(late.ready, 235u);
  EXPECT_EQ(l1.hits(), 2u);
  EXPECT_EQ(l1.misses(), 1u);
  EXPECT_EQ(l1.fills(), 1u);
  EXPECT_EQ(l1.pending_hits(), 1u);
}

TEST_F(L1Test, AHitAfterTheFillReturnedTakesTheHitLatency) {
  EXPECT_FALSE(l1.load(kLine, 0).hit);
  l1.fill_in_flight(kLine, 20, 0);
  EXPECT_EQ(l1.load(kLine, 10).ready, 45u);  // the fill (20) is earlier than 10 + 35
  EXPECT_EQ(l1.pending_hits(), 0u);
}

TEST_F(L1Test, StoresEvictTheLine) {
  l1.load(kLine, 0);
  l1.fill_in_flight(kLine, 100, 0);
  l1.store(kLine);
  EXPECT_FALSE(l1.load(kLine, 101).hit);
  EXPECT_EQ(l1.misses(), 2u);
}

TEST_F(L1Test, EachKernelStartsCold) {
  l1.load(kLine, 0);
  EXPECT_TRUE(l1.load(kLine, 1).hit);
  l1.flush();
  EXPECT_FALSE(l1.load(kLine, 2).hit);
}

TEST_F(L1Test, FourWaysHoldFourLinesOfASetAndEvictTheLeastRecentlyUsed) {
  // 16 KB / (128 B x 4 ways) = 32 sets: lines 4 KB apart share a set.
  for (uint64_t i = 0; i < 4; ++i) EXPECT_FALSE(l1.load(kLine + i * 4096, i).hit);
  EXPECT_TRUE(l1.load(kLine, 10).hit);  // line 0 becomes the most recent
  EXPECT_FALSE(l1.load(kLine + 4 * 4096, 11).hit);  // evicts line 1
  EXPECT_TRUE(l1.load(kLine, 12).hit);
  EXPECT_FALSE(l1.load(kLine + 1 * 4096, 13).hit);
}

TEST_F(L1Test, ProbesCountThisCycleAndCollectGivesArrayAccesses) {
  l1.begin_cycle();
  l1.load(kLine, 0);
  l1.load(kLine, 0);
  EXPECT_EQ(l1.probes().misses_this_cycle, 1u);
  EXPECT_EQ(l1.probes().hits_this_cycle, 1u);
  l1.begin_cycle();
  EXPECT_EQ(l1.probes().hits_this_cycle, 0u);
  ActivityCounters out;
  l1.collect(out);
  EXPECT_EQ(out["l1d"].reads, 2u);   // tag+data lookups: hits + misses
  EXPECT_EQ(out["l1d"].writes, 1u);  // fills
}

TEST(L1DataCache, WithoutAnL1EveryLoadMissesUncounted) {
  CacheSpec none;
  none.size_bytes = 0;
  L1DataCache l1(none);
  EXPECT_FALSE(l1.present());
  EXPECT_FALSE(l1.load(kLine, 0).hit);
  l1.fill_in_flight(kLine, 100, 0);
  EXPECT_FALSE(l1.load(kLine, 1).hit);
  EXPECT_EQ(l1.misses(), 0u);
  EXPECT_EQ(l1.hits(), 0u);
}

}  // namespace
}  // namespace smshare
