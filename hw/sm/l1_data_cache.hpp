// The SM's L1 data cache for global accesses (Fermi's L1D): LRU tags and
// the table of fills in flight (what an MSHR merges).
//
// Rules:
//  * A load of a line in the tags is a hit, ready at cycle + l1.hit_latency;
//    if the line's fill is still in flight (it was allocated by a miss whose
//    data has not returned) the data comes with the fill instead: a pending
//    hit, ready when the fill is.
//  * A load that misses allocates the line at once (LRU victim); the caller
//    sends the line request below and reports its return with
//    fill_in_flight(), which later loads of the line wait for.
//  * Stores are write-evict: the line is invalidated and its pending fill
//    forgotten; the store itself goes to L2 (the L1 counts nothing).
//  * Each kernel starts cold (flush(), as GPGPU-Sim flushes L1 at launch).
//  * With l1.size_bytes = 0 there is no L1: every load misses without being
//    counted, and nothing is remembered.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "hw/common/activity.hpp"
#include "hw/common/cache_tags.hpp"
#include "hw/common/gpu_config.hpp"

namespace smshare {

class L1DataCache {
 public:
  struct Lookup {
    bool hit;
    uint64_t ready;  // hit: the cycle the data is back; miss: unused
  };
  // This cycle's activity, for waveforms (plain stores).
  struct Probes {
    uint32_t hits_this_cycle = 0;
    uint32_t misses_this_cycle = 0;
  };

  explicit L1DataCache(const CacheSpec& spec);

  bool present() const { return tags_ != nullptr; }
  void begin_cycle() { probes_ = {}; }
  void flush();

  // A load of `line` (aligned line address) in `cycle`.
  Lookup load(uint64_t line, uint64_t cycle);
  // The fill of a line that missed in `cycle` returns in `ready`.
  void fill_in_flight(uint64_t line, uint64_t ready, uint64_t cycle);
  // A store to `line` (write-evict).
  void store(uint64_t line);

  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t fills() const { return fills_; }
  uint64_t pending_hits() const { return pending_hits_; }  // hits whose data waited for a fill in flight
  const Probes& probes() const { return probes_; }
  // Adds tag/data array accesses under the CACTI cfg name "l1d".
  void collect(ActivityCounters& out) const;

 private:
  const CacheSpec spec_;
  std::unique_ptr<CacheTags> tags_;
  std::unordered_map<uint64_t, uint64_t> fill_ready_;  // line -> cycle its in-flight fill returns
  uint64_t hits_ = 0, misses_ = 0, fills_ = 0, pending_hits_ = 0;
  Probes probes_;
};

}  // namespace smshare
