// The cross-SM structures of an active SM as modules under its scope, the
// SM that names its group: gpu.smN.boundary_buffer (Sec. V-A: the buffers
// at the SM's edge that data crossing to or from its neighbour passes
// through) and gpu.smN.dummy_stage (the stage that gives the local path the
// crossing's extra cycle). Their timing is the active SM's spec
// (configuration.hpp: each crossing path and its local twin
// crosssm.boundary_cycles deeper); these modules name the structures and
// show what passes them. Both are bound to the SM's CrossSmState at each
// kernel launch.
//
// boundary_buffer probes (this cycle): instruction_buffer (instructions
// decoded into the neighbour's instruction-buffer bank), operand_dispatch
// (instructions whose operands cross to the other SM's units),
// remote_scratchpad (LDS/STS to the lent scratchpad banks),
// remote_register_accesses (register reads and writes in the lent banks),
// mirrored_issues (BigSM: wide-warp instructions issued to both halves).
// Counters: the same since elaboration, with split_issues and
// divergent_issues.
// dummy_stage probe: instructions (entering it this cycle); counter:
// instructions. Its average occupancy is instructions / active cycles.
#pragma once

#include "hw/sharing/crosssm/crosssm_mechanism.hpp"
#include "hw/sm/mechanism_module.hpp"

namespace smshare::crosssm {

// What the two share: finding the SM's instance at each launch.
class CrossSmModule : public MechanismStateModule<CrossSmState, crosssm_state_of> {
 protected:
  CrossSmModule(sc_core::sc_module_name name, const char* kind, uint32_t sm)
      : MechanismStateModule(name, kind, "CrossSmState", sm, "occ/bal/bigsm/bigsm_occ") {}
};

class BoundaryBufferModule final : public CrossSmModule {
 public:
  BoundaryBufferModule(sc_core::sc_module_name name, uint32_t sm_id) : CrossSmModule(name, "boundary buffer", sm_id) {
    probe("instruction_buffer", instruction_buffer_.value());
    probe("operand_dispatch", operand_dispatch_.value());
    probe("remote_scratchpad", remote_scratchpad_.value());
    probe("remote_register_accesses", remote_registers_.value());
    probe("mirrored_issues", mirrored_.value());
  }
  void update_probes(uint64_t) override {
    const BoundaryTraffic t = state_ ? state_->traffic() : BoundaryTraffic{};
    instruction_buffer_.update(t.instruction_buffer);
    operand_dispatch_.update(t.operand_dispatch);
    remote_scratchpad_.update(t.remote_scratchpad);
    remote_registers_.update(state_ ? state_->remote_register_accesses() : 0);
    mirrored_.update(t.mirrored_issues);
  }

 protected:
  void restart() override {
    instruction_buffer_ = operand_dispatch_ = remote_scratchpad_ = remote_registers_ = mirrored_ = ThisCycleCount();
  }
  StructureCounters instance_counters() const override {
    const BoundaryTraffic t = state_ ? state_->traffic() : BoundaryTraffic{};
    return {{"instruction_buffer", t.instruction_buffer},
            {"operand_dispatch", t.operand_dispatch},
            {"remote_scratchpad", t.remote_scratchpad},
            {"remote_register_accesses", state_ ? state_->remote_register_accesses() : 0},
            {"mirrored_issues", t.mirrored_issues},
            {"split_issues", t.split_issues},
            {"divergent_issues", t.divergent_issues}};
  }

 private:
  ThisCycleCount instruction_buffer_, operand_dispatch_, remote_scratchpad_, remote_registers_, mirrored_;
};

class DummyStageModule final : public CrossSmModule {
 public:
  DummyStageModule(sc_core::sc_module_name name, uint32_t sm_id) : CrossSmModule(name, "dummy pipeline stage", sm_id) {
    probe("instructions", instructions_.value());
  }
  void update_probes(uint64_t) override { instructions_.update(state_ ? state_->traffic().dummy_stage : 0); }

 protected:
  void restart() override { instructions_ = ThisCycleCount(); }
  StructureCounters instance_counters() const override {
    return {{"instructions", state_ ? state_->traffic().dummy_stage : 0}};
  }

 private:
  ThisCycleCount instructions_;
};

}  // namespace smshare::crosssm
