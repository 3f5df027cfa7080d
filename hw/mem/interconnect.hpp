// Crossbar between the SMs and the L2 partitions, as two networks (requests
// up, responses down). Each SM and each partition has a port per direction
// that moves icnt.bytes_per_cycle bytes per core cycle; a packet crosses in
// icnt.latency cycles. Only data occupies ports: write data going up, read
// data coming down. Read requests and write acks are control packets that
// pay the latency only. Cut-through: a packet starts into the destination
// port `latency` after it started leaving the source port, so an
// uncontended packet arrives whole at t + latency + serialization time.
#pragma once

#include <cstdint>
#include <vector>

#include "hw/common/gpu_config.hpp"
#include "hw/mem/port_reservation.hpp"

namespace smshare {

class Interconnect {
 public:
  Interconnect(const InterconnectSpec& spec, uint32_t sms, uint32_t partitions, uint64_t core_period_ps);

  // When a packet of `bytes` data bytes leaving at `t_ps` is whole at the far end.
  uint64_t to_partition(uint32_t sm, uint32_t partition, uint64_t t_ps, uint32_t bytes) {
    ++requests_;
    return cross(sm_up_[sm], partition_in_[partition], t_ps, bytes);
  }
  uint64_t to_sm(uint32_t partition, uint32_t sm, uint64_t t_ps, uint32_t bytes) {
    return cross(partition_out_[partition], sm_down_[sm], t_ps, bytes);
  }

  uint64_t latency_ps() const { return latency_ps_; }
  uint64_t bytes_up() const;    // write data, SMs to partitions
  uint64_t bytes_down() const;  // read data, partitions to SMs
  uint64_t requests() const { return requests_; }  // packets sent up: read requests and write data
  const PortReservation& sm_down_port(uint32_t sm) const { return sm_down_[sm]; }
  const PortReservation& sm_up_port(uint32_t sm) const { return sm_up_[sm]; }

 private:
  uint64_t cross(PortReservation& src, PortReservation& dst, uint64_t t_ps, uint32_t bytes) {
    if (bytes == 0) return t_ps + latency_ps_;
    const PortSlot s = src.reserve(t_ps, bytes);
    return dst.reserve(s.start + latency_ps_, bytes).end;
  }

  uint64_t latency_ps_;
  std::vector<PortReservation> sm_up_, sm_down_, partition_in_, partition_out_;
  uint64_t requests_ = 0;
};

}  // namespace smshare
