// Testbench of the structure module gpu.cta_dispatcher, whose plain object
// (the kernel's CtaDispatcher) is built per kernel and bound to the module at
// each launch: first driven alone, as the SMs pull CTAs, then through a
// whole GPU running a stream of two kernels. See tb_structures_dram_channel.cpp
// for the pattern.
#include <gtest/gtest.h>

#include "common/scripted_kernel.hpp"
#include "common/structure_bench.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/top/cta_dispatcher_module.hpp"
#include "hw/top/gpu_module.hpp"

namespace smshare::tb {
namespace {

constexpr uint64_t kCycle = 1000;  // ps

TEST(CtaDispatcherModule, ReportsTheCtasOfTheKernelBoundAtLaunch) {
  CtaDispatcherModule dut("cta_dispatcher");
  CtaDispatcher first(5), second(3);
  StructureBench bench("bench", dut, kCycle, 4, [&](uint64_t cycle) {
    switch (cycle) {
      case 0:  // launch of the first kernel: two SMs take one CTA each
        dut.bind(first);
        first.take();
        first.take();
        break;
      case 1: first.take(); break;  // an SM's CTA completed: it pulls the next
      case 2: first.take(); first.take(); break;
      case 3:  // the first kernel drained: the second is launched
        dut.bind(second);
        second.take();
        break;
    }
  });
  sc_core::sc_start();

  const int64_t dispatched[] = {2, 3, 5, 1, 1};
  const int64_t remaining[] = {3, 2, 0, 2, 2};
  for (uint64_t c = 0; c < 5; ++c) {
    EXPECT_EQ(bench.probe("dispatched", c), dispatched[c]) << "cycle " << c;
    EXPECT_EQ(bench.probe("remaining", c), remaining[c]) << "cycle " << c;
  }
  EXPECT_EQ(counter(dut, "kernels"), 2u);
  EXPECT_EQ(counter(dut, "ctas_dispatched"), 6u);
}

TEST(CtaDispatcherModule, TheGpuBindsEachKernelOfAStreamAtItsLaunch) {
  KernelResources res;
  res.threads_per_cta = 32;
  res.regs_per_thread = 8;
  auto one_add = [](uint32_t, uint32_t) { return std::vector<WarpInstruction>{alu(1, {2})}; };
  res.grid_ctas = 7;
  ScriptedKernel a("a", res, one_add);
  res.grid_ctas = 4;
  ScriptedKernel b("b", res, one_add);
  const GpuSpec spec = load_gpu_config("fermi-gtx480", {"gpu.num_sms=2"});
  GpuModule gpu("gpu", spec, {&a, &b}, mechanism_registry().configure({}), "scripted");
  EXPECT_STREQ(gpu.cta_dispatcher().name(), "gpu.cta_dispatcher");
  EXPECT_EQ(counter(gpu.cta_dispatcher(), "kernels"), 0u);  // exists from elaboration, bound at launch
  sc_core::sc_start();

  ASSERT_TRUE(gpu.kernels()[1].finished);
  EXPECT_EQ(counter(gpu.cta_dispatcher(), "kernels"), 2u);
  EXPECT_EQ(counter(gpu.cta_dispatcher(), "ctas_dispatched"), 7u + 4u);
}

}  // namespace
}  // namespace smshare::tb
