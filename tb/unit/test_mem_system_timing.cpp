// The whole memory path in plain C++ (MemoryTiming) with the Fermi defaults
// of GpuSpec: 714 ps core cycle, icnt 20 cycles each way at 32 B/cycle,
// L2 hit 80 cycles, 6 channels interleaved every 256 B.
#include <gtest/gtest.h>

#include "hw/mem/memory_timing.hpp"

namespace smshare {
namespace {

constexpr uint64_t kCycle = 714;

MemRequest read(uint32_t sm, uint64_t addr, uint64_t t, uint32_t bytes = 128) {
  MemRequest r;
  r.sm = sm;
  r.addr = addr;
  r.bytes = bytes;
  r.now_ps = t;
  r.issue_ps = t;
  return r;
}

MemRequest write(uint32_t sm, uint64_t addr, uint64_t t, uint32_t bytes = 128) {
  MemRequest r = read(sm, addr, t, bytes);
  r.is_write = true;
  return r;
}

TEST(MemoryTiming, L2HitIsInterconnectPlusHitLatency) {
  GpuSpec spec;
  ASSERT_EQ(spec.core_period_ps(), kCycle);
  MemoryTiming m(spec);
  uint64_t done = 0;
  ASSERT_EQ(m.access(read(0, 0x1000, 0), done), MemStatus::ok);
  const uint64_t t = 1000000;
  ASSERT_EQ(m.access(read(3, 0x1000, t), done), MemStatus::ok);
  // 20 up (control packet) + 80 in L2 + 20 down + 4 cycles of 128 B at 32 B/cycle.
  EXPECT_EQ(done - t, (20 + 80 + 20 + 4) * kCycle);
}

TEST(MemoryTiming, ReadMissAddsDram) {
  GpuSpec spec;
  MemoryTiming m(spec);
  const DramChannelTiming& ch = m.dram(0);
  uint64_t done = 0;
  ASSERT_EQ(m.access(read(0, 0, 0), done), MemStatus::ok);
  EXPECT_EQ(done, (20 + 80) * kCycle + ch.tRCD_ps() + ch.tCL_ps() + ch.line_time_ps() + (20 + 4) * kCycle);
}

TEST(MemoryTiming, WriteDataGoesUpAndAckComesBack) {
  GpuSpec spec;
  MemoryTiming m(spec);
  uint64_t done = 0;
  ASSERT_EQ(m.access(write(1, 0x2000, 0), done), MemStatus::ok);
  EXPECT_EQ(done, (20 + 4 + 80 + 20) * kCycle);
  ASSERT_EQ(m.access(write(1, 0x3000, 0, 32), done), MemStatus::ok);  // 32 B: one cycle on each port
  EXPECT_EQ(done, 4 * kCycle + (20 + 1 + 80 + 20) * kCycle);        // behind the first on the SM port
  EXPECT_EQ(m.icnt().bytes_up(), 160u);
}

TEST(MemoryTiming, SmResponsePortLimitsOneSm) {
  GpuSpec spec;
  MemoryTiming m(spec);
  uint64_t first = 0, second = 0;
  m.access(read(0, 0x1000, 0), first);  // warm two lines in different partitions
  m.access(read(0, 0x1100, 0), first);
  const uint64_t t = 1000000;
  m.access(read(0, 0x1000, t), first);
  m.access(read(0, 0x1100, t), second);
  EXPECT_EQ(second - first, 4 * kCycle);  // both hit; the SM's down port is shared
}

TEST(MemoryTiming, LinesInterleaveOverChannels) {
  GpuSpec spec;
  MemoryTiming m(spec);
  uint64_t done = 0;
  for (uint64_t i = 0; i < 12; ++i) ASSERT_EQ(m.access(read(0, i * 128, 0), done), MemStatus::ok);
  for (uint32_t c = 0; c < 6; ++c) {
    EXPECT_EQ(m.dram(c).counters().reads, 2u) << c;
    EXPECT_EQ(m.l2(c).counters().read_misses, 2u) << c;
  }
}

TEST(MemoryTiming, BadRequestsAreRejectedAndBookNothing) {
  GpuSpec spec;
  MemoryTiming m(spec, /*dram_capacity_bytes=*/1ull << 30);
  uint64_t done = 12345;
  EXPECT_EQ(m.access(read(0, 0, 0, 0), done), MemStatus::length_error);
  EXPECT_EQ(m.access(read(0, 64, 0, 128), done), MemStatus::length_error);  // crosses a line
  EXPECT_EQ(m.access(read(0, 1ull << 30, 0), done), MemStatus::address_error);
  EXPECT_EQ(m.access(read(0, (1ull << 30) - 64, 0, 64), done), MemStatus::ok);
  EXPECT_EQ(m.access(read(0, ~0ull - 63, 0, 64), done), MemStatus::address_error);
  EXPECT_EQ(m.access(read(15, 0, 0), done), MemStatus::port_error);
  EXPECT_EQ(m.access(read(0, spec.dram.swap_base + spec.dram.swap_bytes, 0), done), MemStatus::address_error);
  EXPECT_EQ(m.stats_json()["errors"], 6u);
  uint64_t reads = 0;
  for (uint32_t c = 0; c < 6; ++c) reads += m.dram(c).counters().reads;
  EXPECT_EQ(reads, 1u);
}

TEST(MemoryTiming, SwapRegionIsRoutedAndCountedSeparately) {
  GpuSpec spec;
  MemoryTiming m(spec, 1ull << 30);
  const uint64_t base = spec.dram.swap_base;
  EXPECT_FALSE(m.is_swap(base - 1));
  EXPECT_TRUE(m.is_swap(base));
  EXPECT_TRUE(m.is_swap(base + spec.dram.swap_bytes - 1));
  EXPECT_FALSE(m.is_swap(base + spec.dram.swap_bytes));
  uint64_t done = 0;
  ASSERT_EQ(m.access(read(2, base + 256, 0), done), MemStatus::ok);
  ASSERT_EQ(m.access(write(2, base + 512, 0), done), MemStatus::ok);
  ASSERT_EQ(m.access(write(2, base + 640, 0), done), MemStatus::ok);
  ASSERT_EQ(m.access(read(2, 4096, 0), done), MemStatus::ok);
  EXPECT_EQ(m.swap_reads(), 1u);
  EXPECT_EQ(m.swap_writes(), 2u);
  EXPECT_EQ(m.dram(m.address_map().channel(base + 256)).counters().reads, 1u);
}

TEST(MemoryTiming, DefaultCapacityIsEverythingBelowSwap) {
  GpuSpec spec;
  MemoryTiming m(spec);
  uint64_t done = 0;
  EXPECT_EQ(m.access(read(0, spec.dram.swap_base - 128, 0), done), MemStatus::ok);
}

TEST(MemoryTiming, CountersForThePowerModel) {
  GpuSpec spec;
  MemoryTiming m(spec);
  uint64_t done = 0;
  m.access(read(0, 0, 0), done);            // miss: lookup + fill
  m.access(read(0, 0, 1000000), done);      // hit
  m.access(write(0, 128 * 6, 0), done);     // write miss (channel 0 again)
  ActivityCounters a;
  m.collect(a);
  EXPECT_EQ(a["l2_slice"].reads, 2u);
  EXPECT_EQ(a["l2_slice"].writes, 2u);
  EXPECT_EQ(a["l2_slice"].instances, 6u);
  EXPECT_EQ(a["dram"].reads, 1u);
  EXPECT_EQ(a["dram"].writes, 0u);
  EXPECT_EQ(a["dram"].instances, 6u);
  const nlohmann::json j = m.stats_json();
  EXPECT_EQ(j["l2_partitions"][0]["read_hits"], 1u);
  EXPECT_EQ(j["dram_channels"][0]["bytes"], 128u);
  EXPECT_EQ(j["icnt"]["bytes_down"], 256u);
  EXPECT_EQ(j["icnt"]["bytes_up"], 128u);
  EXPECT_EQ(j["swap"]["reads"], 0u);
}

TEST(MemoryTiming, DramQueueDepthFollowsTime) {
  GpuSpec spec;
  MemoryTiming m(spec);
  uint64_t done = 0;
  for (uint64_t i = 0; i < 12; ++i) m.access(read(0, i * 128, 0), done);
  EXPECT_EQ(m.dram_queue_depth(0), 12u);
  EXPECT_EQ(m.dram_queue_depth(done), 0u);
}

TEST(MemoryTiming, AChunkMaskNamesNonContiguousSectorsAndTheirBytes) {
  GpuSpec spec;
  spec.l2.sector_bytes = 32;
  MemoryTiming m(spec);
  uint64_t done = 0;
  // Chunks 0 and 2 of the line at 0x1000: 64 B down the interconnect, 64 B from DRAM.
  MemRequest r = read(0, 0x1000, 0, 64);
  r.chunks = ChunkMask::from_bits(0x5);
  ASSERT_EQ(m.access(r, done), MemStatus::ok);
  EXPECT_EQ(m.icnt().bytes_down(), 64u);
  uint64_t dram_bytes = 0;
  for (uint32_t c = 0; c < m.partitions(); ++c) dram_bytes += m.dram(c).counters().read_bytes;
  EXPECT_EQ(dram_bytes, 64u);
  // Counted from the chunk holding the address: chunk 1 of the mask at 0x1040 is chunk 3 of the line.
  r = read(0, 0x1040, 1000000, 32);
  r.chunks = ChunkMask::from_bits(0x2);
  ASSERT_EQ(m.access(r, done), MemStatus::ok);
  EXPECT_EQ(m.l2(m.address_map().channel(0x1000)).counters().sector_misses, 1u);
  // Bytes that disagree with the mask, or chunks past the line, are refused.
  r = read(0, 0x1000, 2000000, 32);
  r.chunks = ChunkMask::from_bits(0x3);
  EXPECT_EQ(m.access(r, done), MemStatus::length_error);
  r = read(0, 0x1060, 2000000, 64);
  r.chunks = ChunkMask::from_bits(0x3);
  EXPECT_EQ(m.access(r, done), MemStatus::length_error);
}

TEST(MemoryTiming, AChunkShiftedPastTheMaskIsRefused) {
  // 1024 B lines: a mask's 32 chunks are the whole line, so from chunk 1 of
  // a line, the mask's last chunk would be chunk 32: no such chunk.
  GpuSpec spec;
  spec.l2.line_bytes = 1024;
  MemoryTiming m(spec);
  uint64_t done = 0;
  MemRequest r = read(0, 0x2020, 0, 64);
  r.chunks = ChunkMask::from_bits(0x80000001u);
  EXPECT_EQ(m.access(r, done), MemStatus::length_error);
  r.chunks = ChunkMask::from_bits(0x40000001u);  // chunks 1 and 31: inside the line
  EXPECT_EQ(m.access(r, done), MemStatus::ok);
}

}  // namespace
}  // namespace smshare
