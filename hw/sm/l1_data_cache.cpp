#include "hw/sm/l1_data_cache.hpp"

#include <iterator>

namespace smshare {

L1DataCache::L1DataCache(const CacheSpec& spec) : spec_(spec) { flush(); }

void L1DataCache::flush() {
  if (spec_.size_bytes) tags_ = std::make_unique<CacheTags>(spec_.size_bytes, spec_.line_bytes, spec_.ways);
  fill_ready_.clear();
}

L1DataCache::Lookup L1DataCache::load(uint64_t line, uint64_t cycle) {
  if (!tags_) return {false, 0};
  if (!tags_->access(line, /*allocate=*/true).hit) {
    ++misses_;
    ++fills_;
    ++probes_.misses_this_cycle;
    return {false, 0};
  }
  ++hits_;
  ++probes_.hits_this_cycle;
  uint64_t ready = cycle + spec_.hit_latency;
  auto pending = fill_ready_.find(line);
  if (pending != fill_ready_.end()) {
    if (pending->second > ready) {
      ready = pending->second;
      ++pending_hits_;
    } else {
      fill_ready_.erase(pending);  // the fill has long arrived
    }
  }
  return {true, ready};
}

void L1DataCache::fill_in_flight(uint64_t line, uint64_t ready, uint64_t cycle) {
  if (!tags_) return;
  // Entries whose data has arrived are dropped now and then: the table only
  // needs the fills in flight (at most a few hundred).
  if (fill_ready_.size() >= 4096)
    for (auto it = fill_ready_.begin(); it != fill_ready_.end();)
      it = it->second <= cycle ? fill_ready_.erase(it) : std::next(it);
  fill_ready_[line] = ready;
}

void L1DataCache::store(uint64_t line) {
  if (!tags_) return;
  tags_->invalidate(line);
  fill_ready_.erase(line);
}

void L1DataCache::collect(ActivityCounters& out) const {
  auto& l1 = out["l1d"];
  l1.reads += hits_ + misses_;
  l1.writes += fills_;
  l1.instances = 1;
}

}  // namespace smshare
