// EXPARS Sec. 3.3.2-3.3.3 structures as plain state: the two-way scratchpad
// allocator (hw/sharing/expars/scratchpad_allocator.hpp) and the register
// allocation table (register_allocation_table.hpp), by hand and as a property
// test over random SM sizes and kernels admitted by expars::admission.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "hw/common/gpu_config.hpp"
#include "hw/common/instruction.hpp"
#include "hw/sharing/expars/expars_occupancy.hpp"
#include "hw/sharing/expars/register_allocation_table.hpp"
#include "hw/sharing/expars/scratchpad_allocator.hpp"
#include "hw/sm/occupancy.hpp"

namespace smshare::expars {
namespace {

bool overlap(const ScratchpadRegion& a, const ScratchpadRegion& b) {
  return !a.empty() && !b.empty() && a.begin < b.end && b.begin < a.end;
}

// Every held region lies inside the scratchpad, no two overlap, and every
// data region lies below every register region.
void expect_invariant(const ScratchpadAllocator& a, uint32_t cta_slots) {
  std::vector<ScratchpadRegion> data, regs;
  for (uint32_t c = 0; c < cta_slots; ++c) {
    if (!a.held(c)) continue;
    if (!a.data_region(c).empty()) data.push_back(a.data_region(c));
    if (!a.register_region(c).empty()) regs.push_back(a.register_region(c));
  }
  std::vector<ScratchpadRegion> all = data;
  all.insert(all.end(), regs.begin(), regs.end());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_LE(all[i].end, a.capacity_bytes());
    for (size_t j = i + 1; j < all.size(); ++j) EXPECT_FALSE(overlap(all[i], all[j]));
  }
  for (const auto& d : data)
    for (const auto& r : regs) EXPECT_LE(d.end, r.begin);
  EXPECT_LE(a.data_end(), a.register_begin());
}

// 48 KB, 8 slots, 8 KB of data per CTA, 16 KB of registers per mixed CTA.
TEST(ExparsScratchpadAllocator, FillsBothEndsTowardTheMiddleAndRefusesTheCrossing) {
  ScratchpadAllocator a(48 * 1024, 8, 8 * 1024, 16 * 1024);
  ASSERT_TRUE(a.allocate(0, false));
  ASSERT_TRUE(a.allocate(1, true));
  EXPECT_EQ(a.data_region(0).begin, 0u);
  EXPECT_EQ(a.data_region(1).begin, 8u * 1024);
  EXPECT_EQ(a.register_region(1).begin, 32u * 1024);  // from the top
  EXPECT_EQ(a.register_region(1).end, 48u * 1024);
  EXPECT_TRUE(a.register_region(0).empty());
  // 16 KB data + 16 KB registers used: a third mixed CTA would need 8 + 16 KB.
  EXPECT_FALSE(a.allocate(2, true));
  EXPECT_FALSE(a.held(2));  // refused: nothing changed
  EXPECT_EQ(a.data_end(), 16u * 1024);
  EXPECT_EQ(a.register_begin(), 32u * 1024);
  // A data-only CTA fills the middle exactly, then nothing more fits.
  ASSERT_TRUE(a.allocate(2, false));
  ASSERT_TRUE(a.allocate(3, false));
  EXPECT_EQ(a.data_end(), a.register_begin());
  EXPECT_FALSE(a.allocate(4, false));
  expect_invariant(a, 8);
}

TEST(ExparsScratchpadAllocator, ReleasedRegionsAreReusedByTheNextCtaOfTheSameKind) {
  ScratchpadAllocator a(64 * 1024, 8, 4 * 1024, 8 * 1024);
  for (uint32_t c = 0; c < 4; ++c) ASSERT_TRUE(a.allocate(c, c >= 2));
  const ScratchpadRegion data1 = a.data_region(1), regs2 = a.register_region(2);
  const uint32_t high = a.register_begin();
  a.release(1);
  a.release(2);
  ASSERT_TRUE(a.allocate(5, true));  // takes slot 1's data region and slot 2's register region
  EXPECT_EQ(a.data_region(5).begin, data1.begin);
  EXPECT_EQ(a.register_region(5).begin, regs2.begin);
  EXPECT_EQ(a.register_begin(), high);  // the ends did not move
  EXPECT_EQ(a.data_end(), 4u * 4 * 1024);
  expect_invariant(a, 8);
}

TEST(ExparsScratchpadAllocator, KernelWithoutScratchpadHasOnlyRegisterRegions) {
  ScratchpadAllocator a(48 * 1024, 8, 0, 16 * 1024);
  for (uint32_t c = 0; c < 3; ++c) ASSERT_TRUE(a.allocate(c, true));
  EXPECT_FALSE(a.allocate(3, true));
  EXPECT_TRUE(a.allocate(3, false));  // an all-RF CTA needs no scratchpad
  EXPECT_EQ(a.register_begin(), 0u);
  EXPECT_TRUE(a.data_region(3).empty());
}

TEST(ExparsScratchpadAllocator, MisuseIsALogicError) {
  ScratchpadAllocator a(48 * 1024, 4, 1024, 0);
  EXPECT_THROW(a.release(0), std::logic_error);       // never held
  EXPECT_THROW(a.allocate(4, false), std::logic_error);  // no such slot
  EXPECT_THROW(a.allocate(0, true), std::logic_error);   // mixed, but no register region size
  ASSERT_TRUE(a.allocate(0, false));
  EXPECT_THROW(a.allocate(0, false), std::logic_error);  // already held
  a.release(0);
  EXPECT_THROW(a.release(0), std::logic_error);  // released twice
  EXPECT_THROW(a.data_region(0), std::logic_error);
}

// b+tree on fermi-gtx480 (docs/expars-reproduction.md): 16 warps, 24
// registers, CTA_RF 2, one mixed CTA with Start_Reg 16.
TEST(ExparsRat, JudgementAndAddressesForBtree) {
  RegisterAllocationTable rat(2, 16, 24, 16, 8);
  EXPECT_EQ(rat.max_reg(), 23u);
  EXPECT_EQ(rat.region_bytes(), 8u * 16 * 128);  // 16 KB: the admission's spill bytes
  rat.set_sbr(2, 48 * 1024 - rat.region_bytes());
  EXPECT_FALSE(rat.in_scratchpad(0, 23));  // CTAs before Start_CTA: all in the RF
  EXPECT_FALSE(rat.in_scratchpad(1, 16));
  EXPECT_FALSE(rat.in_scratchpad(2, 15));  // below Start_Reg: RF
  EXPECT_TRUE(rat.in_scratchpad(2, 16));
  EXPECT_TRUE(rat.in_scratchpad(2, 23));
  EXPECT_EQ(rat.address(2, 0, 16), 32u * 1024);
  EXPECT_EQ(rat.address(2, 0, 17), 32u * 1024 + 128);
  EXPECT_EQ(rat.address(2, 1, 16), 32u * 1024 + 8 * 128);  // the next warp's 8 registers
  EXPECT_EQ(rat.address(2, 15, 23, 31), 48u * 1024 - 4);   // the region's last word
  EXPECT_THROW(rat.address(2, 0, 15), std::logic_error);   // an RF register has no address
  EXPECT_THROW(rat.address(1, 0, 16), std::logic_error);
  EXPECT_THROW(rat.address(2, 16, 16), std::logic_error);  // no such warp
  EXPECT_THROW(rat.in_scratchpad(2, 24), std::logic_error);
  rat.clear_sbr(2);
  EXPECT_THROW(rat.address(2, 0, 16), std::logic_error);
  EXPECT_THROW(rat.set_sbr(1, 0), std::logic_error);  // not a mixed slot
}

// Random SMs and kernels, admitted by EXPARS; CTAs come and go. For every
// mixed CTA, every (warp, register >= Start_Reg, lane) has a distinct word
// inside its register region, disjoint from every data region; nothing else
// is in the scratchpad; the allocator never overlaps regions.
TEST(ExparsStructures, PropertyRandomSmsAndKernels) {
  std::mt19937 rng(9);
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  const SmSpec fermi = load_gpu_config("fermi-gtx480", {}).sm;
  int mixed_cases = 0;
  for (int trial = 0; trial < 300; ++trial) {
    SmSpec sm = fermi;
    sm.registers = 1024 * pick(8, 64);
    sm.scratchpad_bytes = 1024 * pick(0, 96);
    sm.max_ctas = pick(2, 16);
    KernelResources k;
    k.grid_ctas = 1000;
    k.threads_per_cta = 32 * pick(1, 16);
    k.regs_per_thread = pick(8, 63);
    k.smem_bytes_per_cta = pick(0, 3) == 0 ? 0 : 128 * pick(1, 64);
    Admission adm;
    try {
      adm = admission(sm, k, "test", pick(0, 99));
    } catch (const std::exception&) {
      continue;  // not one CTA fits: nothing to place
    }
    const CtaFootprint f = cta_footprint(sm, k);
    const uint32_t n = adm.occupancy.ctas_per_sm;
    RegisterAllocationTable rat(adm.cta_rf, adm.start_reg, k.regs_per_thread, f.warps, n);
    ASSERT_EQ(adm.cta_mix == 0 ? 0u : rat.region_bytes(), adm.spill_bytes_per_cta);
    ScratchpadAllocator alloc(sm.scratchpad_bytes, n, f.smem_bytes, adm.spill_bytes_per_cta);
    auto launch = [&](uint32_t c) {
      const bool mixed = c >= adm.cta_rf;
      ASSERT_TRUE(alloc.allocate(c, mixed)) << "the admission's CTAs must fit, slot " << c;
      if (mixed) rat.set_sbr(c, alloc.register_region(c).begin);
    };
    for (uint32_t c = 0; c < n; ++c) launch(c);
    expect_invariant(alloc, n);
    for (int churn = 0; churn < 10; ++churn) {  // a CTA finishes, the next takes its slot
      const uint32_t c = pick(0, n - 1);
      if (c >= adm.cta_rf) rat.clear_sbr(c);
      alloc.release(c);
      launch(c);
      expect_invariant(alloc, n);
    }
    if (adm.cta_mix > 0) ++mixed_cases;
    for (uint32_t c = 0; c < n; ++c) {
      for (uint32_t r = 0; r < k.regs_per_thread; ++r)
        ASSERT_EQ(rat.in_scratchpad(c, r), c >= adm.cta_rf && r >= adm.start_reg);
      if (c < adm.cta_rf) continue;
      const ScratchpadRegion region = alloc.register_region(c);
      std::set<uint32_t> words;
      for (uint32_t w = 0; w < f.warps; ++w)
        for (uint32_t r = adm.start_reg; r < k.regs_per_thread; ++r)
          for (uint32_t l = 0; l < kWarpLanes; ++l) {
            const uint32_t addr = rat.address(c, w, r, l);
            ASSERT_EQ(addr % 4, 0u);
            ASSERT_GE(addr, region.begin);
            ASSERT_LT(addr, region.end);
            ASSERT_TRUE(words.insert(addr).second) << "two registers share word " << addr;
            for (uint32_t d = 0; d < n; ++d)
              ASSERT_FALSE(addr >= alloc.data_region(d).begin && addr < alloc.data_region(d).end);
          }
      ASSERT_EQ(words.size() * 4, region.bytes());  // and the region is exactly filled
    }
  }
  EXPECT_GT(mixed_cases, 30);  // the property was exercised on mixed CTAs
}

}  // namespace
}  // namespace smshare::expars
