// The memory side of the GPU as plain C++: interconnect, one L2 slice per
// partition, one DRAM channel behind each. One call books a whole line
// transaction end to end and returns when its response is back at the SM
// (under dram.scheduler: frfcfs, a read that needs DRAM is answered later:
// below).
// The SystemC MemorySystem (memory_system_module.hpp) is a thin TLM wrapper
// around this; tests and fast paths may use it directly. Picoseconds.
//
// Path of a READ issued by SM s at t:   request (control packet) up the
//   interconnect -> L2 slice (hit, or miss to DRAM) -> data down to SM s.
// Path of a WRITE: data up the interconnect -> L2 slice -> ack down.
// The interconnect carries the request's bytes; the L2 slice works on the
// chunks of its line the request names (its sectors, when sectored).
//
// Under dram.scheduler: frfcfs a read that needs DRAM (an L2 miss, a hit on
// sectors whose fill the channel has not decided yet, or an access held at
// the L2's input behind a miss waiting for an MSHR) is deferred:
// access() answers kDeferred, and advance() later takes the channels'
// decisions in time order and returns, for each deferred read whose data
// time is then known, a MemCompletion naming the SM and the token of its
// request. Determinism: a request issued at cycle c reaches a channel at
// c's time + decision_lead_ps() or later (the up interconnect, the L2
// lookup, dram.latency), so advance(before) may decide everything before
// `before` = (the first cycle whose requests are not yet all made) x period
// + decision_lead_ps(): no later request can be among those that had
// arrived by such a decision.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/common/activity.hpp"
#include "hw/common/chunk_mask.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/mem/dram_address_map.hpp"
#include "hw/mem/dram_channel.hpp"
#include "hw/mem/interconnect.hpp"
#include "hw/mem/l2_slice.hpp"

namespace smshare {

enum class MemStatus {
  ok,
  address_error,  // outside global memory and outside the swap region
  length_error,   // zero bytes, bytes crossing an L2 line boundary, or bytes that disagree with the chunks
  port_error,     // no such SM port
};

struct MemRequest {
  uint32_t sm = 0;
  uint64_t addr = 0;
  uint32_t bytes = 0;      // bytes moved, within one L2 line
  // Which 32-byte chunks the request moves, bit 0 being the chunk holding
  // `addr` (a sectored L1's miss needs sectors that need not be contiguous);
  // then `bytes` must be chunks.bytes(). None: the bytes [addr, addr + bytes).
  ChunkMask chunks;
  bool is_write = false;
  uint64_t now_ps = 0;     // current simulation time (never decreases between calls)
  uint64_t issue_ps = 0;   // when the request leaves the SM (>= now_ps)
  uint64_t token = 0;      // the SM's name for it, in its MemCompletion if deferred
};

// A deferred read's answer: its response is entirely back at SM `sm` at `done_ps`.
struct MemCompletion {
  uint32_t sm;
  uint64_t token;
  uint64_t done_ps;
};

class MemoryTiming {
 public:
  // Valid addresses: global memory [0, dram_capacity_bytes) and the swap
  // region. 0 means all of [0, dram.swap_base). A stand-in until GpuSpec has
  // a dram.capacity_bytes key.
  explicit MemoryTiming(const GpuSpec& spec, uint64_t dram_capacity_bytes = 0);
  MemoryTiming(const MemoryTiming&) = delete;
  MemoryTiming& operator=(const MemoryTiming&) = delete;

  static constexpr uint64_t kDeferred = ~0ull;

  // Books the transaction; on ok, `done_ps` is when the response (read data
  // or write ack) is entirely back at the SM, or kDeferred (frfcfs): then a
  // MemCompletion from advance() says it. Nothing is booked on an error.
  MemStatus access(const MemRequest& req, uint64_t& done_ps);

  // dram.scheduler: frfcfs. Takes every channel decision due before
  // `before_ps`, in time order (then channel order), and appends the
  // deferred reads they complete to `out`, in that order.
  void advance(uint64_t before_ps, std::vector<MemCompletion>& out);
  // The time of the next channel decision (kDeferred: none waits).
  uint64_t next_decision_ps() const { return decision_ps_[next_channel_]; }
  // The earliest time a deferred read of SM `sm` can be answered
  // (kDeferred: none is undecided). A read is answered only by a decision
  // of its own partition's channel (its fills', or one that frees the MSHR
  // it is held behind), and no request booked later can bring a decision
  // that answers it before that channel's next decision now: a new request
  // may be decided sooner itself (its bank free), but the read's fills are
  // taken no sooner than their bank is free and they have entered the
  // queue, which no later request moves earlier, and a slice holding one
  // of its reads at its input admits nothing new. The clock ticks an SM
  // ahead of the others up to it (GpuModule::tick_window).
  uint64_t next_decision_ps_for(uint32_t sm) const {
    const uint64_t channels = undecided_channels_[sm];
    if (channels >> next_channel_ & 1) return next_decision_ps();  // the earliest of all is one of them
    uint64_t t = kDeferred;
    for (uint64_t m = channels; m != 0; m &= m - 1)
      t = std::min(t, decision_ps_[static_cast<size_t>(__builtin_ctzll(m))]);
    return t;
  }
  // The least time from a request leaving an SM to its reaching a DRAM
  // channel (icnt.latency + l2.hit_latency + dram.latency).
  uint64_t decision_lead_ps() const { return decision_lead_ps_; }
  bool frfcfs() const { return frfcfs_; }
  uint32_t deferred_in_flight() const { return static_cast<uint32_t>(responses_.size() - free_responses_.size()); }

  bool is_swap(uint64_t addr) const { return addr - swap_base_ < swap_bytes_; }

  // DRAM requests booked whose data is not yet off the bus at `now_ps`,
  // while the channels keep their record of them (keep_dram_queue_depth).
  uint32_t dram_queue_depth(uint64_t now_ps) const;
  // DramChannelTiming::keep_queue_depth for every channel: on from the start.
  void keep_dram_queue_depth(bool keep) {
    for (auto& d : dram_) d->keep_queue_depth(keep);
  }

  void collect(ActivityCounters& out) const;  // adds "l2_slice" and "dram"
  nlohmann::json stats_json() const;

  uint32_t partitions() const { return static_cast<uint32_t>(dram_.size()); }
  uint32_t sms() const { return sms_; }
  const DramAddressMap& address_map() const { return map_; }
  const DramChannelTiming& dram(uint32_t c) const { return *dram_[c]; }
  const L2Slice& l2(uint32_t p) const { return *l2_[p]; }
  const Interconnect& icnt() const { return icnt_; }
  uint64_t swap_reads() const { return swap_reads_; }
  uint64_t swap_writes() const { return swap_writes_; }

 private:
  uint32_t sms_;
  uint32_t line_bytes_;
  uint64_t capacity_;
  uint64_t swap_base_, swap_bytes_;
  DramAddressMap map_;
  Interconnect icnt_;
  std::vector<std::unique_ptr<DramChannelTiming>> dram_;
  std::vector<std::unique_ptr<L2Slice>> l2_;
  uint64_t swap_reads_ = 0, swap_writes_ = 0;
  uint64_t errors_ = 0;

  // FR-FCFS: deferred responses and the undecided L2 fills they wait for.
  struct Response {
    uint32_t sm;
    uint32_t partition;
    uint32_t bytes;
    uint32_t waiting;   // undecided fills still to come
    uint64_t token;
    uint64_t ready_ps;  // at the L2: the latest of its lookup and the fills decided so far
  };
  struct Fill {
    uint32_t partition;
    std::vector<uint32_t> responses;  // waiting for it
  };
  static constexpr uint32_t kNoResponse = ~0u;  // a write held at an L2's input: nobody is answered
  uint32_t new_fill_id();
  void fill_decided(uint32_t fill, uint64_t done_ps, std::vector<MemCompletion>& out);
  // A deferred access `r` (kNoResponse: a write) was booked at L2 slice p:
  // known part `ready_ps`, undecided fills `waits`; `fill` was reserved for
  // its miss. Completes it into `out` if nothing is undecided (access()
  // passes none: it settles only responses that wait for fills).
  void settle(uint32_t p, uint32_t r, uint32_t fill, uint64_t ready_ps, const std::vector<uint32_t>& waits,
              std::vector<MemCompletion>* out);
  // Compiled into fill_decided(), where nearly every deferred read is
  // answered (a call there cost about 20 host instructions a read).
  [[gnu::always_inline]] void complete(uint32_t r, std::vector<MemCompletion>& out);
  // Channel c's queue or banks changed (a request queued, a decision
  // taken): refreshes its next decision and the earliest of all. Inline
  // up to the common answer, the channel's next decision unchanged (a
  // request queued behind others, nothing drained after a fill): then
  // nothing else changes either.
  void channel_changed(uint32_t c) {
    const uint64_t t = dram_[c]->next_decision_ps();
    if (t != decision_ps_[c]) channel_moved(c, t);
  }
  // Channel c's next decision is now at `t`. Out of line: GCC otherwise
  // inlined it into channel_changed() and left that a call.
  [[gnu::noinline]] void channel_moved(uint32_t c, uint64_t t);

  bool frfcfs_;
  uint64_t decision_lead_ps_;
  std::vector<Response> responses_;
  std::vector<uint32_t> free_responses_;
  std::vector<Fill> fills_;
  std::vector<uint32_t> free_fills_;
  std::vector<uint32_t> waits_;  // scratch for L2Slice::access_queued
  std::vector<L2Slice::Drained> drained_;  // scratch for L2Slice::drain_input
  // Each channel's next decision (kDeferred: none waits) and the channel
  // deciding first (the lowest on a tie): polled every GPU cycle, so kept
  // current by channel_changed() rather than recomputed.
  std::vector<uint64_t> decision_ps_;
  uint32_t next_channel_ = 0;
  // Per SM and channel, [sm * channels + c]: its deferred reads not yet
  // answered; and per SM, the channels where it has any (dram.channels <= 64).
  std::vector<uint32_t> undecided_reads_;
  std::vector<uint64_t> undecided_channels_;
  void read_deferred(uint32_t sm, uint32_t c) {
    if (undecided_reads_[size_t(sm) * decision_ps_.size() + c]++ == 0) undecided_channels_[sm] |= uint64_t{1} << c;
  }
  void read_answered(uint32_t sm, uint32_t c) {
    if (--undecided_reads_[size_t(sm) * decision_ps_.size() + c] == 0) undecided_channels_[sm] &= ~(uint64_t{1} << c);
  }
};

}  // namespace smshare
