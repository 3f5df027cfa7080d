// Testbench of gpu.smN.l1d, driven through its plain object (L1DataCache:
// load, fill_in_flight, as the LDST unit calls them) without an SM. The
// rules it checks are in hw/sm/l1_data_cache.hpp: a miss allocates the line
// at once, a hit on a line whose fill is in flight gets its data with the
// fill, a later hit after the hit latency.
#include <gtest/gtest.h>

#include "common/structure_bench.hpp"
#include "hw/sm/l1_data_cache_module.hpp"

namespace smshare::tb {
namespace {

constexpr uint64_t kCycle = 1000;  // ps
constexpr uint64_t kLine = 0x10000000;

TEST(L1DataCacheModule, AHitOnAFillInFlightWaitsForTheFill) {
  CacheSpec spec;  // Fermi: 16 KB, 128 B lines, 4 ways, hit latency 35
  ASSERT_EQ(spec.hit_latency, 35u);
  L1DataCache l1d(spec);
  L1DataCacheModule dut("l1d", l1d, 0);

  // Cycle 0 misses; the line's fill (from L2/DRAM) is back at 150. Cycle 1
  // loads the line again, cycle 200 once more.
  constexpr uint64_t kFillBack = 150;
  L1DataCache::Lookup miss{}, pending{}, later{};
  StructureBench bench("bench", dut, kCycle, 201, [&](uint64_t cycle) {
    l1d.begin_cycle();
    if (cycle == 0) {
      miss = l1d.load(kLine, cycle);
      l1d.fill_in_flight(kLine, kFillBack, cycle);
    }
    if (cycle == 1) pending = l1d.load(kLine, cycle);
    if (cycle == 200) later = l1d.load(kLine, cycle);
  });
  sc_core::sc_start();

  EXPECT_FALSE(miss.hit);
  EXPECT_TRUE(pending.hit);
  EXPECT_EQ(pending.ready, kFillBack);  // not 1 + 35: the data comes with the fill
  EXPECT_TRUE(later.hit);
  EXPECT_EQ(later.ready, 200u + 35);

  EXPECT_EQ(bench.probe("misses_this_cycle", 0), 1);
  EXPECT_EQ(bench.probe("hits_this_cycle", 0), 0);
  EXPECT_EQ(bench.probe("hits_this_cycle", 1), 1);
  EXPECT_EQ(bench.probe("misses_this_cycle", 1), 0);
  EXPECT_EQ(bench.probe("hits_this_cycle", 2), 0);
  EXPECT_EQ(bench.probe("hits_this_cycle", 200), 1);

  EXPECT_EQ(counter(dut, "hits"), 2u);
  EXPECT_EQ(counter(dut, "misses"), 1u);
  EXPECT_EQ(counter(dut, "fills"), 1u);
  EXPECT_EQ(counter(dut, "pending_hits"), 1u);
}

}  // namespace
}  // namespace smshare::tb
