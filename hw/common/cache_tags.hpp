// Set-associative tag store with LRU replacement: the L1 data cache, the L2
// slices (and later the operand cache) are this plus their own timing.
#pragma once

#include <cstdint>
#include <vector>

namespace smshare {

class CacheTags {
 public:
  // size_bytes / (line_bytes * ways) sets, must be a power of two.
  CacheTags(uint32_t size_bytes, uint32_t line_bytes, uint32_t ways);

  struct Result {
    bool hit = false;
    bool evicted_dirty = false;    // a dirty victim was replaced (write-back traffic)
    uint64_t victim_line = 0;      // its line address, valid when evicted_dirty
  };
  // Looks up `addr`; on a miss with `allocate`, the LRU way is replaced.
  // `dirty` marks the (hit or allocated) line dirty.
  Result access(uint64_t addr, bool allocate, bool dirty = false);
  bool probe(uint64_t addr) const;      // hit test without touching LRU
  void invalidate(uint64_t addr);

  uint64_t line_of(uint64_t addr) const { return addr >> line_shift_; }
  uint32_t sets() const { return sets_; }

 private:
  struct Way {
    uint64_t tag = 0;
    uint64_t last_use = 0;
    bool valid = false;
    bool dirty = false;
  };
  uint32_t line_shift_ = 7;
  uint32_t sets_ = 1;
  uint32_t ways_ = 1;
  uint64_t clock_ = 0;
  std::vector<Way> ways_store_;
};

}  // namespace smshare
