// Set-associative tag store with true LRU (a recency list per set).
// Set index = low bits of the line number; the tag kept is the whole line
// number, so a victim's address is recovered without storing the set.
#include "hw/common/cache_tags.hpp"

#include <string>

#include "hw/common/bit_words.hpp"
#include "hw/common/error.hpp"

namespace smshare {

CacheTags::CacheTags(uint32_t size_bytes, uint32_t line_bytes, uint32_t ways, uint32_t sector_bytes) {
  // A bad geometry is a configuration error, reported instead of indexing out of range.
  if (!is_power_of_two(line_bytes))
    throw InputError("cache: line size " + std::to_string(line_bytes) + " is not a power of two");
  if (ways == 0) throw InputError("cache: associativity must be at least 1");
  const uint64_t set_bytes = uint64_t(line_bytes) * ways;
  if (size_bytes == 0 || size_bytes % set_bytes != 0 || !is_power_of_two(size_bytes / set_bytes))
    throw InputError("cache: " + std::to_string(size_bytes) + " bytes is not a power-of-two number of sets of " +
                     std::to_string(ways) + " ways x " + std::to_string(line_bytes) + " B");
  if (line_bytes > ChunkMask::kMaxChunks * ChunkMask::kChunkBytes)
    throw InputError("cache: line size " + std::to_string(line_bytes) + " is above 1024 B");
  if (sector_bytes != 0 &&
      (!is_power_of_two(sector_bytes) || sector_bytes < ChunkMask::kChunkBytes || sector_bytes > line_bytes))
    throw InputError("cache: sector size " + std::to_string(sector_bytes) +
                     " is not 0 or a power of two from 32 to the line size " + std::to_string(line_bytes));
  line_shift_ = ceil_log2(line_bytes);
  sets_ = static_cast<uint32_t>(size_bytes / set_bytes);
  set_shift_ = ceil_log2(sets_);
  ways_ = ways;
  const uint32_t sector = sector_bytes ? sector_bytes : line_bytes;
  to_sectors_ = SectorRounding((sector + ChunkMask::kChunkBytes - 1) / ChunkMask::kChunkBytes);
  line_mask_ = ChunkMask::line(line_bytes);
  ways_store_.assign(size_t(sets_) * ways_, Way{});
  fingerprints_.assign(ways_store_.size() + kFingerprintGroup - 1, fingerprint(kNoLine));
  // Every way free: the list runs from the last way (newest) to way 0 (the
  // victim), the free ways' increasing order from its end.
  order_.resize(sets_);
  for (uint32_t s = 0; s < sets_; ++s) {
    const uint32_t first = s * ways_;
    for (uint32_t w = 0; w < ways_; ++w) {
      Way& way = ways_store_[first + w];
      way.older = w == 0 ? kNil : first + w - 1;
      way.newer = w + 1 == ways_ ? kNil : first + w + 1;
    }
    order_[s] = {first + ways_ - 1, first};
  }
}

void CacheTags::unlink(uint32_t entry, SetOrder& order) {
  Way& way = ways_store_[entry];
  if (way.newer == kNil) order.newest = way.older; else ways_store_[way.newer].older = way.older;
  if (way.older == kNil) order.oldest = way.newer; else ways_store_[way.older].newer = way.newer;
}

void CacheTags::move_to_front(uint32_t entry, SetOrder& order) {
  unlink(entry, order);
  Way& way = ways_store_[entry];
  way.newer = kNil;
  way.older = order.newest;
  ways_store_[order.newest].newer = entry;  // the list is not empty: `entry` was in it
  order.newest = entry;
}

CacheTags::Result CacheTags::access_found(uint32_t found, uint64_t addr, ChunkMask needed, bool allocate,
                                          bool dirty) {
  return access_found_inline(found, addr, needed, allocate, dirty);
}

#if defined(__SSE2__)
uint32_t CacheTags::find_by_fingerprint(uint64_t line, size_t first) const { return search_fingerprints(line, first); }
#endif

bool CacheTags::hit_line_at(uint32_t entry, uint64_t addr) {
  Way& way = ways_store_[entry];
  const uint64_t line = addr >> line_shift_;
  if (way.tag != line || line_mask_.minus(way.valid).any()) return false;
  make_newest(entry, order_[line & (sets_ - 1)]);  // as access(): a hit on the line, nothing missing
  return true;
}

void CacheTags::invalidate(uint64_t addr) {
  const uint32_t found = find(addr);
  if (found == kAbsent) return;
  // Dirty data is dropped: flushing it first is the owner's job.
  Way& way = ways_store_[found];
  set_tag(found, kNoLine);
  way.valid = ChunkMask();
  way.dirty = ChunkMask();
  // Free now: it joins the free ways at the list's end, keeping them in
  // increasing way order from the end (the first free way is the victim).
  SetOrder& order = order_[(addr >> line_shift_) & (sets_ - 1)];
  unlink(found, order);
  uint32_t newer = order.oldest;  // the way that will come just before it
  uint32_t older = kNil;
  while (newer != kNil && !ways_store_[newer].valid.any() && newer < found) {
    older = newer;
    newer = ways_store_[newer].newer;
  }
  way.newer = newer;
  way.older = older;
  if (newer == kNil) order.newest = found; else ways_store_[newer].older = found;
  if (older == kNil) order.oldest = found; else ways_store_[older].newer = found;
}

}  // namespace smshare
