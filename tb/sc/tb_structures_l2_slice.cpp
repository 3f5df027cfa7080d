// Testbench of the structure module gpu.memory.l2_slice<p>, driven through
// its plain object (L2Slice::access, as MemoryTiming calls it) over one DRAM
// channel, without the interconnect. See tb_structures_dram_channel.cpp for
// the pattern.
//
// Round numbers: 1 ns core cycle; hit latency 10 cycles; the data port moves
// 64 B per cycle (a 128 B line holds it 2 cycles); DRAM as in
// tb/common/round_memory_specs.hpp (a closed-bank read is back 26 ns later).
#include <gtest/gtest.h>

#include "common/round_memory_specs.hpp"
#include "common/structure_bench.hpp"
#include "hw/mem/l2_slice_module.hpp"

namespace smshare::tb {
namespace {

constexpr uint64_t kCycle = 1000;  // ps


TEST(L2SliceModule, MissThenHitUnderTheFillThenHit) {
  DramChannelTiming dram(round_dram_spec(), 128);
  L2Slice slice(round_l2_spec(), 2, kCycle, dram);
  L2SliceModule dut("l2_slice0", slice);
  uint64_t ready[3] = {};
  StructureBench bench("bench", dut, kCycle, 45, [&](uint64_t cycle) {
    if (cycle == 0) ready[0] = slice.access(0 * kCycle, 0x40, false);
    if (cycle == 1) ready[1] = slice.access(1 * kCycle, 0x40, false);
    if (cycle == 40) ready[2] = slice.access(40 * kCycle, 0x40, false);
  });
  sc_core::sc_start();

  // Miss: port 0..2, miss known at 10, DRAM closed bank 10 + 26 = 36.
  EXPECT_EQ(ready[0], 36 * kCycle);
  // Hit on the line being filled: port free at 2, tags say hit at 12, the
  // data waits for the fill at 36 (a pending hit).
  EXPECT_EQ(ready[1], 36 * kCycle);
  // Plain hit: port at 40, data at 40 + 10.
  EXPECT_EQ(ready[2], 50 * kCycle);

  EXPECT_EQ(bench.probe("misses", 0), 1);
  EXPECT_EQ(bench.probe("hits", 0), 0);
  EXPECT_EQ(bench.probe("hits", 1), 1);
  EXPECT_EQ(bench.probe("hits", 2), 0);
  EXPECT_EQ(bench.probe("hits", 40), 1);
  EXPECT_EQ(bench.probe("misses", 40), 0);

  EXPECT_EQ(counter(dut, "read_misses"), 1u);
  EXPECT_EQ(counter(dut, "read_hits"), 2u);
  EXPECT_EQ(counter(dut, "pending_hits"), 1u);
  EXPECT_EQ(counter(dut, "writebacks"), 0u);
  EXPECT_EQ(counter(dut, "port_busy_ps"), 3u * 2 * kCycle);
}

}  // namespace
}  // namespace smshare::tb
