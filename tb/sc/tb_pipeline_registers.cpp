// Pipeline microbenchmarks (tb/traces/pipeline/): whole runs of the trace
// front end on a one-SM GTX 480, each checked twice, with cycles derived by
// hand: under smshare's compact timing (sm.pipeline_registers=false, the
// default) and under GPGPU-Sim 4's shader core (=true; src/gpgpu-sim/
// shader.cc, docs/architecture.md "Pipeline registers").
//
// Dependent instructions, issued t apart (D = issue to dependent issue), with
// L the unit's latency, P = sm.register_bank_ports and k the operands the
// instruction reads from its fullest register bank:
//
//   compact: t issue (collector unit allocated); reads from t+1, ceil(k/P)
//            cycles; dispatch the cycle after the last read; result L later,
//            written back in that cycle, where the dependent issues:
//              D = 1 + ceil(k/P) + L                   (k = 1: L + 2)
//   GPGPU-Sim (shader_core_ctx::cycle: writeback, execute, read_operands,
//            issue; the operand collector steps P times a cycle):
//            t       issue_warp: into ID_OC
//            t+1     step 0: allocate_cu takes it into a collector unit
//            steps 1..k (counted from step 0 of t+1): allocate_reads, one
//                    read per bank per step
//            step k+1: dispatch_ready_cu moves it into OC_EX, in cycle
//                    d = t + 1 + floor((k+1)/P)
//            d+1     execute(): the unit takes it into its dispatch register
//            d+2 ... pipelined_simd_unit::cycle: stage L-1, ..., stage 0 at d+1+L
//            d+2+L   stage 0 into EX_WB
//            d+3+L   writeback(): releaseRegisters; the dependent issues
//              D = 4 + floor((k+1)/P) + L              (k = 1: L + 6; P = 2: L + 5)
//   Scratchpad loads (conflict degree 1) take L = smem_latency in both
//   (GPGPU-Sim: ldst_unit::cycle moves the load from the dispatch register
//   into stage smem_latency-1 at d+2, it reaches stage 0 at d+1+S, ldst_unit::
//   writeback takes it into m_next_wb at d+2+S and writes it at d+3+S).
//
// The front end is smshare's in both (no instruction cache: a group fetched
// in cycle c issues from c+1; GPGPU-Sim decodes it a cycle later): the warp
// is fetched in cycle 0 and issues its first instruction at 1, and a warp
// retires in the cycle of its last writeback, so a chain of N instructions
// (then EXIT) takes 1 + D N + 1 cycles. Only the dependence costs differ.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/top/simulation.hpp"
#include "tb/common/compact_gtx480.hpp"

namespace smshare {
namespace {

const std::string kTraces = std::string(SMSHARE_SOURCE_DIR) + "/tb/traces/pipeline/";

std::string ports(uint32_t p) { return "sm.register_bank_ports=" + std::to_string(p); }

constexpr uint64_t chain_cycles(uint64_t n, uint64_t d) { return 1 + d * n + 1; }
constexpr uint64_t compact_d(uint64_t latency, uint64_t k = 1, uint64_t p = 1) { return 1 + (k + p - 1) / p + latency; }
constexpr uint64_t gpgpusim_d(uint64_t latency, uint64_t k = 1, uint64_t p = 1) { return 4 + (k + 1) / p + latency; }

// GTX 480 latencies (configs/gpu/fermi-gtx480.yaml).
constexpr uint64_t kInt = 4, kFp = 5, kSfu = 20, kSmem = 26;

// One run: a trace, the key, extra --set overrides, and its hand-derived
// cycles. SystemC runs one simulation per process, so each is a test case.
struct Case {
  const char* name;  // the test's name
  const char* trace;
  bool pipeline_registers;
  std::vector<std::string> overrides;
  uint64_t cycles;
};
std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

// D for the independent, dual and barrier cases.
constexpr uint64_t kDc = compact_d(kInt), kDg = gpgpusim_d(kInt), kDg2 = gpgpusim_d(kInt, 1, 2);

const Case kCases[] = {
    // Dependent chains: 32 x IADD3 R1 = R1 + R2 + R3 (FFMA alike), 16 x
    // MUFU.EX2 R1 = f(R1) (the SFU's initiation interval, 8, is below D), 16
    // x LDS R1 = [R1] (stride 4 B, conflict free: L = smem_latency).
    {"IntChainCompact", "int_chain", false, {}, chain_cycles(32, compact_d(kInt))},               // 194
    {"IntChainGpgpuSim", "int_chain", true, {}, chain_cycles(32, gpgpusim_d(kInt))},              // 322
    {"IntChainGpgpuSimTwoPorts", "int_chain", true, {ports(2)}, chain_cycles(32, gpgpusim_d(kInt, 1, 2))},  // 290
    {"FpChainCompact", "fp_chain", false, {}, chain_cycles(32, compact_d(kFp))},                  // 226
    {"FpChainGpgpuSim", "fp_chain", true, {}, chain_cycles(32, gpgpusim_d(kFp))},                 // 354
    {"SfuChainCompact", "sfu_chain", false, {}, chain_cycles(16, compact_d(kSfu))},               // 354
    {"SfuChainGpgpuSim", "sfu_chain", true, {}, chain_cycles(16, gpgpusim_d(kSfu))},              // 418
    {"LdsChainCompact", "lds_chain", false, {}, chain_cycles(16, compact_d(kSmem))},              // 450
    {"LdsChainGpgpuSim", "lds_chain", true, {}, chain_cycles(16, gpgpusim_d(kSmem))},             // 514
    {"LdsChainGpgpuSimTwoPorts", "lds_chain", true, {ports(2)}, chain_cycles(16, gpgpusim_d(kSmem, 1, 2))},  // 498
    // Bank conflicts: R1, R17 (and R33) in one bank, k = 2 (3). Compact:
    // ceil(k/P) read cycles. GPGPU-Sim: one read per step, so with P = 2 two
    // reads in one bank cost nothing more (steps 1 and 2, dispatched in step
    // 3 = step 1 of t+2, the cycle a conflict-free one is dispatched in) and
    // three cost one cycle.
    {"TwoInABankCompact", "conflict2", false, {}, chain_cycles(32, compact_d(kInt, 2, 1))},                  // 226
    {"TwoInABankCompactTwoPorts", "conflict2", false, {ports(2)}, chain_cycles(32, compact_d(kInt, 2, 2))},  // 194
    {"TwoInABankGpgpuSim", "conflict2", true, {}, chain_cycles(32, gpgpusim_d(kInt, 2, 1))},                 // 354
    {"TwoInABankGpgpuSimTwoPorts", "conflict2", true, {ports(2)}, chain_cycles(32, gpgpusim_d(kInt, 2, 2))},  // 290
    {"ThreeInABankCompact", "conflict3", false, {}, chain_cycles(32, compact_d(kInt, 3, 1))},                // 258
    {"ThreeInABankCompactTwoPorts", "conflict3", false, {ports(2)}, chain_cycles(32, compact_d(kInt, 3, 2))},  // 226
    {"ThreeInABankGpgpuSim", "conflict3", true, {}, chain_cycles(32, gpgpusim_d(kInt, 3, 1))},               // 386
    {"ThreeInABankGpgpuSimTwoPorts", "conflict3", true, {ports(2)}, chain_cycles(32, gpgpusim_d(kInt, 3, 2))},  // 322
    // Independent work: two warps of 64 IADD3 each (reading banks 2 and 3,
    // writing others). Two schedulers: each issues one a cycle (the one fetch
    // slot alternates between the warps, each refilled every other cycle);
    // warp 1 issues at 2..66, its last IADD3 at 65, so cycles = 65 + D + 1.
    // GPGPU-Sim keeps up: ID_OC_SP, the SP collector ports and OC_EX_SP take
    // 2 a cycle, each of the 6 SP collector units is held 2 cycles (4 are
    // needed), the 2 SP pipes take one a cycle each. One scheduler: one
    // instruction a cycle from alternating warps, the 130 (EXITs included)
    // at 1..130, the last IADD3 (warp 1's) at 128.
    {"IndependentTwoSchedulersCompact", "independent", false, {}, 65 + kDc + 1},            // 72
    {"IndependentTwoSchedulersGpgpuSim", "independent", true, {}, 65 + kDg + 1},            // 76
    {"IndependentTwoSchedulersGpgpuSimTwoPorts", "independent", true, {ports(2)}, 65 + kDg2 + 1},  // 75
    {"IndependentOneSchedulerCompact", "independent", false, {"sm.num_schedulers=1"}, 128 + kDc + 1},  // 135
    {"IndependentOneSchedulerGpgpuSim", "independent", true, {"sm.num_schedulers=1"}, 128 + kDg + 1},  // 139
    // Dual issue: one warp, 64 independent IADD3 reading banks 2 and 3 in
    // turn. Single issue: 1..64, cycles = 64 + D + 1. Dual issue: both of each
    // fetch group in one cycle (GPGPU-Sim: 2 ID_OC_SP slots, 2 SP allocation
    // ports, one read of each bank, 2 dispatch ports, 2 pipes): pairs at
    // 1..32, cycles = 32 + D + 1.
    {"SingleIssueCompact", "dual", false, {}, 64 + kDc + 1},                                       // 71
    {"SingleIssueGpgpuSim", "dual", true, {}, 64 + kDg + 1},                                       // 75
    {"DualIssueCompact", "dual", false, {"sm.dual_issue=true"}, 32 + kDc + 1},                     // 39
    {"DualIssueGpgpuSim", "dual", true, {"sm.dual_issue=true"}, 32 + kDg + 1},                     // 43
    {"DualIssueGpgpuSimTwoPorts", "dual", true, {"sm.dual_issue=true", ports(2)}, 32 + kDg2 + 1},  // 42
    // Barriers: two warps (schedulers 0 and 1), 16 rounds. Warp 0: A, A, BAR
    // with A = IADD3 R1 = R1 + R2 (one chain through its rounds); warp 1:
    // BAR, A. Warp 0 issues A at 1, A at 1+D (its buffer empties: fetched
    // then), BAR at D+2; a round takes 2D, so BAR_k issues at D + 2 + 2D(k-1),
    // the last at 31D + 2, after warp 1's. Warp 1's last A then issues
    //   compact: the barrier opens at the start of the next cycle, 31D + 3;
    //   GPGPU-Sim: warp_reaches_barrier releases it at once, and the issue
    //     stage starts at scheduler (cycle mod 2) (Issue_Prio), so scheduler
    //     1 follows scheduler 0 in an even cycle: in 31D + 2 if that is even
    //     (D = 10), else in 31D + 3 (D = 9);
    // and is written back D later, in the run's last cycle.
    {"BarrierCompact", "barrier", false, {}, 31 * kDc + 3 + kDc + 1},                         // 196
    {"BarrierGpgpuSim", "barrier", true, {}, 31 * kDg + 2 + kDg + 1},                         // 323
    {"BarrierGpgpuSimTwoPorts", "barrier", true, {ports(2)}, 31 * kDg2 + 3 + kDg2 + 1},       // 292
};

class PipelineMicrobenchmark : public testing::TestWithParam<Case> {};

TEST_P(PipelineMicrobenchmark, TakesTheHandDerivedCycles) {
  const Case& c = GetParam();
  RunRequest req;
  req.config = "fermi-gtx480";
  req.trace = kTraces + c.trace + "/kernelslist.g";
  // The hand derivations assume no instruction-cache misses and no memory limits.
  req.overrides = tb::compact_gtx480(
      {"gpu.num_sms=1", std::string("sm.pipeline_registers=") + (c.pipeline_registers ? "true" : "false")});
  req.overrides.insert(req.overrides.end(), c.overrides.begin(), c.overrides.end());
  auto r = run_simulation(req);
  EXPECT_EQ(r["cycles"].get<uint64_t>(), c.cycles);
  EXPECT_TRUE(r["completed"].get<bool>());
}

INSTANTIATE_TEST_SUITE_P(Traces, PipelineMicrobenchmark, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// The literal values of the table in docs/architecture.md ("Pipeline
// registers"), so a change of a formula above shows there too.
static_assert(chain_cycles(32, compact_d(kInt)) == 194 && chain_cycles(32, gpgpusim_d(kInt)) == 322 &&
              chain_cycles(32, gpgpusim_d(kInt, 1, 2)) == 290);
static_assert(chain_cycles(16, gpgpusim_d(kSmem)) == 514 && chain_cycles(32, gpgpusim_d(kInt, 3, 2)) == 322);
static_assert(31 * kDg + 2 + kDg + 1 == 323 && 31 * kDg2 + 3 + kDg2 + 1 == 292 && 31 * kDc + 3 + kDc + 1 == 196);

}  // namespace
}  // namespace smshare
