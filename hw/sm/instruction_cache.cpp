#include "hw/sm/instruction_cache.hpp"

#include <iterator>

namespace smshare {

InstructionCache::InstructionCache(const CacheSpec& spec) : spec_(spec) { flush(); }

void InstructionCache::flush() {
  if (spec_.size_bytes) tags_ = std::make_unique<CacheTags>(spec_.size_bytes, spec_.line_bytes, spec_.ways);
  fill_ready_.clear();
  undecided_.clear();
  last_hit_line_ = kNoLine;
}

InstructionCache::Lookup InstructionCache::fetch(uint64_t addr, uint64_t cycle) {
  const uint64_t line = line_of(addr);
  // The line of the last Hit, no fill of it recorded since: no fill can be
  // in flight, so a tag hit is a Hit (what the lookup below would find).
  if (line == last_hit_line_ && tags_->hit_line_at(last_hit_entry_, line)) {
    ++hits_;
    ++probes_.hits_this_cycle;
    return {Outcome::Hit, 0};
  }
  return fetch_searched(line, cycle);
}

InstructionCache::Lookup InstructionCache::fetch_searched(uint64_t line, uint64_t cycle) {
  // The whole line is needed (sectors_of() of it is itself).
  const CacheTags::Result tag =
      tags_->access_found_inline(tags_->find(line), line, tags_->line_mask(), /*allocate=*/true, /*dirty=*/false);
  if (!tag.hit) {
    ++misses_;
    ++fills_;
    ++probes_.misses_this_cycle;
    return {Outcome::Miss, 0};
  }
  if (!undecided_.empty()) {
    auto u = undecided_.find(line);
    if (u != undecided_.end()) {
      ++pending_hits_;  // merged with a read whose return is not decided yet
      return {Outcome::PendingHit, 0, u->second};
    }
  }
  auto pending = fill_ready_.find(line);
  if (pending != fill_ready_.end()) {
    if (pending->second > cycle) {
      // A hit on a reserved line (GPGPU-Sim HIT_RESERVED): the MSHR merges it.
      ++pending_hits_;
      return {Outcome::PendingHit, pending->second};
    }
    fill_ready_.erase(pending);  // the fill has arrived
  }
  last_hit_line_ = line;
  last_hit_entry_ = tag.entry;
  ++hits_;
  ++probes_.hits_this_cycle;
  return {Outcome::Hit, 0};
}

void InstructionCache::fill_in_flight(uint64_t line, uint64_t ready, uint64_t cycle) {
  last_hit_line_ = kNoLine;
  // Entries whose data has arrived are dropped now and then: the table only
  // needs the fills in flight (at most one per warp).
  if (fill_ready_.size() >= 1024)
    for (auto it = fill_ready_.begin(); it != fill_ready_.end();)
      it = it->second <= cycle ? fill_ready_.erase(it) : std::next(it);
  fill_ready_[line] = ready;
}

}  // namespace smshare

namespace smshare {

void InstructionCache::fill_decided(uint64_t line, uint32_t fill, uint64_t ready, uint64_t cycle) {
  auto u = undecided_.find(line);
  if (u == undecided_.end() || u->second != fill) return;
  undecided_.erase(u);
  fill_in_flight(line, ready, cycle);
}

}  // namespace smshare
