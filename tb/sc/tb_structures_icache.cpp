// Testbench of gpu.smN.icache, driven through its plain object
// (InstructionCache: fetch, fill_in_flight, as SmCore's fetch stage calls
// them) without an SM. The rules it checks are in
// hw/sm/instruction_cache.hpp: a miss allocates the line at once, a fetch of
// a line whose fill is in flight waits for that fill (no second request),
// a fetch after the fill is a hit.
#include <gtest/gtest.h>

#include "common/structure_bench.hpp"
#include "hw/common/instruction.hpp"
#include "hw/sm/instruction_cache_module.hpp"

namespace smshare::tb {
namespace {

constexpr uint64_t kCycle = 1000;  // ps

TEST(InstructionCacheModule, AFetchOfALineInFlightWaitsForTheFill) {
  InstructionCache icache(CacheSpec{4096, 128, 4, 2});  // Kepler's L1I
  InstructionCacheModule dut("icache", icache, 0);

  // Cycle 0: warp A misses PC 0 and its line read is back at 124. Cycle 1:
  // warp B fetches PC 8 of the same line. Cycle 130: PC 16 hits.
  constexpr uint64_t kFillBack = 124;
  InstructionCache::Lookup miss{}, merged{}, later{};
  StructureBench bench("bench", dut, kCycle, 131, [&](uint64_t cycle) {
    icache.begin_cycle();
    if (cycle == 0) {
      miss = icache.fetch(instruction_address(0), cycle);
      icache.fill_in_flight(icache.line_of(instruction_address(0)), kFillBack, cycle);
    }
    if (cycle == 1) merged = icache.fetch(instruction_address(8), cycle);
    if (cycle == 130) later = icache.fetch(instruction_address(16), cycle);
  });
  sc_core::sc_start();

  EXPECT_EQ(miss.outcome, InstructionCache::Outcome::Miss);
  EXPECT_EQ(merged.outcome, InstructionCache::Outcome::PendingHit);
  EXPECT_EQ(merged.fill_ready, kFillBack);
  EXPECT_EQ(later.outcome, InstructionCache::Outcome::Hit);

  EXPECT_EQ(bench.probe("misses_this_cycle", 0), 1);
  EXPECT_EQ(bench.probe("hits_this_cycle", 0), 0);
  EXPECT_EQ(bench.probe("hits_this_cycle", 1), 0);  // a merged fetch is not a hit
  EXPECT_EQ(bench.probe("misses_this_cycle", 1), 0);
  EXPECT_EQ(bench.probe("hits_this_cycle", 130), 1);

  EXPECT_EQ(counter(dut, "hits"), 1u);
  EXPECT_EQ(counter(dut, "misses"), 1u);
  EXPECT_EQ(counter(dut, "fills"), 1u);
  EXPECT_EQ(counter(dut, "pending_hits"), 1u);
}

}  // namespace
}  // namespace smshare::tb
