// What each phase holds (KernelResources::phase_needs, Zorua's phase
// specifier, Sec. 4.6), with hand-derived expectations: a phase's registers
// are those it reads or writes plus those written before it and read after
// it; its scratchpad is its region plus the parts stored to before it and
// loaded after it. Profiles (kernel_body.hpp, profile_kernel.cpp), the
// register rule on hand-written code, and traces (trace_phases.hpp).
#include <gtest/gtest.h>

#include <bitset>
#include <string>
#include <utility>
#include <vector>

#include "../common/scripted_kernel.hpp"
#include "hw/frontend/kernel_body.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/frontend/profile_kernel.hpp"
#include "hw/frontend/trace_kernel.hpp"
#include "hw/frontend/trace_phases.hpp"
#include "tb/common/profile_test_support.hpp"

namespace smshare {
namespace {

using Registers = std::bitset<kMaxArchRegs>;
using ByteRanges = std::vector<std::pair<uint32_t, uint32_t>>;

Registers regs(std::initializer_list<uint16_t> list) {
  Registers r;
  for (uint16_t x : list) r.set(x);
  return r;
}

Registers reg_range(uint16_t lo, uint16_t hi) {
  Registers r;
  for (uint16_t x = lo; x <= hi; ++x) r.set(x);
  return r;
}

// Every register the instructions of stream[from, to) read or write.
Registers touched(const std::vector<WarpInstruction>& s, size_t from, size_t to) {
  Registers r;
  for (size_t i = from; i < to; ++i) {
    for (unsigned d = 0; d < s[i].num_dst; ++d) r.set(s[i].dst[d]);
    for (unsigned j = 0; j < s[i].num_src; ++j) r.set(s[i].src[j]);
  }
  return r;
}

// ------------------------------------------------------ the register rule

BodyInstruction op(uint16_t dst, std::vector<uint16_t> srcs) {
  BodyInstruction in;
  if (dst != kNoReg) in.dst[in.num_dst++] = dst;
  for (uint16_t s : srcs) in.src[in.num_src++] = s;
  return in;
}

TEST(PhaseNeeds, RegistersLiveThroughAPhaseAreHeldByIt) {
  // Phase 0 writes R0, R1; phase 1 uses R2 only; phase 2 reads R0 (not R1);
  // phase 3 writes R1 and reads R3, which nobody wrote (an input).
  KernelCode code;
  code.body = {op(0, {}), op(1, {0}),  // phase 0
               op(2, {2}),             // phase 1
               op(4, {0}),             // phase 2
               op(1, {3})};            // phase 3
  code.phases = {{0, 2, 1, false, 0, 0}, {2, 1, 1, false, 0, 0}, {3, 1, 1, false, 0, 0}, {4, 1, 1, false, 0, 0}};
  const auto held = phase_registers(code);
  ASSERT_EQ(held.size(), 4u);
  EXPECT_EQ(held[0], regs({0, 1}));
  EXPECT_EQ(held[1], regs({0, 2})) << "R0 is written before and read after phase 1; R1 is never read again";
  EXPECT_EQ(held[2], regs({0, 4}));
  EXPECT_EQ(held[3], regs({1, 3}));
}

// ----------------------------------------------------------- profiles

// load (R0-R7, stores into the lower half of 4096 bytes, barrier) ->
// compute (R8-R15, loads from the top quarter) -> reduce (R0 only, loads
// the lower half the load phase filled).
KernelProfile load_compute_reduce() {
  KernelProfile p = tb::profile_in_code("needs", 4, 64, 16, 4096);
  p.seed = 5;
  p.mean_dependence_distance = 3;
  using tb::phase_in_code;
  p.phases = {phase_in_code("load", 40, 1, true, {0.5, 0, 0, 0, 0, 0, 0.5}, 0, 7, 1, 0, 0.5),
              phase_in_code("compute", 40, 1, false, {0, 0.6, 0, 0, 0, 0.4, 0}, 8, 15, 1, 0.75, 1),
              phase_in_code("reduce", 40, 1, false, {0.5, 0, 0, 0, 0, 0.5, 0}, 0, 0, 1, 0, 0.5)};
  summarize_phases(p);
  validate(p);
  return p;
}

TEST(PhaseNeeds, PhasedProfileHoldsItsRangesAndWhatIsLiveThroughIt) {
  auto k = make_profile_kernel(load_compute_reduce(), {}, {});
  const auto& needs = k->resources().phase_needs;
  ASSERT_EQ(needs.size(), 3u);
  // Registers, numbered by first use (ascending): load writes all of R0-R7
  // (every register of a range is written) and its first instruction reads
  // R0 first, so the reduce phase's one register is R0; compute holds its own
  // R8-R15 and R0, written before it and read after it.
  EXPECT_EQ(needs[0].registers, reg_range(0, 7));
  EXPECT_EQ(needs[1].registers, reg_range(8, 15) | regs({0}));
  EXPECT_EQ(needs[2].registers, regs({0}));
  // Scratchpad (1024 words): load stores words [0, 512) = bytes [0, 2048);
  // compute loads words [768, 1024); reduce loads [0, 2048) again, so
  // those bytes are live through compute.
  EXPECT_EQ(needs[0].smem, (ByteRanges{{0, 2048}}));
  EXPECT_EQ(needs[1].smem, (ByteRanges{{0, 2048}, {3072, 4096}}));
  EXPECT_EQ(needs[2].smem, (ByteRanges{{0, 2048}}));
  // What the streams touch is held: every warp, every phase.
  for (uint32_t w = 0; w < 2; ++w) {
    const auto s = tb::drain(*k, 1, w);
    ASSERT_EQ(s.size(), 41u + 40 + 40);
    EXPECT_EQ(touched(s, 0, 41) & ~needs[0].registers, Registers{});
    EXPECT_EQ(touched(s, 41, 81) & ~needs[1].registers, Registers{});
    EXPECT_EQ(touched(s, 81, 121) & ~needs[2].registers, Registers{});
  }
}

TEST(PhaseNeeds, OverridesScaleTheNeeds) {
  ResourceOverrides o;
  o.regs_per_thread = 8;        // ranges scale to R0-R3, R4-R7, R0
  o.smem_bytes_per_cta = 2048;  // 512 words: load [0, 256), compute [384, 512), reduce [0, 256)
  auto k = make_profile_kernel(load_compute_reduce(), o, {});
  const auto& needs = k->resources().phase_needs;
  ASSERT_EQ(needs.size(), 3u);
  EXPECT_EQ(needs[0].registers, reg_range(0, 3));
  EXPECT_EQ(needs[1].registers, reg_range(4, 7) | regs({0}));
  EXPECT_EQ(needs[2].registers, regs({0}));
  for (const PhaseNeed& n : needs) EXPECT_EQ(n.registers & ~reg_range(0, 7), Registers{}) << "beyond the override";
  EXPECT_EQ(needs[0].smem, (ByteRanges{{0, 1024}}));
  EXPECT_EQ(needs[1].smem, (ByteRanges{{0, 1024}, {1536, 2048}}));
  EXPECT_EQ(needs[2].smem, (ByteRanges{{0, 1024}}));
}

TEST(PhaseNeeds, NeedsFollowTheRegisterRenumbering) {
  // Declared in descending first-use order, the k-th register first used is
  // R(15 - k): load holds R8-R15, compute R0-R7 and reduce's R15. Renumbered
  // by first use (Jatala's reordering, after the code is built), the needs
  // are those of the ascending numbering again.
  KernelProfile p = load_compute_reduce();
  p.first_use = FirstUseOrder::Descending;
  auto declared = make_profile_kernel(p, {}, {});
  const auto& d = declared->resources().phase_needs;
  EXPECT_EQ(d[0].registers, reg_range(8, 15));
  EXPECT_EQ(d[1].registers, reg_range(0, 7) | regs({15}));
  EXPECT_EQ(d[2].registers, regs({15}));
  FrontendOptions by_first_use;
  by_first_use.reorder_registers = true;
  auto renumbered = make_profile_kernel(p, {}, by_first_use);
  const auto& r = renumbered->resources().phase_needs;
  EXPECT_EQ(r[0].registers, reg_range(0, 7));
  EXPECT_EQ(r[1].registers, reg_range(8, 15) | regs({0}));
  EXPECT_EQ(r[2].registers, regs({0}));
  const auto s = tb::drain(*renumbered, 0, 0);
  EXPECT_EQ(touched(s, 81, 121), regs({0})) << "the stream runs the renumbered code the needs describe";
}

KernelProfile flat_profile(double shared_load) {
  KernelProfile p = tb::profile_in_code("flat", 2, 64, 12, 1000);
  p.instructions_per_warp = 300;
  p.hot_registers = 4;
  p.mix = {0.6 - shared_load, 0.3, 0, 0.1, 0, shared_load, 0};
  validate(p);
  return p;
}

TEST(PhaseNeeds, FlatProfileHoldsEveryRegisterAndTheWholeScratchpad) {
  auto k = make_profile_kernel(flat_profile(0.2), {}, {});
  const auto& needs = k->resources().phase_needs;
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_TRUE(k->resources().phase_names.empty());
  EXPECT_EQ(needs[0].registers, reg_range(0, 11));
  // The whole allocation, not just the 224 words (896 bytes) the accesses cycle over.
  EXPECT_EQ(needs[0].smem, (ByteRanges{{0, 1000}}));

  auto no_shared = make_profile_kernel(flat_profile(0), {}, {});
  EXPECT_TRUE(no_shared->resources().phase_needs[0].smem.empty());

  ResourceOverrides o;
  o.regs_per_thread = 6;
  o.smem_bytes_per_cta = 512;
  auto smaller = make_profile_kernel(flat_profile(0.2), o, {});
  EXPECT_EQ(smaller->resources().phase_needs[0].registers, reg_range(0, 5));
  EXPECT_EQ(smaller->resources().phase_needs[0].smem, (ByteRanges{{0, 512}}));
}

TEST(PhaseNeeds, HotspotScratchpadByPhase) {
  // configs/kernels/hotspot.yaml, 3072 bytes = 768 words: load_temp's
  // [0, 0.3333) is words [0, 255), 224 usable (whole rows); load_power's
  // [0.3333, 0.6667) words [255, 512), 256 usable; step all 768; store
  // [512, 768). bounds holds what the loads stored and step reads.
  auto k = make_profile_kernel(load_kernel_profile("hotspot"), {}, {});
  const auto& r = k->resources();
  ASSERT_EQ(r.phase_names, (std::vector<std::string>{"setup", "load_temp", "load_power", "bounds", "step", "store"}));
  ASSERT_EQ(r.phase_needs.size(), 6u);
  EXPECT_EQ(r.phase_needs[0].smem, ByteRanges{});
  EXPECT_EQ(r.phase_needs[1].smem, (ByteRanges{{0, 896}}));
  EXPECT_EQ(r.phase_needs[2].smem, (ByteRanges{{0, 896}, {1020, 2044}}));
  EXPECT_EQ(r.phase_needs[3].smem, (ByteRanges{{0, 896}, {1020, 2044}}));
  EXPECT_EQ(r.phase_needs[4].smem, (ByteRanges{{0, 3072}}));
  EXPECT_EQ(r.phase_needs[5].smem, (ByteRanges{{2048, 3072}}));
  for (const PhaseNeed& n : r.phase_needs) EXPECT_EQ(n.registers & ~reg_range(0, 35), Registers{});
}

// ------------------------------------------------------------- traces

TEST(PhaseNeeds, TraceStreamHoldsTouchedAndLiveRegisters) {
  // Ten instructions R5 = f(R1, R2), then ten R6 = f(R3, R4): cut after the
  // first ten. Live before each of the first ten: {1, 2, 3, 4}; before the
  // second ten: {3, 4}.
  std::vector<WarpInstruction> v;
  for (size_t i = 0; i < 10; ++i) v.push_back(tb::alu(5, {1, 2}));
  for (size_t i = 0; i < 10; ++i) v.push_back(tb::alu(6, {3, 4}));
  for (size_t i = 0; i < v.size(); ++i) v[i].pc = 16 * i;
  const TracePhases p(v);
  ASSERT_EQ(p.names().size(), 2u);
  EXPECT_EQ(p.registers()[0], regs({1, 2, 3, 4, 5}));
  EXPECT_EQ(p.registers()[1], regs({3, 4, 6}));
  EXPECT_EQ(TracePhases({}).registers(), std::vector<Registers>{Registers{}});
}

const std::string kHandwritten = std::string(SMSHARE_SOURCE_DIR) + "/tb/traces/handwritten/kernelslist.g";

TEST(PhaseNeeds, TraceKernelNeedsAndWholeScratchpad) {
  // tb/traces/handwritten, warp 0: R1 = S2R; R2 = f(R1); R4 = LDG [R2];
  // STG [R2], R4; STS [R2], R4; BAR | R5 = LDS [R2]; R6 = FFMA R5, R5;
  // R7 = MUFU R6; EXIT. Live before the barrier: {2}; phase 0 touches
  // {1, 2, 4}, phase 1 {2, 5, 6, 7}. 1024 bytes of scratchpad, held whole.
  auto kernels = load_trace_kernels(kHandwritten, {}, {});
  const auto& needs = kernels[0]->resources().phase_needs;
  ASSERT_EQ(needs.size(), 2u);
  EXPECT_EQ(needs[0].registers, regs({1, 2, 4}));
  EXPECT_EQ(needs[1].registers, regs({2, 5, 6, 7}));
  for (const PhaseNeed& n : needs) EXPECT_EQ(n.smem, (ByteRanges{{0, 1024}}));

  // Fewer registers than the trace uses: the needs stay in the allocation.
  // No scratchpad: none held.
  ResourceOverrides o;
  o.regs_per_thread = 6;
  o.smem_bytes_per_cta = 0;
  auto smaller = load_trace_kernels(kHandwritten, o, {});
  const auto& s = smaller[0]->resources().phase_needs;
  EXPECT_EQ(s[0].registers, regs({1, 2, 4}));
  EXPECT_EQ(s[1].registers, regs({2, 5}));
  for (const PhaseNeed& n : s) EXPECT_TRUE(n.smem.empty());
}

}  // namespace
}  // namespace smshare
