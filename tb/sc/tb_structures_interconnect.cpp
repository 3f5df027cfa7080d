// Testbench of the structure module gpu.memory.interconnect, driven through
// its plain object (Interconnect::to_partition / to_sm, as MemoryTiming
// calls them). See tb_structures_dram_channel.cpp for the pattern.
//
// Round numbers: 1 ns core cycle; 20 cycles across; every port moves 32 B
// per cycle (a 128 B line holds a port 4 cycles). Cut-through: a packet
// starts into the destination port 20 cycles after it started leaving the
// source port.
#include <gtest/gtest.h>

#include "common/structure_bench.hpp"
#include "hw/mem/interconnect_module.hpp"

namespace smshare::tb {
namespace {

constexpr uint64_t kCycle = 1000;  // ps

TEST(InterconnectModule, PartitionPortServesPacketsInBookingOrder) {
  InterconnectSpec spec;
  spec.latency = 20;
  spec.bytes_per_cycle = 32;
  Interconnect icnt(spec, /*sms=*/2, /*partitions=*/2, kCycle);
  InterconnectModule dut("interconnect", icnt);
  uint64_t write_sm1 = 0, write_sm0 = 0, read_request = 0, read_data = 0;
  StructureBench bench("bench", dut, kCycle, 10, [&](uint64_t cycle) {
    if (cycle == 0) {
      // SM1 books first, then SM0, both writing a line to partition 0 now.
      write_sm1 = icnt.to_partition(1, 0, 0, 128);
      write_sm0 = icnt.to_partition(0, 0, 0, 128);
      // A read request is a control packet: latency only, no port.
      read_request = icnt.to_partition(0, 1, 0, 0);
    }
    if (cycle == 5) read_data = icnt.to_sm(1, 0, 5 * kCycle, 128);  // its data coming back
  });
  sc_core::sc_start();

  // SM1's line enters partition 0's port at 20 and is whole at 24; SM0's
  // left its own SM port at 0 too, but waits for the partition port: 24..28.
  EXPECT_EQ(write_sm1, 24 * kCycle);
  EXPECT_EQ(write_sm0, 28 * kCycle);
  EXPECT_EQ(read_request, 20 * kCycle);
  // Data down: leaves partition 1 at 5, enters SM0's port at 25, whole at 29.
  EXPECT_EQ(read_data, 29 * kCycle);

  EXPECT_EQ(bench.probe("requests", 0), 3);
  EXPECT_EQ(bench.probe("bytes_up", 0), 256);
  EXPECT_EQ(bench.probe("bytes_down", 0), 0);
  EXPECT_EQ(bench.probe("requests", 5), 0);
  EXPECT_EQ(bench.probe("bytes_down", 5), 128);
  EXPECT_EQ(bench.probe("bytes_up", 6), 0);

  EXPECT_EQ(counter(dut, "requests"), 3u);
  EXPECT_EQ(counter(dut, "bytes_up"), 256u);
  EXPECT_EQ(counter(dut, "bytes_down"), 128u);
}

}  // namespace
}  // namespace smshare::tb
