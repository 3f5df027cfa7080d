#include "hw/mem/memory_timing.hpp"

namespace smshare {

MemoryTiming::MemoryTiming(const GpuSpec& spec, uint64_t dram_capacity_bytes)
    : sms_(spec.num_sms),
      line_bytes_(spec.l2.line_bytes),
      capacity_(dram_capacity_bytes ? dram_capacity_bytes : spec.dram.swap_base),
      swap_base_(spec.dram.swap_base),
      swap_bytes_(spec.dram.swap_bytes),
      map_(spec.dram),
      icnt_(spec.icnt, spec.num_sms, spec.dram.channels, spec.core_period_ps()),
      frfcfs_(spec.dram.scheduler == DramScheduler::Frfcfs),
      decision_lead_ps_((uint64_t(spec.icnt.latency) + spec.l2.hit_latency + spec.dram.latency) *
                        spec.core_period_ps()),
      decision_ps_(spec.dram.channels, kDeferred),
      undecided_reads_(size_t(spec.num_sms) * spec.dram.channels, 0),
      undecided_channels_(spec.num_sms, 0) {
  const uint64_t period = spec.core_period_ps();
  for (uint32_t c = 0; c < spec.dram.channels; ++c) {
    dram_.push_back(std::make_unique<DramChannelTiming>(spec.dram, spec.l2.line_bytes, spec.l2.sector_bytes,
                                                        uint64_t(spec.dram.latency) * period));
    l2_.push_back(std::make_unique<L2Slice>(spec.l2, spec.dram.channels, period, *dram_.back()));
  }
}

inline void MemoryTiming::complete(uint32_t r, std::vector<MemCompletion>& out) {
  const Response& resp = responses_[r];
  // The data leaves the L2 slice: down the interconnect to its SM.
  out.push_back({resp.sm, resp.token, icnt_.to_sm(resp.partition, resp.sm, resp.ready_ps, resp.bytes)});
  read_answered(resp.sm, resp.partition);
  free_responses_.push_back(r);
}

MemStatus MemoryTiming::access(const MemRequest& req, uint64_t& done_ps) {
  if (req.sm >= sms_) { ++errors_; return MemStatus::port_error; }
  // The chunks of the L2 line the request moves, and how far into the line
  // they reach.
  const uint32_t offset = static_cast<uint32_t>(req.addr % line_bytes_);
  ChunkMask chunks;
  if (req.chunks.any()) {
    const uint32_t shift = offset / ChunkMask::kChunkBytes;
    chunks = req.chunks.shifted_up(shift);
    // `bytes` must be the chunks', and no chunk may be shifted out of the
    // mask (shifting back gives them all).
    if (req.bytes != req.chunks.bytes() || chunks.bits() >> shift != req.chunks.bits()) { ++errors_; return MemStatus::length_error; }
  } else {
    if (req.bytes == 0 || offset + req.bytes > line_bytes_) { ++errors_; return MemStatus::length_error; }
    chunks = ChunkMask::range(offset, req.bytes);
  }
  if (chunks.end_bytes() > line_bytes_) { ++errors_; return MemStatus::length_error; }
  // From addr to the last byte moved.
  const uint64_t extent = req.chunks.any() ? chunks.end_bytes() - offset : req.bytes;
  const bool swap = is_swap(req.addr);
  // Written without addr + extent, which could wrap around.
  const bool in_global = req.addr < capacity_ && extent <= capacity_ - req.addr;
  const bool in_swap = swap && extent <= swap_bytes_ - (req.addr - swap_base_);
  if (!in_global && !in_swap) { ++errors_; return MemStatus::address_error; }

  const uint32_t p = map_.channel(req.addr);
  const uint64_t local = map_.local(req.addr);
  dram_[p]->retire(req.now_ps);  // keeps the record of in-flight requests small
  if (req.is_write) {
    if (swap) ++swap_writes_;
    const uint64_t at_l2 = icnt_.to_partition(req.sm, p, req.issue_ps, req.bytes);
    uint64_t ack;
    if (frfcfs_) {
      waits_.clear();
      ack = l2_[p]->access_queued(at_l2, local, chunks, true, L2Slice::kNoFill, waits_, kNoResponse);
      channel_changed(p);  // a write-back may be queued
      // Held at the L2's input: its acknowledgement has no time yet, and
      // none will be sent (the SMs do not wait for write acks).
      if (ack == L2Slice::kHeld) {
        done_ps = kDeferred;
        return MemStatus::ok;
      }
    } else {
      ack = l2_[p]->access(at_l2, local, chunks, true);
    }
    done_ps = icnt_.to_sm(p, req.sm, ack, 0);
  } else if (!frfcfs_) {
    const uint64_t at_l2 = icnt_.to_partition(req.sm, p, req.issue_ps, 0);
    const uint64_t data = l2_[p]->access(at_l2, local, chunks, false);
    done_ps = icnt_.to_sm(p, req.sm, data, req.bytes);
    if (swap) ++swap_reads_;
  } else {
    if (swap) ++swap_reads_;
    const uint64_t at_l2 = icnt_.to_partition(req.sm, p, req.issue_ps, 0);
    const uint32_t fill = new_fill_id();
    // The response's record, taken only if it has to wait.
    const uint32_t r = free_responses_.empty() ? static_cast<uint32_t>(responses_.size()) : free_responses_.back();
    waits_.clear();
    const uint64_t data = l2_[p]->access_queued(at_l2, local, chunks, false, fill, waits_, r);
    channel_changed(p);  // a miss (and a write-back) may be queued
    if (data != L2Slice::kHeld && waits_.empty()) {
      free_fills_.push_back(fill);
      done_ps = icnt_.to_sm(p, req.sm, data, req.bytes);
      return MemStatus::ok;
    }
    if (r == responses_.size()) responses_.emplace_back(); else free_responses_.pop_back();
    if (data != L2Slice::kHeld && waits_.size() == 1 && waits_[0] == fill) {
      // A miss waiting for its own fill only (nearly every deferred read):
      // settle()'s answer, without its call and its tests of what this
      // cannot be.
      responses_[r] = {req.sm, p, req.bytes, 1, req.token, data};
      fills_[fill].partition = p;
      fills_[fill].responses.push_back(r);
    } else {
      responses_[r] = {req.sm, p, req.bytes, 1, req.token, 0};  // waiting for the L2 (held) or its fills
      if (data != L2Slice::kHeld) settle(p, r, fill, data, waits_, nullptr);  // it waits for fills: nothing completes
    }
    read_deferred(req.sm, p);
    done_ps = kDeferred;
  }
  return MemStatus::ok;
}

void MemoryTiming::settle(uint32_t p, uint32_t r, uint32_t fill, uint64_t ready_ps,
                          const std::vector<uint32_t>& waits, std::vector<MemCompletion>* out) {
  // `fill` was reserved for a miss: queued in channel p under it (then the
  // last of `waits`, L2Slice::access_queued), or free again.
  if (fill != L2Slice::kNoFill) {
    if (!waits.empty() && waits.back() == fill)
      fills_[fill].partition = p;
    else
      free_fills_.push_back(fill);
  }
  if (r == kNoResponse) return;  // a write
  Response& resp = responses_[r];
  if (ready_ps > resp.ready_ps) resp.ready_ps = ready_ps;
  resp.waiting = static_cast<uint32_t>(waits.size());
  if (resp.waiting == 0) {
    complete(r, *out);
    return;
  }
  for (uint32_t f : waits) fills_[f].responses.push_back(r);
}

uint32_t MemoryTiming::new_fill_id() {
  if (!free_fills_.empty()) {
    const uint32_t f = free_fills_.back();
    free_fills_.pop_back();
    return f;
  }
  fills_.emplace_back();
  return static_cast<uint32_t>(fills_.size() - 1);
}

void MemoryTiming::channel_moved(uint32_t c, uint64_t t) {
  const uint64_t first = decision_ps_[next_channel_];
  decision_ps_[c] = t;
  if (t < first || (t == first && c < next_channel_)) {
    next_channel_ = c;
  } else if (c == next_channel_ && t != first) {
    // The first channel now decides later: another may be first. (On
    // locals: the member was stored and read back at every channel.)
    uint32_t best = 0;
    uint64_t best_t = decision_ps_[0];
    for (uint32_t i = 1; i < decision_ps_.size(); ++i) {
      if (decision_ps_[i] < best_t) {
        best = i;
        best_t = decision_ps_[i];
      }
    }
    next_channel_ = best;
  }
}

void MemoryTiming::advance(uint64_t before_ps, std::vector<MemCompletion>& out) {
  // The earliest decision of any channel (the lowest channel on a tie).
  while (decision_ps_[next_channel_] < before_ps) {
    const uint32_t c = next_channel_;
    const DramChannelTiming::Served s = dram_[c]->decide();
    channel_changed(c);
    if (!s.is_write) fill_decided(static_cast<uint32_t>(s.token), s.done_ps, out);
  }
}

void MemoryTiming::fill_decided(uint32_t fill, uint64_t done_ps, std::vector<MemCompletion>& out) {
  Fill& f = fills_[fill];
  const uint32_t p = f.partition;
  l2_[p]->fill_returned(fill, done_ps);
  for (uint32_t r : f.responses) {
    Response& resp = responses_[r];
    if (done_ps > resp.ready_ps) resp.ready_ps = done_ps;
    if (--resp.waiting == 0) complete(r, out);
  }
  f.responses.clear();
  free_fills_.push_back(fill);
  // Its MSHR is free from done_ps: a miss held at the slice's input, and
  // what arrived behind it, can be booked now.
  drained_.clear();
  l2_[p]->drain_input(drained_);
  for (const L2Slice::Drained& d : drained_) settle(p, d.response, d.new_fill, d.ready_ps, d.waits, &out);
  channel_changed(p);  // the drained misses (and write-backs) may be queued
}

uint32_t MemoryTiming::dram_queue_depth(uint64_t now_ps) const {
  uint32_t n = 0;
  for (auto& d : dram_) n += d->queue_depth(now_ps);
  return n;
}

void MemoryTiming::collect(ActivityCounters& out) const {
  StructureActivity& l2 = out["l2_slice"];
  StructureActivity& dram = out["dram"];
  for (const auto& s : l2_) {
    const L2Counters& c = s->counters();
    // Data-array reads: read lookups and dirty victims read out for write-back.
    l2.reads += c.read_hits + c.read_misses + c.writebacks;
    // Data-array writes: stores and the fills of read misses.
    l2.writes += c.write_hits + c.write_misses + c.read_misses;
  }
  for (const auto& d : dram_) {
    dram.reads += d->counters().reads;
    dram.writes += d->counters().writes;
  }
  l2.instances = partitions();
  dram.instances = partitions();
}

nlohmann::json MemoryTiming::stats_json() const {
  nlohmann::json j;
  nlohmann::json l2 = nlohmann::json::array();
  for (const auto& s : l2_) {
    const L2Counters& c = s->counters();
    l2.push_back({{"read_hits", c.read_hits},
                  {"read_misses", c.read_misses},
                  {"write_hits", c.write_hits},
                  {"write_misses", c.write_misses},
                  {"writebacks", c.writebacks},
                  {"pending_hits", c.pending_hits},
                  {"sector_misses", c.sector_misses},
                  {"port_busy_ps", s->port_busy_ps()}});
    // Only when it can happen (the default report is as before the keys existed).
    if (s->miss_can_stall()) l2.back()["miss_stall_ps"] = c.miss_stall_ps;
  }
  nlohmann::json dram = nlohmann::json::array();
  for (const auto& d : dram_) {
    const DramCounters& c = d->counters();
    dram.push_back({{"reads", c.reads},
                    {"writes", c.writes},
                    {"row_hits", c.row_hits},
                    {"activates", c.activates},
                    {"bytes", c.bytes},
                    {"read_bytes", c.read_bytes},
                    {"bus_busy_ps", d->bus_busy_ps()}});
    if (d->queue_limited()) dram.back()["queue_full_ps"] = c.queue_full_ps;
    if (d->frfcfs()) {
      const FrfcfsQueue& q = d->frfcfs_queue();
      dram.back()["frfcfs"] = {{"reordered", c.reordered},
                               {"queue_wait_ps", q.queue_wait_ps()},
                               {"door_wait_ps", q.door_wait_ps()},
                               {"max_queued", q.max_queued()}};
    }
  }
  j["l2_partitions"] = l2;
  j["dram_channels"] = dram;
  j["icnt"] = {{"bytes_up", icnt_.bytes_up()}, {"bytes_down", icnt_.bytes_down()}};
  j["swap"] = {{"reads", swap_reads_}, {"writes", swap_writes_}};
  j["errors"] = errors_;
  return j;
}

}  // namespace smshare
