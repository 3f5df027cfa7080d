// Testbench of one structure module, gpu.memory.dram_channel<c>, driven
// through its plain object (DramChannelTiming::access, as the L2 slice calls
// it) without the rest of the memory system. Copy it to test a new
// structure: build the plain object, bind the module, drive it cycle by
// cycle with StructureBench, and check times, probes and counters.
//
// Round numbers (tb/common/round_memory_specs.hpp): 1 ns core cycle; DRAM tRCD
// 12 ns, tCL 10 ns, tRP 14 ns, tRAS 30 ns, one 128 B line on the bus per 4 ns.
#include <gtest/gtest.h>

#include "common/round_memory_specs.hpp"
#include "common/structure_bench.hpp"
#include "hw/mem/dram_channel_module.hpp"

namespace smshare::tb {
namespace {

constexpr uint64_t kCycle = 1000;  // ps

TEST(DramChannelModule, SameRowIsARowHitAnotherRowOfTheBankAConflict) {
  DramChannelTiming channel(round_dram_spec(), 128);
  DramChannelModule dut("dram_channel0", channel, kCycle);
  // Local addresses 0 and 128 are in row 0 of one bank; 7168 (page 7) is in
  // row 1 of the same bank (dram_address_map.hpp: bank = (page % 4 + skew(row)) % 4).
  ASSERT_EQ(channel.address_map().bank(7168), channel.address_map().bank(0));
  uint64_t done[3] = {};
  StructureBench bench("bench", dut, kCycle, 80, [&](uint64_t cycle) {
    if (cycle == 0) done[0] = channel.access(0 * kCycle, 0, false);
    if (cycle == 1) done[1] = channel.access(1 * kCycle, 128, false);
    if (cycle == 2) done[2] = channel.access(2 * kCycle, 7168, false);
  });
  sc_core::sc_start();

  // Closed bank: activate at 0, column at tRCD = 12, data at +tCL = 22, on the bus until 26.
  EXPECT_EQ(done[0], 26 * kCycle);
  // Row hit: column command after the activate's (12), data at 22, waits for the bus: 26..30.
  EXPECT_EQ(done[1], 30 * kCycle);
  // Row conflict: precharge not before activate + tRAS = 30, activate at 30 + tRP = 44,
  // column at 56, data at 66, bus 66..70.
  EXPECT_EQ(done[2], 70 * kCycle);

  // Probes of the cycle each request was booked in.
  EXPECT_EQ(bench.probe("activates", 0), 1);
  EXPECT_EQ(bench.probe("row_hits", 0), 0);
  EXPECT_EQ(bench.probe("row_hits", 1), 1);
  EXPECT_EQ(bench.probe("activates", 1), 0);
  EXPECT_EQ(bench.probe("activates", 2), 1);
  EXPECT_EQ(bench.probe("activates", 3), 0);
  // Queue depth: booked requests whose data is not off the bus yet.
  EXPECT_EQ(bench.probe("queue_depth", 0), 1);
  EXPECT_EQ(bench.probe("queue_depth", 2), 3);
  EXPECT_EQ(bench.probe("queue_depth", 25), 3);
  EXPECT_EQ(bench.probe("queue_depth", 26), 2);
  EXPECT_EQ(bench.probe("queue_depth", 30), 1);
  EXPECT_EQ(bench.probe("queue_depth", 69), 1);
  EXPECT_EQ(bench.probe("queue_depth", 70), 0);

  EXPECT_EQ(counter(dut, "reads"), 3u);
  EXPECT_EQ(counter(dut, "row_hits"), 1u);
  EXPECT_EQ(counter(dut, "activates"), 2u);
  EXPECT_EQ(counter(dut, "bytes"), 3u * 128);
  EXPECT_EQ(counter(dut, "bus_busy_ps"), 3u * 4 * kCycle);
}

}  // namespace
}  // namespace smshare::tb
