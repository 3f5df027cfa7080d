// gpu.smN.scheduler<s>: warp scheduler s, which issues the first ready warp
// of its warps (slots w with w mod sm.num_schedulers = s) in the order its
// SchedulerPolicy (lrr, gto, two-level, owf, ltlws-lrr, ltlws-gto) gives. The policy holds the
// ordering state; SmCore's issue stage fills the SchedulerProbes.
//
// Probes (plain stores of SmCore::issue): `issued_warp`, the warp slot it
// issued from this cycle (-1 = none; signed); `issued_this_cycle`, how many
// instructions (2 on a dual-issue cycle, sm.dual_issue: both are
// issued_warp's); `ready_warps`, its warps ready to issue as far as they
// themselves are concerned (the mechanism's gate or a full collector pool
// may still hold them); `active_limit`, the most warps its policy may hold
// active (two-level's `sm.two_level_active_warps`; LTLWS's W_opt once its
// first warp finished, Eq. 14; 0: no limit). Counter: `issued` (instructions).
#pragma once

#include "hw/common/structure_module.hpp"
#include "hw/sm/scheduler_policy.hpp"
#include "hw/sm/sm_core.hpp"

namespace smshare {

class SchedulerModule : public StructureModule {
 public:
  SchedulerModule(sc_core::sc_module_name name, const SchedulerPolicy& policy, const SchedulerProbes& probes,
                  uint32_t sm)
      : StructureModule(name, "warp scheduler", "SchedulerPolicy", sm), policy_(policy), probes_(probes) {
    probe("issued_warp", probes.issued_warp);
    probe("issued_this_cycle", probes.issued_this_cycle);
    probe("ready_warps", probes.ready_warps);
    probe("active_limit", active_limit_);
  }

  void update_probes(uint64_t) override { active_limit_ = policy_.active_limit(); }

  // The policy's name ("lrr", "gto", ...).
  std::string policy() const { return policy_.name(); }

  StructureCounters counters() const override { return {{"issued", probes_.issued}}; }

 private:
  const SchedulerPolicy& policy_;
  const SchedulerProbes& probes_;
  uint32_t active_limit_ = 0;
};

}  // namespace smshare
