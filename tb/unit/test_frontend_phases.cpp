// Phase-structured kernel profiles (kernel_profile.hpp, `phases`): the
// loader's derived totals and its errors, and the streams the generator makes
// from them: phase lengths and order, barriers, register ranges, scratchpad
// regions, determinism, and the --regs-per-thread scaling of the ranges.
#include <gtest/gtest.h>


#include <set>
#include <string>
#include <vector>

#include "hw/common/error.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/frontend/profile_kernel.hpp"
#include "tb/common/profile_test_support.hpp"

namespace smshare {
namespace {

using tb::drain;

// setup (R0-R5, no scratchpad) -> load (R0-R9, fills the lower half of the
// scratchpad, then a barrier) -> compute x 3 (R6-R15, reads the upper half, a
// barrier after each) -> store (R0-R3).
KernelProfile phased_profile() {
  KernelProfile p = tb::profile_in_code("phases", 8, 128, 16, 4096);  // 4 warps per CTA, 1024 words of scratchpad
  p.seed = 3;
  p.hot_registers = 4;
  p.hot_fraction = 0.7;
  p.mean_dependence_distance = 3;
  using tb::phase_in_code;
  p.phases = {phase_in_code("setup", 20, 1, false, {0.9, 0, 0, 0.1, 0, 0, 0}, 0, 5, 2, 0, 1),
              phase_in_code("load", 40, 1, true, {0.3, 0, 0, 0.2, 0, 0, 0.5}, 0, 9, 2, 0, 0.5),
              phase_in_code("compute", 50, 3, true, {0.3, 0.4, 0, 0, 0, 0.3, 0}, 6, 15, 2, 0.5, 1),
              phase_in_code("store", 10, 1, false, {0.5, 0, 0, 0, 0.5, 0, 0}, 0, 3, 2, 0, 1)};
  summarize_phases(p);
  validate(p);
  return p;
}

TEST(FrontendPhases, TotalsAreTheSumOverThePhases) {
  const KernelProfile p = phased_profile();
  // 20 + (40 + 1) + (50 + 1) * 3 + 10
  EXPECT_EQ(p.instructions_per_warp, 224u);
  // Weighted by instructions x repeat (20 + 40 + 150 + 10 = 220 body instructions).
  EXPECT_NEAR(p.mix_of(MixClass::FpAlu), 0.4 * 150 / 220, 1e-12);
  EXPECT_NEAR(p.mix_of(MixClass::SharedStore), 0.5 * 40 / 220, 1e-12);
  auto k = make_profile_kernel(p, {}, {});
  EXPECT_EQ(*k->total_warp_instructions(), 8u * 4 * 224);
  for (uint32_t w = 0; w < 4; ++w) EXPECT_EQ(drain(*k, 1, w).size(), 224u);
}

TEST(FrontendPhases, PhasesRunInOrderWithTheirBarriersAndRepeats) {
  auto k = make_profile_kernel(phased_profile(), {}, {});
  const auto s = drain(*k, 2, 1);
  // PC slots: setup [0, 20) + its unused barrier slot, load [21, 61) + 61,
  // compute [62, 112) + 112, store [113, 123).
  std::vector<size_t> barriers;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i].op == OpClass::Barrier) barriers.push_back(i);
  EXPECT_EQ(barriers, (std::vector<size_t>{60, 111, 162, 213}));
  EXPECT_EQ(s[60].pc, 61u * 8);
  EXPECT_EQ(s[111].pc, 112u * 8);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(s[i].pc, i * 8);
  for (size_t i = 20; i < 60; ++i) EXPECT_EQ(s[i].pc, (i + 1) * 8);
  for (size_t rep = 0; rep < 3; ++rep)  // the compute code runs three times, at the same PCs
    for (size_t j = 0; j < 50; ++j) EXPECT_EQ(s[61 + rep * 51 + j].pc, (62 + j) * 8);
  for (size_t i = 214; i < 224; ++i) EXPECT_EQ(s[i].pc, (113 + i - 214) * 8);
  // Every instruction, its phase's barrier included, carries its phase.
  for (size_t i = 0; i < s.size(); ++i)
    EXPECT_EQ(s[i].phase, i < 20 ? 0 : i <= 60 ? 1 : i <= 213 ? 2 : 3) << i;
  // Each phase's mix is exact per execution.
  auto count = [&](size_t from, size_t to, OpClass op) {
    size_t n = 0;
    for (size_t i = from; i < to; ++i) n += s[i].op == op;
    return n;
  };
  EXPECT_EQ(count(0, 20, OpClass::GlobalLoad), 2u);
  EXPECT_EQ(count(20, 60, OpClass::SharedStore), 20u);
  EXPECT_EQ(count(61, 111, OpClass::FpAlu), 20u);
  EXPECT_EQ(count(214, 224, OpClass::GlobalStore), 5u);
  EXPECT_EQ(count(0, 224, OpClass::SharedLoad), 45u);
}

TEST(FrontendPhases, RegistersStayInTheirPhasesRangesInFirstUseNumbering) {
  auto k = make_profile_kernel(phased_profile(), {}, {});
  const auto s = drain(*k, 0, 0);
  // Numbered by first use (first_use_order ascending), each phase's range
  // is kept: setup touches R0-R5 only, compute never touches R0-R5.
  auto regs_in = [&](size_t from, size_t to) {
    std::set<uint16_t> r;
    for (size_t i = from; i < to; ++i) {
      for (unsigned d = 0; d < s[i].num_dst; ++d) r.insert(s[i].dst[d]);
      for (unsigned j = 0; j < s[i].num_src; ++j) r.insert(s[i].src[j]);
    }
    return r;
  };
  const auto setup = regs_in(0, 20), load = regs_in(20, 60), compute = regs_in(61, 111), store = regs_in(214, 224);
  EXPECT_LE(*setup.rbegin(), 5);
  EXPECT_LE(*load.rbegin(), 9);
  EXPECT_GE(*compute.begin(), 6);
  EXPECT_LE(*compute.rbegin(), 15);
  EXPECT_LE(*store.rbegin(), 3);
  std::set<uint16_t> all = regs_in(0, s.size());
  EXPECT_EQ(all.size(), 16u) << "every declared register is used";
}

TEST(FrontendPhases, ScratchpadRegionsAndFillOrder) {
  auto k = make_profile_kernel(phased_profile(), {}, {});
  for (uint32_t w = 0; w < 4; ++w) {
    const auto s = drain(*k, 0, w);
    // The load phase stores into the lower half (words [0, 512)), starting at
    // the warp's own row: warp w's first store covers words 32w .. 32w + 31.
    bool first = true;
    for (size_t i = 20; i < 60; ++i) {
      if (s[i].op != OpClass::SharedStore) continue;
      for (unsigned l = 0; l < kWarpLanes; ++l) {
        EXPECT_LT(s[i].lane_address(l), 2048u);
        if (first) {
          EXPECT_EQ(s[i].lane_address(l), (32u * w + l) * 4);
        }
      }
      first = false;
    }
    // The compute phase reads the upper half (words [512, 1024)), from the
    // warp's own row there, one word further each access.
    size_t reads = 0;
    for (size_t i = 61; i < 213; ++i) {
      if (s[i].op != OpClass::SharedLoad) continue;
      for (unsigned l = 0; l < kWarpLanes; ++l) {
        EXPECT_GE(s[i].lane_address(l), 2048u);
        EXPECT_LT(s[i].lane_address(l), 4096u);
        if (reads == 0) {
          EXPECT_EQ(s[i].lane_address(l), (512u + 32u * w + l) * 4);
        }
      }
      ++reads;
    }
    EXPECT_EQ(reads, 45u);
  }
}

// Every scratchpad access of every shipped phased profile lies in its own
// phase's region, the last instruction of a phase included (it must not
// take the next phase's region).
TEST(FrontendPhases, ShippedProfilesStayInTheirPhasesRegions) {
  unsigned phased = 0;
  for (const auto& name : list_config_names("kernels")) {
    const KernelProfile p = load_kernel_profile(name);
    if (p.phases.empty()) continue;
    ++phased;
    const uint32_t words = p.resources.smem_bytes_per_cta / 4;
    auto k = make_profile_kernel(p, {}, {});
    const uint32_t warps = p.resources.warps_per_cta();
    for (uint32_t w : {0u, warps - 1}) {
      size_t outside = 0;
      for (const WarpInstruction& in : drain(*k, 0, w)) {
        if (!is_shared_memory(in.op)) continue;
        const ProfilePhase& ph = p.phases.at(in.phase);
        const uint64_t lo = uint64_t{phase_smem_first_word(ph, words)} * 4;
        const uint64_t hi = lo + uint64_t{phase_smem_words(ph, words)} * 4;
        for (unsigned l = 0; l < kWarpLanes; ++l)
          if ((in.active_mask >> l & 1u) && (in.lane_address(l) < lo || in.lane_address(l) >= hi)) ++outside;
      }
      EXPECT_EQ(outside, 0u) << name << " warp " << w;
    }
  }
  EXPECT_GE(phased, 15u) << "the 15 Jatala profiles are phased";
}

TEST(FrontendPhases, DeterministicAndReordered) {
  const KernelProfile p = phased_profile();
  auto a = make_profile_kernel(p, {}, {});
  auto b = make_profile_kernel(p, {}, {});
  const auto sa = drain(*a, 3, 2), sb = drain(*b, 3, 2);
  ASSERT_EQ(sa.size(), sb.size());
  for (size_t i = 0; i < sa.size(); ++i) {
    EXPECT_EQ(sa[i].op, sb[i].op);
    EXPECT_EQ(sa[i].pc, sb[i].pc);
    EXPECT_EQ(sa[i].dst, sb[i].dst);
    EXPECT_EQ(sa[i].src, sb[i].src);
  }
}

TEST(FrontendPhases, ARegisterOverrideScalesTheRanges) {
  ResourceOverrides twice;
  twice.regs_per_thread = 32;
  auto k = make_profile_kernel(phased_profile(), twice, {});
  const auto s = drain(*k, 0, 0);
  std::set<uint16_t> setup, all;
  for (size_t i = 0; i < s.size(); ++i)
    for (unsigned d = 0; d < s[i].num_dst; ++d) {
      all.insert(s[i].dst[d]);
      if (i < 20) setup.insert(s[i].dst[d]);
    }
  EXPECT_LE(*setup.rbegin(), 11) << "setup's R0-R5 of 16 becomes R0-R11 of 32";
  EXPECT_EQ(*all.rbegin(), 31);
}

// ---- the loader --------------------------------------------------------------

class FrontendPhaseFiles : public tb::ProfileFileTest {
 protected:
  static std::string good() {
    return "name: t\n"
           "bound: compute\n"
           "grid_ctas: 4\n"
           "threads_per_cta: 64\n"
           "regs_per_thread: 16\n"
           "smem_bytes_per_cta: 1024\n"
           "mix: {int_alu: 0.5, fp_alu: 0.5}\n"
           "paper: {source: test}\n"
           "phases:\n"
           "  - {name: load, instructions: 30, registers: {range: [0, 7]},\n"
           "     mix: {int_alu: 0.5, shared_store: 0.5}, shared: {range: [0, 0.5]}, barrier_after: true}\n"
           "  - {name: compute, instructions: 40, repeat: 4, registers: {range: [4, 15], hot_count: 3}}\n";
  }
};

TEST_F(FrontendPhaseFiles, AGoodFileLoadsWithItsDefaultsAndTotals) {
  const KernelProfile p = load(good());
  ASSERT_EQ(p.phases.size(), 2u);
  EXPECT_EQ(p.instructions_per_warp, 31u + 160u);
  EXPECT_EQ(p.phases[1].mix_of(MixClass::FpAlu), 0.5) << "a phase without mix takes the top level's";
  EXPECT_EQ(p.phases[1].hot_registers, 3u);
  EXPECT_EQ(p.phases[0].shared_to, 0.5);
  EXPECT_NEAR(p.mix_of(MixClass::SharedStore), 15.0 / 190, 1e-12);
}

TEST_F(FrontendPhaseFiles, EveryMistakeNamesTheFileAndTheKey) {
  auto expect = [&](const std::string& text, const std::string& key, const std::string& what) {
    const std::string m = error_of(text);
    EXPECT_NE(m.find("k.yaml"), std::string::npos) << m;
    EXPECT_NE(m.find(key), std::string::npos) << m;
    EXPECT_NE(m.find(what), std::string::npos) << m;
  };
  expect(good() + "instructions_per_warp: 100\n", "instructions_per_warp", "must not be given with phases");
  expect(good() + "barriers_per_instruction: 0.01\n", "barriers_per_instruction", "must not be given");
  expect(replace(good(), "range: [4, 15]", "range: [4, 14]"), "phases", "register 15 is in no phase");
  expect(replace(good(), "range: [4, 15]", "range: [4, 16]"), "phases[1].registers.range", "regs_per_thread");
  expect(replace(good(), "hot_count: 3", "hot_count: 13"), "phases[1].registers.hot_count", "[1, 12]");
  expect(replace(good(), "shared: {range: [0, 0.5]}", "shared: {range: [0.5, 0.5]}"), "phases[0].shared.range",
         "0 <= from < to <= 1");
  expect(replace(good(), "shared: {range: [0, 0.5]}", "shared: {range: [0, 0.001]}"), "phases[0].shared.range",
         "holds no 4-byte word");
  expect(replace(good(), "name: compute", "name: load"), "phases[1].name", "names two phases");
  expect(replace(good(), "repeat: 4", "repaet: 4"), "phases[1].repaet", "phases[1].repeat");
  expect(replace(good(), "instructions: 40", "instructions: 0"), "phases[1].instructions", "[1, 65536]");
  expect(replace(good(), "shared_store: 0.5", "shared_store: 0.4"), "phases[0].mix", "sum to 0.9");
  expect(replace(good(), "mix: {int_alu: 0.5, fp_alu: 0.5}\n", ""), "phases[1].mix", "no top-level mix");
  expect(good().substr(0, good().find("phases:")) + "phases: []\n", "phases", "non-empty list");
  expect(good() + "static_instructions: 512\n", "static_instructions", "must not be given with phases");
  expect(replace(good(), "name: compute", "name: comp.ute"), "phases[1].name", "contains '.'");
  // A top-level mix is checked where it is written, even when every phase has its own.
  expect(replace(replace(good(), "mix: {int_alu: 0.5, fp_alu: 0.5}\n", "mix: {int_alu: 0.3}\n"),
                 "repeat: 4,", "repeat: 4, mix: {fp_alu: 1},"),
         "key 'mix'", "sum to 0.3");
}

}  // namespace
}  // namespace smshare
