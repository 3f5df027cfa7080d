// Zorua's structures as modules under the SM (gpu.smN.<name>), bound to the
// SM's ZoruaSm at each kernel launch (hw/sm/mechanism_module.hpp).
//
// gpu.smN.coordinator (Sec. 4.1-4.4)
//   probes: thread_queue (warps waiting for a warp slot or at a barrier),
//           scratchpad_queue, register_queue, schedulable_warps (Fig. 12),
//           o_thresh (the oversubscription threshold, percent)
//   counters: phase_changes, swap_reads, swap_writes
// gpu.smN.register_mapping_table, scratchpad_mapping_table,
// warp_slot_mapping_table (Sec. 4.5)
//   probes: free_sets, swapped_sets (the two counters per resource)
//   counters: lookups, updates, swap_mappings
#pragma once

#include "hw/sharing/zorua/zorua_mechanism.hpp"
#include "hw/sm/mechanism_module.hpp"

namespace smshare::zorua {

class ZoruaModule : public MechanismStateModule<ZoruaSm, zorua_sm_of> {
 protected:
  ZoruaModule(sc_core::sc_module_name name, const char* kind, const char* plain_class, uint32_t sm)
      : MechanismStateModule(name, kind, plain_class, sm, "zorua") {}
};

class CoordinatorModule final : public ZoruaModule {
 public:
  CoordinatorModule(sc_core::sc_module_name name, uint32_t sm_id)
      : ZoruaModule(name, "coordinator", "ZoruaSm", sm_id) {
    probe("thread_queue", thread_);
    probe("scratchpad_queue", smem_);
    probe("register_queue", regs_);
    probe("schedulable_warps", schedulable_);
    probe("o_thresh", o_thresh_);
  }
  void update_probes(uint64_t) override {
    thread_ = state_ ? state_->thread_queue_length() : 0;
    smem_ = state_ ? state_->scratchpad_queue_length() : 0;
    regs_ = state_ ? state_->register_queue_length() : 0;
    schedulable_ = state_ ? state_->schedulable_warps() : 0;
    o_thresh_ = state_ ? state_->o_thresh_percent() : 0;
  }

 protected:
  StructureCounters instance_counters() const override {
    return {{"phase_changes", state_ ? state_->phase_changes() : 0},
            {"swap_reads", state_ ? state_->swap_reads() : 0},
            {"swap_writes", state_ ? state_->swap_writes() : 0}};
  }

 private:
  uint32_t thread_ = 0, smem_ = 0, regs_ = 0, schedulable_ = 0, o_thresh_ = 0;
};

// One mapping table; `Table` picks it from the state.
class MappingTableModule final : public ZoruaModule {
 public:
  using Pick = const MappingTable& (ZoruaSm::*)() const;
  MappingTableModule(sc_core::sc_module_name name, uint32_t sm_id, Pick pick)
      : ZoruaModule(name, "mapping table", "MappingTable", sm_id), pick_(pick) {
    probe("free_sets", free_);
    probe("swapped_sets", swapped_);
  }
  void update_probes(uint64_t) override {
    free_ = state_ ? (state_->*pick_)().free_sets() : 0;
    swapped_ = state_ ? (state_->*pick_)().swapped_sets() : 0;
  }

 protected:
  StructureCounters instance_counters() const override {
    const MappingTable* t = state_ ? &(state_->*pick_)() : nullptr;
    return {{"lookups", t ? t->lookups() : 0}, {"updates", t ? t->updates() : 0},
            {"swap_mappings", t ? t->swap_mappings() : 0}};
  }

 private:
  Pick pick_;
  uint32_t free_ = 0, swapped_ = 0;
};

}  // namespace smshare::zorua
