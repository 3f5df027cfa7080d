// The shared set-associative tag store: geometry, hit/miss, LRU order,
// dirty victims, probe and invalidate.
#include <gtest/gtest.h>

#include <vector>

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

// --- Sectored lines (GPGPU-Sim's sector_cache_block): 128 B lines of four
// 32 B sectors; masks are chunk masks (chunk = 32 B, so one bit per sector).
ChunkMask chunks(uint32_t bits) { return ChunkMask::from_bits(bits); }
CacheTags sectored() { return CacheTags(1024, 128, 2, 32); }

TEST(CacheTags, RejectsBadSectorSizes) {
  EXPECT_THROW(CacheTags(1024, 128, 2, 16), InputError);   // below 32
  EXPECT_THROW(CacheTags(1024, 128, 2, 48), InputError);   // not a power of two
  EXPECT_THROW(CacheTags(1024, 128, 2, 256), InputError);  // above the line
  EXPECT_EQ(CacheTags(1024, 128, 2, 64).sector_bytes(), 64u);
  EXPECT_EQ(CacheTags(1024, 128, 2).sector_bytes(), 128u);  // not sectored: the line
}

TEST(CacheTags, ATagMissAllocatesOnlyTheNeededSectors) {
  CacheTags t = sectored();
  CacheTags::Result r = t.access(0x80, chunks(0x1), true);
  EXPECT_FALSE(r.hit);
  EXPECT_FALSE(r.sector_miss);
  EXPECT_EQ(r.missing, chunks(0x1));
  EXPECT_TRUE(t.access(0x80, chunks(0x1), true).hit);
  // Sector 2 of the same line: the tag matches but the sector is invalid.
  r = t.access(0x80, chunks(0x4), true);
  EXPECT_FALSE(r.hit);
  EXPECT_TRUE(r.sector_miss);
  EXPECT_EQ(r.missing, chunks(0x4));
  EXPECT_TRUE(t.access(0x80, chunks(0x5), true).hit);
}

TEST(CacheTags, APartialHitFetchesOnlyTheMissingSectors) {
  CacheTags t = sectored();
  t.access(0, chunks(0x3), true);                      // sectors 0 and 1
  CacheTags::Result r = t.access(0, chunks(0xF), true);  // all four: 2 and 3 missing
  EXPECT_FALSE(r.hit);
  EXPECT_TRUE(r.sector_miss);
  EXPECT_EQ(r.missing, chunks(0xC));
  EXPECT_EQ(r.missing.bytes(), 64u);
  EXPECT_TRUE(t.access(0, chunks(0xF), true).hit);
  // Without allocate, a sector miss leaves the line as it was.
  t.access(512, chunks(0x1), true);
  EXPECT_EQ(t.access(512, chunks(0x2), false).missing, chunks(0x2));
  EXPECT_TRUE(t.access(512, chunks(0x2), false).sector_miss);
}

TEST(CacheTags, SectorsWiderThanAChunkAreFetchedWhole) {
  CacheTags t(1024, 128, 2, 64);  // two 64 B sectors: chunks 0-1 and 2-3
  EXPECT_EQ(t.sectors_of(chunks(0x4)), chunks(0xC));
  EXPECT_EQ(t.access(0, chunks(0x1), true).missing, chunks(0x3));
  EXPECT_TRUE(t.access(0, chunks(0x2), true).hit);  // same 64 B sector
  EXPECT_EQ(t.access(0, chunks(0x8), true).missing, chunks(0xC));
  // Not sectored: any chunk needs (and a hit has) the whole line.
  CacheTags whole = small();
  EXPECT_EQ(whole.access(0, chunks(0x2), true).missing, chunks(0xF));
  EXPECT_TRUE(whole.access(0, chunks(0x8), true).hit);
}

TEST(CacheTags, ADirtyVictimWritesBackOnlyItsDirtySectors) {
  CacheTags t = sectored();
  t.access(0, chunks(0x1), true, /*dirty=*/true);  // write sector 0
  t.access(0, chunks(0x6), true);                  // read sectors 1 and 2: clean
  t.access(512, chunks(0x1), true);
  const CacheTags::Result r = t.access(1024, chunks(0x1), true);  // evicts line 0
  EXPECT_TRUE(r.evicted_dirty);
  EXPECT_EQ(r.victim_line, 0u);
  EXPECT_EQ(r.victim_dirty, chunks(0x1));
}

TEST(CacheTags, AHitAtAKnownEntryIsAnAccessHitWithoutTheSearch) {
  // One set of two ways: line 0 then line 128; re-touching line 0 at its
  // entry makes 128 the LRU victim, exactly as access(0) would.
  CacheTags t(256, 128, 2);
  const uint32_t e0 = t.access(0, true).entry;
  t.access(128, true);
  EXPECT_TRUE(t.hit_line_at(e0, 0));
  t.access(256, true);
  EXPECT_TRUE(t.probe(0));
  EXPECT_FALSE(t.probe(128));
  // Another line at that entry, or the line gone: no hit, nothing changed.
  EXPECT_FALSE(t.hit_line_at(e0, 256));
  t.invalidate(0);
  EXPECT_FALSE(t.hit_line_at(e0, 0));
}

TEST(CacheTags, AHitAtAKnownEntryNeedsEverySectorValid) {
  // Line 0 holds only sector 0: a whole-line access would be a sector miss,
  // so hit_line_at refuses and leaves line 0 the LRU way.
  CacheTags t(256, 128, 2, 32);
  const uint32_t e0 = t.access(0, chunks(0x1), true).entry;
  t.access(128, chunks(0xF), true);
  EXPECT_FALSE(t.hit_line_at(e0, 0));
  t.access(256, chunks(0x1), true);
  EXPECT_FALSE(t.probe(0));
  EXPECT_TRUE(t.probe(128));
}

// The definition of the replacement, written out: a per-way last-use stamp,
// the victim the first way of least stamp (a free way's is 0). CacheTags
// keeps a recency list instead; over a long random mix of reads, writes,
// lookups without allocation, empty accesses, hits at a known entry and
// invalidations both must give the same answers.
class StampedTags {
 public:
  StampedTags(uint32_t sets, uint32_t ways, uint32_t line_bytes, uint32_t sector_chunks)
      : sets_(sets), ways_(ways), line_bytes_(line_bytes), sector_chunks_(sector_chunks), store_(sets * ways) {}

  CacheTags::Result access(uint64_t addr, ChunkMask chunks, bool allocate, bool dirty) {
    const ChunkMask line_mask = ChunkMask::line(line_bytes_);
    const ChunkMask needed = chunks.widen(sector_chunks_) & line_mask;
    const uint64_t line = addr / line_bytes_;
    const uint32_t first = static_cast<uint32_t>(line % sets_) * ways_;
    CacheTags::Result r;
    ++clock_;
    for (uint32_t e = first; e < first + ways_; ++e) {
      Way& w = store_[e];
      if (!w.valid.any() || w.tag != line) continue;
      w.last_use = clock_;
      r.entry = e;
      r.missing = needed.minus(w.valid);
      r.hit = !r.missing.any();
      r.sector_miss = !r.hit;
      if (allocate) w.valid |= r.missing;
      if (dirty) w.dirty |= needed & w.valid;
      return r;
    }
    r.missing = needed;
    if (!allocate) return r;
    uint32_t victim = first;
    for (uint32_t e = first + 1; e < first + ways_; ++e)
      if (store_[e].last_use < store_[victim].last_use) victim = e;
    Way& w = store_[victim];
    if (w.valid.any() && w.dirty.any()) {
      r.evicted_dirty = true;
      r.victim_line = w.tag * line_bytes_;
      r.victim_dirty = w.dirty;
    }
    r.entry = victim;
    r.allocated = true;
    w = needed.any() ? Way{line, clock_, needed, dirty ? needed : ChunkMask()} : Way{};
    return r;
  }
  // The entry holding the line at `addr` with every sector valid, or
  // kAbsent; touches nothing.
  uint32_t whole_line_entry(uint64_t addr) const {
    const uint64_t line = addr / line_bytes_;
    const uint32_t first = static_cast<uint32_t>(line % sets_) * ways_;
    for (uint32_t e = first; e < first + ways_; ++e)
      if (store_[e].tag == line && store_[e].valid == ChunkMask::line(line_bytes_)) return e;
    return CacheTags::kAbsent;
  }
  // The entry holding the line at `addr` (some sector valid), or kAbsent:
  // what CacheTags::find() answers.
  uint32_t entry_of(uint64_t addr) const {
    const uint64_t line = addr / line_bytes_;
    const uint32_t first = static_cast<uint32_t>(line % sets_) * ways_;
    for (uint32_t e = first; e < first + ways_; ++e)
      if (store_[e].valid.any() && store_[e].tag == line) return e;
    return CacheTags::kAbsent;
  }
  void invalidate(uint64_t addr) {
    const uint64_t line = addr / line_bytes_;
    const uint32_t first = static_cast<uint32_t>(line % sets_) * ways_;
    for (uint32_t e = first; e < first + ways_; ++e)
      if (store_[e].valid.any() && store_[e].tag == line) store_[e] = Way{};
  }

 private:
  struct Way {
    uint64_t tag = 0;
    uint64_t last_use = 0;
    ChunkMask valid;
    ChunkMask dirty;
  };
  uint32_t sets_, ways_, line_bytes_, sector_chunks_;
  uint64_t clock_ = 0;
  std::vector<Way> store_;
};

// Replays 200 k random operations on `sets` x `ways` lines of 128 B in 32 B
// sectors against the model; `line_of(draw)` picks each access's line number
// (`draw` gives a random number below its argument).
template <class LineOf>
void replay_against_stamps(uint32_t sets, uint32_t ways, LineOf line_of) {
  CacheTags tags(sets * ways * 128, 128, ways, 32);
  StampedTags model(sets, ways, 128, 1);
  uint64_t seed = 12345;
  auto next = [&seed](uint32_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>((seed >> 33) % n);
  };
  for (int step = 0; step < 200000; ++step) {
    const uint64_t addr = line_of(next) * 128 + next(128);
    const ChunkMask chunks = ChunkMask::from_bits(next(8) == 0 ? 0 : next(16));
    const uint32_t op = next(16);
    if (op == 0) {
      tags.invalidate(addr);
      model.invalidate(addr);
      continue;
    }
    if (op == 1) {
      // A whole-line hit at the entry where the model holds the line whole.
      const uint32_t entry = model.whole_line_entry(addr);
      if (entry == CacheTags::kAbsent) continue;
      ASSERT_TRUE(tags.hit_line_at(entry, addr)) << "step " << step;
      model.access(addr, ChunkMask::line(128), false, false);
      continue;
    }
    // Both searches of the set (the L2's booking compiles a wide set's into itself).
    ASSERT_EQ(tags.find(addr), model.entry_of(addr)) << "step " << step;
    ASSERT_EQ(tags.find_inline(addr), model.entry_of(addr)) << "step " << step;
    const bool allocate = op != 2;
    const bool dirty = op >= 12;
    const CacheTags::Result got = tags.access(addr, chunks, allocate, dirty);
    const CacheTags::Result want = model.access(addr, chunks, allocate, dirty);
    ASSERT_EQ(got.hit, want.hit) << "step " << step;
    ASSERT_EQ(got.sector_miss, want.sector_miss) << "step " << step;
    ASSERT_EQ(got.missing, want.missing) << "step " << step;
    ASSERT_EQ(got.evicted_dirty, want.evicted_dirty) << "step " << step;
    ASSERT_EQ(got.victim_line, want.victim_line) << "step " << step;
    ASSERT_EQ(got.victim_dirty, want.victim_dirty) << "step " << step;
    ASSERT_EQ(got.allocated, want.allocated) << "step " << step;
    if (got.hit || got.sector_miss || got.allocated) {
      ASSERT_EQ(got.entry, want.entry) << "step " << step;
    }
  }
}

TEST(CacheTags, ReplacementMatchesLeastRecentlyUsedByStamps) {
  // 2 sets x 8 ways, 40 lines competing: sets fill, overflow and are
  // emptied again by invalidations.
  replay_against_stamps(2, 8, [](auto draw) { return uint64_t(draw(40)); });
}

TEST(CacheTags, OneAndTwoWaySetsReplaceAsLeastRecentlyUsed) {
  // A miss moves its victim, the set's last way, to the front: in a set of
  // one way it is the front already; in one of two the other way becomes
  // the victim.
  replay_against_stamps(4, 1, [](auto draw) { return uint64_t(draw(12)); });
  replay_against_stamps(4, 2, [](auto draw) { return uint64_t(draw(16)); });
}

TEST(CacheTags, WideSetsFindTheirLinesThroughCollidingFingerprints) {
  // Sets wider than kScannedWays are searched by a byte per way, the tag's
  // bits above the set index: lines 512 apart in one set share that byte.
  // 64 lines (8 per byte value) compete for 2 sets of 16, 24 (a set's last
  // group of 16 holds 8 of the next set's ways) and 64 ways.
  const auto colliding = [](auto draw) { return uint64_t(draw(8)) * 512 + draw(8); };
  replay_against_stamps(2, 16, colliding);
  replay_against_stamps(2, 24, colliding);
  replay_against_stamps(2, 64, colliding);
}

TEST(ChunkMask, WidenRoundsEveryMaskOutToWholeSectors) {
  // By definition: a sector (sector_chunks chunks) is in the result when any
  // of its chunks is in the mask. Every mask of up to two chunks, and some
  // denser ones, against every sector size.
  std::vector<uint32_t> masks = {0, ~0u, 0x0F0F0F0Fu, 0x80000001u, 0x12345678u, 0xFFFF0000u};
  for (uint32_t a = 0; a < 32; ++a)
    for (uint32_t b = a; b < 32; ++b) masks.push_back(1u << a | 1u << b);
  for (const uint32_t sector_chunks : {1u, 2u, 4u, 8u, 16u, 32u})
    for (const uint32_t m : masks) {
      uint32_t expected = 0;
      for (uint32_t first = 0; first < 32; first += sector_chunks) {
        const uint32_t sector = (sector_chunks == 32 ? ~0u : (1u << sector_chunks) - 1) << first;
        if (m & sector) expected |= sector;
      }
      EXPECT_EQ(ChunkMask::from_bits(m).widen(sector_chunks).bits(), expected)
          << "mask " << m << ", sector of " << sector_chunks << " chunks";
    }
}

TEST(ChunkMask, CountsItsChunksNarrowAndWide) {
  // Against a bit-by-bit count: every mask of the first 8 chunks (the
  // nibble table below 16, the count by halves above) and some wide ones.
  std::vector<uint32_t> masks = {~0u, 0x80000000u, 0x0F0F0F0Fu, 0x12345678u, 0xFFFF0010u};
  for (uint32_t m = 0; m < 256; ++m) masks.push_back(m);
  for (const uint32_t m : masks) {
    uint32_t expected = 0;
    for (uint32_t b = 0; b < 32; ++b) expected += m >> b & 1u;
    EXPECT_EQ(ChunkMask::from_bits(m).count(), expected) << "mask " << m;
    EXPECT_EQ(ChunkMask::from_bits(m).bytes(), expected * ChunkMask::kChunkBytes) << "mask " << m;
  }
}

}  // namespace
}  // namespace smshare
