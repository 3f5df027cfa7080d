// Cross-SM sharing testbenches on one pair of SMs (two-SM Fermi, compact
// pipeline): a dependent int-ALU chain in each of two CTAs. On the baseline
// each SM runs one CTA: the chain issues every 2 + L cycles
// (tb_sm_pipeline.cpp), T0 = 1 + (2 + L) N + 1. Under Occ the active SM runs
// both, the second in the registers, scratchpad and collectors it borrows
// (each CTA takes 40 KB of a 48 KB scratchpad): that warp's operands cross
// to the active SM's SP units through the boundary buffer, the first warp's
// pass the dummy stage, and both paths are crosssm.boundary_cycles longer,
// so every dependent instruction is that much later: T0 + N x cycles, plus
// one cycle because the active SM fetches one warp a cycle (the second
// chain starts a cycle after the first). The bypass restores the baseline
// bit for bit. Each run is its own process.
#include <gtest/gtest.h>

#include "common/run_in_child.hpp"
#include "common/scripted_kernel.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/top/simulation.hpp"
#include "tb/common/compact_gtx480.hpp"

namespace smshare::tb {
namespace {

constexpr uint64_t N = 40;

nlohmann::json run_pair(const std::string& mechanism, std::vector<std::string> settings = {}) {
  return run_in_child(
      [&] {
        const GpuSpec spec = load_gpu_config("fermi-gtx480", compact_gtx480({"gpu.num_sms=2"}));
        KernelResources r;
        r.grid_ctas = 2;
        r.threads_per_cta = 32;
        r.regs_per_thread = 32;
        r.smem_bytes_per_cta = 40 * 1024;
        ScriptedKernel k("chains", r, [](uint32_t, uint32_t) { return std::vector<WarpInstruction>(N, alu(1, {1, 2})); });
        SimulateOptions options;
        options.kernel_origin = "scripted";
        options.mechanism = {mechanism, settings, ""};
        return simulate(spec, k, options);
      },
      mechanism);
}

uint64_t cycles(const nlohmann::json& r) { return r["cycles"].get<uint64_t>(); }
uint64_t stat(const nlohmann::json& r, const char* key) { return r["mechanism_stats"][key].get<uint64_t>(); }

TEST(CrossSm, EveryCrossingAndItsDummyStageAddTheBoundaryCyclesToADependentChain) {
  const nlohmann::json base = run_pair("baseline");
  const uint64_t t0 = 1 + (2 + 4) * N + 1;
  ASSERT_EQ(cycles(base), t0);
  const nlohmann::json occ = run_pair("occ");
  constexpr uint64_t kSecondFetch = 1;
  EXPECT_EQ(cycles(occ), t0 + N + kSecondFetch);
  EXPECT_EQ(occ["resident_ctas_per_sm"].get<uint64_t>(), 2u);  // both on the active SM
  EXPECT_EQ(stat(occ, "active_sms"), 1u);
  EXPECT_EQ(stat(occ, "inactive_sms"), 1u);
  // The borrowed CTA's warp: every instruction decoded into the neighbour's
  // instruction buffer and dispatched across; r1 and r2 read and r1 written
  // in the neighbour's banks. The own CTA's warp: through the dummy stage.
  EXPECT_EQ(stat(occ, "boundary_instruction_buffer"), N);
  EXPECT_EQ(stat(occ, "boundary_operand_dispatch"), N);
  EXPECT_EQ(stat(occ, "remote_register_accesses"), 3 * N);
  EXPECT_EQ(stat(occ, "dummy_stage_instructions"), N);
  EXPECT_EQ(occ["counters"]["register_file"]["bank_conflicts"].get<uint64_t>(), 0u);
}

TEST(CrossSm, TwoBoundaryCyclesCostTwoPerDependentInstruction) {
  constexpr uint64_t kSecondFetch = 1;
  EXPECT_EQ(cycles(run_pair("occ", {"crosssm.boundary_cycles=2"})), 1 + (2 + 4 + 2) * N + 1 + kSecondFetch);
}

TEST(CrossSm, TheBypassRestoresTheBaselineBitForBit) {
  const nlohmann::json base = run_pair("baseline");
  const nlohmann::json bypass = run_pair("occ", {"crosssm.bypass=true"});
  for (const char* key : {"cycles", "warp_instructions", "issue_cycles", "idle_cycles", "stall_reasons", "counters",
                          "activity", "per_sm", "mechanism_stats"})
    EXPECT_EQ(bypass[key], base[key]) << key;
  nlohmann::json occupancy = bypass["occupancy"];
  occupancy["mechanism"] = "baseline";
  EXPECT_EQ(occupancy, base["occupancy"]);
}

}  // namespace
}  // namespace smshare::tb
