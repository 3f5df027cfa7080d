// What the GPU's clock asks an SM before ticking it ahead of the others
// (GpuModule::tick_window): SmCore::may_take_a_cta() must be true before
// every tick that takes a CTA from the dispatcher, and RunAheadTurn turns
// a tick ahead that would touch what SMs share into an error.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "../common/fixed_latency_memory.hpp"
#include "../common/scripted_kernel.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/frontend/cta_dispatcher.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sm/sm_core.hpp"
#include "hw/top/run_ahead_turn.hpp"

namespace smshare {
namespace {

// CTAs of two warps whose streams end at different times: warp 0 runs 3
// instructions, warp 1 runs 40 (dependent, so it ends well after warp 0);
// no stream ends in an EXIT, so a warp finds its end at a fetch with an
// empty buffer and may retire in that same tick.
std::vector<WarpInstruction> stream(uint32_t warp) {
  std::vector<WarpInstruction> s;
  const uint32_t n = warp == 0 ? 3 : 40;
  for (uint32_t i = 0; i < n; ++i) {
    WarpInstruction inst = tb::alu(static_cast<uint16_t>(1 + i % 2), {static_cast<uint16_t>(1 + (i + 1) % 2)});
    inst.pc = 8 * i;
    s.push_back(inst);
  }
  return s;
}

KernelResources two_warp_ctas(uint32_t grid) {
  KernelResources r = tb::single_warp_grid();
  r.grid_ctas = static_cast<int32_t>(grid);
  r.threads_per_cta = 64;
  return r;
}

TEST(RunAhead, MayTakeACtaBeforeEveryTickThatTakesOne) {
  const GpuSpec spec = load_gpu_config("fermi-gtx480", {"gpu.num_sms=1", "sm.max_ctas=2"});
  tb::FixedLatencyMemory memory{50};
  SmCore core{0, spec, memory};
  constexpr uint32_t kGrid = 7;
  CtaDispatcher dispatcher{kGrid};
  tb::ScriptedKernel kernel{"two_warps", two_warp_ctas(kGrid), [](uint32_t, uint32_t w) { return stream(w); }};
  core.begin_kernel(kernel, mechanism_registry().configure({}).make(spec.sm, kernel.resources(), "test"),
                    dispatcher);
  while (core.launch_one_cta()) {
  }
  ASSERT_EQ(dispatcher.dispatched(), 2u);  // two CTA slots
  uint64_t ticks_refused = 0, takes = 0;
  for (uint64_t cycle = 0; cycle < 100000 && cycle != SmCore::kNever;) {
    const bool may_take = core.may_take_a_cta();
    const uint32_t before = dispatcher.dispatched();
    const uint64_t next = core.tick(cycle);
    if (dispatcher.dispatched() != before) {
      ++takes;
      EXPECT_TRUE(may_take) << "cycle " << cycle << " took a CTA without may_take_a_cta()";
    }
    ticks_refused += !may_take;
    ASSERT_NE(next, SmCore::kAwaitMemory);
    cycle = next == SmCore::kNever ? SmCore::kNever : next;
  }
  EXPECT_EQ(core.stats().ctas_completed, kGrid);
  EXPECT_EQ(takes, kGrid - 2);
  EXPECT_FALSE(core.may_take_a_cta());  // the dispatcher is empty
  // Not a rule that is always true: most ticks are refused (warp 1 of each CTA runs on).
  EXPECT_GT(ticks_refused, 0u);
}

TEST(RunAhead, TurnRefusesASharedStepUntilTheDispatcherIsEmpty) {
  RunAheadTurn turn;
  EXPECT_THROW(turn.await(3), std::logic_error);  // no kernel bound
  CtaDispatcher dispatcher{1};
  turn.bind(dispatcher);
  try {
    turn.await(3);
    ADD_FAILURE() << "await passed with a CTA left";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "sm3: ticked ahead of the other SMs into a tick that takes a CTA from the dispatcher");
  }
  dispatcher.take();
  EXPECT_NO_THROW(turn.await(3));  // no CTA left: nothing another SM could take first
  EXPECT_TRUE(turn.answers_later());
  int calls = 0;
  auto call = [&calls] { ++calls; };
  EXPECT_THROW(turn.on_main_thread(3, call), std::logic_error);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace smshare
