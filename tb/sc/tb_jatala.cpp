// Jatala et al. 2016 on the cycle-level SM: the Fig. 5 deadlock scenario with
// and without the Sec. III-A rule, scratchpad sharing's wait for the owner
// CTA, dynamic warp execution on the reference SM, and Tables VI / VIII as
// the simulator's resident CTAs. Each TEST runs in its own process.
#include <gtest/gtest.h>

#include "common/jatala_tables.hpp"
#include "common/scripted_kernel.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/frontend/profile_kernel.hpp"
#include "hw/top/simulation.hpp"
#include "tb/common/compact_gtx480.hpp"
#include "tb/common/temp_dir.hpp"

namespace smshare::tb {
namespace {

// One SM on which exactly one shared pair of 2-warp CTAs fits: a CTA needs
// 64 threads x 40 registers = 2560; 3840 registers at 50 % sharing give
// M = 1 + floor(1280 / (0.5 x 2560)) = 2, U = 0, S = 1. Registers r0..r19
// are private (floor(40 x 0.5)), r20..r39 behind a lock per warp pair.
GpuSpec pair_sm() { return load_gpu_config("fermi-gtx480", tb::compact_gtx480({"gpu.num_sms=1", "sm.registers=3840"})); }

KernelResources pair_kernel() {
  KernelResources r;
  r.grid_ctas = 2;
  r.threads_per_cta = 64;
  r.regs_per_thread = 40;
  return r;
}

std::vector<WarpInstruction> chain(size_t n) { return std::vector<WarpInstruction>(n, alu(1, {1})); }

// Fig. 5: TB1 = CTA 0 (W1 = warp 0, W2 = warp 1), TB2 = CTA 1 (W3, W4).
// W2 and W3 touch a shared register first thing, then wait at the barrier;
// W1 and W4 first run a private dependent chain, then need the locks W3 and
// W2 would hold. Without the rule W2 takes lock 1, W3 lock 0, and each CTA's
// barrier waits for a warp that waits for the other CTA.
ScriptedKernel figure5_kernel() {
  return ScriptedKernel("figure5", pair_kernel(), [](uint32_t cta, uint32_t warp) {
    std::vector<WarpInstruction> v;
    const bool late = (cta == 0) == (warp == 0);  // W1 and W4
    if (late) v = chain(10);
    v.push_back(alu(static_cast<uint16_t>(25 + warp), {2}));  // shared register of warp pair `warp`
    v.push_back(barrier());
    v.push_back(alu(3, {3}));
    return v;
  });
}

nlohmann::json run_regshare(ScriptedKernel& k, bool deadlock_rule, bool dwe = false, std::string vcd = "",
                            bool run_ahead = true) {
  SimulateOptions o;
  o.run_ahead = run_ahead;
  o.waveform.path = vcd;
  o.kernel_origin = "scripted";
  o.mechanism = {"regshare",
                 {std::string("jatala.dynamic_warp_execution=") + (dwe ? "true" : "false"),
                  std::string("jatala.deadlock_avoidance=") + (deadlock_rule ? "true" : "false")},
                 "0.5"};
  return simulate(pair_sm(), k, o);
}

TEST(JatalaFigure5, CompletesWithTheDeadlockAvoidanceRule) {
  ScriptedKernel k = figure5_kernel();
  auto r = run_regshare(k, true);
  EXPECT_FALSE(r.contains("deadlock"));
  EXPECT_TRUE(r["completed"].get<bool>());
  EXPECT_EQ(r["ctas_completed"].get<uint64_t>(), 2u);
  EXPECT_EQ(r["resident_ctas_per_sm"].get<uint64_t>(), 2u);  // both resident: a shared pair
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), 2u * 13 + 2u * 3);
  // W3 asked while TB1 held lock 1 (W2): refused by the rule, not by a busy lock.
  EXPECT_GT(r["mechanism_stats"]["deadlock_rule_refusals"].get<uint64_t>(), 0u);
  EXPECT_EQ(r["mechanism_stats"]["lock_acquisitions"].get<uint64_t>(), 4u);  // each warp once
  EXPECT_GT(r["activity"]["lock_array_register"]["reads"].get<uint64_t>(), 0u);
}

void expect_figure5_deadlock(const nlohmann::json& r) {
  ASSERT_TRUE(r.contains("deadlock"));
  EXPECT_FALSE(r["completed"].get<bool>());
  EXPECT_EQ(r["ctas_completed"].get<uint64_t>(), 0u);
  EXPECT_EQ(r["mechanism_stats"]["deadlock_rule_refusals"].get<uint64_t>(), 0u);
  EXPECT_EQ(r["mechanism_stats"]["lock_acquisitions"].get<uint64_t>(), 2u);  // W2 and W3
  // Each CTA: the early warp waits at the barrier, the late one at the lock.
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), 2u * 10 + 2u * 2);
  // Found in the cycle after the late warps' last issue: the one both ways
  // of ticking give (not derived by hand; a change to either shows here).
  EXPECT_EQ(r["deadlock"][0]["cycle"].get<uint64_t>(), 65u);
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 66u);
  EXPECT_EQ(r["kernels"][0]["end_cycle"].get<uint64_t>(), 66u);  // the clock's, not the SM's
}

TEST(JatalaFigure5, DeadlocksAndIsReportedWithoutTheRule) {
  ScriptedKernel k = figure5_kernel();
  auto r = run_regshare(k, false);
  expect_figure5_deadlock(r);
  // Without dynamic warp execution the SM's mechanism is its own, and the
  // clock ticks it several cycles in a row (GpuModule's run-ahead; one SM
  // here: what the SMs share is the CLI case run_ahead_every_mechanism's)
  // into the deadlock ...
  EXPECT_GT(r["host"]["sm_ticks_run_ahead"].get<uint64_t>(), 0u);
}

// ... which it reaches as ticked one cycle at a time.
TEST(JatalaFigure5, DeadlocksTheSameWayTickedOneCycleAtATime) {
  ScriptedKernel k = figure5_kernel();
  auto r = run_regshare(k, false, false, "", /*run_ahead=*/false);
  expect_figure5_deadlock(r);
  EXPECT_EQ(r["host"]["sm_ticks_run_ahead"].get<uint64_t>(), 0u);
}

// Dynamic warp execution's 1000-cycle period wakes the SM on time, but must
// not hide a real deadlock (the SM would tick forever).
TEST(JatalaFigure5, DeadlockIsStillDetectedWithDynamicWarpExecution) {
  ScriptedKernel k = figure5_kernel();
  auto r = run_regshare(k, false, true);
  ASSERT_TRUE(r.contains("deadlock"));
  EXPECT_EQ(r["ctas_completed"].get<uint64_t>(), 0u);
}

// With --vcd every SM ticks every cycle: the deadlock must still be found
// (a waveform is how one debugs it), not run forever.
TEST(JatalaFigure5, DeadlockIsDetectedWithWaveformsOn) {
  ScriptedKernel k = figure5_kernel();
  const TempDir dir;  // the waveform and the GTKWave files written beside it
  auto r = run_regshare(k, false, false, dir.path() + "/fig5.vcd");
  ASSERT_TRUE(r.contains("deadlock"));
  EXPECT_EQ(r["ctas_completed"].get<uint64_t>(), 0u);
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), 2u * 10 + 2u * 2);
}

// Scratchpad sharing: two 1-warp CTAs of 4096 B on a 6144 B scratchpad at
// 50 %: one pair, the first 2048 B of each CTA private. Each warp loads from
// its scratchpad, then runs N dependent ALU instructions (>= 6 cycles each).
constexpr size_t kSmemChain = 50;

// With `phased`, the kernel has two phases: "compute" (a private chain
// first) and "exchange" (the scratchpad load, then the chain).
nlohmann::json run_spmshare(uint64_t smem_offset, bool phased = false) {
  KernelResources res;
  res.grid_ctas = 2;
  res.threads_per_cta = 32;
  res.regs_per_thread = 16;
  res.smem_bytes_per_cta = 4096;
  if (phased) res.phase_names = {"compute", "exchange"};
  ScriptedKernel k("spm", res, [smem_offset, phased](uint32_t, uint32_t) {
    std::vector<WarpInstruction> v;
    if (phased) v.assign(10, alu(2, {2}));
    v.push_back(mem(OpClass::SharedLoad, 1, smem_offset, 4));
    for (size_t i = 0; i < kSmemChain; ++i) v.push_back(alu(1, {1}));
    if (phased)
      for (size_t i = 10; i < v.size(); ++i) v[i].phase = 1;
    return v;
  });
  SimulateOptions o;
  o.kernel_origin = "scripted";
  o.mechanism = {"spmshare", {"jatala.sharing=0.5"}, ""};
  return simulate(load_gpu_config("fermi-gtx480", tb::compact_gtx480({"gpu.num_sms=1", "sm.scratchpad_bytes=6144"})), k, o);
}

TEST(JatalaScratchpad, PrivateRegionAccessesRunTogether) {
  auto r = run_spmshare(0);  // bytes 0..127: private
  EXPECT_EQ(r["resident_ctas_per_sm"].get<uint64_t>(), 2u);
  EXPECT_EQ(r["mechanism_stats"]["lock_acquisitions"].get<uint64_t>(), 0u);
  // The two chains overlap: well under two chains' time.
  EXPECT_LT(r["cycles"].get<uint64_t>(), 6 * kSmemChain + 100);
}

TEST(JatalaScratchpad, NonOwnerWaitsAtItsFirstSharedAccessUntilTheOwnerFinishes) {
  auto r = run_spmshare(2048);  // bytes 2048..2175: the shared region
  EXPECT_EQ(r["resident_ctas_per_sm"].get<uint64_t>(), 2u);
  EXPECT_EQ(r["mechanism_stats"]["lock_acquisitions"].get<uint64_t>(), 2u);  // CTA 0, then CTA 1 after it
  EXPECT_GT(r["mechanism_stats"]["lock_wait_cycles"].get<uint64_t>(), 6 * kSmemChain);
  // Serialized: the second chain starts after the first CTA finished.
  EXPECT_GT(r["cycles"].get<uint64_t>(), 2 * 6 * kSmemChain);
  EXPECT_GT(r["activity"]["lock_array_scratchpad"]["reads"].get<uint64_t>(), 0u);
  for (const auto& [name, value] : r["mechanism_stats"].items())
    EXPECT_EQ(name.rfind("phase_", 0), std::string::npos) << "a kernel without phases has no per-phase counts: " << name;
}

// Where warps wait, for a phased kernel: the non-owner's wait begins at its
// first shared access, in phase "exchange", and all its cycles count there.
TEST(JatalaScratchpad, LockWaitsAreCountedInThePhaseTheyBeginIn) {
  auto r = run_spmshare(2048, /*phased=*/true);
  const auto& m = r["mechanism_stats"];
  EXPECT_EQ(m["lock_waits"].get<uint64_t>(), 1u);
  EXPECT_EQ(m["phase_lock_waits.exchange"].get<uint64_t>(), 1u);
  EXPECT_EQ(m["phase_lock_waits.compute"].get<uint64_t>(), 0u);
  EXPECT_EQ(m["phase_lock_wait_cycles.exchange"].get<uint64_t>(), m["lock_wait_cycles"].get<uint64_t>());
  EXPECT_EQ(m["phase_lock_wait_cycles.compute"].get<uint64_t>(), 0u);
  EXPECT_GT(m["lock_wait_cycles"].get<uint64_t>(), 6 * kSmemChain);
}

// Dynamic warp execution on the reference SM (SM0) never issues a non-owner
// warp's global memory instruction: the non-owner waits (time-based, not a
// deadlock) until the owner CTA finishes and ownership passes to it.
TEST(JatalaDynamicWarpExecution, ReferenceSmHoldsNonOwnerLoadsUntilOwnershipPasses) {
  ScriptedKernel k("dwe", pair_kernel(), [](uint32_t, uint32_t) {
    std::vector<WarpInstruction> v{mem(OpClass::GlobalLoad, 2, 0x10000, 4)};
    for (int i = 0; i < 30; ++i) v.push_back(alu(1, {1}));
    return v;
  });
  SimulateOptions o;
  o.kernel_origin = "scripted";
  o.mechanism = {"regshare", {"jatala.sharing=0.5", "jatala.dynamic_warp_execution=true"}, ""};
  auto r = simulate(pair_sm(), k, o);
  EXPECT_FALSE(r.contains("deadlock"));
  EXPECT_EQ(r["ctas_completed"].get<uint64_t>(), 2u);
  EXPECT_GT(r["mechanism_stats"]["dwe_refusals"].get<uint64_t>(), 6u * 30 - 10);  // both warps, every cycle
  EXPECT_EQ(r["mechanism_stats"]["ownership_transfers"].get<uint64_t>(), 1u);
}

// Tables VI and VIII as the simulator's resident CTAs: one SM, a grid large
// enough to fill it, short warps.
class JatalaTablesBySimulation : public ::testing::TestWithParam<int> {};

TEST_P(JatalaTablesBySimulation, ResidentCtasMatchThePrintedTable) {
  const auto& row = kJatalaTables[GetParam() / 6];
  const uint32_t percent = kJatalaSharingPercents[GetParam() % 6];
  KernelProfile p = load_kernel_profile(row.kernel);
  p.instructions_per_warp = 40;
  ResourceOverrides res;
  res.grid_ctas = 12;
  auto source = make_profile_kernel(p, res, FrontendOptions{});
  SimulateOptions o;
  o.kernel_origin = p.file;
  o.mechanism = {row.registers ? "regshare" : "spmshare", {}, "0." + std::to_string(percent / 10)};  // --sharing
  auto r = simulate(load_gpu_config("jatala-fermi", {"gpu.num_sms=1"}), *source, o);
  EXPECT_FALSE(r.contains("deadlock"));
  const uint32_t expected = jatala_scratchpad_exception(row.kernel, percent)
                                ? kHotspot90ScratchpadLimited
                                : row.ctas[GetParam() % 6];
  EXPECT_EQ(r["resident_ctas_per_sm"].get<uint32_t>(), expected) << row.kernel << " at " << percent << " %";
  EXPECT_EQ(r["occupancy"]["resident_ctas_per_sm"].get<uint32_t>(), expected);
}

INSTANTIATE_TEST_SUITE_P(Entries, JatalaTablesBySimulation, ::testing::Range(0, 90),
                         [](const ::testing::TestParamInfo<int>& info) {
                           std::string name = kJatalaTables[info.param / 6].kernel;
                           for (auto& c : name)
                             if (c == '-') c = '_';
                           return name + "_" + std::to_string(kJatalaSharingPercents[info.param % 6]);
                         });

}  // namespace
}  // namespace smshare::tb
