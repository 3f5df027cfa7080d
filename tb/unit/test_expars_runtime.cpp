// EXPARS at run time (Sec. 3.2, 3.3.4-3.3.5), as plain state: the operand
// cache (hw/sharing/expars/operand_cache.hpp), the decoder's bundles and PREFs
// (bundle_reader.hpp), and one SM's instance (expars_sm.hpp) stepped by hand
// against the SM's real bank arbitrator and scratchpad, with cycles derived
// from the rules in expars_sm.hpp: one warp register per cycle between the
// scratchpad and the cache, the warp schedulable sm.smem_latency after its
// last fill, and a transfer waiting while an LDS/STS holds a scratchpad bank.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../common/scripted_kernel.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/sharing/expars/bundle_reader.hpp"
#include "hw/sharing/expars/expars_sm.hpp"
#include "hw/sharing/expars/operand_cache.hpp"
#include "hw/sm/bank_arbitrator.hpp"
#include "hw/sm/scratchpad.hpp"

namespace smshare::expars {
namespace {

// --- instructions and streams

using tb::alu;

WarpInstruction op(OpClass o) {
  WarpInstruction i;
  i.op = o;
  return i;
}

// A warp program replaying `v`.
std::unique_ptr<WarpProgram> script(std::vector<WarpInstruction> v) {
  return tb::ScriptedKernel("scripted", tb::single_warp_grid(), [v](uint32_t, uint32_t) { return v; })
      .warp_program(0, 0);
}

struct Collect final : BundleSink {
  std::vector<Bundle> bundles;
  void decoded(uint32_t, const Bundle& b) override { bundles.push_back(b); }
};

RegisterSet regs(std::initializer_list<int> r) {
  RegisterSet s;
  for (int x : r) s.set(static_cast<size_t>(x));
  return s;
}

// Reads the whole stream through a BundleReader; returns what came out.
std::vector<WarpInstruction> drain(BundleReader& r) {
  std::vector<WarpInstruction> out;
  WarpInstruction i;
  while (r.next(i)) out.push_back(i);
  return out;
}

// --- operand cache

TEST(ExparsOperandCache, SixteenLinesOfTheRegisterFileBanks) {
  const OperandCache c(2048, 16, 48, 64);
  EXPECT_EQ(c.lines(), 16u);
  EXPECT_EQ(c.bank_of_line(5), 5u);
  EXPECT_EQ(c.preferred_bank(32, 20), (20u + 32u) % 16);  // GPGPU-Sim's (reg + warp) mod banks
  const OperandCache four(2048, 4, 48, 64);
  EXPECT_EQ(four.bank_of_line(13), 1u);
  EXPECT_THROW(OperandCache(2048, 32, 48, 64), std::logic_error);  // half a line per bank
  EXPECT_THROW(OperandCache(1000, 4, 48, 64), std::logic_error);
}

TEST(ExparsOperandCache, AWriteSurvivesEvictionAndRefetch) {
  OperandCache c(2048, 16, 48, 64);
  c.allocate(0, 3, 20, 0x4000, 1);
  c.fill(0);
  c.write(0);
  const uint64_t written = c.version(0);
  EXPECT_EQ(c.last_written(3, 20), written);
  EXPECT_TRUE(c.evict(0));  // dirty: written back
  EXPECT_EQ(c.find(3, 20), OperandCache::kAbsent);
  // Another register's write-back elsewhere does not disturb it.
  c.allocate(1, 3, 21, 0x4080, 1);
  c.write(1);
  EXPECT_TRUE(c.evict(1));
  c.allocate(7, 3, 20, 0x4000, 2);
  c.fill(7);
  EXPECT_EQ(c.version(7), written);
  EXPECT_NO_THROW(c.read(7));
  // A clean line is not written back.
  EXPECT_FALSE(c.evict(7));
}

TEST(ExparsOperandCache, AStaleValueIsCaught) {
  OperandCache c(2048, 16, 48, 64);
  c.allocate(2, 5, 30, 0x100, 1);
  c.fill(2);
  c.write(2);
  c.write(2);
  EXPECT_TRUE(c.evict(2));
  // Re-cached without its fill: the line does not hold the last write.
  c.allocate(2, 5, 30, 0x100, 2);
  EXPECT_THROW(c.read(2), std::logic_error);
  c.fill(2);
  EXPECT_NO_THROW(c.read(2));
}

TEST(ExparsOperandCache, AFinishedWarpsRegistersAreDroppedNotWrittenBack) {
  OperandCache c(2048, 16, 48, 64);
  c.allocate(4, 9, 17, 0x800, 1);
  c.fill(4);
  c.write(4);
  c.drop_warp(9);
  EXPECT_EQ(c.valid_lines(), 0u);
  EXPECT_EQ(c.last_written(9, 17), 0u);
  // The next warp in the slot, same address: it sees what the scratchpad
  // held before, not the dead write.
  c.allocate(4, 9, 17, 0x800, 1);
  c.fill(4);
  EXPECT_EQ(c.version(4), 0u);
}

// --- bundles

TEST(ExparsBundles, EndAtBranchesBarriersExitAndTheLengthLimit) {
  std::vector<WarpInstruction> v = {alu(1, {2}), op(OpClass::Control), alu(3, {1}), op(OpClass::Barrier)};
  for (int k = 0; k < 5; ++k) v.push_back(alu(4, {4}));
  v.push_back(op(OpClass::Exit));
  Collect sink;
  BundleRules rules;
  rules.max_instructions = 3;
  BundleReader r(script(v), rules, sink, 0);
  const std::vector<WarpInstruction> out = drain(r);
  ASSERT_EQ(out.size(), v.size());  // the stream passes unchanged: PREFs are not instructions
  for (size_t k = 0; k < v.size(); ++k) EXPECT_EQ(out[k].op, v[k].op);
  std::vector<uint32_t> lengths;
  for (const Bundle& b : sink.bundles) lengths.push_back(b.instructions);
  // [alu, branch] [alu, barrier] [alu alu alu] [alu alu exit]
  EXPECT_EQ(lengths, (std::vector<uint32_t>{2, 2, 3, 3}));
}

TEST(ExparsBundles, LiveInIsWhatIsReadBeforeWritten) {
  Collect sink;
  BundleReader r(script({alu(1, {2, 3}), alu(4, {1, 5}), alu(5, {5})}),
                 BundleRules{}, sink, 0);
  drain(r);
  ASSERT_EQ(sink.bundles.size(), 1u);
  EXPECT_EQ(sink.bundles[0].used, regs({1, 2, 3, 4, 5}));
  EXPECT_EQ(sink.bundles[0].live_in, regs({2, 3, 5}));
}

TEST(ExparsBundles, EndWhereTheOperandCacheCouldNotHoldThem) {
  // Registers >= 16 live in the scratchpad; 6 lines: the 7th distinct one
  // (R22) starts a new bundle. Registers below 16 do not count.
  std::vector<WarpInstruction> v;
  for (uint16_t r = 16; r < 24; ++r) v.push_back(alu(1, {r, 2}));
  Collect sink;
  BundleRules rules;
  rules.max_instructions = 100;
  rules.start_reg = 16;
  rules.cache_lines = 6;
  BundleReader r(script(v), rules, sink, 0);
  EXPECT_EQ(drain(r).size(), v.size());
  ASSERT_EQ(sink.bundles.size(), 2u);
  EXPECT_EQ(sink.bundles[0].instructions, 6u);
  EXPECT_EQ(sink.bundles[0].used, regs({1, 2, 16, 17, 18, 19, 20, 21}));
  EXPECT_EQ(sink.bundles[1].used, regs({1, 2, 22, 23}));
}

// --- one SM's instance

// b+tree's shape on Fermi: 508 threads (16 warps) x 24 registers. The
// baseline holds 2 CTAs (12,288 registers each); EXPARS a third, mixed, with
// registers 16..23 of each thread in the scratchpad (tau: 8 x 512 <= 0.8 x
// 12,288), its 16 warps x 8 x 128 B = 16 KB register region at the top.
struct Fixture {
  SmSpec sm;
  KernelResources k;
  Settings settings;
  BankArbitrator arbitrator{16, 32};
  Scratchpad scratchpad{sm, arbitrator};
  std::unique_ptr<ExparsSm> e;

  Fixture() {
    k.grid_ctas = 100;
    k.threads_per_cta = 508;
    k.regs_per_thread = 24;
    e = std::make_unique<ExparsSm>(sm, k, "test", settings);
    e->bind(arbitrator);
    CtaAllocation a;
    for (uint32_t c = 0; c < 3; ++c) EXPECT_TRUE(e->admit(c, a));
  }
  // Warp `w` of the mixed CTA (slot 2) in warp slot 32 + w, launched with `program`.
  std::pair<WarpContext, std::unique_ptr<WarpProgram>> launch(uint32_t w, std::vector<WarpInstruction> program) {
    const WarpContext ctx{32 + w, 2, w, w};
    return {ctx, e->decode(ctx, script(std::move(program)))};
  }
  uint64_t scratchpad_words(bool writes) const {
    const BankArray& a = arbitrator.group(BankGroup::Scratchpad);
    return writes ? a.total_writes() : a.total_reads();
  }
};

TEST(ExparsSm, AdmitsTheMixedCtaIntoTheTopOfTheScratchpad) {
  Fixture f;
  EXPECT_EQ(f.e->plan().cta_rf, 2u);
  EXPECT_EQ(f.e->plan().cta_mix, 1u);
  EXPECT_EQ(f.e->rat().start_reg(), 16u);
  CtaAllocation a;
  EXPECT_FALSE(f.e->admit(3, a));  // threads allow 3
  EXPECT_EQ(f.e->smem_allocated(), 16u * 1024);
  EXPECT_EQ(f.e->registers_allocated(), 2u * 12288 + 16 * 32 * 16);
  EXPECT_EQ(f.e->rat().address(2, 0, 16), 48u * 1024 - 16 * 1024);
}

TEST(ExparsSm, ABundleWaitsForItsRegistersOnePerCycle) {
  Fixture f;
  // R16, R17, R18 are read before written (fetched); R19 and R20 are
  // written first (a line, no fetch). R3 stays in the register file.
  auto [w, program] = f.launch(0, {alu(19, {16, 17}), alu(20, {19, 18, 3}), op(OpClass::Exit)});
  WarpInstruction inst;
  ASSERT_TRUE(program->next(inst));  // the decoder reads the bundle's PREF
  EXPECT_EQ(f.e->pref_instructions(), 1u);
  EXPECT_EQ(f.e->prefetching_warps(), 1u);
  EXPECT_FALSE(f.e->may_issue(w, 100));
  // An access out of turn (the gate never lets one through) waits.
  EXPECT_TRUE(f.e->route(w, 16, false).retry);
  EXPECT_EQ(f.e->misses(), 1u);
  for (uint64_t c = 100; c <= 102; ++c) {
    f.e->step(c);
    EXPECT_EQ(f.e->fills(), c - 99) << "one warp register per cycle";
    EXPECT_EQ(f.scratchpad_words(false), 32 * (c - 99)) << "each fill reads all 32 banks";
  }
  EXPECT_EQ(f.e->allocations_without_fill(), 2u);
  const uint64_t ready = 102 + f.sm.smem_latency;
  EXPECT_FALSE(f.e->may_issue(w, ready - 1));
  EXPECT_TRUE(f.e->may_issue(w, ready));
  EXPECT_EQ(f.e->prefetching_warps(), 0u);
  // The judgement logic: R16 from its operand-cache line, R3 from the RF.
  const OperandRoute spilled = f.e->route(w, 16, false);
  EXPECT_EQ(spilled.group, BankGroup::OperandCache);
  EXPECT_EQ(spilled.bank, f.e->operand_cache().bank_of_line(static_cast<uint32_t>(f.e->operand_cache().find(32, 16))));
  const OperandRoute rf = f.e->route(w, 3, false);
  EXPECT_EQ(rf.group, BankGroup::RegisterFile);
  EXPECT_EQ(rf.bank, (3 + 32) % 16);
  // A register past the kernel's 24 (a trace may use one) has no scratchpad
  // place: the RF serves it, as in the baseline.
  EXPECT_EQ(f.e->route(w, 30, false).group, BankGroup::RegisterFile);
  // An RF CTA's warp never waits, whatever its registers.
  const WarpContext rf_warp{0, 0, 0, 99};
  auto p = f.e->decode(rf_warp, script({alu(20, {21})}));
  ASSERT_TRUE(p->next(inst));
  EXPECT_TRUE(f.e->may_issue(rf_warp, 0));
  EXPECT_EQ(f.e->route(rf_warp, 20, false).group, BankGroup::RegisterFile);
}

TEST(ExparsSm, AnLdsAndAPrefetchConflictOnTheScratchpadBanks) {
  // An LDS with a 2-way conflict (lanes 0-15 and 16-31 on banks 0-15, two
  // lines apart) holds those banks for cycles 100 and 101: the prefetch,
  // which needs every bank, waits both cycles.
  Fixture f;
  WarpInstruction lds = op(OpClass::SharedLoad);
  lds.access_bytes = 4;
  for (unsigned l = 0; l < kWarpLanes; ++l) lds.addr[l] = 4 * ((l % 16) + 32 * (l / 16));
  auto [w, program] = f.launch(0, {alu(1, {16}), op(OpClass::Exit)});
  WarpInstruction inst;
  ASSERT_TRUE(program->next(inst));
  f.scratchpad.access(lds, 100);
  f.e->step(100);
  f.e->step(101);
  EXPECT_EQ(f.e->fills(), 0u);
  EXPECT_EQ(f.e->bank_wait_cycles(), 2u);
  f.e->step(102);
  EXPECT_EQ(f.e->fills(), 1u);
  EXPECT_TRUE(f.e->may_issue(w, 102 + f.sm.smem_latency));

  // The other way round: a fill takes the banks in cycle 200, so an LDS
  // dispatched in that cycle starts one cycle later.
  Fixture g;
  auto [w2, program2] = g.launch(0, {alu(1, {16}), op(OpClass::Exit)});
  ASSERT_TRUE(program2->next(inst));
  g.e->step(200);
  const Scratchpad::Timing late = g.scratchpad.access(lds, 200);
  const Scratchpad::Timing free = g.scratchpad.access(lds, 300);
  EXPECT_EQ(late.data_ready - 200, free.data_ready - 300 + 1);
}

TEST(ExparsSm, LinesOfADoneBundleAreEvictedAndDirtyOnesWrittenBackFirst) {
  // Each warp's bundle uses all 8 scratchpad registers (R16..R23), 6 of them
  // read first; the 16-line cache holds two warps' bundles.
  Fixture f;
  const std::vector<WarpInstruction> body = {alu(16, {17, 18, 19}), alu(20, {21, 22, 23}), op(OpClass::Exit)};
  auto [a, pa] = f.launch(0, body);
  auto [b, pb] = f.launch(1, body);
  auto [c, pc] = f.launch(2, body);
  WarpInstruction inst;
  for (auto* p : {&pa, &pb, &pc}) ASSERT_TRUE((*p)->next(inst));
  uint64_t cycle = 100;
  for (; f.e->fills() < 12; ++cycle) f.e->step(cycle);
  EXPECT_EQ(cycle, 112u);  // a's 6 fills, then b's 6
  f.e->step(cycle++);
  EXPECT_EQ(f.e->head_warp(), static_cast<int32_t>(c.slot));  // no room: every line is pinned
  EXPECT_EQ(f.e->operand_cache().valid_lines(), 16u);
  // a issues its whole bundle; its lines stay pinned until its instructions
  // have read their sources and written R16 and R20.
  const uint64_t a_ready = 105 + f.sm.smem_latency;
  ASSERT_TRUE(f.e->may_issue(a, a_ready));
  for (const WarpInstruction& i : body) f.e->issued(a, i);
  f.e->step(a_ready);
  EXPECT_EQ(f.e->head_warp(), static_cast<int32_t>(c.slot)) << "nothing of a's is read yet";
  for (const WarpInstruction& i : body) {
    for (uint8_t s = 0; s < i.num_src; ++s) f.e->route(a, i.src[s], false);
    f.e->operands_read(a, i);
  }
  f.e->route(a, 16, true);
  f.e->register_written(a, 16);
  f.e->step(a_ready + 1);
  EXPECT_EQ(f.e->head_warp(), static_cast<int32_t>(c.slot)) << "R20 is still to be written";
  EXPECT_EQ(f.e->evictions(), 0u);
  f.e->route(a, 20, true);
  f.e->register_written(a, 20);
  const uint64_t writes_before = f.scratchpad_words(true);
  f.e->step(a_ready + 2);  // room now: a's 8 lines; the two dirty ones go back first
  EXPECT_EQ(f.e->evictions(), 8u);
  EXPECT_EQ(f.e->writebacks(), 1u);
  EXPECT_EQ(f.scratchpad_words(true) - writes_before, 32u);
  f.e->step(a_ready + 3);
  EXPECT_EQ(f.e->writebacks(), 2u);
  EXPECT_EQ(f.e->fills(), 12u);
  for (uint64_t k = 4; k < 10; ++k) f.e->step(a_ready + k);
  EXPECT_EQ(f.e->fills(), 18u);
  EXPECT_FALSE(f.e->may_issue(c, a_ready + 9 + f.sm.smem_latency - 1));
  EXPECT_TRUE(f.e->may_issue(c, a_ready + 9 + f.sm.smem_latency));
}

TEST(ExparsSm, ABarriersRegisterOperandDoesNotPinItsLine) {
  // A barrier may name a register (SASS BAR.SYNC R23: a named barrier's
  // thread count). Barrier and exit act at issue (SmCore::try_issue): no
  // collector unit reads their operands, so no operands_read comes for them,
  // and a hold taken at issue would pin the line until the warp finishes.
  // Here a (3 lines: R16, R17, R23) and b (8) are placed; c needs 8 of the
  // 5 free lines and a's 3, which its done bundle must give up.
  Fixture f;
  WarpInstruction bar = op(OpClass::Barrier);
  bar.src[bar.num_src++] = 23;
  const WarpInstruction first = alu(16, {17});
  auto [a, pa] = f.launch(0, {first, bar, op(OpClass::Exit)});
  const std::vector<WarpInstruction> body = {alu(16, {17, 18, 19}), alu(20, {21, 22, 23}), op(OpClass::Exit)};
  auto [b, pb] = f.launch(1, body);
  auto [c, pc] = f.launch(2, body);
  WarpInstruction inst;
  for (auto* p : {&pa, &pb, &pc}) ASSERT_TRUE((*p)->next(inst));
  uint64_t cycle = 100;
  for (; f.e->fills() < 8; ++cycle) f.e->step(cycle);  // a's 2 fills (R17, R23), b's 6
  f.e->step(cycle++);
  ASSERT_EQ(f.e->head_warp(), static_cast<int32_t>(c.slot));  // no room yet: a's bundle has not issued
  const uint64_t a_ready = 101 + f.sm.smem_latency;
  ASSERT_TRUE(f.e->may_issue(a, a_ready));
  f.e->issued(a, first);
  f.e->issued(a, bar);
  f.e->route(a, 17, false);
  f.e->operands_read(a, first);
  f.e->route(a, 16, true);
  f.e->register_written(a, 16);
  EXPECT_EQ(f.e->operand_cache().line(static_cast<uint32_t>(f.e->operand_cache().find(a.slot, 23))).pending, 0u)
      << "nothing will release a hold the barrier took";
  f.e->step(a_ready);
  EXPECT_EQ(f.e->evictions(), 3u) << "a's done bundle gives up its lines to c";
  EXPECT_EQ(f.e->writebacks(), 1u) << "a's R16, written, goes back first";
}

TEST(ExparsSm, AWarpAtABarrierTakesItsNextBundleOnlyWhenTheBarrierOpens) {
  Fixture f;
  auto [w, program] = f.launch(0, {alu(1, {2}), op(OpClass::Barrier), alu(1, {16}), op(OpClass::Exit)});
  WarpInstruction inst;
  ASSERT_TRUE(program->next(inst));
  ASSERT_TRUE(f.e->may_issue(w, 0));  // the first bundle needs nothing from the scratchpad
  f.e->issued(w, inst);
  ASSERT_TRUE(program->next(inst));
  f.e->issued(w, inst);  // the barrier ends the bundle
  ASSERT_TRUE(program->next(inst));  // the next PREF is decoded ...
  EXPECT_EQ(f.e->prefetching_warps(), 0u) << "... but a warp at a barrier holds no cache lines";
  EXPECT_FALSE(f.e->may_issue(w, 10));  // the barrier opened: now it queues
  EXPECT_EQ(f.e->prefetching_warps(), 1u);
}

}  // namespace
}  // namespace smshare::expars
