// Instruction-cache microbenchmarks (tb/traces/icache/): whole runs of the
// trace front end on a one-SM GTX 480 with Kepler's L1I (GPGPU-Sim
// -gpgpu_cache:il1 N:8:128:4: 4 KB, 128 B lines, 4 ways), cycles derived by
// hand from GPGPU-Sim 4's fetch rule (shader.cc shader_core_ctx::fetch()
// and decode(), docs/architecture.md "Instruction cache").
//
// One warp of NOPs (no registers, no memory) 8 bytes apart, so fetch is the
// only cost. A fetch group is sm.ibuffer_entries = 2 instructions; a line
// holds 128 / 8 = 16 instructions = 8 groups. With L = icache.hit_latency:
//   hit  at fetch cycle f: issues at f+L and f+L+1; the buffer is empty
//        after the second issue, so the next fetch is at f+L+1 (period L+1);
//   miss at f: the fill is back at f+M and takes that cycle's fetch slot,
//        so the group issues at f+M+L, f+M+L+1 (period M+L+1).
// The kernel's first fetch is in its launch cycle. Its last group is NOP,
// EXIT: the NOP issued at f+L is dispatched at f+L+1 (no operands) and
// written back at f+L+1+4 (sm.int_alu.latency), the cycle the warp retires;
// so a kernel whose last group is fetched at f takes f + L + 6 cycles after
// a hit (f + M + L + 6 after a miss).
//
// Each kernelslist launches the kernel twice. Each kernel starts with a cold
// instruction cache but the L2 keeps the code, so every miss of the second
// kernel is an L2 hit of fixed latency:
//   M = icnt.latency 20 (request up) + l2.hit_latency 80
//       + icnt.latency 20 + 128 B / icnt.bytes_per_cycle 32 (data down) = 124.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/top/simulation.hpp"
#include "tb/common/compact_gtx480.hpp"

namespace smshare {
namespace {

const std::string kTraces = std::string(SMSHARE_SOURCE_DIR) + "/tb/traces/icache/";

constexpr uint64_t kMiss = 20 + 80 + 20 + 128 / 32;  // M: a line from L2
constexpr uint64_t kTail = 6;                        // last group's fetch to retirement, beyond L

nlohmann::json run_trace(const std::string& name, std::vector<std::string> overrides) {
  RunRequest req;
  req.config = "fermi-gtx480";
  req.trace = kTraces + name + "/kernelslist.g";
  overrides.insert(overrides.begin(), "gpu.num_sms=1");
  req.overrides = tb::compact_gtx480(overrides);
  return run_simulation(req);
}

std::vector<std::string> kepler_icache(uint32_t size_bytes = 4096, uint32_t hit_latency = 2) {
  return {"icache.size_bytes=" + std::to_string(size_bytes), "icache.line_bytes=128", "icache.ways=4",
          "icache.hit_latency=" + std::to_string(hit_latency)};
}

// Cycles of a kernel of `groups` fetch groups of which `misses` miss (the
// last group `last_misses` or not), every miss costing M.
uint64_t kernel_cycles(uint64_t groups, uint64_t misses, bool last_misses, uint64_t L) {
  const uint64_t before_last_misses = misses - (last_misses ? 1 : 0);
  const uint64_t before_last = groups - 1;
  const uint64_t f_last = before_last_misses * (kMiss + L + 1) + (before_last - before_last_misses) * (L + 1);
  return f_last + (last_misses ? kMiss : 0) + L + kTail;
}

TEST(IcacheMicrobenchmark, WithoutItTheStraightLineIssuesOneInstructionPerCycle) {
  // 2048 instructions, groups fetched at 0, 2, 4, ...: the last (NOP, EXIT)
  // at 2046, so 2046 + 1 + 6 = 2053 cycles, as kernel_cycles gives for L = 1
  // and no misses.
  auto r = run_trace("straight", {});
  EXPECT_EQ(r["kernels"][1]["cycles"].get<uint64_t>(), 2053u);
  EXPECT_EQ(kernel_cycles(1024, 0, false, 1), 2053u);
  EXPECT_FALSE(r["counters"].contains("icache"));
}

TEST(IcacheMicrobenchmark, StraightLineCodeMissesOneFetchInEight) {
  // 2048 instructions = 1024 groups over 128 lines: each line's first group
  // misses, the other 7 hit (12.5 % of fetches miss: GPGPU-Sim's 13 % on
  // long straight-line code). The last group is the 8th of line 127: a hit.
  //   f_last = 128 (M + 3) + (1023 - 128) 3 = 128 M + 3069 = 18941
  //   cycles = 18941 + 2 + 6 = 18949
  auto r = run_trace("straight", kepler_icache());
  EXPECT_EQ(r["kernels"][1]["cycles"].get<uint64_t>(), 18949u);
  EXPECT_EQ(kernel_cycles(1024, 128, false, 2), 18949u);
  EXPECT_EQ(r["counters"]["icache"]["misses"].get<uint64_t>(), 2 * 128u);
  EXPECT_EQ(r["counters"]["icache"]["hits"].get<uint64_t>(), 2 * (1024u - 128u));
  EXPECT_EQ(r["counters"]["icache"]["fills"].get<uint64_t>(), 2 * 128u);
  EXPECT_EQ(r["counters"]["icache"]["pending_hits"].get<uint64_t>(), 0u);
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), 2 * 2048u);
  EXPECT_TRUE(r["completed"].get<bool>());
}

TEST(IcacheMicrobenchmark, HitLatencyOneWithoutMissesIsTheCacheFreeTiming) {
  // With L = 1 only the 128 misses cost anything: 2053 + 128 M = 17925.
  auto r = run_trace("straight", kepler_icache(4096, 1));
  EXPECT_EQ(r["kernels"][1]["cycles"].get<uint64_t>(), 2053u + 128u * kMiss);
  EXPECT_EQ(kernel_cycles(1024, 128, false, 1), 17925u);
}

TEST(IcacheMicrobenchmark, ALoopThatFitsMissesInItsFirstIterationOnly) {
  // 256-instruction body (16 lines) x 8, then NOP, EXIT at 0x800 (line 16):
  // 1025 groups; misses: the body's 16 lines once, and line 16 (the last
  // group). f_last = 16 (M + 3) + (1024 - 16) 3 = 16 M + 3072;
  // cycles = f_last + M + 2 + 6 = 17 M + 3080 = 5188.
  auto r = run_trace("loop", kepler_icache());
  EXPECT_EQ(r["kernels"][1]["cycles"].get<uint64_t>(), 5188u);
  EXPECT_EQ(kernel_cycles(1025, 17, true, 2), 5188u);
  EXPECT_EQ(r["counters"]["icache"]["misses"].get<uint64_t>(), 2 * 17u);
  EXPECT_EQ(r["counters"]["icache"]["hits"].get<uint64_t>(), 2 * (1025u - 17u));
}

TEST(IcacheMicrobenchmark, ALoopLargerThanTheCacheMissesEveryLine) {
  // 1 KB (2 sets x 4 ways) against the 16-line body: each set cycles 8
  // lines through 4 ways, and LRU evicts each just before it returns, so
  // all 8 x 16 body lines miss, and line 16: 129 misses.
  // cycles = 129 M + 1024 x 3 + 2 + 6 = 19076.
  auto r = run_trace("loop", kepler_icache(1024));
  EXPECT_EQ(r["kernels"][1]["cycles"].get<uint64_t>(), 19076u);
  EXPECT_EQ(kernel_cycles(1025, 129, true, 2), 19076u);
  EXPECT_EQ(r["counters"]["icache"]["misses"].get<uint64_t>(), 2 * 129u);
}

TEST(IcacheMicrobenchmark, MissesGoThroughTheMemorySystem) {
  // The first kernel's misses read the code from DRAM through L2, the
  // second's hit L2: 128 + 128 L2 reads (plus nothing else: no data access).
  auto r = run_trace("straight", kepler_icache());
  uint64_t reads = 0, misses = 0;
  for (const auto& p : r["counters"]["memory"]["l2_partitions"]) {
    reads += p["read_hits"].get<uint64_t>() + p["read_misses"].get<uint64_t>();
    misses += p["read_misses"].get<uint64_t>();
  }
  EXPECT_EQ(reads, 256u);
  EXPECT_EQ(misses, 128u);
  EXPECT_EQ(r["counters"]["memory"]["icnt"]["bytes_down"].get<uint64_t>(), 256u * 128u);
  // The cold kernel pays DRAM latency on top of L2's: it takes longer.
  EXPECT_GT(r["kernels"][0]["cycles"].get<uint64_t>(), r["kernels"][1]["cycles"].get<uint64_t>());
}

}  // namespace
}  // namespace smshare
