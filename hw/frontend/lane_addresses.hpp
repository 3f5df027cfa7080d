// Lane addresses in arithmetic progression, the front ends' most common
// pattern (a trace's base-and-stride records of a full warp, a profile's
// coalesced global and unwrapped shared accesses).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "hw/common/instruction.hpp"

namespace smshare {

// addr[l] = first + l * step for every lane (mod 2^64). Two lanes a step on
// 128-bit vectors (GCC's vector extension; SSE2 on x86-64): a store and an
// add per two lanes, where the plain induction loop vectorizes with a copy
// more (16 host instructions fewer per warp-instruction).
inline void fill_lane_addresses(std::array<uint64_t, kWarpLanes>& addr, uint64_t first, uint64_t step) {
  typedef uint64_t TwoLanes __attribute__((vector_size(16)));
  static_assert(kWarpLanes % 2 == 0, "lanes in pairs");
  TwoLanes pair = {first, first + step};
  const TwoLanes two_steps = {2 * step, 2 * step};
  for (unsigned l = 0; l < kWarpLanes; l += 2, pair += two_steps) std::memcpy(&addr[l], &pair, sizeof pair);
}

}  // namespace smshare
