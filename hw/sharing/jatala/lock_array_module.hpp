// gpu.smN.lock_array: Jatala's lock array (Sec. III and V). regshare: the
// register lock array, a lock per pair of warps (warp k of each CTA of a
// shared pair; plain class RegisterLockArray). spmshare: the scratchpad lock
// array, a lock per CTA pair (ScratchpadLockArray). Both are members of the
// SM's JatalaSm, rebuilt at every kernel launch and bound to the module then.
//
// Probes (computed from the bound state; pairs k < sm.max_ctas / 2, the ones
// the sharing level does not form stay free):
//   pair<k>_holder      which member of shared pair k holds its lock(s):
//                       free, member0, member1; "both" only without the
//                       Sec. III-A rule (how the Fig. 5 deadlock starts)
//   pair<k>_locks_held  regshare: warp-pair locks held in pair k;
//                       spmshare: 1 while the pair's lock is held
//   waiting_warps       warps whose last issue attempt a lock refused, busy-
//                       waiting to retry (Fig. 3 step (e), Fig. 4)
//   acquisitions        locks granted this cycle
//   rule_refusals       regshare only: waits that began this cycle because
//                       the Sec. III-A rule refused a free lock (a warp of
//                       the partner CTA holds one)
// Counters: reads and writes of the array as the power model counts them
// (lock_array.hpp; the power model adds a lookup per busy-wait cycle),
// acquisitions, lock_waits (waits begun) and, for regshare, rule_refusals.
#pragma once

#include <string>
#include <vector>

#include "hw/sharing/jatala/jatala_sm.hpp"
#include "hw/sm/mechanism_module.hpp"

namespace smshare::jatala {

class LockArrayModule : public MechanismStructureModule {
 public:
  enum Holder : int32_t { Free = 0, Member0 = 1, Member1 = 2, Both = 3 };

  LockArrayModule(sc_core::sc_module_name name, Resource r, uint32_t pairs, uint32_t sm_id)
      : MechanismStructureModule(name, r == Resource::Registers ? "register lock array" : "scratchpad lock array",
                                 r == Resource::Registers ? "RegisterLockArray" : "ScratchpadLockArray", sm_id),
        resource_(r),
        holder_(pairs, Free),
        locks_held_(pairs, 0) {
    for (uint32_t k = 0; k < pairs; ++k) {
      const std::string pair = "pair" + std::to_string(k) + "_";
      probe(pair + "holder", holder_[k], 32, &holder_names());
      probe(pair + "locks_held", locks_held_[k]);
    }
    probe("waiting_warps", waiting_warps_);
    probe("acquisitions", acquisitions_.value());
    if (r == Resource::Registers) probe("rule_refusals", rule_refusals_.value());
  }

  void update_probes(uint64_t) override {
    for (uint32_t k = 0; k < holder_.size(); ++k) {
      const bool formed = state_ && k < state_->pair_table().pairs();
      const bool held[2] = {formed && held_by(k, 0) > 0, formed && held_by(k, 1) > 0};
      holder_[k] = held[0] && held[1] ? Both : held[0] ? Member0 : held[1] ? Member1 : Free;
      locks_held_[k] = formed ? held_by(k, 0) + held_by(k, 1) : 0;
    }
    waiting_warps_ = state_ ? state_->lock_waiting_warps() : 0;
    acquisitions_.update(state_ ? array_acquisitions() : 0);
    rule_refusals_.update(state_ ? state_->rule_refusals() : 0);
  }

  // GTKWave's translate filter for pair<k>_holder.
  static const WaveEnum& holder_names() {
    static const WaveEnum names{"lock_holder", {{Free, "free"}, {Member0, "member0"}, {Member1, "member1"},
                                                {Both, "both"}}};
    return names;
  }

 protected:
  void attach(const Mechanism& m) override {
    state_ = require_state(jatala_sm_of(m), "regshare/spmshare");
    acquisitions_ = ThisCycleCount();
    rule_refusals_ = ThisCycleCount();
  }

  StructureCounters instance_counters() const override {
    const bool regs = resource_ == Resource::Registers;
    StructureCounters c{{"reads", 0}, {"writes", 0}, {"acquisitions", 0}, {"lock_waits", 0}};
    if (regs) c.push_back({"rule_refusals", 0});
    if (!state_) return c;
    c[0].second = regs ? state_->register_locks().reads() : state_->scratchpad_locks().reads();
    c[1].second = regs ? state_->register_locks().writes() : state_->scratchpad_locks().writes();
    c[2].second = array_acquisitions();
    c[3].second = state_->lock_waits();
    if (regs) c[4].second = state_->rule_refusals();
    return c;
  }

 private:
  // Locks member `m` of pair `k` holds (spmshare: 0 or 1).
  uint32_t held_by(uint32_t k, uint8_t m) const {
    if (resource_ == Resource::Registers) return state_->register_locks().held_by(k, m);
    return state_->scratchpad_locks().holder(k) == m ? 1 : 0;
  }
  uint64_t array_acquisitions() const {
    return resource_ == Resource::Registers ? state_->register_locks().acquisitions()
                                            : state_->scratchpad_locks().acquisitions();
  }

  const Resource resource_;
  const JatalaSm* state_ = nullptr;
  std::vector<int32_t> holder_;       // Holder
  std::vector<uint32_t> locks_held_;
  uint32_t waiting_warps_ = 0;
  ThisCycleCount acquisitions_, rule_refusals_;
};

}  // namespace smshare::jatala
