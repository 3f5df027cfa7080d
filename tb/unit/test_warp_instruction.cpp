// WarpInstruction's lane addresses: lanes given lane by lane or as one run
// (set_evenly_spaced_lanes), read through lane_address() and passed on by
// copy_decoded.
#include <gtest/gtest.h>

#include <array>

#include "hw/common/instruction.hpp"

namespace smshare {
namespace {

// Every lane's address, as lane_address() gives it.
std::array<uint64_t, kWarpLanes> lanes_of(const WarpInstruction& inst) {
  std::array<uint64_t, kWarpLanes> out;
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) out[lane] = inst.lane_address(lane);
  return out;
}

// A memory instruction whose lane addresses are all `garbage` (what an
// instruction buffer entry holds from the instruction before).
WarpInstruction stale_load(uint64_t garbage) {
  WarpInstruction inst;
  inst.op = OpClass::GlobalLoad;
  inst.access_bytes = 4;
  inst.addr.fill(garbage);
  return inst;
}

TEST(WarpInstruction, LanesGivenOneByOneAreReadAsWritten) {
  WarpInstruction inst = stale_load(0);
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) inst.addr[lane] = 0x1000 + 37 * lane * lane;
  EXPECT_FALSE(inst.lanes_evenly_spaced);
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) EXPECT_EQ(inst.lane_address(lane), 0x1000u + 37 * lane * lane);
}

TEST(WarpInstruction, ARunDefinesEveryLaneFromItsFirstTwo) {
  // Steps up, zero, down and across 2^64: lane l at first + l * step
  // (mod 2^64), whatever the other 30 entries of addr hold.
  for (uint64_t first : {uint64_t{0}, uint64_t{0x7f0000001000}, ~uint64_t{0x3f}}) {
    for (uint64_t step : {uint64_t{4}, uint64_t{0}, uint64_t{128}, ~uint64_t{3}, uint64_t{1} << 63}) {
      WarpInstruction inst = stale_load(0xDEADBEEF);
      inst.set_evenly_spaced_lanes(first, step);
      EXPECT_TRUE(inst.lanes_evenly_spaced);
      for (unsigned lane = 0; lane < kWarpLanes; ++lane)
        EXPECT_EQ(inst.lane_address(lane), first + lane * step) << "first " << first << " step " << step;
    }
  }
}

TEST(WarpInstruction, CopyDecodedPassesOnEveryLane) {
  // A run: the copy gives the same lanes over whatever the destination held.
  WarpInstruction run = stale_load(0x1111);
  run.set_evenly_spaced_lanes(0x2000, 8);
  WarpInstruction dst = stale_load(0x9999);
  copy_decoded(dst, run);
  EXPECT_TRUE(dst.lanes_evenly_spaced);
  EXPECT_EQ(lanes_of(dst), lanes_of(run));

  // Lanes one by one into a destination that last held a run: every lane
  // copied, the run's flag gone.
  WarpInstruction listed = stale_load(0);
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) listed.addr[lane] = 0x3000 + 100 * (kWarpLanes - lane);
  copy_decoded(dst, listed);
  EXPECT_FALSE(dst.lanes_evenly_spaced);
  EXPECT_EQ(lanes_of(dst), lanes_of(listed));
  EXPECT_EQ(dst.addr, listed.addr);

  // A shared-memory run as well (is_memory covers both spaces).
  WarpInstruction shared = stale_load(0x5555);
  shared.op = OpClass::SharedStore;
  shared.set_evenly_spaced_lanes(0x40, 4);
  copy_decoded(dst, shared);
  EXPECT_EQ(dst.op, OpClass::SharedStore);
  EXPECT_EQ(lanes_of(dst), lanes_of(shared));
}

TEST(WarpInstruction, CopyDecodedLeavesANonMemoryInstructionsLanesAlone) {
  WarpInstruction alu;
  alu.op = OpClass::FpAlu;
  alu.addr.fill(0x7777);
  WarpInstruction dst = stale_load(0x1234);
  copy_decoded(dst, alu);
  EXPECT_EQ(dst.op, OpClass::FpAlu);
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) EXPECT_EQ(dst.addr[lane], 0x1234u) << lane;
}

}  // namespace
}  // namespace smshare
