// gpu.smN.dynamic_warp_execution: Jatala Sec. IV-C's throttle of non-owner
// warps' global memory instructions (plain class DynamicWarpExecution, a
// member of the SM's JatalaSm, rebuilt at every kernel launch and bound to
// the module then). Present only with --set jatala.dynamic_warp_execution=true.
//
// Probe: probability_pct, the probability (percent) that a non-owner warp's
// global memory instruction may issue: always 0 on SM0 (the reference),
// else stepped each monitoring period by comparing the SM's stalls with
// SM0's. Counter: refusals (instructions the draw held back).
#pragma once

#include "hw/sharing/jatala/jatala_sm.hpp"
#include "hw/sm/mechanism_module.hpp"

namespace smshare::jatala {

class DweModule : public MechanismStructureModule {
 public:
  DweModule(sc_core::sc_module_name name, uint32_t sm_id)
      : MechanismStructureModule(name, "dynamic warp execution", "DynamicWarpExecution", sm_id) {
    probe("probability_pct", probability_pct_);
  }

  void update_probes(uint64_t) override { probability_pct_ = dwe_ ? dwe_->probability_percent() : 0; }

 protected:
  void attach(const Mechanism& m) override {
    state_ = jatala_sm_of(m);
    dwe_ = require_state(state_ ? state_->dwe() : nullptr, "regshare/spmshare with dynamic warp execution");
  }

  StructureCounters instance_counters() const override { return {{"refusals", state_ ? state_->dwe_refusals() : 0}}; }

 private:
  const JatalaSm* state_ = nullptr;
  const DynamicWarpExecution* dwe_ = nullptr;
  uint32_t probability_pct_ = 0;
};

}  // namespace smshare::jatala
