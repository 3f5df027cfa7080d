// Warp instruction streams made from kernel profiles: determinism, the mix,
// barriers, dependences, registers, addresses, register reordering, speed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "hw/frontend/kernel_body.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/frontend/profile_kernel.hpp"
#include "tb/common/profile_test_support.hpp"

namespace smshare {
namespace {

std::vector<WarpInstruction> stream(KernelSource& k, uint32_t cta, uint32_t warp) { return tb::drain(k, cta, warp); }

bool same(const WarpInstruction& a, const WarpInstruction& b) {
  if (a.op != b.op || a.num_dst != b.num_dst || a.num_src != b.num_src || a.pc != b.pc ||
      a.active_mask != b.active_mask || a.dst != b.dst || a.src != b.src || a.access_bytes != b.access_bytes)
    return false;
  if (is_memory(a.op))
    for (unsigned l = 0; l < kWarpLanes; ++l)
      if ((a.active_mask >> l & 1) && a.lane_address(l) != b.lane_address(l)) return false;
  return true;
}

bool same(const std::vector<WarpInstruction>& a, const std::vector<WarpInstruction>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i])) return false;
  return true;
}

// A profile built in code, so each test states what it depends on.
KernelProfile base_profile() {
  KernelProfile p = tb::profile_in_code("profile", 64, 256, 32, 4096);
  p.instructions_per_warp = 2000;
  p.static_instructions = 256;
  p.seed = 7;
  p.mix = {0.30, 0.30, 0.05, 0.12, 0.05, 0.13, 0.05};
  p.barriers_per_instruction = 0.02;
  p.mean_dependence_distance = 6;
  p.hot_registers = 8;
  p.hot_fraction = 0.8;
  p.first_use = FirstUseOrder::Shuffled;
  p.global_footprint_bytes = 64ull << 20;
  validate(p);
  return p;
}

TEST(FrontendStreams, SameStreamTwiceDifferentSeedsDiffer) {
  const KernelProfile p = base_profile();
  auto a = make_profile_kernel(p, {}, {});
  auto b = make_profile_kernel(p, {}, {});
  EXPECT_TRUE(same(stream(*a, 5, 3), stream(*b, 5, 3)));
  EXPECT_TRUE(same(stream(*a, 5, 3), stream(*a, 5, 3))) << "a second program for the same warp repeats it";
  EXPECT_FALSE(same(stream(*a, 5, 3), stream(*a, 5, 4))) << "warps differ in their addresses";

  KernelProfile q = p;
  q.seed = 8;
  auto c = make_profile_kernel(q, {}, {});
  const auto sa = stream(*a, 5, 3), sc = stream(*c, 5, 3);
  size_t differing = 0;
  for (size_t i = 0; i < sa.size(); ++i) differing += !same(sa[i], sc[i]);
  EXPECT_GT(differing, sa.size() / 2);

  // Random addresses are per warp too, and reproducible.
  q.global_pattern = GlobalPattern::Random;
  auto r = make_profile_kernel(q, {}, {});
  EXPECT_TRUE(same(stream(*r, 1, 1), stream(*r, 1, 1)));
  EXPECT_FALSE(same(stream(*r, 1, 1), stream(*r, 2, 1)));
}

TEST(FrontendStreams, MixReproducedOverManyInstructions) {
  KernelProfile p = base_profile();
  p.instructions_per_warp = 2560;  // 10 loop iterations + barriers
  auto k = make_profile_kernel(p, {}, {});
  std::map<OpClass, double> count;
  double non_barrier = 0, total = 0;
  for (uint32_t cta = 0; cta < 4; ++cta)
    for (uint32_t w = 0; w < 8; ++w)
      for (const auto& in : stream(*k, cta, w)) {
        ++total;
        if (in.op == OpClass::Barrier) continue;
        ++count[in.op];
        ++non_barrier;
      }
  for (unsigned c = 0; c < kNumMixClasses; ++c) {
    const auto mc = static_cast<MixClass>(c);
    SCOPED_TRACE(mix_key(mc));
    EXPECT_NEAR(count[to_op_class(mc)] / non_barrier, p.mix_of(mc), 0.01);
  }
  EXPECT_NEAR(count[OpClass::Barrier] / total, 0.0, 1e-12) << "barriers are counted apart";
  EXPECT_EQ(total, 32.0 * 2560);
}

TEST(FrontendStreams, BarriersAtIdenticalPositionsInEveryWarpOfACta) {
  const KernelProfile p = base_profile();
  auto k = make_profile_kernel(p, {}, {});
  std::vector<size_t> first;
  for (uint32_t w = 0; w < 8; ++w) {
    std::vector<size_t> at;
    const auto s = stream(*k, 2, w);
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i].op == OpClass::Barrier) at.push_back(i);
    if (w == 0) {
      first = at;
      EXPECT_NEAR(static_cast<double>(at.size()) / s.size(), p.barriers_per_instruction, 0.001);
    } else {
      EXPECT_EQ(at, first) << "warp " << w;
    }
  }
  EXPECT_FALSE(first.empty());
}

// Mean over the stream of "instructions since the last write of this source
// register", counted once the first loop iteration has written everything.
double measured_dependence_distance(const std::vector<WarpInstruction>& s, size_t skip) {
  std::vector<int64_t> last(kMaxArchRegs, -1);
  double sum = 0, n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    for (unsigned j = 0; j < s[i].num_src; ++j)
      if (i >= skip && last[s[i].src[j]] >= 0) sum += static_cast<double>(i - last[s[i].src[j]]), ++n;
    for (unsigned j = 0; j < s[i].num_dst; ++j) last[s[i].dst[j]] = static_cast<int64_t>(i);
  }
  return sum / n;
}

TEST(FrontendStreams, DependenceDistanceMean) {
  for (double mean : {1.0, 3.0, 6.0, 12.0}) {
    SCOPED_TRACE(mean);
    KernelProfile p = base_profile();
    p.barriers_per_instruction = 0;
    p.mean_dependence_distance = mean;
    auto k = make_profile_kernel(p, {}, {});
    const double got = measured_dependence_distance(stream(*k, 0, 0), 300);
    EXPECT_NEAR(got, mean, 0.15 * mean + 0.1);
  }
}

TEST(FrontendStreams, RegisterIndicesBelowRegsPerThreadAndHotSetDominates) {
  KernelProfile p = base_profile();
  for (uint32_t regs : {8u, 13u, 32u, 63u, 255u}) {
    SCOPED_TRACE(regs);
    p.resources.regs_per_thread = regs;
    p.hot_registers = std::min(8u, regs);
    auto k = make_profile_kernel(p, {}, {});
    std::map<uint16_t, unsigned> writes;
    for (const auto& in : stream(*k, 0, 0)) {
      for (unsigned s = 0; s < in.num_src; ++s) ASSERT_LT(in.src[s], regs);
      for (unsigned d = 0; d < in.num_dst; ++d) {
        ASSERT_LT(in.dst[d], regs);
        ++writes[in.dst[d]];
      }
      for (unsigned s = in.num_src; s < kMaxSrcRegs; ++s) ASSERT_EQ(in.src[s], kNoReg);
    }
    if (regs <= 63) {
      EXPECT_EQ(writes.size(), regs) << "every declared register is used";
    }
    if (regs > 8) {
      std::vector<unsigned> counts;
      unsigned total = 0;
      for (const auto& [r, c] : writes) counts.push_back(c), total += c;
      std::sort(counts.rbegin(), counts.rend());
      unsigned top = 0;
      for (unsigned i = 0; i < 8; ++i) top += counts[i];
      EXPECT_NEAR(static_cast<double>(top) / total, 0.8, 0.08) << "hot_fraction of destinations in 8 registers";
    }
  }
}

TEST(FrontendStreams, CoalescedGivesOneLinePerWarpAccess) {
  KernelProfile p = base_profile();
  p.global_access_bytes = 4;
  auto k = make_profile_kernel(p, {}, {});
  std::set<uint64_t> all_lines;
  unsigned accesses = 0;
  for (uint32_t w = 0; w < 8; ++w)
    for (const auto& in : stream(*k, 3, w)) {
      if (!is_global_memory(in.op)) continue;
      EXPECT_EQ(in.access_bytes, 4);
      std::set<uint64_t> lines;
      for (unsigned l = 0; l < kWarpLanes; ++l) lines.insert(in.lane_address(l) / 128);
      EXPECT_EQ(lines.size(), 1u);
      EXPECT_EQ(in.lane_address(0) % 128, 0u);
      all_lines.insert(*lines.begin());
      ++accesses;
    }
  EXPECT_EQ(all_lines.size(), accesses) << "64 MiB footprint: no line is touched twice";

  p.global_pattern = GlobalPattern::Strided;
  p.global_stride_bytes = 128;
  auto ks = make_profile_kernel(p, {}, {});
  for (const auto& in : stream(*ks, 0, 0)) {
    if (!is_global_memory(in.op)) continue;
    std::set<uint64_t> lines;
    for (unsigned l = 0; l < kWarpLanes; ++l) lines.insert(in.lane_address(l) / 128);
    EXPECT_EQ(lines.size(), 32u) << "stride of one line: one line per lane";
  }
}

TEST(FrontendStreams, GlobalAddressesStayInTheirRegions) {
  for (auto pattern : {GlobalPattern::Coalesced, GlobalPattern::Strided, GlobalPattern::Random}) {
    KernelProfile p = base_profile();
    p.global_pattern = pattern;
    p.global_footprint_bytes = 1 << 20;
    p.global_stride_bytes = 4100;
    auto k = make_profile_kernel(p, {}, {});
    for (const auto& in : stream(*k, 63, 7)) {
      if (!is_global_memory(in.op)) continue;
      const uint64_t base = in.op == OpClass::GlobalLoad ? kGlobalLoadBase : kGlobalLoadBase + (1 << 20);
      for (unsigned l = 0; l < kWarpLanes; ++l) {
        ASSERT_GE(in.lane_address(l), base);
        ASSERT_LT(in.lane_address(l), base + (1 << 20));
      }
    }
  }
}

TEST(FrontendStreams, SharedStrideSetsBankConflicts) {
  for (uint32_t stride : {1u, 2u, 4u, 32u}) {
    SCOPED_TRACE(stride);
    KernelProfile p = base_profile();
    p.shared_stride_words = stride;
    auto k = make_profile_kernel(p, {}, {});
    for (const auto& in : stream(*k, 0, 5)) {
      if (!is_shared_memory(in.op)) continue;
      std::map<uint64_t, std::set<uint64_t>> words_per_bank;
      for (unsigned l = 0; l < kWarpLanes; ++l) {
        ASSERT_LT(in.lane_address(l), 4096u);
        words_per_bank[(in.lane_address(l) / 4) % 32].insert(in.lane_address(l) / 4);
      }
      size_t degree = 0;
      for (const auto& [b, words] : words_per_bank) degree = std::max(degree, words.size());
      EXPECT_EQ(degree, stride) << "stride s words: s-way conflicts for s | 32";
    }
  }
}

std::vector<uint16_t> first_use_in_stream(const std::vector<WarpInstruction>& s) {
  std::vector<uint16_t> order;
  std::set<uint16_t> seen;
  for (const auto& in : s) {
    for (unsigned j = 0; j < in.num_src; ++j)
      if (seen.insert(in.src[j]).second) order.push_back(in.src[j]);
    for (unsigned j = 0; j < in.num_dst; ++j)
      if (seen.insert(in.dst[j]).second) order.push_back(in.dst[j]);
  }
  return order;
}

TEST(FrontendStreams, ReorderRegistersMakesFirstUseMonotonic) {
  KernelProfile p = base_profile();
  p.first_use = FirstUseOrder::Shuffled;
  auto plain = make_profile_kernel(p, {}, {});
  const auto before = first_use_in_stream(stream(*plain, 0, 0));
  ASSERT_EQ(before.size(), p.resources.regs_per_thread);
  EXPECT_FALSE(std::is_sorted(before.begin(), before.end())) << "shuffled declarations differ from first use";

  auto reordered = make_profile_kernel(p, {}, FrontendOptions{true});
  const auto after = first_use_in_stream(stream(*reordered, 0, 0));
  ASSERT_EQ(after.size(), p.resources.regs_per_thread);
  for (size_t i = 0; i < after.size(); ++i) EXPECT_EQ(after[i], i);

  // Only the numbering changes: same ops, same dependences.
  const auto a = stream(*plain, 0, 0), b = stream(*reordered, 0, 0);
  std::map<uint16_t, uint16_t> rename;
  for (size_t i = 0; i < before.size(); ++i) rename[before[i]] = after[i];
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].op, b[i].op);
    for (unsigned j = 0; j < a[i].num_src; ++j) ASSERT_EQ(rename[a[i].src[j]], b[i].src[j]);
  }

  // Descending and explicit orders are what the stream shows.
  p.first_use = FirstUseOrder::Descending;
  const auto desc = first_use_in_stream(stream(*make_profile_kernel(p, {}, {}), 0, 0));
  EXPECT_TRUE(std::is_sorted(desc.rbegin(), desc.rend()));
  p.first_use = FirstUseOrder::Explicit;
  p.first_use_list = {31, 5, 17};
  const auto expl = first_use_in_stream(stream(*make_profile_kernel(p, {}, {}), 0, 0));
  ASSERT_GE(expl.size(), 4u);
  EXPECT_EQ(expl[0], 31);
  EXPECT_EQ(expl[1], 5);
  EXPECT_EQ(expl[2], 17);
  EXPECT_EQ(expl[3], 0);
}

BodyInstruction body_op(OpClass op, std::vector<uint16_t> dst, std::vector<uint16_t> src) {
  BodyInstruction in;
  in.op = op;
  in.num_dst = static_cast<uint8_t>(dst.size());
  in.num_src = static_cast<uint8_t>(src.size());
  std::copy(dst.begin(), dst.end(), in.dst.begin());
  std::copy(src.begin(), src.end(), in.src.begin());
  return in;
}

// EXPARS Sec. 3.2: counts decide, ties go by first use, untouched registers
// stay on top.
TEST(FrontendStreams, ReferenceWeightOrderCountsReadsAndWritesTiesByFirstUse) {
  // R5: 1 read + 1 write (2); R2: 3 reads + 1 write (4); R7: 2 (first used
  // after R5, so after it); R0: 1.
  const KernelBody body = {
      body_op(OpClass::IntAlu, {5}, {2}),     // first use: R2, R5
      body_op(OpClass::FpAlu, {7}, {2, 5}),   // R7
      body_op(OpClass::IntAlu, {2}, {7, 2}),
      body_op(OpClass::IntAlu, {0}, {}),
  };
  EXPECT_EQ(first_use_order(body), (std::vector<uint16_t>{2, 5, 7, 0}));
  EXPECT_EQ(reference_weight_order(body), (std::vector<uint16_t>{2, 5, 7, 0}));  // 4, 2, 2 (tie by first use), 1
  KernelBody heavy_last = body;
  heavy_last.push_back(body_op(OpClass::IntAlu, {0}, {0, 0}));  // R0: 4 now, tied with R2, used later
  heavy_last.push_back(body_op(OpClass::IntAlu, {7}, {0}));     // R0: 5, R7: 3
  EXPECT_EQ(reference_weight_order(heavy_last), (std::vector<uint16_t>{0, 2, 7, 5}));

  KernelBody renumbered = heavy_last;
  reorder_registers_by_weight(renumbered, 8);
  // R0 -> 0, R2 -> 1, R7 -> 2, R5 -> 3; untouched 1, 3, 4, 6 -> 4.. in order.
  EXPECT_EQ(renumbered[0].dst[0], 3);
  EXPECT_EQ(renumbered[0].src[0], 1);
  EXPECT_EQ(renumbered[1].dst[0], 2);
  EXPECT_EQ(reference_weight_order(renumbered), (std::vector<uint16_t>{0, 1, 2, 3}));
}

// On a generated kernel body: the pass is a permutation of register numbers,
// weights become non-increasing in the index, ops and dependences unchanged.
TEST(FrontendStreams, ReorderByWeightOnlyRenumbers) {
  KernelProfile p = base_profile();
  p.first_use = FirstUseOrder::Shuffled;
  const uint32_t regs = p.resources.regs_per_thread;
  const KernelBody before = build_kernel_code(p, regs).body;
  KernelBody after = before;
  reorder_registers_by_weight(after, regs);

  auto weights = [&](const KernelBody& b) {
    std::vector<uint32_t> w(regs, 0);
    for (const auto& in : b) {
      for (unsigned j = 0; j < in.num_src; ++j) ++w[in.src[j]];
      for (unsigned j = 0; j < in.num_dst; ++j) ++w[in.dst[j]];
    }
    return w;
  };
  const auto wa = weights(after), wb = weights(before);
  EXPECT_TRUE(std::is_sorted(wa.rbegin(), wa.rend())) << "most referenced registers get the lowest indices";
  EXPECT_FALSE(std::is_sorted(wb.rbegin(), wb.rend())) << "the generated body was not already in weight order";

  ASSERT_EQ(before.size(), after.size());
  std::map<uint16_t, uint16_t> rename;
  std::set<uint16_t> images;
  auto same = [&](uint16_t from, uint16_t to) {
    auto [it, fresh] = rename.emplace(from, to);
    if (fresh) images.insert(to);
    return it->second == to;
  };
  for (size_t i = 0; i < before.size(); ++i) {
    ASSERT_EQ(before[i].op, after[i].op);
    ASSERT_EQ(before[i].num_src, after[i].num_src);
    ASSERT_EQ(before[i].num_dst, after[i].num_dst);
    ASSERT_EQ(before[i].active_mask, after[i].active_mask);
    for (unsigned j = 0; j < before[i].num_src; ++j) ASSERT_TRUE(same(before[i].src[j], after[i].src[j]));
    for (unsigned j = 0; j < before[i].num_dst; ++j) ASSERT_TRUE(same(before[i].dst[j], after[i].dst[j]));
  }
  EXPECT_EQ(images.size(), rename.size()) << "one consistent renaming, injective: a permutation";
  for (size_t i = 0; i < wb.size(); ++i)
    if (rename.count(static_cast<uint16_t>(i))) {
      EXPECT_EQ(wb[i], wa[rename[static_cast<uint16_t>(i)]]);
    }

  // Through make_profile_kernel, and not together with first-use renumbering.
  FrontendOptions by_weight;
  by_weight.reorder_registers_by_weight = true;
  const auto s = stream(*make_profile_kernel(p, {}, by_weight), 0, 0);
  ASSERT_FALSE(s.empty());
  FrontendOptions both = by_weight;
  both.reorder_registers = true;
  EXPECT_THROW(make_profile_kernel(p, {}, both), std::logic_error);
}

TEST(FrontendStreams, PartialLastWarpAndDivergenceMasks) {
  KernelProfile p = base_profile();
  p.resources.threads_per_cta = 508;  // b+tree: the 16th warp has 28 threads
  p.divergent_fraction = 0.25;
  p.divergent_active_lanes = 16;
  auto k = make_profile_kernel(p, {}, {});
  unsigned divergent = 0, total = 0;
  for (const auto& in : stream(*k, 0, 15)) {
    EXPECT_EQ(in.active_mask & ~0x0FFFFFFFu, 0u);
    EXPECT_NE(in.active_mask, 0u);
  }
  for (const auto& in : stream(*k, 0, 0)) {
    if (in.op == OpClass::Barrier) continue;
    ++total;
    if (in.active_mask == 0xFFFFu) {
      ++divergent;
    } else {
      EXPECT_EQ(in.active_mask, 0xFFFFFFFFu);
    }
  }
  EXPECT_NEAR(static_cast<double>(divergent) / total, 0.25, 0.08);
}

TEST(FrontendStreams, SpeedWellUnder100nsPerAluInstruction) {
  KernelProfile p = base_profile();
  p.mix = {0.5, 0.5, 0, 0, 0, 0, 0};
  p.instructions_per_warp = 1000000;
  auto k = make_profile_kernel(p, {}, {});
  auto w = k->warp_program(0, 0);
  WarpInstruction in;
  uint64_t sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (w->next(in)) sink += in.src[0];
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / 1e6;
  EXPECT_GT(sink, 0u);
#ifdef NDEBUG
  EXPECT_LT(ns, 50.0) << "ns per ALU instruction";
#endif
  RecordProperty("ns_per_alu_instruction", std::to_string(ns));
  std::printf("[ info ] %.1f ns per ALU instruction\n", ns);
}

}  // namespace
}  // namespace smshare
