// Testbench of EXPARS's structure modules, gpu.smN.register_prefetcher,
// gpu.smN.operand_cache and gpu.smN.register_allocation_table: first over
// one SM's EXPARS instance (the mechanism the SM would hold) without an SM,
// driven as the SM drives it (admission, the decoder, a step at the start of
// each cycle), with hand-derived probes per cycle; then through a whole GPU
// running expars, whose module counters must be the report's. Each TEST runs
// in its own process.
#include <gtest/gtest.h>

#include <regex>
#include <tuple>

#include "common/scripted_kernel.hpp"
#include "common/structure_bench.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/sharing/expars/expars_modules.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sm/bank_arbitrator.hpp"
#include "hw/top/gpu_module.hpp"
#include "hw/top/report.hpp"

namespace smshare::tb {
namespace {

using expars::OperandCacheModule;
using expars::RegisterAllocationTableModule;
using expars::RegisterPrefetcherModule;

constexpr uint64_t kCycle = 1000;  // ps

// b+tree's shape: 508 threads (16 warps) x 24 registers. On Fermi the
// baseline holds 2 CTAs; EXPARS a third, mixed, with registers 16..23 of
// every thread in the scratchpad (tb/unit/test_expars_runtime.cpp).
KernelResources btree_ctas(uint32_t grid) {
  KernelResources r;
  r.grid_ctas = grid;
  r.threads_per_cta = 508;
  r.regs_per_thread = 24;
  return r;
}

// R16, R17 and R18 are read before written (three fills); R19, R20 and R21
// are written first (three lines, no fill); R3 stays in the register file.
std::vector<WarpInstruction> three_fills() {
  return {alu(19, {16, 17}), alu(20, {19, 18, 3}), alu(21, {20})};
}

TEST(ExparsModules, ThePrefetcherFillsOneRegisterPerCycleThenTheWarpIsSchedulable) {
  const GpuSpec spec = load_gpu_config("fermi-gtx480", {"gpu.num_sms=1"});
  Mechanism m = mechanism_registry().configure({"expars", {}, ""}).make(spec.sm, btree_ctas(100), "scripted");
  BankArbitrator arbitrator(spec.sm.register_banks, spec.sm.scratchpad_banks);
  m.hooks->bind(arbitrator);
  CtaAllocation a;
  for (uint32_t c = 0; c < 3; ++c) ASSERT_TRUE(m.admission->try_admit(c, a));
  const WarpContext w{32, 2, 0, 0};  // warp 0 of the mixed CTA
  std::unique_ptr<WarpProgram> program =
      m.hooks->decode(w, ScriptedKernel("k", btree_ctas(1), [](uint32_t, uint32_t) { return three_fills(); })
                             .warp_program(0, 0));
  RegisterPrefetcherModule dut("register_prefetcher", 0);
  OperandCacheModule cache("operand_cache", 0);
  RegisterAllocationTableModule rat("register_allocation_table", 0);
  EXPECT_STREQ(dut.kind(), "register prefetcher");
  EXPECT_STREQ(cache.plain_class(), "OperandCache");
  dut.bind(m);
  cache.bind(m);
  rat.bind(m);
  std::vector<uint32_t> valid_lines, fills;
  const uint64_t ready = 5 + spec.sm.smem_latency;
  StructureBench bench("bench", dut, kCycle, ready + 1, [&](uint64_t cycle) {
    // As the SM: the prefetcher steps at the start of the cycle, the
    // decoder reads the PREF with the bundle's first instruction (cycle 2).
    m.hooks->at_wake(cycle, IssueActivity{});
    WarpInstruction inst;
    if (cycle == 2) {
      ASSERT_TRUE(program->next(inst));
    }
    cache.update_probes(cycle);
    valid_lines.push_back(static_cast<uint32_t>(probe_now(cache, "valid_lines")));
    fills.push_back(static_cast<uint32_t>(probe_now(cache, "fills")));
  });
  sc_core::sc_start();

  for (uint64_t c : {0, 1}) EXPECT_EQ(bench.probe("prefetching_queue", c), 0) << c;
  EXPECT_EQ(bench.probe("prefetching_queue", 2), 1);
  EXPECT_EQ(bench.probe("head_warp", 2), 32);
  // Cycle 3 places the bundle (6 lines) and fills R16; 4: R17; 5: R18, and
  // the warp leaves the queue, schedulable sm.smem_latency after that fill.
  EXPECT_EQ(valid_lines[2], 0u);
  for (uint64_t c = 3; c <= 5; ++c) {
    EXPECT_EQ(fills[c], 1u) << c;
    EXPECT_EQ(valid_lines[c], 6u) << c;
  }
  EXPECT_EQ(fills[6], 0u);
  EXPECT_EQ(bench.probe("prefetching_queue", 4), 1);
  EXPECT_EQ(bench.probe("prefetching_queue", 5), 0);
  EXPECT_EQ(bench.probe("head_warp", 5), -1);
  EXPECT_EQ(bench.probe("schedulable_warps", ready - 1), 0);
  EXPECT_EQ(bench.probe("schedulable_warps", ready), 1);
  EXPECT_EQ(counter(dut, "pref_instructions"), 1u);
  EXPECT_EQ(counter(dut, "bundles_prefetched"), 1u);
  EXPECT_EQ(counter(cache, "fills"), 3u);
  EXPECT_EQ(counter(cache, "allocations_without_fill"), 3u);
  rat.update_probes(0);
  EXPECT_EQ(counter(rat, "sbr_writes"), 1u);  // the mixed CTA's SBR
}

// A whole GPU: two SMs run 12 CTAs of the b+tree shape, 3 at a time each
// (the third mixed). The modules exist under every SM and count what the
// report's mechanism_stats count.
TEST(ExparsModules, AGpuRunsExparsAndTheModulesCountWhatTheReportCounts) {
  ScriptedKernel k("btree-shape", btree_ctas(12), [](uint32_t, uint32_t w) {
    std::vector<WarpInstruction> v;
    for (int r = 0; r < 3; ++r) {
      for (const WarpInstruction& i : three_fills()) v.push_back(i);
      v.push_back(alu(static_cast<uint16_t>(22 + w % 2), {23, 2}));
    }
    v.push_back(barrier());
    v.push_back(alu(16, {16, 4}));
    return v;
  });
  const GpuSpec spec = load_gpu_config("fermi-gtx480", {"gpu.num_sms=2"});
  const ConfiguredMechanism expars = mechanism_registry().configure({"expars", {}, ""});
  GpuModule gpu("gpu", spec, {&k}, expars, "scripted");
  const std::string tree = describe_hierarchy(gpu);
  using Row = std::tuple<const char*, const char*, const char*>;
  for (const auto& [module, kind, plain] :
       {Row{"gpu.sm0.register_allocation_table", "register allocation table", "RegisterAllocationTable"},
        Row{"gpu.sm0.operand_cache", "operand cache", "OperandCache"},
        Row{"gpu.sm1.register_prefetcher", "register prefetcher", "ExparsSm"}}) {
    const std::regex line(std::string("\\n *") + module + " +" + kind + " +" + plain + "\\n");
    EXPECT_TRUE(std::regex_search(tree, line)) << module << " not in\n" << tree;
  }
  sc_core::sc_start();

  ASSERT_TRUE(gpu.kernels()[0].finished);
  const nlohmann::json report =
      simulation_report(gpu, {"expars", "lrr", 0, "scripted"}, expars.hardware(spec), expars.effective(), 0);
  const nlohmann::json& stats = report["mechanism_stats"];
  auto sum = [](const char* module, const char* name) {
    uint64_t n = 0;
    for (const char* sm : {"gpu.sm0.", "gpu.sm1."})
      n += counter(*dynamic_cast<StructureModule*>(sc_core::sc_find_object((std::string(sm) + module).c_str())), name);
    return n;
  };
  EXPECT_EQ(report["resident_ctas_per_sm"].get<uint32_t>(), 3u);
  // Every warp's stream is cut at the barrier (13 instructions, then 1):
  // two bundles, two PREFs.
  EXPECT_EQ(stats["pref_instructions"].get<uint64_t>(), 12u * 16 * 2);
  EXPECT_EQ(sum("register_prefetcher", "pref_instructions"), stats["pref_instructions"].get<uint64_t>());
  EXPECT_EQ(sum("register_prefetcher", "bundles_prefetched"), stats["bundles_prefetched"].get<uint64_t>());
  EXPECT_GT(stats["operand_cache_fills"].get<uint64_t>(), 0u);
  EXPECT_EQ(stats["operand_cache_misses"].get<uint64_t>(), 0u);  // no bundle issued before its registers
  EXPECT_EQ(sum("operand_cache", "fills"), stats["operand_cache_fills"].get<uint64_t>());
  EXPECT_EQ(sum("operand_cache", "evictions"), stats["operand_cache_evictions"].get<uint64_t>());
  EXPECT_EQ(sum("operand_cache", "writebacks"), stats["operand_cache_writebacks"].get<uint64_t>());
  // Each mixed CTA sets its SBR at launch and clears it at the end.
  EXPECT_EQ(sum("register_allocation_table", "sbr_writes") % 2, 0u);
  EXPECT_GT(sum("register_allocation_table", "sbr_writes"), 0u);
  EXPECT_EQ(report["warp_instructions"].get<uint64_t>(), 12u * 16 * 14);  // PREFs are not counted
}

}  // namespace
}  // namespace smshare::tb
