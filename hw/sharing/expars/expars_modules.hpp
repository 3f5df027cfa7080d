// EXPARS's structures as modules under the SM (gpu.smN.<name>), bound to the
// SM's ExparsSm at each kernel launch (hw/sm/mechanism_module.hpp).
//
// gpu.smN.register_allocation_table (Sec. 3.3.3)
//   probes: start_cta, start_reg (Start_CTA, Start_Reg of the kernel),
//           mixed_ctas (resident CTAs with registers in the scratchpad)
//   counters: sbr_writes (SBR entries set or cleared)
// gpu.smN.operand_cache (Sec. 3.3.4)
//   probes: valid_lines, dirty_lines; fills, writebacks (this cycle)
//   counters: hits, fills, allocations_without_fill, evictions, writebacks
// gpu.smN.register_prefetcher (Sec. 3.3.4)
//   probes: prefetching_queue (warps in it), schedulable_warps (warps whose
//           bundle may issue), head_warp (slot of the queue's head; -1 none)
//   counters: pref_instructions, bundles_prefetched, space_wait_cycles,
//             bank_wait_cycles
#pragma once

#include "hw/sharing/expars/expars_sm.hpp"
#include "hw/sm/mechanism_module.hpp"

namespace smshare::expars {

// What the three share: finding the SM's instance at each launch.
class ExparsModule : public MechanismStateModule<ExparsSm, expars_sm_of> {
 protected:
  ExparsModule(sc_core::sc_module_name name, const char* kind, const char* plain_class, uint32_t sm)
      : MechanismStateModule(name, kind, plain_class, sm, "expars") {}
};

class RegisterAllocationTableModule final : public ExparsModule {
 public:
  RegisterAllocationTableModule(sc_core::sc_module_name name, uint32_t sm_id)
      : ExparsModule(name, "register allocation table", "RegisterAllocationTable", sm_id) {
    probe("start_cta", start_cta_);
    probe("start_reg", start_reg_);
    probe("mixed_ctas", mixed_ctas_);
  }
  void update_probes(uint64_t) override {
    start_cta_ = state_ ? state_->rat().start_cta() : 0;
    start_reg_ = state_ ? state_->rat().start_reg() : 0;
    mixed_ctas_ = state_ ? state_->mixed_ctas_resident() : 0;
  }

 protected:
  StructureCounters instance_counters() const override { return {{"sbr_writes", state_ ? state_->sbr_writes() : 0}}; }

 private:
  uint32_t start_cta_ = 0, start_reg_ = 0, mixed_ctas_ = 0;
};

class OperandCacheModule final : public ExparsModule {
 public:
  OperandCacheModule(sc_core::sc_module_name name, uint32_t sm_id)
      : ExparsModule(name, "operand cache", "OperandCache", sm_id) {
    probe("valid_lines", valid_lines_);
    probe("dirty_lines", dirty_lines_);
    probe("fills", fills_.value());
    probe("writebacks", writebacks_.value());
  }
  void update_probes(uint64_t) override {
    valid_lines_ = state_ ? state_->operand_cache().valid_lines() : 0;
    dirty_lines_ = state_ ? state_->operand_cache().dirty_lines() : 0;
    fills_.update(state_ ? state_->fills() : 0);
    writebacks_.update(state_ ? state_->writebacks() : 0);
  }

 protected:
  void restart() override {
    fills_ = ThisCycleCount();
    writebacks_ = ThisCycleCount();
  }
  StructureCounters instance_counters() const override {
    return {{"hits", state_ ? state_->hits() : 0},
            {"fills", state_ ? state_->fills() : 0},
            {"allocations_without_fill", state_ ? state_->allocations_without_fill() : 0},
            {"evictions", state_ ? state_->evictions() : 0},
            {"writebacks", state_ ? state_->writebacks() : 0}};
  }

 private:
  uint32_t valid_lines_ = 0, dirty_lines_ = 0;
  ThisCycleCount fills_, writebacks_;
};

class RegisterPrefetcherModule final : public ExparsModule {
 public:
  RegisterPrefetcherModule(sc_core::sc_module_name name, uint32_t sm_id)
      : ExparsModule(name, "register prefetcher", "ExparsSm", sm_id) {
    probe("prefetching_queue", prefetching_);
    probe("schedulable_warps", schedulable_);
    probe("head_warp", head_);
  }
  void update_probes(uint64_t cycle) override {
    prefetching_ = state_ ? state_->prefetching_warps() : 0;
    schedulable_ = state_ ? state_->schedulable_warps(cycle) : 0;
    head_ = state_ ? state_->head_warp() : -1;
  }

 protected:
  StructureCounters instance_counters() const override {
    return {{"pref_instructions", state_ ? state_->pref_instructions() : 0},
            {"bundles_prefetched", state_ ? state_->bundles_prefetched() : 0},
            {"space_wait_cycles", state_ ? state_->space_wait_cycles() : 0},
            {"bank_wait_cycles", state_ ? state_->bank_wait_cycles() : 0}};
  }

 private:
  uint32_t prefetching_ = 0, schedulable_ = 0;
  int32_t head_ = -1;
};

}  // namespace smshare::expars
