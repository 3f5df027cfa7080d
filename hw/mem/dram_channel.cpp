#include "hw/mem/dram_channel.hpp"

#include <cmath>

namespace smshare {

namespace {
uint64_t dram_cycles_ps(uint32_t cycles, double clock_mhz) {
  return static_cast<uint64_t>(std::llround(cycles * 1e6 / clock_mhz));
}
}  // namespace

DramChannelTiming::DramChannelTiming(const DramSpec& d, uint32_t line_bytes, uint32_t sector_bytes,
                                     uint64_t latency_ps)
    : map_(d),
      line_bytes_(line_bytes),
      tCL_ps_(dram_cycles_ps(d.tCL, d.clock_mhz)),
      tRCD_ps_(dram_cycles_ps(d.tRCD, d.clock_mhz)),
      tRP_ps_(dram_cycles_ps(d.tRP, d.clock_mhz)),
      tRAS_ps_(dram_cycles_ps(d.tRAS, d.clock_mhz)),
      latency_ps_(latency_ps),
      banks_(d.banks),
      // One burst per burst time: burst bytes / (bandwidth_gbps / channels) ns.
      bus_(static_cast<uint64_t>(std::llround((sector_bytes ? sector_bytes : line_bytes) * 1000.0 * d.channels /
                                              d.bandwidth_gbps)),
           sector_bytes ? sector_bytes : line_bytes),
      waiting_(d.queue_depth),
      done_ring_(64) {}

uint64_t DramChannelTiming::access(uint64_t sent_ps, uint64_t local_addr, bool is_write, uint32_t bytes) {
  const uint64_t arrival = sent_ps + latency_ps_;
  const uint64_t t_ps = waiting_.free_at(arrival);  // the queue has room
  counters_.queue_full_ps += t_ps - arrival;
  Bank& b = banks_[map_.bank(local_addr)];
  const uint64_t row = map_.row(local_addr);
  uint64_t cmd = t_ps > b.next_cmd_ps ? t_ps : b.next_cmd_ps;
  if (b.open && b.open_row == row) {
    ++counters_.row_hits;
    waiting_.hold(t_ps, cmd);  // until its column command
  } else {
    if (b.open) {
      // Precharge the open row: not before tRAS after its activate.
      const uint64_t ras_done = b.activate_ps + tRAS_ps_;
      if (cmd < ras_done) cmd = ras_done;
      waiting_.hold(t_ps, cmd);  // until its precharge
      cmd += tRP_ps_;
    } else {
      waiting_.hold(t_ps, cmd);  // until its activate
    }
    b.activate_ps = cmd;
    b.open_row = row;
    b.open = true;
    cmd += tRCD_ps_;
    ++counters_.activates;
  }
  b.next_cmd_ps = cmd;
  const uint64_t done = bus_.reserve(cmd + tCL_ps_, bytes).end;
  if (is_write) {
    ++counters_.writes;
  } else {
    ++counters_.reads;
    counters_.read_bytes += bytes;
  }
  counters_.bytes += bytes;
  push_done(done);
  return done;
}

void DramChannelTiming::push_done(uint64_t done_ps) {
  if (done_count_ == done_ring_.size()) {
    // Grow (rare: only when more requests are booked ahead than ever before).
    std::vector<uint64_t> bigger(done_ring_.size() * 2);
    for (size_t i = 0; i < done_count_; ++i) bigger[i] = done_ring_[(done_head_ + i) % done_ring_.size()];
    done_ring_.swap(bigger);
    done_head_ = 0;
  }
  done_ring_[(done_head_ + done_count_) & (done_ring_.size() - 1)] = done_ps;
  ++done_count_;
}

void DramChannelTiming::retire(uint64_t now_ps) {
  const size_t mask = done_ring_.size() - 1;
  while (done_count_ && done_ring_[done_head_] <= now_ps) {
    done_head_ = (done_head_ + 1) & mask;
    --done_count_;
  }
}

uint32_t DramChannelTiming::queue_depth(uint64_t now_ps) const {
  // First booked request still in flight: all before it have returned.
  const size_t mask = done_ring_.size() - 1;
  size_t lo = 0, hi = done_count_;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (done_ring_[(done_head_ + mid) & mask] <= now_ps) lo = mid + 1; else hi = mid;
  }
  return static_cast<uint32_t>(done_count_ - lo);
}

}  // namespace smshare
