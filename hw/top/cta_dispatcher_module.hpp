// gpu.cta_dispatcher: hands out the running kernel's CTAs to the SMs. The
// module exists from elaboration; its state, the kernel's CtaDispatcher, is
// built per kernel and bound to it at each launch (GpuModule::launch).
//
// Probes, computed on sampling (the dispatcher changes at every launch, so
// the probes cannot be its own members): `dispatched`, the running kernel's
// CTAs handed out so far, and `remaining`, those still to hand out.
#pragma once

#include "hw/common/structure_module.hpp"
#include "hw/frontend/cta_dispatcher.hpp"

namespace smshare {

class CtaDispatcherModule : public StructureModule {
 public:
  explicit CtaDispatcherModule(sc_core::sc_module_name name)
      : StructureModule(name, "CTA dispatcher", "CtaDispatcher") {
    probe("dispatched", dispatched_);
    probe("remaining", remaining_);
  }

  // At a kernel's launch, before its first CTA is taken. `dispatcher` must
  // stay alive until the next bind (or the end of the run).
  void bind(const CtaDispatcher& dispatcher) {
    if (bound_) dispatched_by_earlier_kernels_ += bound_->dispatched();
    bound_ = &dispatcher;
    ++kernels_;
  }

  void update_probes(uint64_t) override {
    dispatched_ = bound_ ? bound_->dispatched() : 0;
    remaining_ = bound_ ? bound_->grid() - bound_->dispatched() : 0;
  }

  StructureCounters counters() const override {
    return {{"kernels", kernels_},
            {"ctas_dispatched", dispatched_by_earlier_kernels_ + (bound_ ? bound_->dispatched() : 0)}};
  }

 private:
  const CtaDispatcher* bound_ = nullptr;
  uint64_t kernels_ = 0;
  uint64_t dispatched_by_earlier_kernels_ = 0;
  uint32_t dispatched_ = 0, remaining_ = 0;
};

}  // namespace smshare
