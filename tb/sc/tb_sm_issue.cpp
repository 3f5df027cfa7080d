// Issue-stage and register-port testbenches: dual issue (sm.dual_issue,
// sm.dual_issue_different_units) and register bank ports
// (sm.register_bank_ports), scripted warps on a one-SM Fermi with cycle
// counts derived by hand; each case one simulation (SystemC elaborates one
// per process), single- and dual-issue runs of a program side by side.
// The pipeline rules are tb_sm_pipeline.cpp's:
//   issue (t) -> operand read (t+1, a bank serves sm.register_bank_ports
//   accesses per cycle) -> dispatch (t+2) -> writeback (t+2+L), which
//   clears the scoreboard, and a dependent instruction issues in that cycle.
// Dual issue follows GPGPU-Sim's scheduler_unit::cycle (shader.cc): after a
// warp's instruction issues, the scheduler may issue that warp's next
// instruction in the same cycle if it is in the instruction buffer, has no
// hazard of its own (the first's destinations are in the scoreboard by
// then), finds a free collector unit, and (with
// gpgpu_dual_issue_diff_exec_units) goes to another execution unit.
#include <gtest/gtest.h>

#include "common/scripted_kernel.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/top/simulation.hpp"
#include "tb/common/compact_gtx480.hpp"

namespace smshare::tb {
namespace {

GpuSpec one_sm_fermi(std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), "gpu.num_sms=1");
  return load_gpu_config("fermi-gtx480", tb::compact_gtx480(extra));
}

KernelResources one_cta(uint32_t warps) {
  KernelResources r;
  r.grid_ctas = 1;
  r.threads_per_cta = 32 * warps;
  r.regs_per_thread = 64;
  r.smem_bytes_per_cta = 0;
  return r;
}

uint64_t cycles(const nlohmann::json& r) { return r["cycles"].get<uint64_t>(); }
uint64_t conflicts(const nlohmann::json& r) { return r["counters"]["register_file"]["bank_conflicts"].get<uint64_t>(); }

// N independent int-ALU instructions whose register accesses never meet in a
// bank. Instruction i reads r(2 (i mod 8)) and writes r(32 + 2 ((i + 6) mod 16)):
// even registers, so warp slot 0 uses only even banks and slot 1 only odd
// ones (bank = (reg + slot) mod 16). Issued two per cycle, the pair
// (2k, 2k+1) reads banks 2(2k mod 8) and 2((2k+1) mod 8) (+ slot) in the
// cycle after issue, while the pair issued five cycles earlier writes banks
// 2((2k + 4) mod 8) and 2((2k + 5) mod 8) (+ slot): all four differ. Issued
// one per cycle the reads and writes of a cycle differ as well. A
// destination is reused 16 instructions later, after its write (no WAW
// stall); sources are never written.
std::vector<WarpInstruction> independent_alu(uint64_t n) {
  std::vector<WarpInstruction> v;
  for (uint64_t i = 0; i < n; ++i)
    v.push_back(alu(static_cast<uint16_t>(32 + 2 * ((i + 6) % 16)), {static_cast<uint16_t>(2 * (i % 8))}));
  return v;
}

constexpr uint64_t kN = 64;  // instructions per warp (even)

ScriptedKernel independent_kernel(uint32_t warps) {
  return ScriptedKernel("independent", one_cta(warps), [](uint32_t, uint32_t) { return independent_alu(kN); });
}

// One warp on Fermi's units. Single issue: issued at 1..N, the last written
// at N+6 (as tb_sm_pipeline's IndependentAluIssuesOnePerCycle): N+7 cycles.
TEST(SmIssue, OneWarpSingleIssuesOnePerCycle) {
  ScriptedKernel k = independent_kernel(1);
  auto r = simulate_scripted(k, one_sm_fermi());
  EXPECT_EQ(cycles(r), kN + 7);
  EXPECT_EQ(conflicts(r), 0u);
}

// Dual issue: pairs at 1..N/2, the last written at N/2+6. Nothing else
// limits the warp: its instruction buffer (2 entries) is refilled in the
// cycle it empties (sm.fetch_per_cycle = 1 warp); a collector unit is held
// from issue to dispatch, 2 cycles, so the pairs hold 4 of the 6 SP
// collector units; 2 SP pipelines take the pair each cycle; and the
// accesses never share a bank.
TEST(SmIssue, OneWarpDualIssuesTwoPerCycleOnFermiUnits) {
  ScriptedKernel k = independent_kernel(1);
  auto r = simulate_scripted(k, one_sm_fermi({"sm.dual_issue=true"}));
  EXPECT_EQ(cycles(r), kN / 2 + 7);
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), kN);
  EXPECT_EQ(r["issue_cycles"].get<uint64_t>(), kN / 2);
  EXPECT_EQ(conflicts(r), 0u);
}

// Two warps of one CTA: slot 0 on scheduler 0, slot 1 on scheduler 1. Four
// instructions a cycle need, in smshare:
//   fetch: both warps fetched in cycle 0 and refilled every cycle:
//     sm.fetch_per_cycle=2;
//   collector units: 4 a cycle, each held 2 cycles: sm.oc_units_sp=8;
//   SP pipelines (initiation interval 1): sm.sp_units=4;
//   banks: slot 0 uses even banks, slot 1 odd ones (independent_alu).
// Then both schedulers issue pairs at 1..N/2 and the last is written at
// N/2+6: N/2+7 cycles for 2N instructions.
const std::vector<std::string> kFourPerCycle = {"sm.dual_issue=true", "sm.fetch_per_cycle=2", "sm.oc_units_sp=8",
                                                "sm.sp_units=4"};

TEST(SmIssue, TwoSchedulersDualIssueFourPerCycleWhenUnitsAllow) {
  ScriptedKernel k = independent_kernel(2);
  auto r = simulate_scripted(k, one_sm_fermi(kFourPerCycle));
  EXPECT_EQ(cycles(r), kN / 2 + 7);
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), 2 * kN);
  EXPECT_EQ(r["issue_cycles"].get<uint64_t>(), kN / 2);
  EXPECT_EQ(r["stall_cycles"].get<uint64_t>(), 0u);
  EXPECT_EQ(conflicts(r), 0u);
}

// The same with Fermi's single fetch slot: a warp's buffer is refilled every
// other cycle, fetch alternating between the warps (slot 0 in cycle 0, slot
// 1 in 1, slot 0 in 2, ...), so slot 0 issues pairs at 1, 3, ..., N-1 and
// slot 1 at 2, 4, ..., N: no faster than single issue, N+7 cycles. (A
// warp's reads, a cycle after its issue, and its writes, six cycles after,
// fall in cycles of different parity: still no conflict.)
TEST(SmIssue, OneFetchSlotForTwoDualIssuingWarpsIsNoFasterThanSingleIssue) {
  std::vector<std::string> one_fetch = kFourPerCycle;
  one_fetch.push_back("sm.fetch_per_cycle=1");
  ScriptedKernel k = independent_kernel(2);
  auto r = simulate_scripted(k, one_sm_fermi(one_fetch));
  EXPECT_EQ(cycles(r), kN + 7);
  EXPECT_EQ(r["issue_cycles"].get<uint64_t>(), kN);
  EXPECT_EQ(conflicts(r), 0u);
}

// A pair can only be the two instructions of one fetch: the buffer holds 2
// and is refilled only when empty (GPGPU-Sim: 2 ibuffer entries, fetched
// when ibuffer_empty). Here each fetched pair is dependent: I(2g) =
// r(20 + 2 (g mod 4)) from r1, I(2g+1) = r(21 + 2 (g mod 4)) from I(2g)'s
// result. Single issue: I(2g) at 7g+1, I(2g+1) at 7g+7 (I(2g)'s
// writeback), I(2g+2) a cycle later once the buffer is refilled; I(2M-1)
// is written at 7M+6: 7M+7 cycles. No two accesses of a cycle share a bank.
constexpr uint64_t kPairs = 10;

ScriptedKernel dependent_pairs() {
  return ScriptedKernel("dependent-pairs", one_cta(1), [](uint32_t, uint32_t) {
    std::vector<WarpInstruction> v;
    for (uint64_t g = 0; g < kPairs; ++g) {
      const uint16_t first = static_cast<uint16_t>(20 + 2 * (g % 4));
      v.push_back(alu(first, {1}));
      v.push_back(alu(static_cast<uint16_t>(first + 1), {first}));
    }
    return v;
  });
}

TEST(SmIssue, DependentPairsSingleIssue) {
  ScriptedKernel k = dependent_pairs();
  auto r = simulate_scripted(k, one_sm_fermi());
  EXPECT_EQ(cycles(r), 7 * kPairs + 7);
  EXPECT_EQ(conflicts(r), 0u);
}

// Dual issue cannot join I(2g+1) to I(2g): once I(2g) issued, its
// destination is in the scoreboard. Same cycles, and no cycle issues two.
TEST(SmIssue, DualIssueDoesNotPairDependentInstructions) {
  ScriptedKernel k = dependent_pairs();
  auto r = simulate_scripted(k, one_sm_fermi({"sm.dual_issue=true"}));
  EXPECT_EQ(cycles(r), 7 * kPairs + 7);
  EXPECT_EQ(r["issue_cycles"].get<uint64_t>(), 2 * kPairs);
  EXPECT_EQ(conflicts(r), 0u);
}

// Two independent instructions, r10 = f(r1) then r11 = g(r2).
ScriptedKernel two_independent(OpClass second) {
  return ScriptedKernel("two", one_cta(1), [second](uint32_t, uint32_t) {
    return std::vector<WarpInstruction>{alu(10, {1}), alu(11, {2}, second)};
  });
}

// Two int-ALU instructions pair at 1 and are written at 1+2+4: 8 cycles.
TEST(SmIssue, DualIssuePairsTwoAluInstructions) {
  ScriptedKernel k = two_independent(OpClass::IntAlu);
  auto r = simulate_scripted(k, one_sm_fermi({"sm.dual_issue=true"}));
  EXPECT_EQ(cycles(r), 8u);
  EXPECT_EQ(r["issue_cycles"].get<uint64_t>(), 1u);
}

// Under sm.dual_issue_different_units both go to the SP unit, so they issue
// at 1 and 2; the second is written at 2+2+4: 9 cycles.
TEST(SmIssue, DifferentUnitsRuleKeepsTwoAluInstructionsApart) {
  ScriptedKernel k = two_independent(OpClass::IntAlu);
  auto r = simulate_scripted(k, one_sm_fermi({"sm.dual_issue=true", "sm.dual_issue_different_units=true"}));
  EXPECT_EQ(cycles(r), 9u);
  EXPECT_EQ(r["issue_cycles"].get<uint64_t>(), 2u);
}

// An int-ALU and an SFU instruction pair under the rule: both at 1, the SFU
// result written at 1+2+sfu.latency.
TEST(SmIssue, DifferentUnitsRulePairsAluWithSfu) {
  ScriptedKernel k = two_independent(OpClass::Sfu);
  const GpuSpec spec = one_sm_fermi({"sm.dual_issue=true", "sm.dual_issue_different_units=true"});
  auto r = simulate_scripted(k, spec);
  EXPECT_EQ(cycles(r), 1 + 2 + spec.sm.sfu.latency + 1);
  EXPECT_EQ(r["issue_cycles"].get<uint64_t>(), 1u);
}

// A dependent chain r0 = r0 + r16 + r32: for warp slot 0 all three sources
// are in bank 0. With P ports the reads take ceil(3 / P) cycles, so each
// instruction takes 1 + ceil(3 / P) + 4 cycles: 8, 7, 6 for P = 1, 2, 3
// (the chain's write to bank 0 falls in the cycle the next instruction
// issues, before its reads): 1 + N (1 + ceil(3 / P) + 4) + 1 cycles.
// Refusals per instruction: 2 + 1 with one port, 1 with two, none with
// three. So the pattern costs 2N extra cycles with one port, N with two.
void check_same_bank_chain(uint32_t ports, uint64_t per_instruction, uint64_t conflicts_per_instruction) {
  constexpr uint64_t N = 30;
  ScriptedKernel k("same-bank", one_cta(1),
                   [](uint32_t, uint32_t) { return std::vector<WarpInstruction>(N, alu(0, {0, 16, 32})); });
  auto r = simulate_scripted(k, one_sm_fermi({"sm.register_bank_ports=" + std::to_string(ports)}));
  EXPECT_EQ(cycles(r), 1 + per_instruction * N + 1);
  EXPECT_EQ(conflicts(r), conflicts_per_instruction * N);
  EXPECT_EQ(r["counters"]["register_file"]["reads_per_bank"][0].get<uint64_t>(), 3 * N);
}

TEST(SmIssue, ThreeSameBankOperandsWithOnePort) { check_same_bank_chain(1, 8, 3); }
TEST(SmIssue, ThreeSameBankOperandsWithTwoPorts) { check_same_bank_chain(2, 7, 1); }
TEST(SmIssue, ThreeSameBankOperandsWithThreePorts) { check_same_bank_chain(3, 6, 0); }

// tb_sm_pipeline's TwoResultsInOneBankAreWrittenInTwoCycles with two ports:
// r1 and r17 (both bank 1) are written in cycle 6, so the instruction
// reading r17 issues at 6, is dispatched at 8 and writes at 12: 13 cycles
// instead of 14, and no conflict.
TEST(SmIssue, TwoResultsInOneBankAreWrittenTogetherWithTwoPorts) {
  WarpInstruction two_results = alu(1, {});
  two_results.num_dst = 2;
  two_results.dst[1] = 17;
  ScriptedKernel k("two-dst", one_cta(1), [two_results](uint32_t, uint32_t) {
    return std::vector<WarpInstruction>{two_results, alu(2, {17})};
  });
  auto r = simulate_scripted(k, one_sm_fermi({"sm.register_bank_ports=2"}));
  EXPECT_EQ(cycles(r), 13u);
  EXPECT_EQ(conflicts(r), 0u);
  EXPECT_EQ(r["counters"]["register_file"]["writes_per_bank"][1].get<uint64_t>(), 2u);
}

}  // namespace
}  // namespace smshare::tb
