// Next-free-time reservation of a port (an interconnect port, an L2 data
// port, a DRAM data bus): a transfer starts when it is ready and the port is
// free, and occupies the port for its serialization time. Times are in
// picoseconds. Requests are served in reservation order (no gap filling), so
// the cost per request is a compare and an add.
#pragma once

#include <cstdint>

namespace smshare {

struct PortSlot {
  uint64_t start = 0;  // first byte on the port
  uint64_t end = 0;    // last byte off the port; the port is free again
};

class PortReservation {
 public:
  PortReservation() = default;
  // The port moves `bytes_per_unit` bytes every `ps_per_unit` picoseconds
  // (an interconnect port: bytes per cycle, one core period; a DRAM bus: one
  // line per line time). A transfer occupies whole units.
  PortReservation(uint64_t ps_per_unit, uint32_t bytes_per_unit)
      : ps_per_unit_(ps_per_unit), bytes_per_unit_(bytes_per_unit) {}

  uint64_t occupancy_ps(uint32_t bytes) const {
    return (uint64_t(bytes) + bytes_per_unit_ - 1) / bytes_per_unit_ * ps_per_unit_;
  }

  // Books the port for `bytes` from `ready_ps` on, or when it is next free.
  PortSlot reserve(uint64_t ready_ps, uint32_t bytes) {
    PortSlot s;
    s.start = ready_ps > next_free_ps_ ? ready_ps : next_free_ps_;
    s.end = s.start + occupancy_ps(bytes);
    next_free_ps_ = s.end;
    busy_ps_ += s.end - s.start;
    bytes_ += bytes;
    return s;
  }

  uint64_t next_free_ps() const { return next_free_ps_; }
  uint64_t busy_ps() const { return busy_ps_; }  // total time booked (utilization numerator)
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t ps_per_unit_ = 1;
  uint32_t bytes_per_unit_ = 1;
  uint64_t next_free_ps_ = 0;
  uint64_t busy_ps_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace smshare
