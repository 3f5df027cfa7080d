// One L2 partition's slice: tags (write-back, write-allocate, LRU), a data
// port booked by next-free-time reservation, and the DRAM channel behind it.
// Works on channel-local addresses (DramAddressMap::local), so the slice's
// sets are all used whatever the channel interleaving. Picoseconds.
//
// Sectored when l2.sector_bytes > 0 (GPGPU-Sim 4's sector L2: gpu-cache.h
// sector_cache_block; l2cache.cc breaks each request into sector requests):
// an access needs the sectors its chunks touch, and a "sector" below is the
// whole line when the L2 is not sectored.
//
//   port slot   the access holds the data port for (needed sectors' bytes) /
//               bytes_per_cycle cycles from max(arrival, port free) = start
//   read hit    the line is present with every needed sector valid: response
//               ready at start + hit_latency
//   read miss   tag miss (allocates the line) or sector miss (the line lacks
//               some needed sectors): known at start + hit_latency, then one
//               DRAM read of the missing sectors only; the response leaves
//               when DRAM returns them (the fill and the forward to the
//               interconnect overlap)
//   write       ack ready at start + hit_latency; the written sectors become
//               valid and dirty without reading DRAM (lines keep per-byte
//               valid bits, as in Fermi's L2)
//   dirty victim  its dirty sectors are written to DRAM after the access that
//               evicted it: it books the bank and bus but the requester does
//               not wait for it
//
// A read whose needed sectors include some still being filled waits for
// those fills (MSHR merge): each tag entry keeps its sectors' fill times, so
// two lines in flight never share a record, and a line allocated over a
// victim starts with none.
//
// Under dram.scheduler: frfcfs the channel decides a miss's data time later
// (dram_channel.hpp): a read miss is queued under a fill id the owner
// chooses (access_queued), its sectors' fill is "undecided" until
// fill_returned(), and a read needing sectors whose fill is undecided
// returns the fill ids it waits for besides the time known now. A read
// miss holds its MSHR until its fill is decided and back; one that finds every MSHR held while none of their releases
// is decided yet is held at the slice's input with everything that arrives
// behind it (access_queued answers kHeld) until a fill_returned() lets it
// go: drain_input() books them then, in order, as a stalled input would.
//
// MSHRs (l2.mshr_entries, 0: unlimited): each read miss holds one from its
// lookup until DRAM returns its sectors. A read miss that finds all of them
// held stays at the head of the slice's input until the first is released
// (GPGPU-Sim's L2 data_cache::access returns RESERVATION_FAIL on MSHR_FULL
// and memory_sub_partition::cache_cycle leaves the request in its
// icnt_L2 queue): its port slot starts then, so the requests behind it wait
// too. Writes never read DRAM and take none. A read miss likewise waits there
// until the DRAM channel's queue (dram.queue_depth) will have room when the
// miss reaches it (GPGPU-Sim: the L2-to-DRAM queue fills behind a full DRAM
// queue, memory_partition_unit::dram_cycle checks dram_t::full, and the L2
// then fails its misses). Dirty write-backs wait at the channel's door
// instead, as before never delaying the requester.
#pragma once

#include <cstdint>
#include <vector>

#include "hw/common/cache_tags.hpp"
#include "hw/common/fifo_ring.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/slot_pool.hpp"
#include "hw/mem/dram_channel.hpp"
#include "hw/mem/port_reservation.hpp"

namespace smshare {

struct L2Counters {
  uint64_t read_hits = 0;
  uint64_t read_misses = 0;
  uint64_t write_hits = 0;
  uint64_t write_misses = 0;
  uint64_t writebacks = 0;       // dirty victims written to DRAM
  uint64_t pending_hits = 0;     // read hits that waited for an in-flight fill
  uint64_t sector_misses = 0;    // misses (read or write) whose line was present but lacked sectors
  uint64_t miss_stall_ps = 0;    // time read misses waited at the head of the input (MSHR or DRAM queue full)
};

class L2Slice {
 public:
  // One of `partitions` slices of `spec` (l2.size_bytes is the whole GPU's).
  // `dram` is this partition's channel; it must outlive the slice.
  L2Slice(const L2Spec& spec, uint32_t partitions, uint64_t core_period_ps, DramChannelTiming& dram);

  // Books a read or write of the `chunks` of the line holding channel-local
  // `local_addr`, arriving at `t_ps`; returns when the response (data or
  // ack) can leave.
  uint64_t access(uint64_t t_ps, uint64_t local_addr, ChunkMask chunks, bool is_write);
  // The same for the whole line.
  uint64_t access(uint64_t t_ps, uint64_t local_addr, bool is_write) {
    return access(t_ps, local_addr, tags_.line_mask(), is_write);
  }

  // dram.scheduler: frfcfs. As access(), but a read miss is queued in the
  // channel under the owner's id `new_fill` (its sectors' fill undecided
  // until fill_returned(new_fill, ...)). Returns the time known now; the
  // response also waits for every fill appended to `waits`: other undecided
  // fills of sectors it needs, then `new_fill` when it missed (last, so the
  // owner sees whether its id was taken from waits.back()).
  // kHeld: held at the input (see above) under the owner's `response` id,
  // booked later by drain_input().
  // Inline: a call of its own, to make the call of book(), cost about 30
  // host instructions an access.
  uint64_t access_queued(uint64_t t_ps, uint64_t local_addr, ChunkMask chunks, bool is_write, uint32_t new_fill,
                         std::vector<uint32_t>& waits, uint32_t response) {
    // Behind a held miss everything waits (the input is a queue).
    const uint64_t ready = input_.empty() ? book(t_ps, local_addr, chunks, is_write, new_fill, &waits) : kHeld;
    if (ready == kHeld) input_.push_back({t_ps, local_addr, chunks, is_write, new_fill, response});
    return ready;
  }
  // The channel served fill `fill`: its sectors are back at `done_ps` (and its MSHR free then).
  void fill_returned(uint32_t fill, uint64_t done_ps);
  // An access held at the input, now booked: as access_queued()'s answer.
  struct Drained {
    uint32_t response;
    uint32_t new_fill;
    uint64_t ready_ps;
    std::vector<uint32_t> waits;
  };
  // Books, in arrival order, the accesses held at the input that can go
  // now (after a fill_returned()), appending them to `out`.
  void drain_input(std::vector<Drained>& out);
  static constexpr uint32_t kNoFill = ~0u;  // a write-back's token: nobody waits for it
  static constexpr uint64_t kHeld = ~0ull;

  const L2Counters& counters() const { return counters_; }
  const CacheTags& tags() const { return tags_; }
  uint64_t hit_latency_ps() const { return hit_latency_ps_; }
  uint64_t port_busy_ps() const { return port_.busy_ps(); }
  // Whether a read miss can stall the input (l2.mshr_entries or dram.queue_depth
  // set; under FR-FCFS a full DRAM queue holds its requests at its own door).
  bool miss_can_stall() const { return mshrs_.limited() || dram_.queue_limited(); }

 private:
  struct SectorFill {
    uint64_t ready_ps = 0;     // when the fill is back (0: none recorded)
    uint32_t fill = kNoFill;   // FR-FCFS: the undecided fill's id (then ready_ps is unknown)
  };
  // Books an access, or answers kHeld (nothing booked) when it is a read
  // miss under FR-FCFS that finds every MSHR held with no release decided.
  uint64_t book(uint64_t t_ps, uint64_t local_addr, ChunkMask chunks, bool is_write, uint32_t new_fill,
                std::vector<uint32_t>* waits);
  struct Held {
    uint64_t t_ps;
    uint64_t local_addr;
    ChunkMask chunks;
    bool is_write;
    uint32_t new_fill;
    uint32_t response;
  };
  FifoRing<Held> input_;  // FR-FCFS: held at the input behind a miss waiting for an MSHR
  // The latest fill still due after `after_ps` among `sectors` of the line
  // in tag entry `entry`, or 0; undecided fills among them go to `waits`.
  uint64_t pending_fill(uint32_t entry, ChunkMask sectors, uint64_t after_ps, std::vector<uint32_t>* waits) const;
  // Sets the fill of `sectors` of tag entry `entry` ({0, kNoFill}: none pending).
  void record_fill(uint32_t entry, ChunkMask sectors, SectorFill fill);

  CacheTags tags_;
  DramChannelTiming& dram_;
  PortReservation port_;
  SlotPool mshrs_;
  // The first chunk of every sector (the line's when not sectored), and
  // log2 of the chunks per sector: for_each_sector visits the set bits of a
  // mask and'ed with it (stepping through every sector of the line and
  // testing its first chunk cost about as much as the fill records' use).
  ChunkMask sector_starts_;
  uint32_t sector_shift_;
  uint32_t sectors_per_line_;
  uint32_t line_bytes_;
  // The bytes of `sectors`, whole sectors: when the line is one sector
  // (l2.sector_bytes 0), the line's or none, without counting bits (a
  // software count, about 12 host instructions, at each port booking and
  // each DRAM request).
  uint32_t bytes_of(ChunkMask sectors) const {
    return sectors_per_line_ == 1 ? (sectors.any() ? line_bytes_ : 0) : sectors.bytes();
  }
  // visit(sector index) for each sector `sectors` starts, in increasing
  // order (a line of one sector: its only one, without the bit loop).
  template <class Visit>
  void for_each_sector(ChunkMask sectors, Visit&& visit) const {
    if (sectors_per_line_ == 1) {
      if (sectors.any()) visit(0);
      return;
    }
    (sectors & sector_starts_).for_each_chunk([&](uint32_t c) { visit(c >> sector_shift_); });
  }
  uint64_t hit_latency_ps_;
  // Each sector's fill, per tag entry: fills_[entry * sectors_per_line_ + sector].
  std::vector<SectorFill> fills_;
  // FR-FCFS: where each undecided fill goes (tag entry and sectors), by fill id.
  struct FillSite {
    uint32_t entry;
    ChunkMask sectors;
  };
  std::vector<FillSite> fill_sites_;
  L2Counters counters_;
};

}  // namespace smshare
