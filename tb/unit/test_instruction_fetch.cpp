// The fetch stage with an instruction cache, on one SmCore with a memory
// port of fixed latency: the miss leaves as one line read of the
// instruction region, the warp waits without the SM ticking (tick() returns
// the fill's cycle), the returned fill takes a fetch slot, and the group
// issues icache.hit_latency cycles later (GPGPU-Sim shader.cc
// shader_core_ctx::fetch() and decode()).
#include <gtest/gtest.h>

#include <vector>

#include "../common/fixed_latency_memory.hpp"
#include "../common/scripted_kernel.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/instruction.hpp"
#include "hw/frontend/cta_dispatcher.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sm/sm_core.hpp"

namespace smshare {
namespace {

WarpInstruction nop(uint64_t pc) {
  WarpInstruction i;
  i.op = OpClass::IntAlu;
  i.pc = pc;
  return i;
}

struct FetchTest : ::testing::Test {
  static constexpr uint64_t kMemoryLatency = 200;
  GpuSpec spec = load_gpu_config("fermi-gtx480", {"gpu.num_sms=1", "icache.size_bytes=4096", "icache.hit_latency=2"});
  tb::FixedLatencyMemory memory{kMemoryLatency};
  SmCore core{0, spec, memory};
  CtaDispatcher dispatcher{1};
  // Four NOPs at PCs 0, 8, 16, 24: two fetch groups in one 128 B line.
  tb::ScriptedKernel kernel{"nops", tb::single_warp_grid(), [](uint32_t, uint32_t) {
                              return std::vector<WarpInstruction>{nop(0), nop(8), nop(16), nop(24)};
                            }};

  void SetUp() override {
    core.begin_kernel(kernel, mechanism_registry().configure({}).make(spec.sm, kernel.resources(), "test"),
                      dispatcher);
    ASSERT_TRUE(core.launch_one_cta());
  }
};

TEST_F(FetchTest, AMissReadsOneLineAndTheWarpSleepsUntilTheFill) {
  EXPECT_EQ(core.tick(0), 1u);  // cycle 0: the fetch misses; the read leaves
  ASSERT_EQ(memory.requests.size(), 1u);
  EXPECT_EQ(memory.requests[0].line, kInstructionBase);
  EXPECT_EQ(memory.requests[0].bytes, 128u);
  EXPECT_FALSE(memory.requests[0].is_write);
  EXPECT_EQ(memory.requests[0].cycle, 0u);
  // Cycle 1 has nothing to do: the SM sleeps until the fill is back.
  EXPECT_EQ(core.tick(1), kMemoryLatency);
  // The returned fill takes the fetch slot; its group waits out the hit
  // latency (decode) and issues at 202.
  EXPECT_EQ(core.tick(kMemoryLatency), kMemoryLatency + 1);
  EXPECT_EQ(core.tick(kMemoryLatency + 1), kMemoryLatency + 2);
  EXPECT_EQ(core.stats().warp_instructions, 0u);
  core.tick(kMemoryLatency + 2);
  EXPECT_EQ(core.stats().warp_instructions, 1u);
  // Cycles 0 to 201 issued nothing because of the fetch.
  EXPECT_EQ(core.stats().reason_cycles[static_cast<int>(StallReason::Fetch)], kMemoryLatency + 2);
}

TEST_F(FetchTest, TheSecondGroupOfTheLineHitsAndIssuesAfterTheHitLatency) {
  uint64_t cycle = 0;
  while (core.stats().warp_instructions < 2) cycle = core.tick(cycle);
  // Group 1 issued at 202 and 203; its buffer empties at 203 and the fetch
  // of group 2 (PC 16) hits the line in that cycle: it issues at 205, 206.
  EXPECT_EQ(cycle, 204u);
  EXPECT_EQ(core.tick(204), 205u);
  EXPECT_EQ(core.stats().warp_instructions, 2u);
  core.tick(205);
  EXPECT_EQ(core.stats().warp_instructions, 3u);
  core.tick(206);
  EXPECT_EQ(core.stats().warp_instructions, 4u);
  EXPECT_EQ(memory.requests.size(), 1u);
  EXPECT_EQ(core.stats().icache_misses, 1u);
  EXPECT_EQ(core.stats().icache_hits, 1u);
}

}  // namespace
}  // namespace smshare
