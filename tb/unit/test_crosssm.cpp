// Dhar & Chen's cross-SM configurations as plain C++: each scheme's active-SM
// resources are the paper's multipliers applied to the baseline config
// (computed here from the loaded gtx580, not from a table), the grouping of
// 16 SMs, the two-pool occupancy (CFD2's register story, Sec. VI-C1), the
// operand collectors' home split, and a BigSM wide warp on one SmCore:
// its two halves issue in one cycle, each into a collector of its own SM.
#include <gtest/gtest.h>

#include <vector>

#include "../common/fixed_latency_memory.hpp"
#include "../common/scripted_kernel.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/frontend/cta_dispatcher.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/sharing/crosssm/configuration.hpp"
#include "hw/sharing/crosssm/crosssm_mechanism.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sm/operand_collectors.hpp"
#include "hw/sm/sm_core.hpp"

namespace smshare::crosssm {
namespace {

const GpuSpec& gtx580() {
  static const GpuSpec spec = load_gpu_config("gtx580", {});
  return spec;
}

TEST(CrossSmConfiguration, ActiveSmResourcesAreThePapersMultipliersOfTheBaseline) {
  const GpuSpec& base = gtx580();
  const SmSpec& b = base.sm;
  struct Expect {
    Scheme scheme;
    double warps, memory;  // resident 32-thread warps; registers, scratchpad, L1
    uint32_t simd;         // SIMD width multiplier
  };
  // Sec. IV: Occ x2; Bal x1.5; BigSM x2 width (so x2 warps of 32 threads);
  // BigSM_Occ x2 width and x2 resident warps. Memory follows the borrowed share.
  for (const Expect& e : {Expect{Scheme::Occ, 2, 2, 1}, Expect{Scheme::Bal, 1.5, 1.5, 1},
                          Expect{Scheme::BigSm, 2, 2, 2}, Expect{Scheme::BigSmOcc, 4, 2, 2}}) {
    SCOPED_TRACE(to_string(e.scheme));
    const GpuSpec a = active_spec(e.scheme, base, 1);
    EXPECT_EQ(a.sm.max_warps, static_cast<uint32_t>(b.max_warps * e.warps));
    EXPECT_EQ(a.sm.max_threads, static_cast<uint32_t>(b.max_threads * e.warps));
    EXPECT_EQ(a.sm.registers, static_cast<uint32_t>(b.registers * e.memory));
    EXPECT_EQ(a.sm.scratchpad_bytes, static_cast<uint32_t>(b.scratchpad_bytes * e.memory));
    EXPECT_EQ(a.l1.size_bytes, static_cast<uint32_t>(base.l1.size_bytes * e.memory));
    EXPECT_EQ(a.sm.sp_units, b.sp_units * e.simd);
    EXPECT_EQ(a.sm.sfu_units, b.sfu_units * e.simd);
    EXPECT_EQ(a.sm.ldst_units, b.ldst_units);  // one LDST unit: the external bandwidth is the baseline's
    EXPECT_EQ(a.sm.max_ctas, b.max_ctas);      // CTA slots stay the baseline's (Sec. VI-C2)
    EXPECT_EQ(a.sm.oc_units_sp, static_cast<uint32_t>(b.oc_units_sp * e.memory));
    // Every crossing path and its dummy-stage twin one cycle deeper.
    EXPECT_EQ(a.sm.int_alu.latency, b.int_alu.latency + 1);
    EXPECT_EQ(a.sm.sfu.latency, b.sfu.latency + 1);
    EXPECT_EQ(a.sm.smem_latency, b.smem_latency + 1);
    EXPECT_EQ(a.l1.hit_latency, base.l1.hit_latency + 1);
    EXPECT_EQ(a.icache.hit_latency, base.icache.hit_latency + 1);
    // The pools hold the same as the merged SM.
    const Pools p = pools(e.scheme, b);
    const uint32_t pooled_regs = p.merged ? p.own.registers : p.own.registers + p.borrowed.registers;
    EXPECT_EQ(pooled_regs, a.sm.registers);
  }
  // With no extra cycles the timing is the baseline's.
  EXPECT_EQ(active_spec(Scheme::Occ, base, 0).sm.int_alu.latency, b.int_alu.latency);
}

TEST(CrossSmConfiguration, SixteenSmsMakeEightPairsOrFiveTriosAndABaselineSm) {
  const Layout occ = layout(Scheme::Occ, 16, false);
  EXPECT_EQ(occ.active, 8u);
  EXPECT_EQ(occ.inactive, 8u);
  EXPECT_EQ(occ.baseline, 0u);
  const Layout bal = layout(Scheme::Bal, 16, false);
  EXPECT_EQ(bal.groups, 5u);
  EXPECT_EQ(bal.active, 10u);
  EXPECT_EQ(bal.inactive, 5u);
  EXPECT_EQ(bal.baseline, 1u);
  EXPECT_EQ(place(Scheme::Bal, 16, 15, false).role, Role::Baseline);
  // A trio's middle SM lends one half to each neighbour.
  const Placement left = place(Scheme::Bal, 16, 3, false), right = place(Scheme::Bal, 16, 5, false);
  EXPECT_EQ(place(Scheme::Bal, 16, 4, false).role, Role::Inactive);
  EXPECT_EQ(left.neighbour, 4);
  EXPECT_EQ(right.neighbour, 4);
  EXPECT_NE(left.lender_side, right.lender_side);
  // An odd count leaves the last SM alone; the bypass leaves every SM alone.
  EXPECT_EQ(layout(Scheme::BigSm, 15, false).baseline, 1u);
  EXPECT_EQ(layout(Scheme::Occ, 16, true).baseline, 16u);
}

KernelResources resources_of(const std::string& profile) {
  return load_kernel_profile(profile).resources;
}

TEST(CrossSmOccupancy, CfdGainsTheCtasTheBorrowedRegistersHoldAndNoMore) {
  // CFD2 (cfd-flux) is register-bound at 2 CTAs. A CTA lives in one pool
  // (Sec. V-B2: the lent registers serve the additional warps only): Occ
  // lends a whole register file, 2 more CTAs; Bal half of one, 1 more (the
  // paper sees no gain on Bal: docs/crosssm-reproduction.md).
  const SmSpec& b = gtx580().sm;
  const KernelResources k = resources_of("cfd-flux");
  const Occupancy base = baseline_occupancy(b, k, "cfd-flux");
  ASSERT_EQ(base.limited_by, OccupancyLimit::Registers);
  const CtaFootprint f = cta_footprint(b, k);
  const uint32_t whole_rf = b.registers / f.registers, half_rf = b.registers / 2 / f.registers;
  EXPECT_EQ(active_occupancy(Scheme::Occ, b, k, "cfd-flux").ctas_per_sm, base.ctas_per_sm + whole_rf);
  EXPECT_EQ(active_occupancy(Scheme::Bal, b, k, "cfd-flux").ctas_per_sm, base.ctas_per_sm + half_rf);
  EXPECT_EQ(active_occupancy(Scheme::BigSm, b, k, "cfd-flux").ctas_per_sm, 2 * b.registers / f.registers);
  // Pools, not sums: 2 x 12288 of 32768 leaves 8192 in the SM's own file,
  // which with the lent 16384 would hold a fourth CTA if a CTA could span them.
  EXPECT_LT(active_occupancy(Scheme::Bal, b, k, "cfd-flux").ctas_per_sm, (b.registers * 3 / 2) / f.registers);
}

TEST(CrossSmOccupancy, CtaSlotsCapEveryScheme) {
  // 64-thread CTAs with few registers fit by the dozen: the baseline's 8 CTA slots bind.
  KernelResources k;
  k.grid_ctas = 1000;
  k.threads_per_cta = 64;
  k.regs_per_thread = 8;
  for (Scheme s : {Scheme::Occ, Scheme::Bal, Scheme::BigSm, Scheme::BigSmOcc}) {
    const Occupancy o = active_occupancy(s, gtx580().sm, k, "test");
    EXPECT_EQ(o.ctas_per_sm, gtx580().sm.max_ctas) << to_string(s);
    EXPECT_EQ(o.limited_by, OccupancyLimit::CtaSlots) << to_string(s);
  }
}

TEST(OperandCollectorsHomeSplit, AWarpTakesACollectorOnItsOwnSmOnly) {
  SmSpec sm;
  sm.oc_units_sp = 4;  // 2 own + 2 lent
  OperandCollectors c(sm);
  c.set_home_split({2, sm.oc_units_sfu, sm.oc_units_mem});
  WarpInstruction add = tb::alu(1, {2});
  WarpContext home0, home1;
  home1.home = 1;
  ASSERT_TRUE(c.allocate(home1, add, 0));
  ASSERT_TRUE(c.allocate(home1, add, 0));
  EXPECT_FALSE(c.allocate(home1, add, 0));  // its SM's two are busy; the other two are not its
  EXPECT_TRUE(c.allocate(home0, add, 0));
  EXPECT_TRUE(c.allocate(home0, add, 0));
  for (uint32_t u = 0; u < 4; ++u) EXPECT_EQ(c.units()[u].warp.home, u < 2 ? 0 : 1) << u;
}

// A BigSM active SM on the compact pipeline (no pipeline registers, no
// instruction cache), its neighbour's register banks a bank array of their own.
struct WideWarpSm {
  GpuSpec base = load_gpu_config("gtx580", {"sm.pipeline_registers=false", "icache.size_bytes=0"});
  GpuSpec spec = active_spec(Scheme::BigSm, base, 1);
  tb::FixedLatencyMemory memory{100};
  SmCore core{0, spec, memory, SmSlots{spec.sm.max_warps, spec.sm.max_ctas}};
  BankArbitrator neighbour{base.sm.register_banks, base.sm.scratchpad_banks};
  CtaDispatcher dispatcher{1};
  SmSettings settings;
  static constexpr uint32_t kInstructions = 8;

  void start(tb::ScriptedKernel& kernel) {
    settings.run.scheme = Scheme::BigSm;
    settings.place = place(Scheme::BigSm, 2, 0, false);
    settings.base = base.sm;
    core.bank_arbitrator().attach_neighbour(neighbour);
    core.begin_kernel(kernel, make(spec.sm, kernel.resources(), "test", settings), dispatcher);
    ASSERT_TRUE(core.launch_one_cta());
  }
  static KernelResources one_wide_warp() {
    KernelResources r = tb::single_warp_grid();
    r.threads_per_cta = 64;  // two 32-thread warps: one wide warp
    return r;
  }
  // Independent adds at pcs 0, 8, ...; `diverge_at`: from that instruction
  // on, the upper half runs other code.
  static std::vector<WarpInstruction> code(uint32_t warp, uint32_t diverge_at = kInstructions) {
    std::vector<WarpInstruction> v;
    for (uint32_t i = 0; i < kInstructions; ++i) {
      v.push_back(tb::alu(static_cast<uint16_t>(1 + i % 4), {10}));
      v.back().pc = 8 * i + (warp == 1 && i >= diverge_at ? 0x1000 : 0);
    }
    return v;
  }
  const BoundaryTraffic& traffic() const { return crosssm_state_of(core.mechanism())->traffic(); }
};
struct WideWarpTest : ::testing::Test, WideWarpSm {};

TEST_F(WideWarpTest, BothHalvesIssueInOneCycleEachIntoACollectorOfItsOwnSm) {
  tb::ScriptedKernel kernel{"wide", one_wide_warp(), [](uint32_t, uint32_t w) { return code(w); }};
  start(kernel);
  // Find the first cycle a collector holds an instruction: both halves' are there.
  uint64_t cycle = 0;
  for (; cycle < 20 && core.operand_collectors().busy_units() == 0; ++cycle) core.tick(cycle);
  ASSERT_EQ(core.operand_collectors().busy_units(), 2u);
  uint32_t own = 0, lent = 0;
  const uint32_t first_lent = base.sm.oc_units_sp;  // the SP pool: own units first
  const OperandCollectors& collectors = core.operand_collectors();
  const auto& units = collectors.units();
  for (uint32_t u = 0; u < units.size(); ++u) {
    if (!collectors.busy(u)) continue;
    EXPECT_EQ(units[u].inst.pc, 0u);
    if (units[u].warp.home == 0) {
      ++own;
      EXPECT_LT(u, first_lent);
    } else {
      ++lent;
      EXPECT_GE(u, first_lent);
      EXPECT_LT(u, spec.sm.oc_units_sp);
    }
  }
  EXPECT_EQ(own, 1u);
  EXPECT_EQ(lent, 1u);
  EXPECT_EQ(traffic().mirrored_issues, 1u);
  for (; cycle < 200 && core.has_work(); ++cycle) core.tick(cycle);
  EXPECT_EQ(traffic().mirrored_issues, kInstructions);
  EXPECT_EQ(traffic().split_issues, 0u);
  EXPECT_EQ(core.stats().warp_instructions, 2u * kInstructions);
  // The upper half's registers are in the neighbour's banks: one read and
  // one write per instruction.
  EXPECT_EQ(neighbour.register_file().total_reads(), kInstructions);
  EXPECT_EQ(neighbour.register_file().total_writes(), kInstructions);
}

TEST_F(WideWarpTest, HalvesThatDivergeIssueSeparatelyAndAreCounted) {
  constexpr uint32_t kDivergeAt = 5;
  tb::ScriptedKernel kernel{"diverge", one_wide_warp(), [](uint32_t, uint32_t w) { return code(w, kDivergeAt); }};
  start(kernel);
  for (uint64_t cycle = 0; cycle < 400 && core.has_work(); ++cycle) core.tick(cycle);
  EXPECT_FALSE(core.has_work());
  EXPECT_EQ(core.stats().warp_instructions, 2u * kInstructions);
  EXPECT_EQ(traffic().mirrored_issues, kDivergeAt);
  EXPECT_EQ(traffic().split_issues, kInstructions - kDivergeAt);
  EXPECT_EQ(traffic().divergent_issues, kInstructions - kDivergeAt);
}

// Halves that reach a barrier after different numbers of instructions (a
// trace whose halves diverge before __syncthreads): neither waits for the
// other at the barrier; the wide warp completes.
TEST(WideWarp, HalvesWithDifferentWorkBeforeABarrierBothReachIt) {
  for (uint32_t longer : {0u, 1u}) {
    SCOPED_TRACE(longer == 0 ? "the lower half has one more instruction" : "the upper half has one more");
    WideWarpSm t;
    tb::ScriptedKernel kernel{"barrier", WideWarpSm::one_wide_warp(), [longer](uint32_t, uint32_t w) {
                                std::vector<WarpInstruction> v;
                                v.push_back(tb::alu(1, {10}));
                                v.back().pc = 0;
                                if (w == longer) {
                                  v.push_back(tb::alu(2, {1}));
                                  v.back().pc = 0x100;  // the extra instruction
                                }
                                v.push_back(tb::barrier());
                                v.back().pc = 0x200;
                                v.push_back(tb::alu(3, {1}));
                                v.back().pc = 0x208;
                                return v;
                              }};
    t.start(kernel);
    uint64_t cycle = 0;
    for (; cycle < 400 && t.core.has_work(); ++cycle) t.core.tick(cycle);
    EXPECT_FALSE(t.core.has_work()) << "stuck at cycle " << cycle;
    EXPECT_FALSE(t.core.deadlocked());
    EXPECT_EQ(t.core.stats().warp_instructions, 7u);
    EXPECT_EQ(t.core.stats().barriers, 2u);  // each half arrived
  }
}

// On the shipped pipeline (pipeline registers, instruction cache) a wide
// warp of independent adds issues mirrored every time.
TEST(WideWarpPipelined, IndependentInstructionsIssueMirrored) {
  const GpuSpec base = load_gpu_config("gtx580", {});
  const GpuSpec spec = active_spec(Scheme::BigSm, base, 1);
  tb::FixedLatencyMemory memory{100};
  SmCore core{0, spec, memory, SmSlots{spec.sm.max_warps, spec.sm.max_ctas}};
  BankArbitrator neighbour{base.sm.register_banks, base.sm.scratchpad_banks};
  core.bank_arbitrator().attach_neighbour(neighbour);
  CtaDispatcher dispatcher{1};
  SmSettings settings;
  settings.run.scheme = Scheme::BigSm;
  settings.place = place(Scheme::BigSm, 2, 0, false);
  settings.base = base.sm;
  tb::ScriptedKernel kernel{"wide", WideWarpSm::one_wide_warp(),
                            [](uint32_t, uint32_t w) { return WideWarpSm::code(w); }};
  core.begin_kernel(kernel, make(spec.sm, kernel.resources(), "test", settings), dispatcher);
  ASSERT_TRUE(core.launch_one_cta());
  for (uint64_t cycle = 0; cycle < 2000 && core.has_work();) cycle = std::max(cycle + 1, core.tick(cycle));
  EXPECT_FALSE(core.has_work());
  const BoundaryTraffic& t = crosssm_state_of(core.mechanism())->traffic();
  EXPECT_EQ(t.mirrored_issues, WideWarpSm::kInstructions);
  EXPECT_EQ(t.split_issues, 0u);
}

TEST(CrossSmRoute, BalsRightNeighbourUsesTheUpperHalfOfTheMiddleSmsBanks) {
  const GpuSpec base = load_gpu_config("gtx580", {});
  KernelResources k = tb::single_warp_grid();
  for (uint32_t side : {0u, 1u}) {
    SmSettings s;
    s.run.scheme = Scheme::Bal;
    s.place = place(Scheme::Bal, 16, side == 0 ? 0 : 2, false);  // SMs 0 and 2 flank SM 1
    ASSERT_EQ(s.place.lender_side, side);
    s.base = base.sm;
    const GpuSpec spec = active_spec(Scheme::Bal, base, 1);
    Mechanism m = make(spec.sm, k, "test", s);
    WarpContext w;
    w.home = 1;
    const uint32_t half = base.sm.register_banks / 2;
    for (uint16_t reg = 0; reg < 64; ++reg)
      for (w.slot = 0; w.slot < 8; ++w.slot) {
        const OperandRoute r = m.route->route(w, reg, false, 0);
        EXPECT_EQ(r.group, BankGroup::RemoteRegisterFile);
        EXPECT_GE(r.bank, side * half);
        EXPECT_LT(r.bank, (side + 1) * half);
      }
  }
}

TEST(CrossSmAdmission, CtasFillTheOwnPoolThenTheBorrowedAndFreeTheirOwn) {
  const GpuSpec base = load_gpu_config("gtx580", {});
  KernelResources k;  // 20 KB of scratchpad a CTA: 2 in the own 48 KB, 2 in the borrowed 48 KB
  k.grid_ctas = 100;
  k.threads_per_cta = 64;
  k.regs_per_thread = 8;
  k.smem_bytes_per_cta = 20 * 1024;
  SmSettings s;
  s.run.scheme = Scheme::Occ;
  s.place = place(Scheme::Occ, 16, 0, false);
  s.base = base.sm;
  Mechanism m = make(active_spec(Scheme::Occ, base, 1).sm, k, "test", s);
  ASSERT_EQ(m.admission->occupancy().ctas_per_sm, 4u);
  std::vector<CtaAllocation> a(5);
  for (uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(m.admission->try_admit(i, a[i]));
  EXPECT_FALSE(m.admission->try_admit(4, a[4]));
  EXPECT_EQ(a[0].home + a[1].home, 0);
  EXPECT_EQ(a[2].home + a[3].home, 2);
  // A borrowed CTA leaves: the next one goes back to the borrowed pool.
  m.admission->release(a[2]);
  ASSERT_TRUE(m.admission->try_admit(2, a[2]));
  EXPECT_EQ(a[2].home, 1);
  // An own CTA leaves: the next one takes the own pool again.
  m.admission->release(a[0]);
  ASSERT_TRUE(m.admission->try_admit(0, a[0]));
  EXPECT_EQ(a[0].home, 0);
  EXPECT_EQ(m.admission->smem_allocated(), 4u * 20 * 1024);
}

}  // namespace
}  // namespace smshare::crosssm
