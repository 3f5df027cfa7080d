// Memory specs with round numbers, so memory tests can derive their expected
// times by hand: a DRAM channel (1 GHz, 64 GB/s over 2 channels: 4 ns per
// 128 B line; tCL 10, tRCD 12, tRP 14 ns) and a small L2.
#pragma once

#include "hw/common/gpu_config.hpp"

namespace smshare::tb {

inline DramSpec round_dram_spec() {
  DramSpec d;
  d.channels = 2;
  d.banks = 4;
  d.bandwidth_gbps = 64;
  d.clock_mhz = 1000;
  d.row_bytes = 1024;
  d.tCL = 10;
  d.tRCD = 12;
  d.tRP = 14;
  d.tRAS = 30;
  d.interleave_bytes = 256;
  return d;
}

// Two partitions of 4 sets x 2 ways x 128 B; hit latency 10, 64 B per cycle.
inline L2Spec round_l2_spec() {
  L2Spec l;
  l.size_bytes = 2 * 1024;
  l.line_bytes = 128;
  l.ways = 2;
  l.hit_latency = 10;
  l.bytes_per_cycle = 64;
  return l;
}

}  // namespace smshare::tb
