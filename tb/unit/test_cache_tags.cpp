// The shared set-associative tag store: geometry, hit/miss, LRU order,
// dirty victims, probe and invalidate.
#include <gtest/gtest.h>

#include "hw/common/cache_tags.hpp"
#include "hw/common/error.hpp"

namespace smshare {
namespace {

// 4 sets x 2 ways x 128 B: lines 0, 4, 8, ... share set 0 (addresses 0, 512, 1024, ...).
CacheTags small() { return CacheTags(1024, 128, 2); }

TEST(CacheTags, GeometryFromSizeLineAndWays) {
  EXPECT_EQ(small().sets(), 4u);
  EXPECT_EQ(CacheTags(16 * 1024, 128, 4).sets(), 32u);  // Fermi L1D
  EXPECT_EQ(small().line_of(0x1FF), 3u);
}

TEST(CacheTags, RejectsBadGeometry) {
  EXPECT_THROW(CacheTags(1024, 100, 2), InputError);      // line not a power of two
  EXPECT_THROW(CacheTags(3 * 256, 128, 2), InputError);   // 3 sets
  EXPECT_THROW(CacheTags(1000, 128, 2), InputError);      // not whole sets
  EXPECT_THROW(CacheTags(1024, 128, 0), InputError);
}

TEST(CacheTags, MissAllocatesThenHits) {
  CacheTags t = small();
  EXPECT_FALSE(t.access(0x80, true).hit);
  EXPECT_TRUE(t.access(0x80, true).hit);
  EXPECT_TRUE(t.access(0xFF, true).hit);  // same line
  EXPECT_FALSE(t.access(0x100, false).hit);
  EXPECT_FALSE(t.probe(0x100));  // no allocation without `allocate`
}

TEST(CacheTags, SetsAreIndependent) {
  CacheTags t = small();
  for (uint64_t line = 0; line < 8; ++line) t.access(line * 128, true);  // 2 lines in each of 4 sets
  for (uint64_t line = 0; line < 8; ++line) EXPECT_TRUE(t.probe(line * 128)) << line;
  t.access(8 * 128, true);  // set 0: evicts line 0 (LRU), nothing elsewhere
  EXPECT_FALSE(t.probe(0));
  for (uint64_t line = 1; line < 9; ++line) EXPECT_TRUE(t.probe(line * 128)) << line;
}

TEST(CacheTags, ReplacesLeastRecentlyUsed) {
  CacheTags t = small();
  t.access(0, true);
  t.access(512, true);
  t.access(0, true);     // 0 becomes most recent
  t.access(1024, true);  // evicts 512
  EXPECT_TRUE(t.probe(0));
  EXPECT_FALSE(t.probe(512));
  EXPECT_TRUE(t.probe(1024));
  t.access(1536, true);  // now 0 is the LRU
  EXPECT_FALSE(t.probe(0));
  EXPECT_TRUE(t.probe(1024));
}

TEST(CacheTags, ProbeDoesNotTouchLru) {
  CacheTags t = small();
  t.access(0, true);
  t.access(512, true);
  EXPECT_TRUE(t.probe(0));  // were this a use, 512 would be evicted next
  t.access(1024, true);
  EXPECT_FALSE(t.probe(0));
  EXPECT_TRUE(t.probe(512));
}

TEST(CacheTags, DirtyVictimReportsItsLineAddress) {
  CacheTags t = small();
  t.access(512 + 4, true, /*dirty=*/true);
  t.access(0, true);
  t.access(0, true);
  CacheTags::Result r = t.access(1024, true);  // evicts line 4 (address 512), dirty
  EXPECT_FALSE(r.hit);
  EXPECT_TRUE(r.evicted_dirty);
  EXPECT_EQ(r.victim_line, 512u);
  r = t.access(1536, true);  // evicts clean line 0
  EXPECT_FALSE(r.evicted_dirty);
}

TEST(CacheTags, HitCanDirtyALineAndRefillIsClean) {
  CacheTags t = small();
  t.access(0, true);
  EXPECT_TRUE(t.access(0, true, /*dirty=*/true).hit);
  t.access(512, true);
  EXPECT_TRUE(t.access(1024, true).evicted_dirty);  // 0 was dirtied by the hit
  t.access(0, true);                                 // refilled clean
  t.access(0, true);
  t.access(1536, true);                              // evicts 1024 (clean)
  EXPECT_FALSE(t.access(2048, true).evicted_dirty);  // evicts 0, clean since refill
}

TEST(CacheTags, InvalidateDropsTheLineAndItsDirtiness) {
  CacheTags t = small();
  t.access(0, true, true);
  t.invalidate(0x40);
  EXPECT_FALSE(t.probe(0));
  t.access(512, true);
  EXPECT_FALSE(t.access(1024, true).evicted_dirty);  // the invalid way is reused first
  EXPECT_TRUE(t.probe(512));
  t.invalidate(4096);  // absent: no effect
  EXPECT_TRUE(t.probe(1024));
}

}  // namespace
}  // namespace smshare
