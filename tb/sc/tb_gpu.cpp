// Whole-GPU testbenches: the 15-SM Fermi on the TLM memory model, fed by
// shipped kernel profiles.
#include <gtest/gtest.h>

#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/frontend/profile_kernel.hpp"
#include "hw/top/simulation.hpp"
#include "tb/common/compact_gtx480.hpp"

namespace smshare {
namespace {

nlohmann::json run_profile(const std::string& config, const std::string& kernel, ResourceOverrides res,
                           std::vector<std::string> overrides = {}) {
  GpuSpec spec = load_gpu_config(config, overrides);
  KernelProfile profile = load_kernel_profile(kernel);
  auto source = make_profile_kernel(profile, res, FrontendOptions{});
  SimulateOptions o;
  o.kernel_origin = profile.file;
  o.seed = profile.seed;
  return simulate(spec, *source, o);
}

TEST(Gpu, StreamingKernelReachesConfiguredDramBandwidth) {
  // Every warp sweeps its own chunk of a 1 GiB footprint with coalesced
  // loads: no reuse, so every line comes from DRAM. With 48 warps per SM
  // the DRAM data buses should stay saturated: achieved bandwidth over the
  // whole kernel within 5% of dram.bandwidth_gbps.
  ResourceOverrides res;
  res.grid_ctas = 180;  // two waves of 6 CTAs on 15 SMs
  // Without GPGPU-Sim's GTX480 MSHRs and DRAM latency: with them, fewer
  // lines are in flight than the buses need (this tests the bus model).
  auto r = run_profile("fermi-gtx480", "streaming", res, tb::compact_gtx480());
  ASSERT_TRUE(r["completed"].get<bool>());
  uint64_t bytes = 0;
  for (const auto& ch : r["counters"]["memory"]["dram_channels"]) bytes += ch["bytes"].get<uint64_t>();
  const GpuSpec spec = load_gpu_config("fermi-gtx480", {});
  const double seconds = static_cast<double>(r["cycles"].get<uint64_t>()) * spec.core_period_ps() * 1e-12;
  const double gbps = static_cast<double>(bytes) / seconds / 1e9;
  // Each warp-level load of 32 x 4 B is one 128 B line.
  EXPECT_EQ(bytes, r["op_mix"]["global_load"].get<uint64_t>() * 128);
  EXPECT_NEAR(gbps, spec.dram.bandwidth_gbps, 0.05 * spec.dram.bandwidth_gbps) << "achieved " << gbps << " GB/s";
}

TEST(Gpu, HotspotFillsEverySmToItsOccupancy) {
  // Jatala Table II / EXPARS Table 3: hotspot (256 threads, 36 regs) holds 3
  // CTAs per SM, limited by registers. Three waves on 15 SMs.
  ResourceOverrides res;
  res.grid_ctas = 135;
  auto r = run_profile("fermi-gtx480", "hotspot", res);
  EXPECT_TRUE(r["completed"].get<bool>());
  EXPECT_EQ(r["resident_ctas_per_sm"].get<unsigned>(), 3u);
  EXPECT_EQ(r["occupancy"]["limited_by"].get<std::string>(), "registers");
  for (const auto& sm : r["per_sm"]) EXPECT_EQ(sm["max_resident_ctas"].get<unsigned>(), 3u);
  EXPECT_EQ(r["ctas_completed"].get<unsigned>(), 135u);
  // 3 x 9216 of 32768 registers allocated while CTAs are resident.
  EXPECT_NEAR(r["rf_utilization"].get<double>(), 0.84375, 0.05);
}

TEST(Gpu, GtoSchedulerCompletesTheSameWork) {
  ResourceOverrides res;
  res.grid_ctas = 30;
  auto r = run_profile("fermi-gtx480", "hotspot", res, {"sm.scheduler=gto"});
  EXPECT_TRUE(r["completed"].get<bool>());
  EXPECT_EQ(r["scheduler"].get<std::string>(), "gto");
  // Every warp issues the profile's instructions_per_warp (hotspot's phases' sum), whatever the order.
  const uint64_t per_warp = load_kernel_profile("hotspot").instructions_per_warp;
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), 30u * 8u * per_warp);
}

TEST(Gpu, TwoLevelSchedulerLetsWarpsAtABarrierGiveWay) {
  // 1024-thread CTAs (32 warps, 16 per scheduler, twice the active set of 8)
  // with barriers: warps waiting at a barrier must leave the active set, or
  // the warps they wait for never get in (GPGPU-Sim demotes waiting warps).
  ResourceOverrides res;
  res.grid_ctas = 15;
  res.threads_per_cta = 1024;
  res.regs_per_thread = 16;
  auto r = run_profile("fermi-gtx480", "hotspot", res, {"sm.scheduler=two-level"});
  EXPECT_TRUE(r["completed"].get<bool>());
  EXPECT_FALSE(r.contains("deadlock"));
  EXPECT_GT(r["counters"]["barriers"].get<uint64_t>(), 0u);
}

// Hotspot on 30 CTAs (2 on each of the 15 SMs) runs to completion with
// `scheduler`. One SystemC simulation per process: one test per policy.
void expect_hotspot_completes_with(const std::string& scheduler) {
  ResourceOverrides res;
  res.grid_ctas = 30;
  auto r = run_profile("fermi-gtx480", "hotspot", res, {"sm.scheduler=" + scheduler});
  EXPECT_TRUE(r["completed"].get<bool>());
  EXPECT_FALSE(r.contains("deadlock"));
  EXPECT_EQ(r["scheduler"].get<std::string>(), scheduler);
}

TEST(Gpu, TwoLevelSchedulerCompletes) { expect_hotspot_completes_with("two-level"); }

// LTLWS shrinks each scheduler's active set when its first warp retires,
// mid-kernel, while the scheduler's other warps still run.
TEST(Gpu, LazyTwoLevelLrrSchedulerCompletes) { expect_hotspot_completes_with("ltlws-lrr"); }

TEST(Gpu, LazyTwoLevelGtoSchedulerCompletes) { expect_hotspot_completes_with("ltlws-gto"); }

}  // namespace
}  // namespace smshare
