// The SM's L1 data cache for global accesses (Fermi's L1D): LRU tags and
// the table of fills in flight (what an MSHR merges).
//
// Rules (a "sector" is the whole line when l1.sector_bytes = 0):
//  * A load needs the sectors its lanes touch (the coalescer's chunk mask,
//    widened to sectors). If the line is in the tags with all of them valid
//    it is a hit, ready at cycle + l1.hit_latency; if some of those sectors
//    are still being filled (allocated by an earlier miss whose data has not
//    returned) the data comes with the last of those fills instead: a
//    pending hit, ready when the fill is.
//  * Otherwise it is a miss: a tag miss allocates the line at once (LRU
//    victim) with only the needed sectors; a sector miss (tag present, some
//    needed sectors not) adds the missing sectors to the line. The caller
//    sends one request below for the missing sectors and reports its return
//    with fill_in_flight(), which later loads of those sectors wait for.
//    Hits and misses count line lookups; sector_misses counts the misses
//    whose line was present (GPGPU-Sim's SECTOR_MISS, gpu-cache.cc
//    tag_array::probe).
//  * Each miss holds one of l1.mshr_entries MSHRs (0: unlimited) until its
//    fill returns; pending hits merge without one. A load that would miss
//    when all are held is not accepted: accept_cycle() says from which
//    cycle it can be (GPGPU-Sim's MSHR_FULL reservation failure, on which
//    ldst_unit::memory_cycle keeps the instruction and retries next cycle).
//  * Under dram.scheduler: frfcfs the memory system may decide a miss's
//    return later: fill_requested() records the sectors as being filled by
//    read `fill` (holding an MSHR until fill_decided()), and a load needing
//    them names that read in its lookup (`undecided`) instead of a cycle.
//  * Stores are write-evict: the line is invalidated and its pending fills
//    forgotten; the store itself goes to L2 (the L1 counts nothing).
//  * Each kernel starts cold (flush(), as GPGPU-Sim flushes L1 at launch).
//  * With l1.size_bytes = 0 there is no L1: every load misses without being
//    counted, needs all it touches from below, and nothing is remembered.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "hw/common/activity.hpp"
#include "hw/common/cache_tags.hpp"
#include "hw/common/chunk_mask.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/slot_pool.hpp"
#include "hw/sm/sector_map.hpp"

namespace smshare {

class L1DataCache {
 public:
  struct Lookup {
    bool hit;
    // The cycle the needed sectors already in the L1 are available (valid:
    // the hit latency; in flight: their fill); 0 on a miss that has none.
    uint64_t ready;
    ChunkMask missing;  // miss: the sectors to request below
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

  // The first cycle from `cycle` on in which a load of the `chunks` of
  // `line` can be accepted: `cycle`, unless it would miss and every MSHR is
  // held, then when the first held one is released.
  uint64_t accept_cycle(uint64_t line, ChunkMask chunks, uint64_t cycle);
  // A load of the `chunks` of `line` (aligned line address) in `cycle`, an
  // accepted one (accept_cycle(line, chunks, cycle) == cycle; it may be
  // SlotPool::kUndecided under FR-FCFS: wait for a fill_decided()). The
  // reads whose undecided fills it waits for are appended to `undecided`
  // (none without FR-FCFS).
  Lookup load(uint64_t line, ChunkMask chunks, uint64_t cycle, std::vector<uint32_t>* undecided = nullptr);
  Lookup load(uint64_t line, uint64_t cycle) { return load(line, ChunkMask::line(spec_.line_bytes), cycle); }
  // accept_cycle() and, if that is `cycle`, load() into `lookup`, with one
  // search of the tags for both (the LDST unit asks them one after the
  // other, and the tags do not change in between). Returns the accept
  // cycle: above `cycle`, nothing happened.
  uint64_t load_if_accepted(uint64_t line, ChunkMask chunks, uint64_t cycle, Lookup& lookup,
                            std::vector<uint32_t>* undecided);
  // The fill of the `sectors` of a line that missed in `cycle` returns in `ready`.
  void fill_in_flight(uint64_t line, ChunkMask sectors, uint64_t ready, uint64_t cycle);
  void fill_in_flight(uint64_t line, uint64_t ready, uint64_t cycle) {
    fill_in_flight(line, ChunkMask::line(spec_.line_bytes), ready, cycle);
  }
  // dram.scheduler: frfcfs. The `sectors` of `line` that missed are being
  // filled by read `fill`, whose return is decided later (it holds an MSHR).
  void fill_requested(uint64_t line, ChunkMask sectors, uint32_t fill);
  // Read `fill` of those sectors returns in `ready`; `cycle` is the current
  // cycle (or an earlier one: the SM's last).
  void fill_decided(uint64_t line, ChunkMask sectors, uint32_t fill, uint64_t ready, uint64_t cycle);
  // A store to `line` (write-evict).
  void store(uint64_t line);

  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t sector_misses() const { return sector_misses_; }  // misses whose line was present
  uint64_t fills() const { return fills_; }
  uint64_t pending_hits() const { return pending_hits_; }  // hits whose data waited for a fill in flight
  // Cleared each cycle only in an SM a waveform traces (SmCore::set_probes_traced);
  // elsewhere they accumulate and are read by nobody.
  const Probes& probes() const { return probes_; }
  // Adds tag/data array accesses under the CACTI cfg name "l1d".
  void collect(ActivityCounters& out) const;

 private:
  // Entries whose data has arrived by `cycle` are dropped now and then, before
  // a fill's entry is added: the table only needs the fills in flight (a few
  // hundred with the shipped MSHR counts). (Under FR-FCFS nothing else
  // dropped the entries of lines not loaded again: the tables grew all kernel
  // long.) The next prune waits until the table holds the larger of
  // kPruneFillsAt entries and twice what a prune kept, so that with
  // unlimited MSHRs and thousands of fills really in flight a fill does not
  // rebuild the whole table each time. An arrived fill's entry reads as no
  // entry (load_found), and every later lookup is at `cycle` or after, so
  // when a prune comes changes no answer. It comes often: a table let grow
  // to 4,096 entries before a prune (128 KB with its values, in each SM)
  // was probed at random lines the other SMs' ticks had evicted, about 4 %
  // of the bench trace's time (docs/performance.md, "Seventeenth round").
  void forget_arrived_fills(uint64_t cycle) {
    if (fill_ready_.size() < prune_fills_at_) return;
    fill_ready_.erase_if([cycle](uint64_t ready) { return ready <= cycle; });
    prune_fills_at_ = std::max(kPruneFillsAt, 2 * fill_ready_.size());
  }
  static constexpr size_t kPruneFillsAt = 64;
  // accept_cycle() with limited MSHRs and load() of the line the tags hold
  // in entry `found` (CacheTags::find), with tags_ present, for the `needed`
  // sectors (CacheTags::sectors_of: rounded once for both).
  uint64_t accept_found(uint32_t found, ChunkMask needed, uint64_t cycle);
  Lookup load_found(uint32_t found, uint64_t line, ChunkMask needed, uint64_t cycle, std::vector<uint32_t>* undecided);
  // Fills in flight are kept per sector, keyed by the sector's address.
  uint64_t sector_bytes() const { return spec_.sector_bytes ? spec_.sector_bytes : spec_.line_bytes; }

  const CacheSpec spec_;
  // The first chunk of every sector: for_each_sector visits the set bits of
  // a mask and'ed with it.
  const ChunkMask sector_starts_;
  // visit(sector address) for each sector of `line` that `sectors` starts.
  template <class Visit>
  void for_each_sector(uint64_t line, ChunkMask sectors, Visit&& visit) const {
    (sectors & sector_starts_).for_each_chunk([&](uint32_t c) { visit(line + uint64_t(c) * ChunkMask::kChunkBytes); });
  }
  std::unique_ptr<CacheTags> tags_;
  SlotPool mshrs_;
  SectorMap<uint64_t> fill_ready_;  // sector address -> cycle its in-flight fill returns
  size_t prune_fills_at_ = kPruneFillsAt;  // forget_arrived_fills()' threshold
  SectorMap<uint32_t> undecided_;   // FR-FCFS: sector address -> read whose return is undecided
  uint64_t hits_ = 0, misses_ = 0, sector_misses_ = 0, fills_ = 0, pending_hits_ = 0;
  Probes probes_;
};

}  // namespace smshare
