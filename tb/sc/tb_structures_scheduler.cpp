// Testbench of gpu.smN.scheduler<s>, driven through its plain objects (the
// SchedulerPolicy and the SchedulerProbes SmCore fills) without an SM. The
// bench plays SmCore's issue stage for one scheduler: count the ready
// warps, ask the policy for its order, issue the first ready warp in it
// and tell the policy. Rules: hw/sm/scheduler_policy.hpp and .cpp (LRR
// starts one past the last warp issued; GTO keeps the last warp issued
// while it is ready, else the oldest ready).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "common/structure_bench.hpp"
#include "hw/sm/scheduler_module.hpp"

namespace smshare::tb {
namespace {

constexpr uint64_t kCycle = 1000;  // ps

// Warp slots 0..3, age = slot (0 is the oldest), all valid, for cycles
// 0..5: every warp ready except warp 0 in cycle 1, and none in cycle 5.
// Returns the issued warp probe per cycle, and checks ready_warps and the counter.
std::vector<int64_t> issued_warps(const char* policy_name) {
  std::unique_ptr<SchedulerPolicy> policy = make_scheduler_policy(policy_name, 8);
  SchedulerProbes probes;
  SchedulerModule dut("scheduler0", *policy, probes, 0);
  EXPECT_EQ(dut.policy(), policy_name);
  std::vector<WarpView> views(4);
  for (uint32_t w = 0; w < 4; ++w) views[w] = {w, w, true, false, 1};
  const std::function<bool(uint32_t, uint64_t)> ready = [](uint32_t w, uint64_t cycle) {
    return cycle < 5 && !(w == 0 && cycle == 1);
  };
  std::vector<uint32_t> order;
  StructureBench bench("bench", dut, kCycle, 5, [&](uint64_t cycle) {
    probes.issued_warp = -1;
    probes.ready_warps = 0;
    for (uint32_t w = 0; w < 4; ++w) probes.ready_warps += ready(w, cycle);
    if (probes.ready_warps == 0) return;
    policy->order(views, order);
    for (uint32_t slot : order) {
      if (!ready(slot, cycle)) continue;
      probes.issued_warp = static_cast<int32_t>(slot);
      ++probes.issued;
      policy->issued(slot);
      break;
    }
  });
  sc_core::sc_start();

  const int64_t ready_warps[] = {4, 3, 4, 4, 4, 0};
  std::vector<int64_t> issued;
  for (uint64_t c = 0; c <= 5; ++c) {
    EXPECT_EQ(bench.probe("ready_warps", c), ready_warps[c]) << "cycle " << c;
    issued.push_back(bench.probe("issued_warp", c));
  }
  EXPECT_EQ(counter(dut, "issued"), 5u);
  return issued;
}

TEST(SchedulerModule, LooseRoundRobinIssuesTheWarpAfterTheLastOne) {
  // Cycle 1 starts at warp 1 (after 0), which is ready; then 2, 3, wrap to 0.
  EXPECT_EQ(issued_warps("lrr"), (std::vector<int64_t>{0, 1, 2, 3, 0, -1}));
}

TEST(SchedulerModule, GreedyThenOldestKeepsIssuingTheSameWarp) {
  // Warp 0 is greedy until it is not ready in cycle 1; the oldest ready
  // warp, 1, takes over and keeps issuing although 0 is ready again.
  EXPECT_EQ(issued_warps("gto"), (std::vector<int64_t>{0, 1, 1, 1, 1, -1}));
}

}  // namespace
}  // namespace smshare::tb
