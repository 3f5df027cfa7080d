// Where a global address lives in DRAM: channel, then bank and row inside the
// channel. One L2 partition sits in front of each channel and sees the same
// channel-local addresses, so both index with `local()`.
//
//   channel = (addr / interleave_bytes) % channels
//   local   = (addr / (interleave_bytes * channels)) * interleave_bytes + addr % interleave_bytes
//   page    = local / row_bytes        (one row buffer's worth of consecutive local bytes)
//   row     = page / banks
//   bank    = (page % banks + skew(row)) % banks,  skew(row) = (row * 0x9E3779B97F4A7C15) >> 40
//
// Consecutive pages go to different banks, so a sequential stream keeps every
// bank's row buffer busy with row hits. The bank is skewed by a hash of the
// row (Fibonacci hashing) so that streams whose starts differ by a multiple
// of banks * row_bytes do not share banks row after row, as with plain
// interleaving. For a given row the skew is a constant, so (bank, row) still
// names exactly one page.
#pragma once

#include <cstdint>

#include "hw/common/gpu_config.hpp"

namespace smshare {

class DramAddressMap {
 public:
  explicit DramAddressMap(const DramSpec& d)
      : interleave_(d.interleave_bytes), channels_(d.channels), row_bytes_(d.row_bytes), banks_(d.banks) {}

  uint32_t channel(uint64_t addr) const { return static_cast<uint32_t>((addr / interleave_) % channels_); }
  uint64_t local(uint64_t addr) const {
    return addr / (uint64_t(interleave_) * channels_) * interleave_ + addr % interleave_;
  }
  uint64_t row(uint64_t local_addr) const { return local_addr / row_bytes_ / banks_; }
  uint32_t bank(uint64_t local_addr) const {
    const uint64_t page = local_addr / row_bytes_;
    const uint64_t row = page / banks_;
    return static_cast<uint32_t>((page % banks_ + ((row * 0x9E3779B97F4A7C15ull) >> 40)) % banks_);
  }

 private:
  uint64_t interleave_;
  uint32_t channels_;
  uint64_t row_bytes_;
  uint64_t banks_;
};

}  // namespace smshare
