// Set-associative tag store with LRU replacement: the L1 data cache, the L2
// slices (and later the operand cache) are this plus their own timing.
//
// Sectored lines, as GPGPU-Sim 4's sector_cache_block (gpu-cache.h) and
// tag_array::probe / tag_array::access (gpu-cache.cc): a line holds one valid
// (and dirty) bit per sector; a tag match is a hit only when every sector the
// access needs is valid, else a sector miss (SECTOR_MISS) that fetches just
// the missing sectors; a tag miss allocates the line with only the needed
// sectors. With sector_bytes = 0 the whole line is one sector, and a tag
// match is a hit, as in an ordinary cache. Masks are ChunkMasks
// (chunk_mask.hpp): a sector is its chunks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "hw/common/chunk_mask.hpp"

namespace smshare {

class CacheTags {
 public:
  // size_bytes / (line_bytes * ways) sets, must be a power of two; sector_bytes
  // 0 (one sector per line) or a power of two from 32 to line_bytes.
  CacheTags(uint32_t size_bytes, uint32_t line_bytes, uint32_t ways, uint32_t sector_bytes = 0);

  struct Result {
    bool hit = false;            // the line was present with every needed sector valid
    bool sector_miss = false;    // the line was present but lacked some needed sectors
    ChunkMask missing;           // needed sectors not valid: what a fill must bring
    bool evicted_dirty = false;  // a dirty victim was replaced (write-back traffic)
    uint64_t victim_line = 0;    // its line address, valid when evicted_dirty
    ChunkMask victim_dirty;      // its dirty sectors: what the write-back moves
    // The tag entry holding the line after the access (set * ways + way;
    // valid when the line was present or allocated): owners keep per-line
    // state (fills in flight) in arrays indexed by it. `allocated`: the
    // entry was (re)assigned to this line by this access, so whatever the
    // owner kept for the entry belonged to the victim.
    uint32_t entry = 0;
    bool allocated = false;
  };
  // Looks up the sectors of the line holding `addr` that `chunks` touch. On a
  // miss with `allocate`, the missing sectors are marked valid at once (their
  // fill is the owner's business), a tag miss replacing the LRU way. `dirty`
  // marks the needed sectors dirty (a write: valid and dirty once written).
  Result access(uint64_t addr, ChunkMask chunks, bool allocate, bool dirty = false) {
    return access_found(find(addr), addr, sectors_of(chunks), allocate, dirty);
  }
  // The same for the whole line. (The caches' hot lookups call find() and
  // access_found_inline() instead: one search of the set for the miss test
  // and the access, and no call.)
  Result access(uint64_t addr, bool allocate, bool dirty = false) { return access(addr, line_mask_, allocate, dirty); }
  // What access(addr, allocate) does when the whole line at `addr` hits in
  // tag entry `entry` (a Result's entry): if the entry holds the line with
  // every sector valid, makes it the most recently used and returns true;
  // otherwise changes nothing and returns false. Tags within a set are
  // distinct, so the search of access() would find that same entry: an owner
  // that remembers where its last hit was skips the search.
  bool hit_line_at(uint32_t entry, uint64_t addr);
  // Is the line present (any sector)? Without touching LRU.
  bool probe(uint64_t addr) const { return find(addr) != kAbsent; }
  // The sectors of `chunks` an access would miss (all of them on a tag
  // miss), without touching LRU: what a miss would have to fetch.
  ChunkMask missing(uint64_t addr, ChunkMask chunks) const { return missing_at(find(addr), sectors_of(chunks)); }

  // access() and missing() in two steps, for an owner that asks what would
  // miss before it books the access (the L2 holds a read miss at its input
  // while no MSHR is free) and would otherwise search the set twice:
  // find() is the search both start with, the tag entry holding the line
  // at `addr` (some sector valid) or kAbsent; missing_at() and
  // access_found() take its answer, which stays right until the tags change
  // (the next access_found(), hit_line_at() or invalidate()). They take the
  // needed sectors already rounded (sectors_of()): such an owner rounds an
  // access once for both steps and for its own use of them.
  static constexpr uint32_t kAbsent = ~0u;
  uint32_t find(uint64_t addr) const { return find_in_set</*kWideInline=*/false>(addr); }
  // find() with a wide set's search (below) compiled into the caller too,
  // for the L2 slice's booking, a lookup of nearly every transaction (the
  // call cost about 10 host instructions there).
  [[gnu::always_inline]] uint32_t find_inline(uint64_t addr) const { return find_in_set</*kWideInline=*/true>(addr); }
  ChunkMask missing_at(uint32_t found, ChunkMask needed) const {
    return found == kAbsent ? needed : needed.minus(ways_store_[found].valid);
  }
  Result access_found(uint32_t found, uint64_t addr, ChunkMask needed, bool allocate, bool dirty = false);
  // access_found() compiled into its caller, for the L2 slice's booking
  // (nearly every access of an L2 that mostly misses) and the SM's L1 and
  // instruction cache lookups: out of line, the call saved and restored six
  // registers and its Result went through memory, to be read back field by
  // field at once.
  [[gnu::always_inline]] Result access_found_inline(uint32_t found, uint64_t addr, ChunkMask needed, bool allocate,
                                                    bool dirty);
  void invalidate(uint64_t addr);

  // The sectors `chunks` touch, as chunks (whole sectors, within the line).
  ChunkMask sectors_of(ChunkMask chunks) const { return to_sectors_(chunks) & line_mask_; }
  ChunkMask line_mask() const { return line_mask_; }
  uint32_t sector_bytes() const { return to_sectors_.sector_chunks() * ChunkMask::kChunkBytes; }
  uint64_t line_of(uint64_t addr) const { return addr >> line_shift_; }
  uint32_t sets() const { return sets_; }
  uint32_t entries() const { return static_cast<uint32_t>(ways_store_.size()); }  // sets * ways

 private:
  // Replacement keeps each set's ways in one list, most recently used
  // first: the held ways by recency, then the free ways (no sector valid)
  // in increasing way order. The victim is the list's last way, which is
  // the first free way, else the least recently used one, and a use moves
  // a way to the front: both are a few pointer updates, where a per-way
  // last-use stamp needed a scan of the set at every allocation (an L2
  // that mostly misses allocates at nearly every access).
  // A free way keeps tag kNoLine (all ones: only the last line of the
  // 64-bit address space has it), so that find() compares tags only.
  static constexpr uint64_t kNoLine = ~0ull;
  static constexpr uint32_t kNil = ~0u;  // no neighbour: the list's end
  struct Way {
    uint64_t tag = kNoLine;
    ChunkMask valid;  // none: the way is free
    ChunkMask dirty;
    uint32_t newer = kNil;  // the entry before it in its set's list
    uint32_t older = kNil;  // the entry after it
  };
  struct SetOrder {
    uint32_t newest;  // entry of the most recently used way
    uint32_t oldest;  // entry of the victim
  };
  void unlink(uint32_t entry, SetOrder& order);
  // Moves held way `entry` to the front of its set's list (a use). Mostly
  // it is there already (a line used again and again): that test stays
  // inline, the move is a call, so that the callers inlined into the SM's
  // hot loop (the instruction cache's hit_line_at) stay small.
  void make_newest(uint32_t entry, SetOrder& order) {
    if (order.newest != entry) move_to_front(entry, order);
  }
  [[gnu::noinline]] void move_to_front(uint32_t entry, SetOrder& order);
  // Moves the set's victim (its list's last way) to the front: a miss's
  // allocation. Inline, and without unlink()'s general case: the victim
  // has no older neighbour, and a newer one unless it is alone.
  void make_victim_newest(SetOrder& order) {
    const uint32_t entry = order.oldest;
    if (order.newest == entry) return;  // one way
    Way& way = ways_store_[entry];
    ways_store_[way.newer].older = kNil;
    order.oldest = way.newer;
    way.newer = kNil;
    way.older = order.newest;
    ways_store_[order.newest].newer = entry;
    order.newest = entry;
  }
  // A wide set (an L2's 16 ways, where a lookup nearly always misses; the
  // Accel-Sim configs' L1s of 32 to 96 ways and qv100's 16-way instruction
  // cache) is searched by a byte per way, a fingerprint of its tag, 16 ways
  // per SSE2 compare; only a way whose fingerprint matches has its tag
  // compared. The way-by-way loop cost about 120 host instructions a missing
  // lookup of 16 ways. Up to kScannedWays ways (the other configs' L1s and
  // instruction caches) the loop stays: it is as short, and inlined.
  static constexpr uint32_t kScannedWays = 8;
  static constexpr uint32_t kFingerprintGroup = 16;  // ways per compare
  uint8_t fingerprint(uint64_t line) const { return static_cast<uint8_t>(line >> set_shift_); }
  void set_tag(uint32_t entry, uint64_t tag) {
    ways_store_[entry].tag = tag;
    fingerprints_[entry] = fingerprint(tag);
  }
  template <bool kWideInline>
  [[gnu::always_inline]] uint32_t find_in_set(uint64_t addr) const {
    const uint64_t line = addr >> line_shift_;
    const size_t first = size_t(line & (sets_ - 1)) * ways_;
#if defined(__SSE2__)
    if (ways_ > kScannedWays) return kWideInline ? search_fingerprints(line, first) : find_by_fingerprint(line, first);
#endif
    const Way* set = &ways_store_[first];
    for (uint32_t w = 0; w < ways_; ++w)
      if (set[w].tag == line) return static_cast<uint32_t>(first + w);  // a free way's tag is kNoLine
    return kAbsent;
  }
#if defined(__SSE2__)
  [[gnu::always_inline]] uint32_t search_fingerprints(uint64_t line, size_t first) const {
    const __m128i key = _mm_set1_epi8(static_cast<char>(fingerprint(line)));
    const Way* set = &ways_store_[first];
    for (uint32_t group = 0; group < ways_; group += kFingerprintGroup) {
      const __m128i prints = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&fingerprints_[first + group]));
      uint32_t match = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(prints, key)));
      if (ways_ - group < kFingerprintGroup) match &= (1u << (ways_ - group)) - 1;  // the set's last ways
      for (; match; match &= match - 1) {
        const uint32_t w = group + static_cast<uint32_t>(__builtin_ctz(match));
        if (set[w].tag == line) return static_cast<uint32_t>(first + w);  // tags in a set are distinct
      }
    }
    return kAbsent;
  }
  // search_fingerprints() out of line, for every other lookup (find()).
  [[gnu::noinline]] uint32_t find_by_fingerprint(uint64_t line, size_t first) const;
#endif
  uint32_t line_shift_ = 7;
  uint32_t sets_ = 1;
  uint32_t set_shift_ = 0;  // log2(sets_): a tag's bits above its set index give its fingerprint
  uint32_t ways_ = 1;
  SectorRounding to_sectors_{4};
  ChunkMask line_mask_;
  std::vector<SetOrder> order_;  // per set
  std::vector<Way> ways_store_;
  // Per entry, fingerprint(tag) (of kNoLine for a free way), then
  // kFingerprintGroup - 1 bytes of padding: a set's last group is read
  // whole and masked to its ways.
  std::vector<uint8_t> fingerprints_;
};

inline CacheTags::Result CacheTags::access_found_inline(uint32_t found, uint64_t addr, ChunkMask needed,
                                                       bool allocate, bool dirty) {
  Result r;
  const uint64_t line = addr >> line_shift_;
  SetOrder& order = order_[line & (sets_ - 1)];
  if (found != kAbsent) {
    Way& way = ways_store_[found];
    make_newest(found, order);
    r.entry = found;
    r.missing = needed.minus(way.valid);
    r.hit = !r.missing.any();
    r.sector_miss = !r.hit;
    if (allocate) way.valid |= r.missing;
    if (dirty) way.dirty |= needed & way.valid;
    return r;
  }
  r.missing = needed;
  if (!allocate) return r;
  // The victim: the first free way, else the least recently used, both the
  // list's last way. Its place in the list is all a miss has to find.
  const uint32_t entry = order.oldest;
  Way* victim = &ways_store_[entry];
  if (victim->valid.any() && victim->dirty.any()) {
    r.evicted_dirty = true;
    r.victim_line = victim->tag << line_shift_;  // line-aligned byte address of the victim
    r.victim_dirty = victim->dirty;
  }
  r.entry = entry;
  r.allocated = true;
  // An access that needs no sector of the line leaves the way free, and
  // the first free way it was (or the only one: the victim was held) stays
  // last.
  const bool holds = needed.any();
  set_tag(entry, holds ? line : kNoLine);
  victim->valid = needed;
  victim->dirty = dirty ? needed : ChunkMask();
  if (holds) make_victim_newest(order);
  return r;
}

}  // namespace smshare
