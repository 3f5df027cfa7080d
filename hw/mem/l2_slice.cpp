#include "hw/mem/l2_slice.hpp"

#include <algorithm>
#include <stdexcept>

namespace smshare {

L2Slice::L2Slice(const L2Spec& spec, uint32_t partitions, uint64_t core_period_ps, DramChannelTiming& dram)
    : tags_(spec.size_bytes / partitions, spec.line_bytes, spec.ways, spec.sector_bytes),
      dram_(dram),
      port_(core_period_ps, spec.bytes_per_cycle),
      mshrs_(spec.mshr_entries),
      sector_starts_(ChunkMask::sector_starts(tags_.sector_bytes() / ChunkMask::kChunkBytes)),
      sector_shift_(static_cast<uint32_t>(__builtin_ctz(tags_.sector_bytes() / ChunkMask::kChunkBytes))),
      sectors_per_line_(spec.line_bytes / tags_.sector_bytes()),
      line_bytes_(spec.line_bytes),
      hit_latency_ps_(uint64_t(spec.hit_latency) * core_period_ps),
      fills_(size_t(tags_.entries()) * sectors_per_line_) {}

uint64_t L2Slice::pending_fill(uint32_t entry, ChunkMask sectors, uint64_t after_ps,
                               std::vector<uint32_t>* waits) const {
  uint64_t latest = 0;
  if (!sectors.any()) return latest;  // a miss of the whole line
  const SectorFill* fill = &fills_[size_t(entry) * sectors_per_line_];
  for_each_sector(sectors, [&](uint32_t s) {
    if (fill[s].fill != kNoFill) {
      // Undecided (only under FR-FCFS, where `waits` is given): wait for it, once.
      if (waits && std::find(waits->begin(), waits->end(), fill[s].fill) == waits->end())
        waits->push_back(fill[s].fill);
    } else if (fill[s].ready_ps > after_ps && fill[s].ready_ps > latest) {
      latest = fill[s].ready_ps;
    }
  });
  return latest;
}

void L2Slice::record_fill(uint32_t entry, ChunkMask sectors, SectorFill f) {
  SectorFill* fill = &fills_[size_t(entry) * sectors_per_line_];
  for_each_sector(sectors, [&](uint32_t s) { fill[s] = f; });
}

void L2Slice::fill_returned(uint32_t id, uint64_t done_ps) {
  const FillSite site = fill_sites_[id];
  SectorFill* fill = &fills_[size_t(site.entry) * sectors_per_line_];
  // Sectors whose entry was since given to another line no longer name it.
  for_each_sector(site.sectors, [&](uint32_t s) {
    if (fill[s].fill == id) fill[s] = {done_ps, kNoFill};
  });
  mshrs_.decide(done_ps);
}

void L2Slice::drain_input(std::vector<Drained>& out) {
  while (!input_.empty()) {
    const Held& h = input_.front();
    Drained d{h.response, h.new_fill, 0, {}};
    d.ready_ps = book(h.t_ps, h.local_addr, h.chunks, h.is_write, h.new_fill, &d.waits);
    if (d.ready_ps == kHeld) return;  // its MSHR's release is still undecided
    input_.pop_front();
    out.push_back(std::move(d));
  }
}

uint64_t L2Slice::access(uint64_t t_ps, uint64_t local_addr, ChunkMask chunks, bool is_write) {
  // Under FR-FCFS only writes come here: they never wait for DRAM.
  if (dram_.frfcfs() && !is_write) throw std::logic_error("L2Slice::access: a read under FR-FCFS needs access_queued");
  return book(t_ps, local_addr, chunks, is_write, kNoFill, nullptr);
}

uint64_t L2Slice::book(uint64_t t_ps, uint64_t local_addr, ChunkMask chunks, bool is_write, uint32_t new_fill,
                       std::vector<uint32_t>* waits) {
  const ChunkMask needed = tags_.sectors_of(chunks);
  uint64_t arrival = t_ps;
  // One search of the set serves both the miss test and the access (nothing
  // below changes the tags before it).
  const uint32_t found = tags_.find_inline(local_addr);
  if (!is_write && miss_can_stall() && tags_.missing_at(found, needed).any()) {
    // A read miss: it reaches the tags when the port is free, and is
    // accepted there only with an MSHR free and room in the DRAM queue
    // when it is sent, hit_latency later.
    const uint64_t at_tags = t_ps > port_.next_free_ps() ? t_ps : port_.next_free_ps();
    arrival = mshrs_.free_at(at_tags);
    if (arrival == SlotPool::kUndecided) return kHeld;  // FR-FCFS: no MSHR's release is decided yet
    arrival = dram_.accept_at(arrival + hit_latency_ps_) - hit_latency_ps_;
    counters_.miss_stall_ps += arrival - at_tags;
  }
  const uint64_t start = port_.reserve(arrival, bytes_of(needed)).start;
  const uint64_t lookup_done = start + hit_latency_ps_;
  const CacheTags::Result r = tags_.access_found_inline(found, local_addr, needed, /*allocate=*/true, /*dirty=*/is_write);
  // A line allocated over a victim inherits none of the victim's fills. A
  // read miss records its own fill for the sectors it fetches (below): when
  // they are the whole line, nothing of the victim's is left to clear.
  if (r.allocated && (is_write || r.missing != tags_.line_mask()))
    record_fill(r.entry, tags_.line_mask(), SectorFill{});
  uint64_t ready = lookup_done;
  if (r.sector_miss) ++counters_.sector_misses;

  if (is_write) {
    if (r.hit) ++counters_.write_hits; else ++counters_.write_misses;
  } else {
    // Sectors already here may still be on their way from DRAM.
    const size_t undecided_before = waits ? waits->size() : 0;
    const uint64_t pending = pending_fill(r.entry, needed.minus(r.missing), lookup_done, waits);
    if (pending > ready) ready = pending;
    if (r.hit) {
      ++counters_.read_hits;
      if (pending || (waits && waits->size() > undecided_before)) ++counters_.pending_hits;
    } else if (dram_.frfcfs()) {
      // FR-FCFS: the channel decides the fill's time later.
      ++counters_.read_misses;
      dram_.enqueue(lookup_done, local_addr, /*is_write=*/false, bytes_of(r.missing), new_fill);
      if (fill_sites_.size() <= new_fill) fill_sites_.resize(size_t(new_fill) + 1);
      fill_sites_[new_fill] = {r.entry, r.missing};
      record_fill(r.entry, r.missing, SectorFill{0, new_fill});
      mshrs_.hold_undecided();  // until fill_returned()
      waits->push_back(new_fill);
    } else {
      ++counters_.read_misses;
      const uint64_t fill = dram_.access(lookup_done, local_addr, /*is_write=*/false, bytes_of(r.missing));
      mshrs_.hold(start, fill);
      record_fill(r.entry, r.missing, SectorFill{fill, kNoFill});
      if (fill > ready) ready = fill;
    }
  }
  if (r.evicted_dirty) {
    // Booked (queued) after the demand read, so it never delays the requester.
    if (dram_.frfcfs())
      dram_.enqueue(lookup_done, r.victim_line, /*is_write=*/true, bytes_of(r.victim_dirty), kNoFill);
    else
      dram_.access(lookup_done, r.victim_line, /*is_write=*/true, bytes_of(r.victim_dirty));
    ++counters_.writebacks;
  }
  return ready;
}

}  // namespace smshare
