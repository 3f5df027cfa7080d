// Testbench of Jatala's structure modules, gpu.smN.lock_array,
// gpu.smN.pair_table and gpu.smN.dynamic_warp_execution: first each module over one SM's Jatala state
// (jatala::make, the mechanism instance the SM would hold) without an SM,
// driven through the mechanism's own interface as the SM drives it (admit,
// may_issue, warp_finished, release), cycle by cycle, with hand-derived
// probes and counters; then through a whole GPU running regshare. Each TEST
// runs in its own process. See tb_structures_dram_channel.cpp for the pattern.
#include <gtest/gtest.h>

#include <regex>
#include <tuple>

#include "common/scripted_kernel.hpp"
#include "common/structure_bench.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/sharing/jatala/dwe_module.hpp"
#include "hw/sharing/jatala/lock_array_module.hpp"
#include "hw/sharing/jatala/pair_table_module.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/top/gpu_module.hpp"
#include "hw/top/report.hpp"

namespace smshare::tb {
namespace {

using jatala::DweModule;
using jatala::LockArrayModule;
using jatala::PairTableModule;
using jatala::Resource;

constexpr uint64_t kCycle = 1000;  // ps
constexpr uint32_t kProbedPairs = 4;  // Fermi: 8 CTA slots

// CTAs of 2 warps x 64 threads x 40 registers (2560 per CTA). At 50 %
// sharing, registers r0..r19 are private (floor(40 x 0.5)), r20..r39 behind a
// lock per warp pair. With `registers` = 3840: M = 1 + floor(1280 / 1280) = 2,
// one shared pair and no unshared CTA; with 6400: M = 2 + floor(1280 / 1280)
// = 3, base 2, so one shared pair and one unshared CTA (Eqs. 1-4). The
// occupancy is capped by the grid, too.
KernelResources two_warp_ctas(uint32_t grid = 2) {
  KernelResources r;
  r.grid_ctas = grid;
  r.threads_per_cta = 64;
  r.regs_per_thread = 40;
  return r;
}

GpuSpec sm_with(uint32_t registers, uint32_t sms = 1) {
  return load_gpu_config("fermi-gtx480",
                         {"gpu.num_sms=" + std::to_string(sms), "sm.registers=" + std::to_string(registers)});
}

Mechanism jatala_instance(const std::string& name, const SmSpec& sm, const KernelResources& k,
                          std::vector<std::string> settings) {
  settings.push_back("jatala.sharing=0.5");
  return mechanism_registry().configure({name, settings, ""}).make(sm, k, "scripted");
}

WarpContext warp(uint32_t slot, uint32_t cta_slot, uint32_t warp_in_cta) { return {slot, cta_slot, warp_in_cta, slot}; }

// Admits a CTA into `cta_slot` (fails the test if it does not fit).
CtaAllocation admit(Mechanism& m, uint32_t cta_slot) {
  CtaAllocation a;
  EXPECT_TRUE(m.admission->try_admit(cta_slot, a)) << "CTA slot " << cta_slot;
  return a;
}

// Fig. 5: TB1 = CTA slot 0 (W1 = warp slot 0, W2 = 1), TB2 = CTA slot 1
// (W3 = 2, W4 = 3), one shared pair. An instruction writing r25 needs the
// lock of its warp pair.
const WarpContext W1 = warp(0, 0, 0), W2 = warp(1, 0, 1), W3 = warp(2, 1, 0), W4 = warp(3, 1, 1);
const WarpInstruction kShared = alu(25, {2});

TEST(LockArrayModule, RefusesThePartnerWhileTheSecIIIARuleHoldsAndGrantsOnceTheHolderFinished) {
  const GpuSpec spec = sm_with(3840);
  Mechanism m = jatala_instance("regshare", spec.sm, two_warp_ctas(), {});
  LockArrayModule dut("lock_array", Resource::Registers, kProbedPairs, 0);
  EXPECT_STREQ(dut.kind(), "register lock array");
  EXPECT_STREQ(dut.plain_class(), "RegisterLockArray");
  std::vector<std::pair<uint64_t, bool>> issued;  // (cycle, may_issue)
  // As SmCore::try_issue: the gate first, then the pipeline, which may be
  // full (`pipeline_free` false): the warp then asks again in a later cycle.
  auto issue = [&](uint64_t c, const WarpContext& w, bool pipeline_free = true) {
    const bool yes = m.gate->may_issue(w, kShared, c);
    issued.push_back({c, yes});
    if (yes && pipeline_free) m.gate->issued(w, kShared);
  };
  StructureBench bench("bench", dut, kCycle, 5, [&](uint64_t cycle) {
    switch (cycle) {
      case 0:  // launch: the SM binds the module, then seats TB1 and TB2 as pair 0
        dut.bind(m);
        admit(m, 0);
        admit(m, 1);
        break;
      case 1: issue(1, W2); break;  // lock 1 free, TB2 holds none: granted to TB1
      case 2: issue(2, W3); break;  // lock 0 free, but TB1 holds one: refused by the rule
      case 3:
        issue(3, W3);  // still refused (the same wait goes on)
        issue(3, W4);  // lock 1 is TB1's: busy
        break;
      case 4:
        m.hooks->warp_finished(W2);  // W2 finished: lock 1 free, TB1 holds none
        issue(4, W3, false);         // granted: TB2 now holds lock 0; W3's pipeline is full
        break;
      case 5:
        issue(5, W1);  // lock 0 is TB2's: busy
        issue(5, W3);  // held already: issues, nothing acquired
        break;
    }
  });
  sc_core::sc_start();

  const std::vector<std::pair<uint64_t, bool>> expect_issued{{1, true},  {2, false}, {3, false}, {3, false},
                                                             {4, true},  {5, false}, {5, true}};
  EXPECT_EQ(issued, expect_issued);
  using H = LockArrayModule::Holder;
  const int64_t holder[] = {H::Free, H::Member0, H::Member0, H::Member0, H::Member1, H::Member1};
  const int64_t locks_held[] = {0, 1, 1, 1, 1, 1};
  const int64_t waiting[] = {0, 0, 1, 2, 1, 2};       // W3; W3, W4; W4; W4, W1
  const int64_t acquisitions[] = {0, 1, 0, 0, 1, 0};  // W2, then W3
  const int64_t rule_refusals[] = {0, 0, 1, 0, 0, 0};  // W3's wait began by the rule
  for (uint64_t c = 0; c <= 5; ++c) {
    EXPECT_EQ(bench.probe("pair0_holder", c), holder[c]) << "cycle " << c;
    EXPECT_EQ(bench.probe("pair0_locks_held", c), locks_held[c]) << "cycle " << c;
    EXPECT_EQ(bench.probe("waiting_warps", c), waiting[c]) << "cycle " << c;
    EXPECT_EQ(bench.probe("acquisitions", c), acquisitions[c]) << "cycle " << c;
    EXPECT_EQ(bench.probe("rule_refusals", c), rule_refusals[c]) << "cycle " << c;
    EXPECT_EQ(bench.probe("pair1_holder", c), H::Free) << "cycle " << c << ": this SM forms one pair";
  }
  EXPECT_EQ(counter(dut, "acquisitions"), 2u);
  EXPECT_EQ(counter(dut, "lock_waits"), 3u);     // W3, W4, W1
  EXPECT_EQ(counter(dut, "rule_refusals"), 1u);  // W3
  // One lookup per instruction that issued past its lock: W2's, and W3's
  // (granted in cycle 4, asked again and issued in 5), not one per asking.
  EXPECT_EQ(counter(dut, "reads"), 2u);
  EXPECT_EQ(counter(dut, "writes"), 3u);         // two acquisitions, W2's release
}

TEST(LockArrayModule, WithoutTheRuleBothCtasOfAPairHoldLocks) {
  // The start of Fig. 5's deadlock: W2 takes lock 1, W3 lock 0.
  const GpuSpec spec = sm_with(3840);
  Mechanism m = jatala_instance("regshare", spec.sm, two_warp_ctas(), {"jatala.deadlock_avoidance=false"});
  LockArrayModule dut("lock_array", Resource::Registers, kProbedPairs, 0);
  StructureBench bench("bench", dut, kCycle, 2, [&](uint64_t cycle) {
    switch (cycle) {
      case 0:
        dut.bind(m);
        admit(m, 0);
        admit(m, 1);
        break;
      case 1: EXPECT_TRUE(m.gate->may_issue(W2, kShared, 1)); break;
      case 2: EXPECT_TRUE(m.gate->may_issue(W3, kShared, 2)); break;  // no rule: granted
    }
  });
  sc_core::sc_start();
  EXPECT_EQ(bench.probe("pair0_holder", 1), LockArrayModule::Member0);
  EXPECT_EQ(bench.probe("pair0_holder", 2), LockArrayModule::Both);
  EXPECT_EQ(bench.probe("pair0_locks_held", 2), 2);
  EXPECT_EQ(bench.probe("rule_refusals", 2), 0);
  EXPECT_EQ(counter(dut, "rule_refusals"), 0u);
}

TEST(LockArrayModule, TheScratchpadLockOfACtaPairIsReleasedWhenTheHoldingCtaFinishes) {
  // Two 1-warp CTAs of 4096 B on a 6144 B scratchpad at 50 %: one pair
  // (M = 1 + floor(2048 / 2048)), the first 2048 B of each CTA private.
  KernelResources k;
  k.grid_ctas = 2;
  k.threads_per_cta = 32;
  k.regs_per_thread = 16;
  k.smem_bytes_per_cta = 4096;
  const GpuSpec spec = load_gpu_config("fermi-gtx480", {"gpu.num_sms=1", "sm.scratchpad_bytes=6144"});
  Mechanism m = jatala_instance("spmshare", spec.sm, k, {});
  LockArrayModule dut("lock_array", Resource::Scratchpad, kProbedPairs, 0);
  EXPECT_STREQ(dut.kind(), "scratchpad lock array");
  EXPECT_STREQ(dut.plain_class(), "ScratchpadLockArray");
  const WarpInstruction shared_load = mem(OpClass::SharedLoad, 1, 3000, 4);  // past the private 2048 B
  const WarpContext a = warp(0, 0, 0), b = warp(1, 1, 0);
  CtaAllocation alloc_a;
  StructureBench bench("bench", dut, kCycle, 4, [&](uint64_t cycle) {
    switch (cycle) {
      case 0:
        dut.bind(m);
        alloc_a = admit(m, 0);
        admit(m, 1);
        break;
      case 1:  // granted to CTA 0; it issues
        EXPECT_TRUE(m.gate->may_issue(a, shared_load, 1));
        m.gate->issued(a, shared_load);
        break;
      case 2: EXPECT_FALSE(m.gate->may_issue(b, shared_load, 2)); break;  // busy: CTA 0 holds it
      case 3:  // CTA 0's warp retires and the CTA finishes: its lock is released
        m.hooks->warp_finished(a);
        m.admission->release(alloc_a);
        break;
      case 4:  // granted to CTA 1; it issues
        EXPECT_TRUE(m.gate->may_issue(b, shared_load, 4));
        m.gate->issued(b, shared_load);
        break;
    }
  });
  sc_core::sc_start();

  using H = LockArrayModule::Holder;
  const int64_t holder[] = {H::Free, H::Member0, H::Member0, H::Free, H::Member1};
  const int64_t locks_held[] = {0, 1, 1, 0, 1};
  const int64_t waiting[] = {0, 0, 1, 1, 0};
  const int64_t acquisitions[] = {0, 1, 0, 0, 1};
  for (uint64_t c = 0; c <= 4; ++c) {
    EXPECT_EQ(bench.probe("pair0_holder", c), holder[c]) << "cycle " << c;
    EXPECT_EQ(bench.probe("pair0_locks_held", c), locks_held[c]) << "cycle " << c;
    EXPECT_EQ(bench.probe("waiting_warps", c), waiting[c]) << "cycle " << c;
    EXPECT_EQ(bench.probe("acquisitions", c), acquisitions[c]) << "cycle " << c;
  }
  for (const auto& p : dut.probes()) EXPECT_NE(p.name, "rule_refusals") << "the rule is about register locks";
  EXPECT_EQ(counter(dut, "acquisitions"), 2u);
  EXPECT_EQ(counter(dut, "lock_waits"), 1u);
  EXPECT_EQ(counter(dut, "reads"), 2u);   // the two instructions that issued past the lock
  EXPECT_EQ(counter(dut, "writes"), 3u);  // two acquisitions, CTA 0's release
}

TEST(PairTableModule, SeatsUnsharedCtasFirstThenPairsAndPassesOwnershipWhenTheOwnerFinishes) {
  const GpuSpec spec = sm_with(6400);  // one unshared CTA, one shared pair
  Mechanism m = jatala_instance("regshare", spec.sm, two_warp_ctas(3), {});
  PairTableModule dut("pair_table", kProbedPairs, 0);
  EXPECT_STREQ(dut.kind(), "pair table");
  EXPECT_STREQ(dut.plain_class(), "PairTable");
  CtaAllocation seat[3];
  StructureBench bench("bench", dut, kCycle, 5, [&](uint64_t cycle) {
    CtaAllocation none;
    switch (cycle) {
      case 0:
        dut.bind(m);
        seat[0] = admit(m, 0);  // the unshared seat
        break;
      case 1: seat[1] = admit(m, 1); break;  // pair 0, member 0: the owner (first to arrive)
      case 2:
        seat[2] = admit(m, 2);  // pair 0, member 1
        EXPECT_FALSE(m.admission->try_admit(3, none)) << "three CTAs fit";
        break;
      case 3: m.admission->release(seat[1]); break;  // the owner finishes: slot 2 owns pair 0
      case 4: seat[1] = admit(m, 1); break;         // a new CTA in the freed seat is the non-owner
      case 5: m.admission->release(seat[0]); break;
    }
  });
  sc_core::sc_start();

  const int64_t owner[] = {-1, 1, 1, 2, 2, 2};
  const int64_t unshared[] = {1, 1, 1, 1, 1, 0};
  const int64_t shared[] = {0, 1, 2, 1, 2, 2};
  for (uint64_t c = 0; c <= 5; ++c) {
    EXPECT_EQ(bench.probe("pair0_owner_cta", c), owner[c]) << "cycle " << c;
    EXPECT_EQ(bench.probe("pair1_owner_cta", c), -1) << "cycle " << c << ": this SM forms one pair";
    EXPECT_EQ(bench.probe("unshared_ctas", c), unshared[c]) << "cycle " << c;
    EXPECT_EQ(bench.probe("shared_ctas", c), shared[c]) << "cycle " << c;
  }
  EXPECT_EQ(counter(dut, "unshared_placements"), 1u);
  EXPECT_EQ(counter(dut, "shared_placements"), 3u);
  EXPECT_EQ(counter(dut, "ownership_transfers"), 1u);
}

TEST(DweModule, TheReferenceSmHoldsNonOwnerGlobalLoadsAndAnotherSmStartsAtProbabilityOne) {
  // Sec. IV-C: SM0 never issues a non-owner warp's global memory
  // instruction; every other SM starts with probability 1 (100 %).
  const GpuSpec spec = sm_with(3840, 2);
  Mechanism sm0 = jatala_instance("regshare", spec.sm, two_warp_ctas(), {"jatala.dynamic_warp_execution=true"});
  const ConfiguredMechanism regshare =
      mechanism_registry().configure({"regshare", {"jatala.dynamic_warp_execution=true", "jatala.sharing=0.5"}, ""});
  Mechanism sm1 = regshare.make(spec.sm, two_warp_ctas(), "scripted", 1);
  DweModule dut0("dwe0", 0), dut1("dwe1", 1);
  EXPECT_STREQ(dut0.kind(), "dynamic warp execution");
  EXPECT_STREQ(dut0.plain_class(), "DynamicWarpExecution");
  const WarpInstruction load = mem(OpClass::GlobalLoad, 1, 0, 4);  // r1: private, no lock
  for (Mechanism* m : {&sm0, &sm1}) {  // the launch
    admit(*m, 0);  // TB1: the owner (arrived first)
    admit(*m, 1);  // TB2: the non-owner
  }
  dut0.bind(sm0);
  dut1.bind(sm1);
  StructureBench bench0("bench0", dut0, kCycle, 1, [&](uint64_t cycle) {
    if (cycle != 0) return;
    EXPECT_TRUE(sm0.gate->may_issue(W1, load, 0)) << "the owner's loads are never held";
    EXPECT_FALSE(sm0.gate->may_issue(W3, load, 0)) << "SM0: probability 0 for the non-owner";
    EXPECT_TRUE(sm1.gate->may_issue(W3, load, 0)) << "SM1: probability 1";
  });
  StructureBench bench1("bench1", dut1, kCycle, 1, [](uint64_t) {});
  sc_core::sc_start();
  EXPECT_EQ(bench0.probe("probability_pct", 0), 0);
  EXPECT_EQ(bench1.probe("probability_pct", 0), 100);
  EXPECT_EQ(counter(dut0, "refusals"), 1u);
  EXPECT_EQ(counter(dut1, "refusals"), 0u);
}

// The structure's modules in a regshare run: each SM has them from
// elaboration (the hierarchy --list-modules prints), the SM binds them at
// launch, and their counters, summed over the SMs, are the report's
// mechanism_stats.
TEST(JatalaModules, ARegshareRunHasThemUnderEachSmAndTheirCountersAreTheReportsMechanismStats) {
  // Fig. 5's kernel on two SMs, one shared pair each (CTAs 0 and 2 on SM0,
  // 1 and 3 on SM1): W2 and W3 touch a shared register first, W1 and W4
  // after a private chain.
  ScriptedKernel k("figure5", two_warp_ctas(4), [](uint32_t cta, uint32_t w) {
    std::vector<WarpInstruction> v;
    const bool first_of_pair = cta < 2;
    if (first_of_pair == (w == 0)) v.assign(10, alu(1, {1}));
    v.push_back(alu(static_cast<uint16_t>(25 + w), {2}));
    v.push_back(barrier());
    v.push_back(alu(3, {3}));
    return v;
  });
  const GpuSpec spec = sm_with(3840, 2);
  const ConfiguredMechanism regshare = mechanism_registry().configure({"regshare", {}, "0.5"});
  GpuModule gpu("gpu", spec, {&k}, regshare, "scripted");
  const std::string tree = describe_hierarchy(gpu);  // what --list-modules prints
  using Row = std::tuple<const char*, const char*, const char*>;  // module, kind, plain class
  for (const auto& [module, kind, plain] : {Row{"gpu.sm0.lock_array", "register lock array", "RegisterLockArray"},
                                            Row{"gpu.sm0.pair_table", "pair table", "PairTable"},
                                            Row{"gpu.sm1.lock_array", "register lock array", "RegisterLockArray"},
                                            Row{"gpu.sm1.pair_table", "pair table", "PairTable"}}) {
    const std::regex line(std::string("\\n *") + module + " +" + kind + " +" + plain + "\\n");
    EXPECT_TRUE(std::regex_search(tree, line)) << module << " (" << kind << ", " << plain << ") not in\n" << tree;
  }
  auto* lock0 = dynamic_cast<LockArrayModule*>(sc_core::sc_find_object("gpu.sm0.lock_array"));
  auto* lock1 = dynamic_cast<LockArrayModule*>(sc_core::sc_find_object("gpu.sm1.lock_array"));
  auto* table0 = dynamic_cast<PairTableModule*>(sc_core::sc_find_object("gpu.sm0.pair_table"));
  auto* table1 = dynamic_cast<PairTableModule*>(sc_core::sc_find_object("gpu.sm1.pair_table"));
  ASSERT_TRUE(lock0 && lock1 && table0 && table1);
  EXPECT_EQ(counter(*lock0, "acquisitions"), 0u);  // exists from elaboration, bound at launch
  sc_core::sc_start();

  ASSERT_TRUE(gpu.kernels()[0].finished);
  const nlohmann::json stats =
      simulation_report(gpu, {"regshare", "lrr", 0, "scripted"}, regshare.hardware(spec), regshare.effective(), 0)
          ["mechanism_stats"];
  auto both = [](const StructureModule& a, const StructureModule& b, const char* name) {
    return counter(a, name) + counter(b, name);
  };
  EXPECT_EQ(both(*lock0, *lock1, "acquisitions"), 8u);  // every warp once
  EXPECT_EQ(both(*lock0, *lock1, "acquisitions"), stats["lock_acquisitions"].get<uint64_t>());
  EXPECT_EQ(both(*lock0, *lock1, "lock_waits"), stats["lock_waits"].get<uint64_t>());
  EXPECT_GT(both(*lock0, *lock1, "rule_refusals"), 0u);
  EXPECT_EQ(both(*lock0, *lock1, "rule_refusals"), stats["deadlock_rule_refusals"].get<uint64_t>());
  EXPECT_EQ(both(*table0, *table1, "shared_placements"), 4u);
  EXPECT_EQ(both(*table0, *table1, "shared_placements"), stats["shared_ctas_launched"].get<uint64_t>());
  EXPECT_EQ(both(*table0, *table1, "unshared_placements"), stats["unshared_ctas_launched"].get<uint64_t>());
  EXPECT_EQ(both(*table0, *table1, "ownership_transfers"), stats["ownership_transfers"].get<uint64_t>());
}

// A stream of two kernels: at the second launch the first kernel's
// mechanism instance is destroyed, after the modules have taken its counters
// (they read freed memory before retire() existed); the modules then count
// both kernels, every warp of each acquiring its lock once.
TEST(JatalaModules, CountersRunOverEveryKernelOfAStream) {
  auto body = [](uint32_t, uint32_t w) {
    std::vector<WarpInstruction> v;
    v.push_back(alu(static_cast<uint16_t>(25 + w), {2}));  // a shared register of warp pair w
    v.push_back(alu(3, {3}));
    return v;
  };
  ScriptedKernel a("a", two_warp_ctas(4), body), b("b", two_warp_ctas(4), body);
  const GpuSpec spec = sm_with(3840, 2);
  const ConfiguredMechanism regshare = mechanism_registry().configure({"regshare", {}, "0.5"});
  GpuModule gpu("gpu", spec, {&a, &b}, regshare, "scripted");
  sc_core::sc_start();

  ASSERT_TRUE(gpu.kernels()[1].finished);
  const nlohmann::json last_kernel =
      simulation_report(gpu, {"regshare", "lrr", 0, "scripted"}, regshare.hardware(spec), regshare.effective(), 0)
          ["mechanism_stats"];
  uint64_t acquisitions = 0, shared = 0;
  for (const char* sm : {"gpu.sm0", "gpu.sm1"}) {
    acquisitions += counter(*dynamic_cast<StructureModule*>(sc_core::sc_find_object((std::string(sm) + ".lock_array").c_str())), "acquisitions");
    shared += counter(*dynamic_cast<StructureModule*>(sc_core::sc_find_object((std::string(sm) + ".pair_table").c_str())), "shared_placements");
  }
  EXPECT_EQ(last_kernel["lock_acquisitions"].get<uint64_t>(), 8u);  // the report: the last kernel's
  EXPECT_EQ(acquisitions, 2 * 8u);                                   // the modules: both kernels'
  EXPECT_EQ(shared, 2 * last_kernel["shared_ctas_launched"].get<uint64_t>());
}

}  // namespace
}  // namespace smshare::tb
