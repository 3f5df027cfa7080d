// One of Zorua's mapping tables (Sec. 4.5): for each owner (a logical warp,
// a logical CTA) and each of its logical sets, where the set lives — not
// held, in one of the physical sets, or in the swap space in global memory —
// and the two counters the coordinator decides from: physical sets free and
// sets mapped to swap (Sec. 4.5, "two registers per resource").
//
// The register table maps sets of 4 warp registers (Sec. 4.5.1) per logical
// warp, the scratchpad table 1 KB sets per logical CTA, the warp-slot table
// one entry per logical warp (its physical warp slot). Physical sets are
// handed out lowest first, so a run is deterministic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

namespace smshare::zorua {

class MappingTable {
 public:
  static constexpr uint32_t kNotHeld = ~0u;
  static constexpr uint32_t kSwap = ~0u - 1;

  // `owners` x `sets_per_owner` entries over `physical_sets` physical sets;
  // at most `swap_sets` entries in swap at once.
  MappingTable(uint32_t owners, uint32_t sets_per_owner, uint32_t physical_sets, uint32_t swap_sets);

  uint32_t owners() const { return owners_; }
  uint32_t sets_per_owner() const { return sets_per_owner_; }
  uint32_t physical_sets() const { return physical_sets_; }
  uint32_t free_sets() const { return static_cast<uint32_t>(free_.size()); }
  uint32_t swapped_sets() const { return swapped_; }
  uint32_t swap_capacity() const { return swap_sets_; }
  uint32_t physical_in_use() const { return physical_sets_ - free_sets(); }

  // The entry (a physical set, kSwap or kNotHeld), without counting an access.
  uint32_t entry(uint32_t owner, uint32_t set) const { return map_[index(owner, set)]; }
  bool held(uint32_t owner, uint32_t set) const { return entry(owner, set) != kNotHeld; }
  bool in_swap(uint32_t owner, uint32_t set) const { return entry(owner, set) == kSwap; }
  // A lookup by the compute units or the coordinator: counted (its energy,
  // and the access penalty the route adds).
  uint32_t lookup(uint32_t owner, uint32_t set) {
    ++lookups_;
    return entry(owner, set);
  }

  // Maps a set that is not held to the lowest free physical set (false: none
  // free) or to swap (false: the swap space is full). Counted as updates.
  bool map_physical(uint32_t owner, uint32_t set);
  bool map_swap(uint32_t owner, uint32_t set);
  // Frees the set wherever it is (nothing if not held).
  void unmap(uint32_t owner, uint32_t set);

  uint64_t lookups() const { return lookups_; }
  uint64_t updates() const { return updates_; }
  uint64_t swap_mappings() const { return swap_mappings_; }  // sets ever mapped to swap

 private:
  size_t index(uint32_t owner, uint32_t set) const;

  uint32_t owners_, sets_per_owner_, physical_sets_, swap_sets_;
  std::vector<uint32_t> map_;
  std::set<uint32_t> free_;  // physical sets, lowest handed out first
  uint32_t swapped_ = 0;
  uint64_t lookups_ = 0, updates_ = 0, swap_mappings_ = 0;
};

}  // namespace smshare::zorua
