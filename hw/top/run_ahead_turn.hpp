// The turn of an SM the GPU's clock ticks ahead of the cycle the others are
// at (GpuModule's run-ahead, docs/performance.md). Such a tick must not
// touch what SMs share before every lower SM has finished that cycle, which
// on one thread it cannot wait for: so the clock ticks an SM ahead only
// when its tick cannot need a turn (SmCore::runs_ahead_ok, may_take_a_cta),
// and this turn turns a broken rule into an error instead of a different
// report.
#pragma once

#include <stdexcept>
#include <string>

#include "hw/common/tick_turn.hpp"
#include "hw/frontend/cta_dispatcher.hpp"

namespace smshare {

class RunAheadTurn final : public TickTurn {
 public:
  // The running kernel's dispatcher (GpuModule::launch).
  void bind(const CtaDispatcher& dispatcher) { dispatcher_ = &dispatcher; }

  // Reached ahead only from SmCore::launch_one_cta (runs_ahead_ok rules out
  // a kernel-wide state, the other caller): harmless once the dispatcher has
  // no CTA left, which stays so for the rest of the kernel.
  void await(uint32_t sm) override {
    if (dispatcher_ == nullptr || dispatcher_->has_next())
      throw std::logic_error("sm" + std::to_string(sm) +
                             ": ticked ahead of the other SMs into a tick that takes a CTA from the dispatcher");
  }
  // Every request of a tick ahead is left for later (answers_later()); a
  // request that needs its answer at once (two LDST lines or fetches a
  // cycle) must have kept the SM from running ahead.
  void on_main_thread(uint32_t sm, CallRef /*call*/) override {
    throw std::logic_error("sm" + std::to_string(sm) +
                           ": ticked ahead of the other SMs into a memory request that needs its answer at once");
  }
  bool answers_later() const override { return true; }

 private:
  const CtaDispatcher* dispatcher_ = nullptr;
};

}  // namespace smshare
