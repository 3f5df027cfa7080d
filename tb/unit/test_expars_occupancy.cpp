// EXPARS Sec. 3.3.1 admission (hw/sharing/expars/expars_occupancy.hpp):
// hand-derived cases for each binding constraint, the baseline when nothing
// is mixed, the tau parser, and Sec. 4.3's averages over Table 3's kernels
// on fermi-gtx480 (docs/expars-reproduction.md shows them per kernel).
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "hw/common/error.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/sharing/expars/expars_occupancy.hpp"
#include "hw/sharing/registry.hpp"

namespace smshare {
namespace {

using expars::admission;

// fermi-gtx480 (R = 32768 registers, S = 48 KB, 1536 threads, 8 CTAs, 48
// warps) allocating registers one at a time, so R_CTA = regs x threads.
SmSpec unrounded_fermi() {
  return load_gpu_config("fermi-gtx480", {"sm.reg_alloc_thread_granularity=1", "sm.reg_alloc_warp_granularity=1"})
      .sm;
}

KernelResources kernel(uint32_t threads, uint32_t regs, uint32_t smem_bytes = 0) {
  KernelResources k;
  k.grid_ctas = 1000;
  k.threads_per_cta = threads;
  k.regs_per_thread = regs;
  k.smem_bytes_per_cta = smem_bytes;
  return k;
}

void expect_baseline(const SmSpec& sm, const KernelResources& k, uint32_t tau_percent) {
  const Occupancy base = baseline_occupancy(sm, k, "test");
  const expars::Admission a = admission(sm, k, "test", tau_percent);
  EXPECT_EQ(a.occupancy.ctas_per_sm, base.ctas_per_sm);
  EXPECT_EQ(a.occupancy.warps_per_sm, base.warps_per_sm);
  EXPECT_EQ(a.occupancy.limited_by, base.limited_by);
  EXPECT_EQ(a.occupancy.by_registers, base.by_registers);
  EXPECT_EQ(a.occupancy.by_scratchpad, base.by_scratchpad);
  EXPECT_EQ(a.cta_rf, base.ctas_per_sm);
  EXPECT_EQ(a.cta_mix, 0u);
  EXPECT_EQ(a.start_reg, k.regs_per_thread);
  EXPECT_EQ(a.spill_regs_per_cta, 0u);
}

TEST(ExparsOccupancy, TauZeroIsExactlyTheBaseline) {
  const SmSpec sm = unrounded_fermi();
  expect_baseline(sm, kernel(128, 60), 0);         // register-limited: 4 CTAs
  expect_baseline(sm, kernel(256, 36, 3072), 0);   // hotspot's shape: 3 CTAs
  const SmSpec fermi = load_gpu_config("fermi-gtx480", {}).sm;
  expect_baseline(fermi, kernel(256, 22), 0);
}

TEST(ExparsOccupancy, NothingToMixIsTheBaseline) {
  const SmSpec sm = unrounded_fermi();
  expect_baseline(sm, kernel(256, 16), 80);           // 4096 registers a CTA: threads bind first (6)
  expect_baseline(sm, kernel(128, 60, 24576), 80);    // the kernel's scratchpad leaves room for 2 CTAs only
  expect_baseline(sm, kernel(512, 24), 10);           // tau 0.1: 1024 of the 4096 missing registers per CTA
}

// 128 threads x 60 registers = 7680 a CTA, 4 in the RF (2048 left over).
// tau = 0.5: at most 30 registers per thread (3840 a CTA) in the scratchpad.
// 5 CTAs: 5632 registers over -> 2 mixed; 3 x 7680 + 2 x (60 - s) x 128 <= 32768
// gives s = 22 (Start_Reg 38), 4 x 2 x 22 x 128 = 22528 B of scratchpad.
// 6 CTAs: 13312 over needs 4 mixed at s = 26 (53248 B), 5 at 21 (53760 B)
// or 6 at 18 (55296 B): more than 48 KB.
TEST(ExparsOccupancy, LimitedByTheScratchpadHoldingTheRegisters) {
  const expars::Admission a = admission(unrounded_fermi(), kernel(128, 60), "test", 50);
  EXPECT_EQ(a.occupancy.ctas_per_sm, 5u);
  EXPECT_EQ(a.occupancy.warps_per_sm, 20u);
  EXPECT_EQ(a.occupancy.limited_by, OccupancyLimit::Scratchpad);
  EXPECT_EQ(a.occupancy.by_scratchpad, 5u);
  EXPECT_EQ(a.occupancy.by_registers, 8u);  // 9 CTAs would need 10 mixed
  EXPECT_EQ(a.cta_mix, 2u);
  EXPECT_EQ(a.cta_rf, 3u);
  EXPECT_EQ(a.start_reg, 38u);
  EXPECT_EQ(a.spill_regs_per_cta, 22u * 128);
  EXPECT_EQ(a.spill_bytes_per_cta, 22u * 128 * 4);
}

// The same kernel at tau = 0.2: at most 12 registers per thread (1536 a CTA).
// 5 CTAs: 5632 over -> 4 mixed; 7680 + 4 x (60 - s) x 128 <= 32768 gives
// s = 11 (1408 <= 1536). 6 CTAs: 13312 over would need 9 mixed CTAs.
TEST(ExparsOccupancy, LimitedByTheTauBound) {
  const expars::Admission a = admission(unrounded_fermi(), kernel(128, 60), "test", 20);
  EXPECT_EQ(a.occupancy.ctas_per_sm, 5u);
  EXPECT_EQ(a.occupancy.limited_by, OccupancyLimit::Registers);
  EXPECT_EQ(a.occupancy.by_registers, 5u);
  EXPECT_EQ(a.cta_mix, 4u);
  EXPECT_EQ(a.cta_rf, 1u);
  EXPECT_EQ(a.start_reg, 49u);
  EXPECT_EQ(a.spill_regs_per_cta, 11u * 128);
  EXPECT_LE(a.spill_regs_per_cta * 100, 20u * 7680);
}

// 256 threads x 22 registers = 5632 (sgemm's shape): 5 CTAs in the RF, the
// thread limit is 6. The 6th needs 1024 registers: one mixed CTA with
// 4 per thread (Start_Reg 18). The RF and tau would allow more (9 reach the
// search bound) and the scratchpad 8 (3 mixed CTAs x 16 x 256 x 4 B =
// exactly 48 KB).
TEST(ExparsOccupancy, LimitedByThreads) {
  const expars::Admission a = admission(unrounded_fermi(), kernel(256, 22), "test", 80);
  EXPECT_EQ(a.occupancy.ctas_per_sm, 6u);
  EXPECT_EQ(a.occupancy.warps_per_sm, 48u);
  EXPECT_EQ(a.occupancy.limited_by, OccupancyLimit::Threads);
  EXPECT_EQ(a.occupancy.by_scratchpad, 8u);
  EXPECT_EQ(a.occupancy.by_registers, 9u);
  EXPECT_EQ(a.cta_mix, 1u);
  EXPECT_EQ(a.cta_rf, 5u);
  EXPECT_EQ(a.start_reg, 18u);
  EXPECT_EQ(a.spill_regs_per_cta, 4u * 256);
}

TEST(ExparsOccupancy, AGridTheRegisterFileHoldsIsTheBaseline) {
  KernelResources k = kernel(256, 22);
  k.grid_ctas = 5;  // fits in the RF alone
  expect_baseline(unrounded_fermi(), k, 80);
}

TEST(ExparsOccupancy, TauParserAndRange) {
  uint32_t p = 0;
  EXPECT_TRUE(expars::parse_tau("0.8", p));
  EXPECT_EQ(p, 80u);
  EXPECT_TRUE(expars::parse_tau(".75", p));
  EXPECT_EQ(p, 75u);
  EXPECT_TRUE(expars::parse_tau("0", p));
  EXPECT_EQ(p, 0u);
  for (const char* bad : {"1", "1.0", "0.805", "-0.1", "", ".", "80", "0.8x"})
    EXPECT_FALSE(expars::parse_tau(bad, p)) << bad;
  EXPECT_THROW(admission(unrounded_fermi(), kernel(128, 60), "test", 100), InputError);
  EXPECT_THROW(mechanism_registry().configure({"expars", {"expars.tau=1"}, ""}), InputError);
  const ConfiguredMechanism m = mechanism_registry().configure({"expars", {"expars.tau=0.5"}, ""});
  EXPECT_EQ(m.occupancy(unrounded_fermi(), kernel(128, 60), "test").ctas_per_sm, 5u);
  EXPECT_NO_THROW(m.require_simulated("run"));
  EXPECT_NO_THROW(m.require_occupancy("occupancy"));
}

// `smshare area` and `hw-cost` size the operand cache from the settings:
// a size `run` refuses (not whole 128-byte lines in each register bank) must
// be refused there too, not priced as fractions of lines.
TEST(ExparsSettings, AreaRefusesAnOperandCacheRunRefuses) {
  const GpuSpec fermi = load_gpu_config("fermi-gtx480", {});
  for (const char* bytes : {"expars.operand_cache_bytes=1000", "expars.operand_cache_bytes=768"})
    EXPECT_THROW(mechanism_registry().configure({"expars", {bytes}, ""}).hardware(fermi), InputError) << bytes;
  EXPECT_NO_THROW(mechanism_registry().configure({"expars", {"expars.operand_cache_bytes=4096"}, ""}).hardware(fermi));
}

// EXPARS Table 3: warps per CTA, scratchpad bytes per CTA, registers per CTA.
struct Table3Row {
  const char* kernel;
  uint32_t baseline_ctas, warps_per_cta, smem_bytes, rf_per_cta;
};
constexpr std::array<Table3Row, 14> kTable3 = {{
    {"LBM", 7, 4, 0, 4608},
    {"ST", 2, 16, 0, 14436},
    {"MQ", 4, 8, 0, 7168},
    {"SGE", 5, 4, 512, 5632},
    {"BT", 2, 16, 0, 12288},
    {"HS", 3, 8, 3072, 9216},
    {"LEUK", 7, 6, 0, 4608},
    {"MC", 5, 8, 2048, 6144},
    {"CONV", 7, 6, 0, 4608},
    {"EST", 5, 8, 0, 6144},
    {"MERG", 2, 16, 8192, 12288},
    {"QUA", 2, 12, 0, 12288},
    {"SING1", 5, 8, 0, 6144},
    {"SING2", 4, 8, 0, 7168},
}};

// The paper's inputs: registers per thread = ceil(RF per CTA / threads).
KernelResources table3_kernel(const Table3Row& row) {
  const uint32_t threads = row.warps_per_cta * 32;
  return kernel(threads, (row.rf_per_cta + threads - 1) / threads, row.smem_bytes);
}

struct Sec43 {
  double ctas = 0, warps = 0;
  unsigned full = 0;  // kernels at 48 warps
};

Sec43 sec43(const SmSpec& sm) {
  Sec43 s;
  for (const Table3Row& row : kTable3) {
    const KernelResources k = table3_kernel(row);
    const expars::Admission a = admission(sm, k, row.kernel, expars::kPaperTauPercent);
    EXPECT_EQ(a.cta_rf + a.cta_mix, a.occupancy.ctas_per_sm) << row.kernel;
    s.ctas += a.occupancy.ctas_per_sm;
    s.warps += a.occupancy.warps_per_sm;
    s.full += a.occupancy.warps_per_sm == sm.max_warps;
  }
  s.ctas /= kTable3.size();
  s.warps /= kTable3.size();
  return s;
}

// Sec. 4.3: "the maximum number of CTAs for ... EXPARS is ... 5.50", 43.43
// warps, 10 kernels at 48 warps: from Table 3's RF per CTA, no rounding.
TEST(ExparsOccupancy, Section43AveragesWithoutAllocationRounding) {
  const Sec43 s = sec43(unrounded_fermi());
  EXPECT_NEAR(s.ctas, 5.50, 0.005);
  EXPECT_NEAR(s.warps, 43.43, 0.005);
  EXPECT_EQ(s.full, 10u);
}

// The same constraints with Fermi's 4-register-per-thread rounding.
TEST(ExparsOccupancy, Section43WithFermiRounding) {
  const Sec43 s = sec43(load_gpu_config("fermi-gtx480", {}).sm);
  EXPECT_NEAR(s.ctas, 5.43, 0.005);
  EXPECT_NEAR(s.warps, 42.29, 0.005);
  EXPECT_EQ(s.full, 9u);
}

// Table 3's baseline CTAs/SM are what our baseline gives from its own
// columns (the inputs are read as the paper meant them).
TEST(ExparsOccupancy, Table3BaselineColumn) {
  const SmSpec sm = unrounded_fermi();
  for (const Table3Row& row : kTable3) {
    EXPECT_EQ(baseline_occupancy(sm, table3_kernel(row), row.kernel).ctas_per_sm, row.baseline_ctas) << row.kernel;
  }
}

}  // namespace
}  // namespace smshare
