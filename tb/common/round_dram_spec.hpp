// A DRAM channel with round numbers (1 GHz, 64 GB/s over 2 channels: 4 ns
// per 128 B line; tCL 10, tRCD 12, tRP 14 ns), so memory unit tests can
// derive their expected times by hand.
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

}  // namespace smshare::tb
