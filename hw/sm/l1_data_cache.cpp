#include "hw/sm/l1_data_cache.hpp"

#include <algorithm>

namespace smshare {

L1DataCache::L1DataCache(const CacheSpec& spec)
    : spec_(spec),
      sector_starts_(ChunkMask::sector_starts(static_cast<uint32_t>(sector_bytes() / ChunkMask::kChunkBytes))) {
  flush();
}

void L1DataCache::flush() {
  if (spec_.size_bytes)
    tags_ = std::make_unique<CacheTags>(spec_.size_bytes, spec_.line_bytes, spec_.ways, spec_.sector_bytes);
  fill_ready_.clear();
  prune_fills_at_ = kPruneFillsAt;
  undecided_.clear();
  mshrs_ = SlotPool(spec_.mshr_entries);
}

uint64_t L1DataCache::accept_cycle(uint64_t line, ChunkMask chunks, uint64_t cycle) {
  if (!tags_ || !mshrs_.limited()) return cycle;
  return accept_found(tags_->find(line), tags_->sectors_of(chunks), cycle);
}

uint64_t L1DataCache::accept_found(uint32_t found, ChunkMask needed, uint64_t cycle) {
  return tags_->missing_at(found, needed).any() ? mshrs_.free_at(cycle) : cycle;
}

L1DataCache::Lookup L1DataCache::load(uint64_t line, ChunkMask chunks, uint64_t cycle,
                                      std::vector<uint32_t>* undecided) {
  if (!tags_) return {false, 0, chunks};
  return load_found(tags_->find(line), line, tags_->sectors_of(chunks), cycle, undecided);
}

uint64_t L1DataCache::load_if_accepted(uint64_t line, ChunkMask chunks, uint64_t cycle, Lookup& lookup,
                                       std::vector<uint32_t>* undecided) {
  if (!tags_) {
    lookup = {false, 0, chunks};
    return cycle;
  }
  const uint32_t found = tags_->find(line);
  const ChunkMask needed = tags_->sectors_of(chunks);
  if (mshrs_.limited()) {
    const uint64_t accept = accept_found(found, needed, cycle);
    if (accept > cycle) return accept;
  }
  lookup = load_found(found, line, needed, cycle, undecided);
  return cycle;
}

L1DataCache::Lookup L1DataCache::load_found(uint32_t found, uint64_t line, ChunkMask needed, uint64_t cycle,
                                            std::vector<uint32_t>* undecided) {
  // Compiled in (as the L2 slice's booking): SmCore::ldst_step's lookup, out of SmCore::tick.
  const CacheTags::Result r = tags_->access_found_inline(found, line, needed, /*allocate=*/true, /*dirty=*/false);
  const ChunkMask present = needed.minus(r.missing);
  // The sectors already here: at the hit latency, or with their fill if it
  // is still on its way.
  uint64_t ready = present.any() ? cycle + spec_.hit_latency : 0;
  bool waited = false;
  for_each_sector(line, present, [&](uint64_t sector) {
    if (!undecided_.empty()) {
      if (const uint32_t* u = undecided_.find(sector)) {
        if (undecided) undecided->push_back(*u);
        waited = true;
        return;
      }
    }
    uint64_t* pending = fill_ready_.find(sector);
    if (!pending) return;
    if (*pending > cycle + spec_.hit_latency) {
      ready = std::max(ready, *pending);
      waited = true;
    } else {
      fill_ready_.erase_found(pending);  // the fill has long arrived
    }
  });
  if (r.hit) {
    ++hits_;
    ++probes_.hits_this_cycle;
    if (waited) ++pending_hits_;
    return {true, ready, ChunkMask()};
  }
  ++misses_;
  ++fills_;
  if (r.sector_miss) ++sector_misses_;
  ++probes_.misses_this_cycle;
  return {false, ready, r.missing};
}

void L1DataCache::fill_in_flight(uint64_t line, ChunkMask sectors, uint64_t ready, uint64_t cycle) {
  if (!tags_) return;
  forget_arrived_fills(cycle);
  for_each_sector(line, sectors, [&](uint64_t sector) { fill_ready_.set(sector, ready); });
  mshrs_.hold(cycle, ready);
}

void L1DataCache::fill_requested(uint64_t line, ChunkMask sectors, uint32_t fill) {
  if (!tags_) return;
  for_each_sector(line, sectors, [&](uint64_t sector) {
    fill_ready_.erase(sector);
    undecided_.set(sector, fill);
  });
  mshrs_.hold_undecided();
}

void L1DataCache::fill_decided(uint64_t line, ChunkMask sectors, uint32_t fill, uint64_t ready, uint64_t cycle) {
  if (!tags_) return;
  forget_arrived_fills(cycle);
  for_each_sector(line, sectors, [&](uint64_t sector) {
    // A store since evicted the line, or a later miss refetches it: the entry is no longer this read's.
    uint32_t* u = undecided_.find(sector);
    if (!u || *u != fill) return;
    undecided_.erase_found(u);
    fill_ready_.set(sector, ready);
  });
  mshrs_.decide(ready);
}

void L1DataCache::store(uint64_t line) {
  if (!tags_) return;
  tags_->invalidate(line);
  for (uint64_t s = 0; s < spec_.line_bytes; s += sector_bytes()) {
    fill_ready_.erase(line + s);
    if (!undecided_.empty()) undecided_.erase(line + s);
  }
}

void L1DataCache::collect(ActivityCounters& out) const {
  auto& l1 = out["l1d"];
  l1.reads += hits_ + misses_;
  l1.writes += fills_;
  l1.instances = 1;
}

}  // namespace smshare
