// One L2 partition's slice: tags (write-back, write-allocate, LRU), a data
// port booked by next-free-time reservation, and the DRAM channel behind it.
// Works on channel-local addresses (DramAddressMap::local), so the slice's
// sets are all used whatever the channel interleaving. Picoseconds.
//
//   port slot   the access holds the data port for line_bytes / bytes_per_cycle
//               cycles from max(arrival, port free) = start
//   read hit    response ready at start + hit_latency
//   read miss   the miss is known at start + hit_latency and goes to DRAM;
//               the response leaves when DRAM returns the line (the fill and
//               the forward to the interconnect overlap)
//   write       ack ready at start + hit_latency; a miss allocates without
//               reading DRAM (lines keep per-byte valid bits, as in Fermi's L2)
//   dirty victim  written to DRAM after the access that evicted it: it books
//               the bank and bus but the requester does not wait for it
//
// A read that hits a line whose fill is still on its way waits for the fill
// (MSHR merge): fill times are kept in a small table indexed by line.
#pragma once

#include <cstdint>
#include <vector>

#include "hw/common/cache_tags.hpp"
#include "hw/common/gpu_config.hpp"
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
};

class L2Slice {
 public:
  // One of `partitions` slices of `spec` (l2.size_bytes is the whole GPU's).
  // `dram` is this partition's channel; it must outlive the slice.
  L2Slice(const L2Spec& spec, uint32_t partitions, uint64_t core_period_ps, DramChannelTiming& dram);

  // Books a read or write of the line holding channel-local `local_addr`,
  // arriving at `t_ps`; returns when the response (data or ack) can leave.
  uint64_t access(uint64_t t_ps, uint64_t local_addr, bool is_write);

  const L2Counters& counters() const { return counters_; }
  const CacheTags& tags() const { return tags_; }
  uint64_t hit_latency_ps() const { return hit_latency_ps_; }
  uint64_t port_busy_ps() const { return port_.busy_ps(); }

 private:
  struct Fill {
    uint64_t line = ~uint64_t(0);
    uint64_t ready_ps = 0;
  };
  CacheTags tags_;
  DramChannelTiming& dram_;
  PortReservation port_;
  uint32_t line_bytes_;
  uint64_t hit_latency_ps_;
  std::vector<Fill> fills_;  // power-of-two size, indexed by line number
  uint64_t fill_mask_;
  L2Counters counters_;
};

}  // namespace smshare
