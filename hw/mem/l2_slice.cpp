#include "hw/mem/l2_slice.hpp"

namespace smshare {

namespace {
uint64_t next_pow2(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}
}  // namespace

L2Slice::L2Slice(const L2Spec& spec, uint32_t partitions, uint64_t core_period_ps, DramChannelTiming& dram)
    : tags_(spec.size_bytes / partitions, spec.line_bytes, spec.ways),
      dram_(dram),
      port_(core_period_ps, spec.bytes_per_cycle),
      line_bytes_(spec.line_bytes),
      hit_latency_ps_(uint64_t(spec.hit_latency) * core_period_ps),
      // As many entries as lines in the slice: fills in flight at once are far
      // fewer, so two of them rarely share an entry.
      fills_(next_pow2(uint64_t(tags_.sets()) * spec.ways)),
      fill_mask_(fills_.size() - 1) {}

uint64_t L2Slice::access(uint64_t t_ps, uint64_t local_addr, bool is_write) {
  const uint64_t start = port_.reserve(t_ps, line_bytes_).start;
  const uint64_t lookup_done = start + hit_latency_ps_;
  const CacheTags::Result r = tags_.access(local_addr, /*allocate=*/true, /*dirty=*/is_write);
  const uint64_t line = tags_.line_of(local_addr);
  Fill& fill = fills_[line & fill_mask_];
  uint64_t ready = lookup_done;

  if (is_write) {
    if (r.hit) ++counters_.write_hits; else ++counters_.write_misses;
  } else if (r.hit) {
    ++counters_.read_hits;
    if (fill.line == line && fill.ready_ps > ready) {
      ready = fill.ready_ps;
      ++counters_.pending_hits;
    }
  } else {
    ++counters_.read_misses;
    ready = dram_.access(lookup_done, local_addr, /*is_write=*/false);
    fill.line = line;
    fill.ready_ps = ready;
  }
  if (r.evicted_dirty) {
    // Booked after the demand read, so it never delays the requester.
    dram_.access(lookup_done, r.victim_line, /*is_write=*/true);
    ++counters_.writebacks;
  }
  return ready;
}

}  // namespace smshare
