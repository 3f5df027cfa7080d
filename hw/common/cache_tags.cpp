// Set-associative tag store with true LRU (a per-way last-use stamp).
// Set index = low bits of the line number; the tag kept is the whole line
// number, so a victim's address is recovered without storing the set.
#include "hw/common/cache_tags.hpp"

#include <string>

#include "hw/common/error.hpp"

namespace smshare {

namespace {
bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }
}  // namespace

CacheTags::CacheTags(uint32_t size_bytes, uint32_t line_bytes, uint32_t ways, uint32_t sector_bytes) {
  // A bad geometry is a configuration error, reported instead of indexing out of range.
  if (!is_pow2(line_bytes)) throw InputError("cache: line size " + std::to_string(line_bytes) + " is not a power of two");
  if (ways == 0) throw InputError("cache: associativity must be at least 1");
  const uint64_t set_bytes = uint64_t(line_bytes) * ways;
  if (size_bytes == 0 || size_bytes % set_bytes != 0 || !is_pow2(size_bytes / set_bytes))
    throw InputError("cache: " + std::to_string(size_bytes) + " bytes is not a power-of-two number of sets of " +
                     std::to_string(ways) + " ways x " + std::to_string(line_bytes) + " B");
  if (line_bytes > ChunkMask::kMaxChunks * ChunkMask::kChunkBytes)
    throw InputError("cache: line size " + std::to_string(line_bytes) + " is above 1024 B");
  if (sector_bytes != 0 && (!is_pow2(sector_bytes) || sector_bytes < ChunkMask::kChunkBytes || sector_bytes > line_bytes))
    throw InputError("cache: sector size " + std::to_string(sector_bytes) +
                     " is not 0 or a power of two from 32 to the line size " + std::to_string(line_bytes));
  line_shift_ = 0;
  while ((1u << line_shift_) < line_bytes) ++line_shift_;
  sets_ = static_cast<uint32_t>(size_bytes / set_bytes);
  ways_ = ways;
  const uint32_t sector = sector_bytes ? sector_bytes : line_bytes;
  sector_chunks_ = (sector + ChunkMask::kChunkBytes - 1) / ChunkMask::kChunkBytes;
  line_mask_ = ChunkMask::line(line_bytes);
  ways_store_.assign(size_t(sets_) * ways_, Way{});
}

CacheTags::Result CacheTags::access_found(uint32_t found, uint64_t addr, ChunkMask chunks, bool allocate,
                                          bool dirty) {
  Result r;
  const ChunkMask needed = sectors_of(chunks);
  ++clock_;
  if (found != kAbsent) {
    Way& way = ways_store_[found];
    way.last_use = clock_;
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
  // The victim: the first free way, else the least recently used; both are
  // the first way of least last_use (a free way's is 0). Searched only on a
  // miss: a hit needs just the tags.
  const uint64_t line = addr >> line_shift_;
  Way* set = &ways_store_[size_t(line & (sets_ - 1)) * ways_];
  Way* victim = &set[0];
  for (uint32_t w = 1; w < ways_; ++w)
    if (set[w].last_use < victim->last_use) victim = &set[w];
  if (victim->valid.any() && victim->dirty.any()) {
    r.evicted_dirty = true;
    r.victim_line = victim->tag << line_shift_;  // line-aligned byte address of the victim
    r.victim_dirty = victim->dirty;
  }
  r.entry = static_cast<uint32_t>(victim - ways_store_.data());
  r.allocated = true;
  // An access that needs no sector of the line leaves the way free.
  const bool holds = needed.any();
  victim->tag = holds ? line : kNoLine;
  victim->valid = needed;
  victim->dirty = dirty ? needed : ChunkMask();
  victim->last_use = holds ? clock_ : 0;
  return r;
}

bool CacheTags::hit_line_at(uint32_t entry, uint64_t addr) {
  Way& way = ways_store_[entry];
  if (way.tag != addr >> line_shift_ || line_mask_.minus(way.valid).any()) return false;
  way.last_use = ++clock_;  // as access(): a hit on the line, nothing missing
  return true;
}

void CacheTags::invalidate(uint64_t addr) {
  const uint32_t found = find(addr);
  if (found == kAbsent) return;
  // Dirty data is dropped: flushing it first is the owner's job.
  ways_store_[found] = Way{};  // free
}

}  // namespace smshare
