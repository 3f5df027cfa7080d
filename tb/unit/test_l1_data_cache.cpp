// The L1 data cache on its own: hits, misses, hits on a fill still in
// flight, write-evict, cold start (rules in hw/sm/l1_data_cache.hpp).
#include <gtest/gtest.h>

#include <vector>

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

// Hundreds of fills in flight, so that the table of fills is pruned many
// times (at 64 entries, then at twice what a prune kept): every load's
// answer is the one a table that forgot nothing gives, the fill's return
// while it is later than the hit latency, the hit latency after. The fills
// return 100 to 699 cycles after their miss, out of order, and each line is
// loaded again at cycles before, at and after its fill's return.
TEST(L1DataCache, PruningTheFillsInFlightChangesNoAnswer) {
  CacheSpec big;
  big.size_bytes = 1024 * 1024;  // 8,192 lines: none of the 600 below is evicted
  L1DataCache l1(big);
  constexpr uint64_t kLines = 600;
  std::vector<uint64_t> ready(kLines);
  uint64_t cycle = 0;
  for (uint64_t i = 0; i < kLines; ++i, cycle += 3) {
    const uint64_t line = kLine + i * big.line_bytes;
    ASSERT_FALSE(l1.load(line, cycle).hit) << "line " << i;
    ready[i] = cycle + 100 + (i * 7919) % 600;
    l1.fill_in_flight(line, ready[i], cycle);
    // Lines missed before, loaded again now: a pending hit until the fill is back.
    for (uint64_t j = i % 7; j < i; j += 7) {
      const L1DataCache::Lookup again = l1.load(kLine + j * big.line_bytes, cycle);
      ASSERT_TRUE(again.hit) << "line " << j << " at " << cycle;
      const uint64_t expected = ready[j] > cycle + big.hit_latency ? ready[j] : cycle + big.hit_latency;
      ASSERT_EQ(again.ready, expected) << "line " << j << " at " << cycle;
    }
  }
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

// --- A sectored L1 (l1.sector_bytes = 32): four 32 B sectors per 128 B line.
struct SectoredL1Test : ::testing::Test {
  static CacheSpec sectored() {
    CacheSpec s;
    s.sector_bytes = 32;
    return s;
  }
  static ChunkMask chunks(uint32_t bits) { return ChunkMask::from_bits(bits); }
  L1DataCache l1{sectored()};
};

TEST_F(SectoredL1Test, AMissRequestsOnlyTheSectorsTouched) {
  const L1DataCache::Lookup miss = l1.load(kLine, chunks(0x1), 0);
  EXPECT_FALSE(miss.hit);
  EXPECT_EQ(miss.missing, chunks(0x1));
  EXPECT_EQ(miss.ready, 0u);  // nothing of it is here yet
  l1.fill_in_flight(kLine, miss.missing, 150, 0);
  // Sector 1 of the same line: a sector miss for that sector alone.
  const L1DataCache::Lookup other = l1.load(kLine, chunks(0x2), 1);
  EXPECT_FALSE(other.hit);
  EXPECT_EQ(other.missing, chunks(0x2));
  EXPECT_EQ(l1.misses(), 2u);
  EXPECT_EQ(l1.sector_misses(), 1u);
  EXPECT_EQ(l1.fills(), 2u);
}

TEST_F(SectoredL1Test, PendingSectorsServeLaterLoadsWhenTheirFillReturns) {
  l1.load(kLine, chunks(0x1), 0);
  l1.fill_in_flight(kLine, chunks(0x1), 150, 0);
  l1.load(kLine, chunks(0x2), 1);
  l1.fill_in_flight(kLine, chunks(0x2), 180, 1);
  // Both sectors allocated: a hit, with the data of the later fill.
  const L1DataCache::Lookup both = l1.load(kLine, chunks(0x3), 2);
  EXPECT_TRUE(both.hit);
  EXPECT_EQ(both.ready, 180u);
  EXPECT_EQ(l1.pending_hits(), 1u);
  // Sectors 0 and 2: sector 2 is missing, sector 0's fill is still due at
  // 150, so the present part is ready then and only sector 2 goes below.
  const L1DataCache::Lookup partial = l1.load(kLine, chunks(0x5), 3);
  EXPECT_FALSE(partial.hit);
  EXPECT_EQ(partial.missing, chunks(0x4));
  EXPECT_EQ(partial.ready, 150u);
  EXPECT_EQ(l1.sector_misses(), 2u);
  // After the fills, valid sectors take the hit latency.
  EXPECT_EQ(l1.load(kLine, chunks(0x3), 300).ready, 335u);
}

TEST_F(SectoredL1Test, AStoreForgetsEverySectorOfTheLine) {
  l1.load(kLine, chunks(0xF), 0);
  l1.fill_in_flight(kLine, chunks(0xF), 100, 0);
  l1.store(kLine);
  const L1DataCache::Lookup after = l1.load(kLine, chunks(0x8), 101);
  EXPECT_FALSE(after.hit);
  EXPECT_EQ(after.missing, chunks(0x8));
  EXPECT_EQ(l1.sector_misses(), 0u);  // the tag went too: a line miss
}

}  // namespace
}  // namespace smshare
