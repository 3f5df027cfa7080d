#include "hw/mem/dram_channel.hpp"

#include <cmath>
#include <stdexcept>

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
      waiting_(d.scheduler == DramScheduler::Frfcfs ? 0 : d.queue_depth),
      frfcfs_(d.scheduler == DramScheduler::Frfcfs),
      queue_(d.banks, d.queue_depth),
      bank_take_ps_(d.banks, FrfcfsQueue::kNone) {}

uint64_t DramChannelTiming::access(uint64_t sent_ps, uint64_t local_addr, bool is_write, uint32_t bytes) {
  const uint64_t arrival = sent_ps + latency_ps_;
  const uint64_t t_ps = waiting_.free_at(arrival);  // the queue has room
  counters_.queue_full_ps += t_ps - arrival;
  uint64_t first_cmd = 0;
  const uint64_t done = serve(banks_[map_.bank(local_addr)], map_.row(local_addr), t_ps, is_write, bytes, first_cmd);
  waiting_.hold(t_ps, first_cmd);  // until its bank takes it
  return done;
}

uint64_t DramChannelTiming::serve(Bank& b, uint64_t row, uint64_t t_ps, bool is_write, uint32_t bytes,
                                  uint64_t& first_cmd_ps) {
  uint64_t cmd = t_ps > b.next_cmd_ps ? t_ps : b.next_cmd_ps;
  if (b.open && b.open_row == row) {
    ++counters_.row_hits;
    first_cmd_ps = cmd;  // its column command
  } else {
    if (b.open) {
      // Precharge the open row: not before tRAS after its activate.
      const uint64_t ras_done = b.activate_ps + tRAS_ps_;
      if (cmd < ras_done) cmd = ras_done;
      first_cmd_ps = cmd;  // its precharge
      cmd += tRP_ps_;
    } else {
      first_cmd_ps = cmd;  // its activate
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
  if (keeps_queue_depth_) done_.append(done);  // the bus serves in booking order
  return done;
}

void DramChannelTiming::enqueue(uint64_t sent_ps, uint64_t local_addr, bool is_write, uint32_t bytes,
                                uint64_t token) {
  DramRequest r;
  r.arrival_ps = sent_ps + latency_ps_;
  r.local_addr = local_addr;
  r.row = map_.row(local_addr);
  r.bank = map_.bank(local_addr);
  r.bytes = bytes;
  r.is_write = is_write;
  r.token = token;
  queue_.add(r);
  refresh_take(r.bank);
  // The next decision stays the same unless this request's bank could now
  // take one no later; taking one sooner than every other bank, it decides
  // next (no tie to break by age); at the same time, the banks are searched.
  const uint64_t t = bank_take_ps_[r.bank];
  if (!next_known_ || !next_found_ || t == next_take_ps_) {
    next_known_ = false;
  } else if (t < next_take_ps_) {
    next_bank_ = r.bank;
    next_take_ps_ = t;
  }
}

void DramChannelTiming::find_next() const {
  // The bank that takes a request first; banks taking at the same time go
  // by the age of what they take. It runs after every decision, so it visits
  // only the banks with a request, and asks the ages only when the earliest
  // time is a tie (a second pass over the banks at that time).
  uint32_t best = 0;
  uint64_t best_t = FrfcfsQueue::kNone;
  bool tie = false;
  for (uint64_t w = banks_waiting_; w; w &= w - 1) {
    const uint32_t i = static_cast<uint32_t>(__builtin_ctzll(w));
    const uint64_t t = bank_take_ps_[i];
    if (t < best_t) {
      best = i;
      best_t = t;
      tie = false;
    } else if (t == best_t) {
      tie = true;
    }
  }
  if (tie) {
    uint64_t best_seq = queue_.next_seq(best, best_t, banks_[best].open, banks_[best].open_row);
    for (uint64_t w = banks_waiting_ & (~uint64_t{1} << best); w; w &= w - 1) {
      const uint32_t i = static_cast<uint32_t>(__builtin_ctzll(w));
      if (bank_take_ps_[i] != best_t) continue;
      const uint64_t seq = queue_.next_seq(i, best_t, banks_[i].open, banks_[i].open_row);
      if (seq < best_seq) {
        best = i;
        best_seq = seq;
      }
    }
  }
  next_found_ = banks_waiting_ != 0;
  next_bank_ = best;
  next_take_ps_ = best_t;
  next_known_ = true;
}

DramChannelTiming::Served DramChannelTiming::decide() {
  if (!next_known_) find_next();
  const uint32_t bank = next_bank_;
  const uint64_t take_ps = next_take_ps_;
  Bank& b = banks_[bank];
  bool reordered = false;
  // The request at the door, if any, enters its bank's queue with this take.
  const DramRequest* entering = queue_.door_front();
  const uint32_t entering_bank = entering ? entering->bank : bank;
  const DramRequest r = queue_.take(bank, take_ps, b.open, b.open_row, reordered);
  next_known_ = false;
  if (reordered) ++counters_.reordered;
  uint64_t first_cmd = 0;
  const uint64_t done = serve(b, r.row, take_ps, r.is_write, r.bytes, first_cmd);
  refresh_take(bank);
  if (entering_bank != bank) refresh_take(entering_bank);
  return {r.token, done, r.is_write};
}

void DramChannelTiming::keep_queue_depth(bool keep) {
  if (keep == keeps_queue_depth_) return;
  if (counters_.reads + counters_.writes + queue_.waiting() != 0)
    throw std::logic_error("DramChannelTiming::keep_queue_depth: set after requests were booked");
  keeps_queue_depth_ = keep;
}

uint32_t DramChannelTiming::queue_depth(uint64_t now_ps) const {
  if (!keeps_queue_depth_)
    throw std::logic_error("DramChannelTiming::queue_depth: the record of requests in flight is not kept");
  // Under FR-FCFS the requests not yet taken by a bank wait too.
  return static_cast<uint32_t>(done_.count_after(now_ps) + queue_.waiting());
}

}  // namespace smshare
