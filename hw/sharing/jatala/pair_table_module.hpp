// gpu.smN.pair_table: Jatala's pair table (Sec. III and IV; plain class
// PairTable, with the owner of each pair kept by the SM's JatalaSm): which
// resident CTAs run unshared, which form shared pairs, and which member of
// each pair owns the shared registers or scratchpad. Rebuilt at every
// kernel launch and bound to the module then.
//
// Probes (computed from the bound state):
//   pair<k>_owner_cta  for shared pair k < sm.max_ctas / 2: the CTA slot of
//                      its owner (the member holding the shared resource,
//                      else the one that arrived first); -1 while the pair
//                      is empty or not formed at this sharing level
//   unshared_ctas      resident CTAs in unshared seats
//   shared_ctas        resident CTAs in the seats of shared pairs
// Counters: unshared_placements and shared_placements (CTAs seated),
// ownership_transfers (an owner finished while its partner stayed: Sec. IV).
#pragma once

#include <vector>

#include "hw/sharing/jatala/jatala_sm.hpp"
#include "hw/sm/mechanism_module.hpp"

namespace smshare::jatala {

class PairTableModule : public MechanismStructureModule {
 public:
  PairTableModule(sc_core::sc_module_name name, uint32_t pairs, uint32_t sm_id)
      : MechanismStructureModule(name, "pair table", "PairTable", sm_id), owner_cta_(pairs, -1) {
    for (uint32_t k = 0; k < pairs; ++k) probe("pair" + std::to_string(k) + "_owner_cta", owner_cta_[k]);
    probe("unshared_ctas", unshared_ctas_);
    probe("shared_ctas", shared_ctas_);
  }

  void update_probes(uint64_t) override {
    for (uint32_t k = 0; k < owner_cta_.size(); ++k) {
      const int owner = state_ && k < state_->pair_table().pairs() ? state_->owner(k) : -1;
      owner_cta_[k] = owner < 0 ? -1
                                : static_cast<int32_t>(state_->pair_table().occupant(k, static_cast<uint8_t>(owner)));
    }
    unshared_ctas_ = state_ ? state_->pair_table().unshared_ctas() : 0;
    shared_ctas_ = state_ ? state_->pair_table().resident_ctas() - unshared_ctas_ : 0;
  }

 protected:
  void attach(const Mechanism& m) override {
    state_ = require_state(jatala_sm_of(m), "regshare/spmshare");
  }

  StructureCounters instance_counters() const override {
    return {{"unshared_placements", state_ ? state_->unshared_ctas_launched() : 0},
            {"shared_placements", state_ ? state_->shared_ctas_launched() : 0},
            {"ownership_transfers", state_ ? state_->ownership_transfers() : 0}};
  }

 private:
  const JatalaSm* state_ = nullptr;
  std::vector<int32_t> owner_cta_;
  uint32_t unshared_ctas_ = 0, shared_ctas_ = 0;
};

}  // namespace smshare::jatala
