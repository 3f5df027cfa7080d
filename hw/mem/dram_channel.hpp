// Timing of one DRAM channel: banks with an open row buffer and one shared
// data bus, booked by next-free-time reservation. Plain C++, picoseconds.
//
// A request at time t to (bank, row):
//   row hit       column command at max(t, bank free)                    data after tCL
//   bank closed   activate at max(t, bank free), column command + tRCD   data after tCL
//   row conflict  precharge at max(t, bank free, last activate + tRAS),
//                 activate + tRP, column command + tRCD                   data after tCL
// then the data crosses the data bus, after the previous transfer on the
// bus, in whole bursts of burst_bytes / (bandwidth / channels) each: a burst
// is the L2 sector (l2.sector_bytes), or the line when the L2 is not
// sectored, so a request's bus time is proportional to the sectors it moves
// (GPGPU-Sim's dram_t::issue_col_command moves a request in dram_atom_size
// column bursts until its nbytes are transferred). Writes (L2 write-backs) use the
// same sequence (write latency taken equal to tCL). Column commands to an
// open row pipeline freely: the bus, not the bank, limits row-hit streams.
// Open-page policy. dram.scheduler picks the order the banks serve in:
//  * fcfs (the default): access() books each request end to end as it
//    arrives, in arrival order;
//  * frfcfs: enqueue() puts the request in the channel's FrfcfsQueue
//    (frfcfs_queue.hpp) and the owner takes the channel's decisions in time
//    order (next_decision_ps(), decide()): a free bank takes the oldest
//    request to its open row, else the oldest, among those that arrived by
//    then; the same command sequence as above follows from the take.
// A request reaches the channel a fixed `latency_ps` after the L2 sends it
// (dram.latency: GPGPU-Sim's dram_latency, the memory partition's
// m_dram_latency_queue between the L2 and the DRAM, l2cache.cc
// memory_partition_unit::dram_cycle, counted in core cycles); t below is
// that arrival. It then waits in the channel's request queue until its bank
// starts serving it (its first command: precharge, activate or column); with
// dram.queue_depth > 0 a request arriving at a full queue waits at its door
// until the first of those waiting is taken (GPGPU-Sim dram.cc dram_t::full:
// the FR-FCFS scheduler's pending requests against
// gpgpu_frfcfs_dram_sched_queue_size). The L2 slice asks accept_at() first so
// that its read misses wait at its own input instead (back-pressure).
#pragma once

#include <cstdint>
#include <vector>

#include "hw/common/gpu_config.hpp"
#include "hw/common/slot_pool.hpp"
#include "hw/common/sorted_times.hpp"
#include "hw/mem/dram_address_map.hpp"
#include "hw/mem/frfcfs_queue.hpp"
#include "hw/mem/port_reservation.hpp"

namespace smshare {

struct DramCounters {
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t row_hits = 0;
  uint64_t activates = 0;
  uint64_t bytes = 0;       // read and written
  uint64_t read_bytes = 0;  // read: the bytes L2 fills brought from DRAM
  uint64_t queue_full_ps = 0;  // time requests (write-backs: the L2 holds its reads) waited for room in the queue
  // dram.scheduler: frfcfs only.
  uint64_t reordered = 0;      // requests a bank took before an older one waiting for it (row hits first)
};

class DramChannelTiming {
 public:
  // `line_bytes`: the L2 line; `sector_bytes`: the L2 sector, the burst
  // (0: the line); `latency_ps`: the fixed delay in front of the channel.
  DramChannelTiming(const DramSpec& spec, uint32_t line_bytes, uint32_t sector_bytes = 0, uint64_t latency_ps = 0);

  // Books a read or write of `bytes` (whole bursts, within one line) the L2
  // sends at `sent_ps` to channel-local address `local_addr`; returns the
  // time its last byte is off the data bus.
  uint64_t access(uint64_t sent_ps, uint64_t local_addr, bool is_write, uint32_t bytes);
  // The same for a whole line.
  uint64_t access(uint64_t sent_ps, uint64_t local_addr, bool is_write) {
    return access(sent_ps, local_addr, is_write, line_bytes_);
  }
  // The earliest time from `sent_ps` on at which the L2 can send a request
  // that then finds room in the queue on arrival.
  uint64_t accept_at(uint64_t sent_ps) { return waiting_.free_at(sent_ps + latency_ps_) - latency_ps_; }
  bool queue_limited() const { return waiting_.limited(); }

  // dram.scheduler: frfcfs. Queues a request of `bytes` the L2 sends at
  // `sent_ps` (reaching the channel dram.latency later); `token` names it
  // in decide()'s answer. Requests must be sent in non-decreasing time.
  void enqueue(uint64_t sent_ps, uint64_t local_addr, bool is_write, uint32_t bytes, uint64_t token);
  // When the next bank takes a queued request (FrfcfsQueue::kNone: none waits).
  uint64_t next_decision_ps() const {
    if (!next_known_) find_next();
    return next_found_ ? next_take_ps_ : FrfcfsQueue::kNone;
  }
  struct Served {
    uint64_t token;
    uint64_t done_ps;  // its last byte is off the data bus
    bool is_write;
  };
  // Takes the next decision (at next_decision_ps()) and books its commands and bus transfer.
  Served decide();
  bool frfcfs() const { return frfcfs_; }
  const FrfcfsQueue& frfcfs_queue() const { return queue_; }

  // Requests booked whose data is not yet off the bus at `now_ps` (a binary
  // search: completion times are kept in increasing order), and under
  // FR-FCFS those not yet taken by their bank. Only while the record it
  // needs is kept (keep_queue_depth(); std::logic_error otherwise).
  uint32_t queue_depth(uint64_t now_ps) const;
  // Forgets requests returned by `now_ps`, keeping the record small; call
  // with the current simulation time (queue_depth before it is then unknown).
  void retire(uint64_t now_ps) {
    if (keeps_queue_depth_) done_.drop_through(now_ps);
  }
  // Whether the record queue_depth() reads is kept: a store per request
  // served and a look per retire(), for a waveform probe and tests; a run
  // nothing reads it in (no waveform) does without. On from the start; set
  // before the first request (std::logic_error after).
  void keep_queue_depth(bool keep);
  bool keeps_queue_depth() const { return keeps_queue_depth_; }

  const DramCounters& counters() const { return counters_; }
  const DramAddressMap& address_map() const { return map_; }
  uint64_t line_time_ps() const { return bus_.occupancy_ps(line_bytes_); }
  uint64_t tCL_ps() const { return tCL_ps_; }
  uint64_t tRCD_ps() const { return tRCD_ps_; }
  uint64_t tRP_ps() const { return tRP_ps_; }
  uint64_t tRAS_ps() const { return tRAS_ps_; }
  uint64_t latency_ps() const { return latency_ps_; }
  uint64_t bus_busy_ps() const { return bus_.busy_ps(); }

 private:
  struct Bank {
    uint64_t open_row = 0;
    bool open = false;
    uint64_t next_cmd_ps = 0;  // earliest next command sequence
    uint64_t activate_ps = 0;  // last activate, for tRAS
  };
  // Books bank `b`'s commands for a request to `row` it takes at `t_ps` and
  // its transfer on the bus; returns when its last byte is off the bus.
  // `first_cmd_ps` is set to its first command (precharge, activate or column).
  uint64_t serve(Bank& b, uint64_t row, uint64_t t_ps, bool is_write, uint32_t bytes, uint64_t& first_cmd_ps);
  // Refreshes bank_take_ps_[bank] after its queue or its state changed.
  void refresh_take(uint32_t bank) {
    const uint64_t t = queue_.next_take_ps(bank, banks_[bank].next_cmd_ps);
    bank_take_ps_[bank] = t;
    const uint64_t bit = uint64_t{1} << bank;
    banks_waiting_ = t == FrfcfsQueue::kNone ? banks_waiting_ & ~bit : banks_waiting_ | bit;
  }
  // Finds the bank that decides next under FR-FCFS and when (next_bank_,
  // next_take_ps_; next_found_ false: no request waits).
  void find_next() const;

  DramAddressMap map_;
  uint32_t line_bytes_;
  uint64_t tCL_ps_, tRCD_ps_, tRP_ps_, tRAS_ps_;
  uint64_t latency_ps_;
  std::vector<Bank> banks_;
  PortReservation bus_;
  SlotPool waiting_;  // fcfs: the request queue, each request until its bank takes it
  bool frfcfs_;
  FrfcfsQueue queue_;  // frfcfs: the request queue
  // Each bank's next take (queue_.next_take_ps() with its free time), kept
  // current as requests enter and banks take them: find_next() scans it
  // after every decision.
  std::vector<uint64_t> bank_take_ps_;
  // The banks with a request waiting (bank_take_ps_ not kNone), bit b for
  // bank b (dram.banks <= 64): find_next() visits only those.
  uint64_t banks_waiting_ = 0;
  // The next decision (find_next()), kept until the queue changes.
  mutable bool next_known_ = false;
  mutable bool next_found_ = false;
  mutable uint32_t next_bank_ = 0;
  mutable uint64_t next_take_ps_ = 0;
  DramCounters counters_;
  // Completion times of booked requests, oldest first (the bus serves in
  // booking order: each is appended), while keeps_queue_depth_.
  SortedTimes done_;
  bool keeps_queue_depth_ = true;
};

}  // namespace smshare
