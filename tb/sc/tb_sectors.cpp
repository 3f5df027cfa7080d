// Sector fills against line fills: the microbenchmark traces of
// tb/traces/sectors/ run on one Fermi SM (fermi-gtx480, gpu.num_sms=1) with
// l1.sector_bytes = l2.sector_bytes = 0 (whole 128 B lines, the default) and
// = 32 (GPGPU-Sim 4's sectors: gpu-cache.h sector_cache_block, gpu-cache.cc
// tag_array::probe). Every expected number is derived by hand below: a line
// fill moves 128 B per touched line, a sector fill 32 B per touched sector.
#include <gtest/gtest.h>

#include <string>

#include "hw/top/simulation.hpp"
#include "tb/common/compact_gtx480.hpp"

namespace smshare {
namespace {

const std::string kTraces = std::string(SMSHARE_SOURCE_DIR) + "/tb/traces/sectors/";

nlohmann::json run(const std::string& trace, unsigned sector_bytes) {
  RunRequest req;
  req.config = "fermi-gtx480";
  req.trace = kTraces + trace + ".g";
  const std::string s = std::to_string(sector_bytes);
  req.overrides = tb::compact_gtx480({"gpu.num_sms=1", "l1.sector_bytes=" + s, "l2.sector_bytes=" + s});
  return run_simulation(req);
}

struct Totals {
  uint64_t l2_read_misses = 0, l2_read_hits = 0, l2_sector_misses = 0, dram_read_bytes = 0, dram_reads = 0;
};

Totals memory_totals(const nlohmann::json& r) {
  Totals t;
  const auto& m = r["counters"]["memory"];
  for (const auto& p : m["l2_partitions"]) {
    t.l2_read_misses += p["read_misses"].get<uint64_t>();
    t.l2_read_hits += p["read_hits"].get<uint64_t>();
    t.l2_sector_misses += p["sector_misses"].get<uint64_t>();
  }
  for (const auto& c : m["dram_channels"]) {
    t.dram_read_bytes += c["read_bytes"].get<uint64_t>();
    t.dram_reads += c["reads"].get<uint64_t>();
  }
  return t;
}

uint64_t l1(const nlohmann::json& r, const char* counter) { return r["counters"]["l1"][counter].get<uint64_t>(); }
uint64_t icnt_down(const nlohmann::json& r) { return r["counters"]["memory"]["icnt"]["bytes_down"].get<uint64_t>(); }

// stride128: 2 warps; each loads one 4 B word from each of 32 lines 128 B
// apart (warp 1 4 KB after warp 0: 64 distinct lines, 2 per L1 set, so
// nothing is evicted), then the word 32 B further on in the same 32 lines.
TEST(Sectors, Stride128LineFillsMove128BytesPerLine) {
  // Lines: the first load misses 64 lines, each a 128 B fill from DRAM
  // through L2 (64 x 128 = 8192 B); the second load finds every line
  // allocated, its fill still in flight: 64 pending hits, nothing more moved.
  const auto r = run("stride128", 0);
  EXPECT_EQ(l1(r, "misses"), 64u);
  EXPECT_EQ(l1(r, "hits"), 64u);
  EXPECT_EQ(l1(r, "pending_hits"), 64u);
  EXPECT_EQ(l1(r, "sector_misses"), 0u);
  const Totals t = memory_totals(r);
  EXPECT_EQ(t.l2_read_misses, 64u);
  EXPECT_EQ(t.l2_sector_misses, 0u);
  EXPECT_EQ(t.dram_reads, 64u);
  EXPECT_EQ(t.dram_read_bytes, 64u * 128);
  EXPECT_EQ(icnt_down(r), 64u * 128);
}

TEST(Sectors, Stride128SectorFillsMove32BytesPerSector) {
  // Sectors: the first load misses 64 lines and fetches only sector 0 of
  // each (64 x 32 B). The second needs sector 1, which no line has: 64 more
  // L1 misses, all sector misses (tag present), each one 32 B request to L2,
  // where sector 1 is missing too: 64 L2 sector misses, 64 x 32 B more from
  // DRAM. 128 x 32 = 4096 B in all, half the line fills' 8192 B.
  const auto r = run("stride128", 32);
  EXPECT_EQ(l1(r, "misses"), 128u);
  EXPECT_EQ(l1(r, "sector_misses"), 64u);
  EXPECT_EQ(l1(r, "hits"), 0u);
  const Totals t = memory_totals(r);
  EXPECT_EQ(t.l2_read_misses, 128u);
  EXPECT_EQ(t.l2_sector_misses, 64u);
  EXPECT_EQ(t.l2_read_hits, 0u);
  EXPECT_EQ(t.dram_reads, 128u);
  EXPECT_EQ(t.dram_read_bytes, 128u * 32);
  EXPECT_EQ(icnt_down(r), 128u * 32);
}

// stride32: 2 warps; each loads one word from every 32 B sector of 8 lines
// (warp 1 1 KB after warp 0: 16 lines). Every sector of every line is
// touched, so sectors save nothing: 16 misses of 4 sectors = 16 x 128 B.
// (One simulation per process: one configuration per test.)
void expect_stride32_moves_whole_lines(unsigned sector_bytes) {
  const auto r = run("stride32", sector_bytes);
  EXPECT_EQ(l1(r, "misses"), 16u);
  EXPECT_EQ(l1(r, "sector_misses"), 0u);
  const Totals t = memory_totals(r);
  EXPECT_EQ(t.l2_read_misses, 16u);
  EXPECT_EQ(t.dram_read_bytes, 16u * 128);
  EXPECT_EQ(icnt_down(r), 16u * 128);
}
TEST(Sectors, Stride32LineFillsMoveWholeLines) { expect_stride32_moves_whole_lines(0); }
TEST(Sectors, Stride32TouchesEverySectorSoSectorFillsMoveWholeLinesToo) { expect_stride32_moves_whole_lines(32); }

// one_lane: one warp, lane 0 loads one word, then EXIT. The LDG issues in
// cycle 1, reads its operand in 2, enters the LDST unit in 3, which sends
// the line request in cycle 4 (tb/sc/tb_trace.cpp derives the same pipeline
// steps); the warp retires in the cycle its data is back, and the kernel
// takes that cycle + 1. Fermi: core cycle 714 ps; icnt 20 cycles each way at
// 32 B/cycle; L2 hit latency 80 cycles; cold DRAM bank: tRCD + tCL =
// 2 x round(12 / 924 MHz) = 2 x 12987 ps; the bus moves 177.4 GB/s / 6
// channels: round(128 B) = 4329 ps, round(32 B) = 1082 ps.
//   line:   4 x 714 + (20 + 80 + 20 + 128/32) x 714 + 25974 + 4329 = 121695 ps
//           -> data back in cycle ceil(121695 / 714) = 171: 172 cycles
//   sector: 4 x 714 + (20 + 80 + 20 + 32/32) x 714 + 25974 + 1082 = 116306 ps
//           -> cycle ceil(116306 / 714) = 163: 164 cycles
TEST(Sectors, OneLineFillTakes172Cycles) {
  const auto r = run("one_lane", 0);
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 172u);
  EXPECT_EQ(memory_totals(r).dram_read_bytes, 128u);
}
TEST(Sectors, OneSectorFillTakes164Cycles) {
  const auto r = run("one_lane", 32);
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 164u);
  EXPECT_EQ(memory_totals(r).dram_read_bytes, 32u);
}

}  // namespace
}  // namespace smshare
