// SM pipeline testbenches: scripted warps on a one-SM Fermi, with cycle
// counts derived by hand from the pipeline's timing rules:
//   issue (cycle t) -> operand read, one access per bank per cycle (t+1)
//   -> dispatch when all operands are read (t+2) -> result after the unit's
//   latency (t+2+L) -> writeback, which clears the scoreboard, and a
//   dependent instruction issues in that same cycle.
// So a dependent int-ALU chain issues every 2 + 4 = 6 cycles. A warp retires
// in the cycle of its last writeback; `cycles` counts cycle 0 through it.
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

KernelResources one_warp_cta(uint32_t ctas = 1, uint32_t threads = 32) {
  KernelResources r;
  r.grid_ctas = ctas;
  r.threads_per_cta = threads;
  r.regs_per_thread = 32;
  r.smem_bytes_per_cta = 0;
  return r;
}

constexpr uint64_t kFetchAndFirstIssue = 1;  // cycle 0 fetches, cycle 1 issues

TEST(SmPipeline, DependentAluChainTakesSixCyclesPerInstruction) {
  constexpr uint64_t N = 40;
  ScriptedKernel k("chain", one_warp_cta(), [](uint32_t, uint32_t) {
    // r1 = r1 + r2: every instruction waits for the previous result.
    return std::vector<WarpInstruction>(N, alu(1, {1, 2}));
  });
  GpuSpec spec = one_sm_fermi();
  auto r = simulate_scripted(k, spec);
  const uint64_t per_inst = 2 + spec.sm.int_alu.latency;
  // Last instruction issues at 1 + 6(N-1), writes back 6 cycles later.
  EXPECT_EQ(r["cycles"].get<uint64_t>(), kFetchAndFirstIssue + per_inst * N + 1);
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), N);
  EXPECT_EQ(r["counters"]["register_file"]["bank_conflicts"].get<uint64_t>(), 0u);
  EXPECT_EQ(r["issue_cycles"].get<uint64_t>(), N);
  // Every other active cycle issues nothing (Jatala's idle cycles): the
  // first fetch (cycle 0), the scoreboard, the 5 cycles the exhausted warp
  // waits for its last result, and the cycle it retires in.
  EXPECT_EQ(r["stall_reasons"]["fetch"].get<uint64_t>(), 1u);
  EXPECT_EQ(r["stall_reasons"]["drain"].get<uint64_t>(), 5u);
  EXPECT_EQ(r["stall_reasons"]["no_warp"].get<uint64_t>(), 1u);
  EXPECT_EQ(r["stall_reasons"]["scoreboard"].get<uint64_t>(), r["active_cycles"].get<uint64_t>() - N - 7);
  EXPECT_EQ(r["idle_cycles"].get<uint64_t>(), r["active_cycles"].get<uint64_t>() - N);
  EXPECT_EQ(r["stall_cycles"].get<uint64_t>(), 0u);
}

TEST(SmPipeline, FpChainUsesFpLatency) {
  constexpr uint64_t N = 20;
  ScriptedKernel k("fpchain", one_warp_cta(),
                   [](uint32_t, uint32_t) { return std::vector<WarpInstruction>(N, alu(1, {1, 2}, OpClass::FpAlu)); });
  GpuSpec spec = one_sm_fermi({"sm.fp_alu.latency=9"});
  auto r = simulate_scripted(k, spec);
  EXPECT_EQ(r["cycles"].get<uint64_t>(), kFetchAndFirstIssue + (2 + 9) * N + 1);
}

TEST(SmPipeline, IndependentAluIssuesOnePerCycle) {
  constexpr uint64_t N = 64;
  ScriptedKernel k("independent", one_warp_cta(), [](uint32_t, uint32_t) {
    std::vector<WarpInstruction> v;
    for (uint64_t i = 0; i < N; ++i) v.push_back(alu(static_cast<uint16_t>(8 + i % 8), {0}));
    return v;
  });
  auto r = simulate_scripted(k, one_sm_fermi());
  // Issued in cycles 1..N; the last is read at N+1, dispatched N+2, written N+6.
  EXPECT_EQ(r["cycles"].get<uint64_t>(), N + 2 + 4 + 1);
  EXPECT_EQ(r["issue_cycles"].get<uint64_t>(), N);
}

TEST(SmPipeline, RegisterBankConflictCostsOneCycle) {
  constexpr uint64_t N = 30;
  // Warp 0 sits in slot 0: register r lives in bank r % 16, so r0 and r16
  // share bank 0 and the collector needs two cycles to read them.
  auto chain = [](uint16_t second_src) {
    return [second_src](uint32_t, uint32_t) { return std::vector<WarpInstruction>(N, alu(0, {0, second_src})); };
  };
  ScriptedKernel conflicting("conflict", one_warp_cta(), chain(16));
  auto r = simulate_scripted(conflicting, one_sm_fermi());
  EXPECT_EQ(r["cycles"].get<uint64_t>(), kFetchAndFirstIssue + (3 + 4) * N + 1);
  EXPECT_EQ(r["counters"]["register_file"]["bank_conflicts"].get<uint64_t>(), N);
  const auto& reads = r["counters"]["register_file"]["reads_per_bank"];
  EXPECT_EQ(reads[0].get<uint64_t>(), 2 * N);
  EXPECT_EQ(r["counters"]["register_file"]["writes_per_bank"][0].get<uint64_t>(), N);
}

TEST(SmPipeline, TwoResultsInOneBankAreWrittenInTwoCycles) {
  // One instruction writes r1 and r17, both in bank 1 for warp slot 0: the
  // bank's single write port takes r1 in cycle 6 and r17 in cycle 7, so an
  // instruction reading r17 issues at 7, is dispatched at 9 and writes at 13.
  WarpInstruction two_results = alu(1, {});
  two_results.num_dst = 2;
  two_results.dst[1] = 17;
  ScriptedKernel k("two-dst", one_warp_cta(), [two_results](uint32_t, uint32_t) {
    return std::vector<WarpInstruction>{two_results, alu(2, {17})};
  });
  auto r = simulate_scripted(k, one_sm_fermi());
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 14u);
  EXPECT_EQ(r["counters"]["register_file"]["bank_conflicts"].get<uint64_t>(), 1u);
  EXPECT_EQ(r["counters"]["register_file"]["writes_per_bank"][1].get<uint64_t>(), 2u);
}

TEST(SmPipeline, ScratchpadBankConflictsSerialize) {
  constexpr uint64_t N = 10;
  // Dependent shared loads r1 = smem[addr] with stride 4 B: conflict free
  // (the 32-way case, stride 128 B, is the next test).
  auto loads = [](uint64_t stride) {
    return [stride](uint32_t, uint32_t) {
      std::vector<WarpInstruction> v;
      for (uint64_t i = 0; i < N; ++i) {
        WarpInstruction ld = mem(OpClass::SharedLoad, 1, 0, stride);
        ld.src[ld.num_src++] = 1;  // address depends on the previous load
        v.push_back(ld);
      }
      return v;
    };
  };
  KernelResources res = one_warp_cta();
  res.smem_bytes_per_cta = 4096;
  GpuSpec spec = one_sm_fermi();
  ScriptedKernel conflict_free("smem1", res, loads(4));
  auto r = simulate_scripted(conflict_free, spec);
  // issue t, read t+1, dispatch to LDST t+2, data smem_latency later.
  const uint64_t per_load = 2 + spec.sm.smem_latency;
  EXPECT_EQ(r["cycles"].get<uint64_t>(), kFetchAndFirstIssue + per_load * N + 1);
  EXPECT_EQ(r["counters"]["scratchpad"]["bank_conflict_cycles"].get<uint64_t>(), 0u);
}

TEST(SmPipeline, ScratchpadThirtyTwoWayConflict) {
  constexpr uint64_t N = 10;
  KernelResources res = one_warp_cta();
  res.smem_bytes_per_cta = 4096;
  ScriptedKernel k("smem32", res, [](uint32_t, uint32_t) {
    std::vector<WarpInstruction> v;
    for (uint64_t i = 0; i < N; ++i) {
      WarpInstruction ld = mem(OpClass::SharedLoad, 1, 0, 128);
      ld.src[ld.num_src++] = 1;
      v.push_back(ld);
    }
    return v;
  });
  GpuSpec spec = one_sm_fermi();
  auto r = simulate_scripted(k, spec);
  const uint64_t per_load = 2 + spec.sm.smem_latency + 31;
  EXPECT_EQ(r["cycles"].get<uint64_t>(), kFetchAndFirstIssue + per_load * N + 1);
  EXPECT_EQ(r["counters"]["scratchpad"]["bank_conflict_cycles"].get<uint64_t>(), 31 * N);
}

TEST(SmPipeline, BarrierHoldsEarlyWarpsUntilTheLastArrives) {
  // Two warps of one CTA. Warp 0 runs a 10-deep dependent chain before the
  // barrier; warp 1 reaches the barrier at once and then runs a 3-deep chain.
  constexpr uint64_t kChain = 10;
  ScriptedKernel k("barrier", one_warp_cta(1, 64), [](uint32_t, uint32_t warp) {
    std::vector<WarpInstruction> v;
    if (warp == 0) v.assign(kChain, alu(1, {1, 9}));
    v.push_back(barrier());
    if (warp == 0) v.push_back(alu(3, {4}));
    else v.insert(v.end(), 3, alu(5, {5, 13}));
    return v;
  });
  auto r = simulate_scripted(k, one_sm_fermi());
  // Warp 0 (slot 0, scheduler 0; fetched in cycle 0) issues its chain at
  // 1, 7, ..., 55 and the barrier at 56 (a barrier waits for no result). The
  // barrier opens at the start of cycle 57. Warp 1 (slot 1, scheduler 1,
  // fetched in cycle 1) waited there since cycle 2; its chain issues at 57,
  // 63, 69 and the last result is written at 75.
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 76u);
  EXPECT_EQ(r["counters"]["barriers"].get<uint64_t>(), 2u);
}

TEST(SmPipeline, ExitedWarpsDoNotHoldABarrier) {
  // Warp 1 has no barrier at all: warp 0's barrier must open once warp 1
  // has issued its last instruction, or the CTA would hang.
  ScriptedKernel k("exit", one_warp_cta(1, 64), [](uint32_t, uint32_t warp) {
    std::vector<WarpInstruction> v;
    if (warp == 0) v = {barrier(), alu(3, {4})};
    else v.assign(5, alu(1, {1, 9}));
    return v;
  });
  auto r = simulate_scripted(k, one_sm_fermi());
  EXPECT_TRUE(r["completed"].get<bool>());
  EXPECT_FALSE(r.contains("deadlock"));
  // Warp 1 (fetched in cycle 1) issues at 2, 8, 14, 20, 26, writes at 32.
  // It is exhausted at 26; warp 0's barrier opens at 27; its last ALU issues
  // at 27 and writes at 33.
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 34u);
}

TEST(SmPipeline, AWarpThatEndsAtABarrierDoesNotOpenItForOthers) {
  // Warp 0 ends with a barrier: it has arrived, then runs out of
  // instructions (exited warps do not hold a barrier). Warp 1 arrives at
  // once and must still wait for warp 2, which arrives after a 10-deep chain.
  ScriptedKernel k("ends-at-barrier", one_warp_cta(1, 96), [](uint32_t, uint32_t warp) {
    std::vector<WarpInstruction> v;
    if (warp == 0) v = {alu(1, {9}), barrier()};
    if (warp == 1) {
      v = {barrier()};
      v.insert(v.end(), 10, alu(5, {5, 13}));
    }
    if (warp == 2) {
      v.assign(10, alu(2, {2, 10}));
      v.push_back(barrier());
    }
    return v;
  });
  auto r = simulate_scripted(k, one_sm_fermi());
  // Fetch order: warp 0 at 0, warp 1 at 1, warp 2 at 2. Warp 2's chain
  // issues at 3, 9, ..., 57 and its barrier at 58; the barrier opens at 59.
  // Warp 1's chain then issues at 59, 65, ..., 113 and writes back at 119.
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 120u);
  EXPECT_TRUE(r["completed"].get<bool>());
}

TEST(SmPipeline, ExitIssuedWithNothingInFlightRetiresTheWarp) {
  // Warp 0's EXIT waits behind a barrier until long after its only result
  // is written: the warp must retire when the EXIT issues.
  ScriptedKernel k("late-exit", one_warp_cta(1, 64), [](uint32_t, uint32_t warp) {
    WarpInstruction exit;
    exit.op = OpClass::Exit;
    std::vector<WarpInstruction> v;
    if (warp == 0) v = {alu(1, {9}), barrier(), exit};
    else {
      v.assign(10, alu(5, {5, 13}));
      v.push_back(barrier());
    }
    return v;
  });
  auto r = simulate_scripted(k, one_sm_fermi());
  EXPECT_TRUE(r["completed"].get<bool>());
  EXPECT_FALSE(r.contains("deadlock"));
  // Warp 1 (fetched at 1): chain at 2..56, barrier at 57, opens at 58 when
  // warp 0 issues its EXIT; warp 1's last result is written at 62.
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 63u);
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), 3u + 11u);
}

TEST(SmPipeline, L1HitOnALineInFlightWaitsForItsFill) {
  // Warp 0 misses on a line; warp 1 loads the same line a cycle later and
  // "hits" the tag L1 allocated for the miss, but its data comes with the
  // fill, so its 20-deep chain cannot start before the line is back from
  // memory: at least 2 x icnt + L2 latency after the first load.
  constexpr uint64_t kChain = 20;
  ScriptedKernel k("mshr", one_warp_cta(1, 64), [](uint32_t, uint32_t warp) {
    std::vector<WarpInstruction> v = {mem(OpClass::GlobalLoad, 1, 0x10000000, 4)};
    if (warp == 1) v.insert(v.end(), kChain, alu(1, {1, 9}));
    return v;
  });
  GpuSpec spec = one_sm_fermi();
  auto r = simulate_scripted(k, spec);
  EXPECT_EQ(r["counters"]["l1"]["misses"].get<uint64_t>(), 1u);
  EXPECT_EQ(r["counters"]["l1"]["hits"].get<uint64_t>(), 1u);
  EXPECT_EQ(r["counters"]["l1"]["pending_hits"].get<uint64_t>(), 1u);
  const uint64_t round_trip = 2 * spec.icnt.latency + spec.l2.hit_latency;
  EXPECT_GE(r["cycles"].get<uint64_t>(), round_trip + kChain * (2 + spec.sm.int_alu.latency));
}

TEST(SmPipeline, CtaCompletionRefillsTheSm) {
  // 8 CTAs of 1 warp on an SM that holds 2 at a time (sm.max_ctas=2): four
  // waves of a 10-deep chain; a new CTA is launched in the cycle the
  // previous one retires. Sources r1 and r9 keep the two resident warps
  // (slots 0 and 1) on different register banks.
  constexpr uint64_t kChain = 10;
  ScriptedKernel k("waves", one_warp_cta(8), [](uint32_t, uint32_t) {
    return std::vector<WarpInstruction>(kChain, alu(1, {1, 9}));
  });
  auto r = simulate_scripted(k, one_sm_fermi({"sm.max_ctas=2"}));
  EXPECT_EQ(r["resident_ctas_per_sm"].get<unsigned>(), 2u);
  EXPECT_EQ(r["ctas_completed"].get<unsigned>(), 8u);
  EXPECT_TRUE(r["completed"].get<bool>());
  // Fetch decodes one warp per cycle, so the CTA in slot 1 starts one cycle
  // after slot 0's: it issues at 2, 8, ..., 56 and retires at 62. A refilled
  // CTA fetches in its launch cycle and issues in the next, so every wave
  // takes 61 cycles: slot 1's fourth CTA retires at 62 + 3 x 61 = 245.
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 246u);
}

}  // namespace
}  // namespace smshare::tb
