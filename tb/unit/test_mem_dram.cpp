// DRAM channel timing and the address mapping, with round numbers:
// 1 GHz DRAM clock (1 ns cycles), tCL 10, tRCD 12, tRP 14, tRAS 30,
// 2 channels, 4 banks, 1 KB rows, 256 B interleave, 128 B lines, 64 GB/s
// (32 GB/s per channel: one line every 4 ns).
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <utility>

#include "tb/common/round_memory_specs.hpp"
#include "hw/mem/dram_address_map.hpp"
#include "hw/mem/dram_channel.hpp"

namespace smshare {
namespace {


constexpr uint64_t kLine = 4000;  // ps per 128 B line on one channel
constexpr uint64_t kCL = 10000, kRCD = 12000, kRP = 14000, kRAS = 30000;

TEST(DramAddressMap, ChannelsInterleaveEveryInterleaveBytes) {
  DramAddressMap m(tb::round_dram_spec());
  EXPECT_EQ(m.channel(0), 0u);
  EXPECT_EQ(m.channel(255), 0u);
  EXPECT_EQ(m.channel(256), 1u);
  EXPECT_EQ(m.channel(512), 0u);
  EXPECT_EQ(m.channel(768 + 128), 1u);
  // Channel-local addresses are dense: each channel sees 0, 128, 256, ...
  EXPECT_EQ(m.local(128), 128u);
  EXPECT_EQ(m.local(256), 0u);
  EXPECT_EQ(m.local(512), 256u);
  EXPECT_EQ(m.local(768 + 128), 384u);
}

TEST(DramAddressMap, FermiSixChannels) {
  DramAddressMap m(DramSpec{});  // 6 channels, 256 B interleave
  for (uint32_t c = 0; c < 6; ++c) EXPECT_EQ(m.channel(c * 256 + 128), c);
  EXPECT_EQ(m.channel(6 * 256), 0u);
  EXPECT_EQ(m.local(6 * 256 + 130), 256u + 130u);
}

TEST(DramAddressMap, ConsecutivePagesUseEveryBankAndBankRowIsUnique) {
  DramAddressMap m(tb::round_dram_spec());
  EXPECT_EQ(m.bank(0), 0u);
  EXPECT_EQ(m.bank(1023), 0u);
  EXPECT_EQ(m.bank(1024), 1u);
  EXPECT_EQ(m.row(4096), 1u);
  EXPECT_EQ(m.bank(4096), 1u);  // row 1 is skewed by (0x9E3779B97F4A7C15 >> 40) % 4 = 1
  EXPECT_EQ(m.bank(7168), 0u);
  std::set<std::pair<uint32_t, uint64_t>> seen;
  for (uint64_t page = 0; page < 4096; ++page) {
    EXPECT_LT(m.bank(page * 1024), 4u);
    EXPECT_TRUE(seen.insert({m.bank(page * 1024), m.row(page * 1024)}).second) << page;
  }
  std::set<uint32_t> banks;
  for (uint64_t page = 100; page < 104; ++page) banks.insert(m.bank(page * 1024));
  EXPECT_EQ(banks.size(), 4u);
}

TEST(DramAddressMap, RowSkewSpreadsStreamsOneBankRowApart) {
  // Pages 16 apart (Fermi: 16 banks) would all share one bank without the skew.
  DramSpec d;
  DramAddressMap m(d);
  std::set<uint32_t> banks;
  for (uint64_t row = 0; row < 16; ++row) banks.insert(m.bank((row * d.banks + 3) * d.row_bytes));
  EXPECT_GE(banks.size(), 8u);
}

TEST(DramChannel, TimingParametersInPicoseconds) {
  DramChannelTiming ch(tb::round_dram_spec(), 128);
  EXPECT_EQ(ch.line_time_ps(), kLine);
  EXPECT_EQ(ch.tCL_ps(), kCL);
  EXPECT_EQ(ch.tRAS_ps(), kRAS);
  // Fermi: 177.4 GB/s over 6 channels, 128 B -> 4329.2 ps; 924 MHz, tCL 12 -> 12987 ps.
  DramChannelTiming fermi(DramSpec{}, 128);
  EXPECT_EQ(fermi.line_time_ps(), 4329u);
  EXPECT_EQ(fermi.tCL_ps(), 12987u);
}

TEST(DramChannel, ClosedBankActivatesThenReads) {
  DramChannelTiming ch(tb::round_dram_spec(), 128);
  EXPECT_EQ(ch.access(5000, 0, false), 5000 + kRCD + kCL + kLine);
  EXPECT_EQ(ch.counters().activates, 1u);
  EXPECT_EQ(ch.counters().row_hits, 0u);
}

TEST(DramChannel, RowHitPaysOnlyCasLatency) {
  DramChannelTiming ch(tb::round_dram_spec(), 128);
  ch.access(0, 0, false);                               // opens row 0 of bank 0, bus busy until 26 ns
  EXPECT_EQ(ch.access(100000, 128, false), 100000 + kCL + kLine);
  EXPECT_EQ(ch.counters().row_hits, 1u);
  EXPECT_EQ(ch.counters().activates, 1u);
}

TEST(DramChannel, RowConflictPrechargesAndActivates) {
  DramChannelTiming ch(tb::round_dram_spec(), 128);
  ch.access(0, 0, false);  // bank 0, row 0
  // Local 7168 is bank 0, row 1: precharge, activate, read.
  EXPECT_EQ(ch.access(100000, 7168, false), 100000 + kRP + kRCD + kCL + kLine);
  EXPECT_EQ(ch.counters().activates, 2u);
  EXPECT_EQ(ch.counters().row_hits, 0u);
}

TEST(DramChannel, RowConflictWaitsForTras) {
  DramChannelTiming ch(tb::round_dram_spec(), 128);
  ch.access(0, 0, false);  // activate at 0
  // Precharge no earlier than tRAS (30 ns) after that activate.
  EXPECT_EQ(ch.access(0, 7168, false), kRAS + kRP + kRCD + kCL + kLine);
}

TEST(DramChannel, BackToBackLinesAreBoundByTheDataBus) {
  DramChannelTiming ch(tb::round_dram_spec(), 128);
  const int n = 64;  // 8 KB: pages 0..7, banks in both rows, row hits within a page
  uint64_t last = 0;
  for (int i = 0; i < n; ++i) last = ch.access(0, uint64_t(i) * 128, false);
  EXPECT_EQ(last, kRCD + kCL + n * kLine);
  EXPECT_EQ(ch.counters().reads, uint64_t(n));
  EXPECT_EQ(ch.counters().bytes, uint64_t(n) * 128);
  EXPECT_EQ(ch.counters().activates, 8u);
  EXPECT_EQ(ch.counters().row_hits, uint64_t(n) - 8);
  EXPECT_EQ(ch.bus_busy_ps(), n * kLine);
}

TEST(DramChannel, BanksWorkInParallelBehindTheBus) {
  DramChannelTiming ch(tb::round_dram_spec(), 128);
  // Four different banks at once: one activate each, overlapped; only the bus serializes.
  for (int b = 0; b < 4; ++b) EXPECT_EQ(ch.access(0, uint64_t(b) * 1024, false), kRCD + kCL + (b + 1) * kLine);
}

TEST(DramChannel, WritesCountSeparately) {
  DramChannelTiming ch(tb::round_dram_spec(), 128);
  EXPECT_EQ(ch.access(0, 0, true), kRCD + kCL + kLine);
  ch.access(0, 128, false);
  EXPECT_EQ(ch.counters().writes, 1u);
  EXPECT_EQ(ch.counters().reads, 1u);
}

TEST(DramChannel, QueueDepthCountsRequestsNotYetReturned) {
  DramChannelTiming ch(tb::round_dram_spec(), 128);
  for (int i = 0; i < 64; ++i) ch.access(0, uint64_t(i) * 128, false);  // done at 26 ns + 4 ns * i
  const uint64_t first = kRCD + kCL + kLine;
  EXPECT_EQ(ch.queue_depth(0), 64u);
  EXPECT_EQ(ch.queue_depth(first - 1), 64u);
  EXPECT_EQ(ch.queue_depth(first), 63u);
  ch.retire(100000);                        // done_i <= 100 ns for i <= 18
  EXPECT_EQ(ch.queue_depth(100000), 45u);
  EXPECT_EQ(ch.queue_depth(first + 63 * kLine), 0u);
  // The record grows past its initial size and stays ordered.
  for (int i = 0; i < 200; ++i) ch.access(0, uint64_t(i) * 128, false);
  EXPECT_EQ(ch.queue_depth(100000), 45u + 200u);
}

TEST(DramChannel, BusTimeIsProportionalToTheBurstsMoved) {
  // Sectored (32 B bursts): a quarter of the 4 ns line time per sector.
  DramChannelTiming ch(tb::round_dram_spec(), 128, 32);
  EXPECT_EQ(ch.line_time_ps(), kLine);
  EXPECT_EQ(ch.access(0, 0, false, 32), 12000u + 10000 + 1000);
  EXPECT_EQ(ch.access(100000, 128, false, 96), 100000u + 10000 + 3000);  // row hit, three bursts
  EXPECT_EQ(ch.counters().read_bytes, 128u);
  EXPECT_EQ(ch.counters().bytes, 128u);
  // Not sectored: the burst is the line, whatever fewer bytes are asked.
  DramChannelTiming line(tb::round_dram_spec(), 128);
  EXPECT_EQ(line.access(0, 0, false, 32), 12000u + 10000 + kLine);
}

TEST(DramChannel, QueueDepthRecordLeftOutChangesNoTiming) {
  // The record behind queue_depth() is bookkeeping only: without it the
  // same requests get the same times; it can be left out only before the
  // first request, and is then not asked.
  DramChannelTiming kept(tb::round_dram_spec(), 128);
  DramChannelTiming left(tb::round_dram_spec(), 128);
  left.keep_queue_depth(false);
  EXPECT_FALSE(left.keeps_queue_depth());
  for (int i = 0; i < 100; ++i) {
    const uint64_t addr = uint64_t(i % 7) * 4096 + uint64_t(i) * 128;
    EXPECT_EQ(kept.access(uint64_t(i) * 1000, addr, i % 3 == 0), left.access(uint64_t(i) * 1000, addr, i % 3 == 0));
    kept.retire(uint64_t(i) * 1000);
    left.retire(uint64_t(i) * 1000);
  }
  EXPECT_THROW(left.queue_depth(0), std::logic_error);
  EXPECT_THROW(kept.keep_queue_depth(false), std::logic_error);
  EXPECT_THROW(left.keep_queue_depth(true), std::logic_error);
}

}  // namespace
}  // namespace smshare
