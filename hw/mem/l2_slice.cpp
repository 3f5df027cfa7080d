#include "hw/mem/l2_slice.hpp"

namespace smshare {

L2Slice::L2Slice(const L2Spec& spec, uint32_t partitions, uint64_t core_period_ps, DramChannelTiming& dram)
    : tags_(spec.size_bytes / partitions, spec.line_bytes, spec.ways, spec.sector_bytes),
      dram_(dram),
      port_(core_period_ps, spec.bytes_per_cycle),
      mshrs_(spec.mshr_entries),
      sector_chunks_(tags_.sector_bytes() / ChunkMask::kChunkBytes),
      sectors_per_line_(spec.line_bytes / tags_.sector_bytes()),
      hit_latency_ps_(uint64_t(spec.hit_latency) * core_period_ps),
      fill_ready_ps_(size_t(tags_.entries()) * sectors_per_line_, 0) {}

uint64_t L2Slice::pending_fill(uint32_t entry, ChunkMask sectors, uint64_t after_ps) const {
  uint64_t latest = 0;
  const uint64_t* fill = &fill_ready_ps_[size_t(entry) * sectors_per_line_];
  for (uint32_t s = 0; s < sectors_per_line_; ++s)
    if (sectors.test(s * sector_chunks_) && fill[s] > after_ps && fill[s] > latest) latest = fill[s];
  return latest;
}

void L2Slice::record_fill(uint32_t entry, ChunkMask sectors, uint64_t ready_ps) {
  uint64_t* fill = &fill_ready_ps_[size_t(entry) * sectors_per_line_];
  for (uint32_t s = 0; s < sectors_per_line_; ++s)
    if (sectors.test(s * sector_chunks_)) fill[s] = ready_ps;
}

uint64_t L2Slice::access(uint64_t t_ps, uint64_t local_addr, ChunkMask chunks, bool is_write) {
  const ChunkMask needed = tags_.sectors_of(chunks);
  uint64_t arrival = t_ps;
  if (!is_write && miss_can_stall() && tags_.missing(local_addr, chunks).any()) {
    // A read miss: it reaches the tags when the port is free, and is
    // accepted there only with an MSHR free and room in the DRAM queue
    // when it is sent, hit_latency later.
    const uint64_t at_tags = t_ps > port_.next_free_ps() ? t_ps : port_.next_free_ps();
    arrival = mshrs_.free_at(at_tags);
    arrival = dram_.accept_at(arrival + hit_latency_ps_) - hit_latency_ps_;
    counters_.miss_stall_ps += arrival - at_tags;
  }
  const uint64_t start = port_.reserve(arrival, needed.bytes()).start;
  const uint64_t lookup_done = start + hit_latency_ps_;
  const CacheTags::Result r = tags_.access(local_addr, chunks, /*allocate=*/true, /*dirty=*/is_write);
  // A line allocated over a victim inherits none of the victim's fills.
  if (r.allocated) record_fill(r.entry, tags_.line_mask(), 0);
  uint64_t ready = lookup_done;
  if (r.sector_miss) ++counters_.sector_misses;

  if (is_write) {
    if (r.hit) ++counters_.write_hits; else ++counters_.write_misses;
  } else {
    // Sectors already here may still be on their way from DRAM.
    const uint64_t pending = pending_fill(r.entry, needed.minus(r.missing), lookup_done);
    if (r.hit) {
      ++counters_.read_hits;
      if (pending) {
        ready = pending;
        ++counters_.pending_hits;
      }
    } else {
      ++counters_.read_misses;
      ready = dram_.access(lookup_done, local_addr, /*is_write=*/false, r.missing.bytes());
      mshrs_.hold(start, ready);
      record_fill(r.entry, r.missing, ready);
      if (pending > ready) ready = pending;
    }
  }
  if (r.evicted_dirty) {
    // Booked after the demand read, so it never delays the requester.
    dram_.access(lookup_done, r.victim_line, /*is_write=*/true, r.victim_dirty.bytes());
    ++counters_.writebacks;
  }
  return ready;
}

}  // namespace smshare
