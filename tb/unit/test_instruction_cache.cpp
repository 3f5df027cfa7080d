// The instruction cache on its own: hits, misses, lookups of a line whose
// fill is in flight (merged, as GPGPU-Sim's MSHR merges them), LRU capacity
// misses of a loop larger than the cache, cold start (rules in
// hw/sm/instruction_cache.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/common/gpu_config.hpp"
#include "hw/common/instruction.hpp"
#include "hw/sm/instruction_cache.hpp"
#include "tb/common/input_error_of.hpp"

namespace smshare {
namespace {

// Kepler's L1I (GPGPU-Sim -gpgpu_cache:il1 N:8:128:4): 8 sets x 4 ways x 128 B.
CacheSpec kepler_icache() { return CacheSpec{4096, 128, 4, 2}; }

uint64_t pc_address(uint64_t pc) { return instruction_address(pc); }

TEST(InstructionCache, AbsentWithSizeZero) {
  InstructionCache none(CacheSpec{0, 128, 4, 2});
  EXPECT_FALSE(none.present());
  EXPECT_TRUE(InstructionCache(kepler_icache()).present());
}

TEST(InstructionCache, TheLineOfAPcIsLookedUpOnce) {
  // 8-byte instructions: PCs 0x00..0x78 share line 0; 0x80 starts line 1.
  InstructionCache ic(kepler_icache());
  EXPECT_EQ(ic.fetch(pc_address(0x00), 0).outcome, InstructionCache::Outcome::Miss);
  ic.fill_in_flight(ic.line_of(pc_address(0x00)), 100, 0);
  EXPECT_EQ(ic.fetch(pc_address(0x10), 103).outcome, InstructionCache::Outcome::Hit);
  EXPECT_EQ(ic.fetch(pc_address(0x78), 106).outcome, InstructionCache::Outcome::Hit);
  EXPECT_EQ(ic.fetch(pc_address(0x80), 109).outcome, InstructionCache::Outcome::Miss);
  EXPECT_EQ(ic.line_of(pc_address(0x78)), kInstructionBase);
  EXPECT_EQ(ic.line_of(pc_address(0x80)), kInstructionBase + 0x80);
  EXPECT_EQ(ic.hits(), 2u);
  EXPECT_EQ(ic.misses(), 2u);
  EXPECT_EQ(ic.fills(), 2u);
}

TEST(InstructionCache, ALookupOfALineInFlightWaitsForItsFill) {
  // Warp A misses line 0 at cycle 0, its fill returns at 124. Warp B asks
  // for the same line at 5: no second request, it waits for the same fill.
  // From 124 on the line is a plain hit.
  InstructionCache ic(kepler_icache());
  ASSERT_EQ(ic.fetch(pc_address(0), 0).outcome, InstructionCache::Outcome::Miss);
  ic.fill_in_flight(ic.line_of(pc_address(0)), 124, 0);
  const InstructionCache::Lookup merged = ic.fetch(pc_address(8), 5);
  EXPECT_EQ(merged.outcome, InstructionCache::Outcome::PendingHit);
  EXPECT_EQ(merged.fill_ready, 124u);
  EXPECT_EQ(ic.fetch(pc_address(16), 124).outcome, InstructionCache::Outcome::Hit);
  EXPECT_EQ(ic.pending_hits(), 1u);
  EXPECT_EQ(ic.hits(), 1u);
  EXPECT_EQ(ic.misses(), 1u);
  EXPECT_EQ(ic.fills(), 1u);
}

TEST(InstructionCache, ALoopThatFitsMissesOnlyInItsFirstIteration) {
  // 2 KB of code (16 lines) in a 4 KB cache, 8 iterations.
  InstructionCache ic(kepler_icache());
  uint64_t cycle = 0;
  for (int iter = 0; iter < 8; ++iter)
    for (uint64_t line = 0; line < 16; ++line) {
      const uint64_t addr = pc_address(line * 128);
      if (ic.fetch(addr, cycle).outcome == InstructionCache::Outcome::Miss)
        ic.fill_in_flight(ic.line_of(addr), cycle + 1, cycle);
      cycle += 2;
    }
  EXPECT_EQ(ic.misses(), 16u);
  EXPECT_EQ(ic.hits(), 7u * 16u);
}

TEST(InstructionCache, ALoopLargerThanTheCacheMissesEveryLineUnderLru) {
  // 16 lines cycling through a 1 KB cache (2 sets x 4 ways): each set sees
  // 8 lines in turn, and LRU evicts each one just before it comes back.
  InstructionCache ic(CacheSpec{1024, 128, 4, 2});
  uint64_t cycle = 0;
  for (int iter = 0; iter < 8; ++iter)
    for (uint64_t line = 0; line < 16; ++line) {
      const uint64_t addr = pc_address(line * 128);
      if (ic.fetch(addr, cycle).outcome == InstructionCache::Outcome::Miss)
        ic.fill_in_flight(ic.line_of(addr), cycle + 1, cycle);
      cycle += 2;
    }
  EXPECT_EQ(ic.misses(), 8u * 16u);
  EXPECT_EQ(ic.hits(), 0u);
}

TEST(InstructionCache, EachKernelStartsCold) {
  InstructionCache ic(kepler_icache());
  ic.fetch(pc_address(0), 0);
  ic.fill_in_flight(ic.line_of(pc_address(0)), 10, 0);
  EXPECT_EQ(ic.fetch(pc_address(0), 20).outcome, InstructionCache::Outcome::Hit);
  ic.flush();
  EXPECT_EQ(ic.fetch(pc_address(0), 30).outcome, InstructionCache::Outcome::Miss);
}

TEST(InstructionCache, ProbesCountThisCycleOnly) {
  InstructionCache ic(kepler_icache());
  ic.begin_cycle();
  ic.fetch(pc_address(0), 0);
  EXPECT_EQ(ic.probes().misses_this_cycle, 1u);
  ic.fill_in_flight(ic.line_of(pc_address(0)), 1, 0);
  ic.begin_cycle();
  EXPECT_EQ(ic.probes().misses_this_cycle, 0u);
  ic.fetch(pc_address(0), 2);
  EXPECT_EQ(ic.probes().hits_this_cycle, 1u);
}

// Bad icache.* values name the config file and the key.
std::string config_error(std::vector<std::string> overrides) {
  return tb::input_error_of([&] { load_gpu_config("fermi-gtx480", overrides); });
}

// A line hit once, then evicted and missed again, is not a plain hit while
// its new fill is in flight, whether the fill's return is known
// (fill_in_flight) or decided later (fill_requested, FR-FCFS).
TEST(InstructionCache, ALineHitBeforeWaitsForItsNewFill) {
  const uint64_t l0 = pc_address(0), l1 = pc_address(0x80);  // one set, one way: they evict each other
  for (const bool decided_later : {false, true}) {
    InstructionCache ic(CacheSpec{128, 128, 1, 2});
    ASSERT_EQ(ic.fetch(l0, 0).outcome, InstructionCache::Outcome::Miss);
    ic.fill_in_flight(l0, 10, 0);
    ASSERT_EQ(ic.fetch(l0, 10).outcome, InstructionCache::Outcome::Hit);
    ASSERT_EQ(ic.fetch(l0, 11).outcome, InstructionCache::Outcome::Hit);
    ASSERT_EQ(ic.fetch(l1, 12).outcome, InstructionCache::Outcome::Miss);
    ASSERT_EQ(ic.fetch(l0, 13).outcome, InstructionCache::Outcome::Miss);
    if (decided_later) {
      ic.fill_requested(l1, 6);
      ic.fill_requested(l0, 7);
    } else {
      ic.fill_in_flight(l1, 20, 12);
      ic.fill_in_flight(l0, 30, 13);
    }
    const InstructionCache::Lookup again = ic.fetch(l0 + 8, 14);
    EXPECT_EQ(again.outcome, InstructionCache::Outcome::PendingHit) << "decided later: " << decided_later;
    if (decided_later) EXPECT_EQ(again.fill, 7u); else EXPECT_EQ(again.fill_ready, 30u);
    EXPECT_EQ(ic.hits(), 2u);
    EXPECT_EQ(ic.pending_hits(), 1u);
  }
}

TEST(InstructionCacheConfig, BadValuesNameTheFileAndTheKey) {
  const std::string sets = config_error({"icache.size_bytes=3072"});
  EXPECT_NE(sets.find("fermi-gtx480.yaml"), std::string::npos) << sets;
  EXPECT_NE(sets.find("icache.size_bytes"), std::string::npos) << sets;
  EXPECT_NE(sets.find("power-of-two number of sets"), std::string::npos) << sets;
  const std::string line = config_error({"icache.size_bytes=4096", "icache.line_bytes=96"});
  EXPECT_NE(line.find("icache.line_bytes"), std::string::npos) << line;
  EXPECT_NE(line.find("power of two"), std::string::npos) << line;
  const std::string wide = config_error({"icache.size_bytes=4096", "icache.line_bytes=256"});
  EXPECT_NE(wide.find("l2.line_bytes"), std::string::npos) << wide;
  const std::string latency = config_error({"icache.hit_latency=0"});
  EXPECT_NE(latency.find("icache.hit_latency"), std::string::npos) << latency;
  const std::string swap = config_error({"icache.size_bytes=4096", "dram.swap_base=1030792151040"});
  EXPECT_NE(swap.find("dram.swap_base"), std::string::npos) << swap;
  EXPECT_NE(swap.find("0x1000000000000"), std::string::npos) << swap;
  // Without an instruction cache the other icache keys are not checked
  // against each other.
  EXPECT_EQ(config_error({"icache.size_bytes=0", "icache.line_bytes=96"}), "");
  EXPECT_EQ(config_error({"icache.size_bytes=4096"}), "");
}

}  // namespace
}  // namespace smshare
