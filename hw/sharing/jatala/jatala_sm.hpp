// One SM's Jatala instance: everything regshare or spmshare knows on an SM
// for one kernel (the pair table, the lock arrays, the owners, the warps
// busy-waiting at a lock, dynamic warp execution). The mechanism's four
// interface objects (jatala_mechanism.cpp) are thin views on it, and its
// structure modules (lock_array_module.hpp, pair_table_module.hpp,
// dwe_module.hpp) read it through the const accessors below.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hw/common/activity.hpp"
#include "hw/sharing/jatala/dynamic_warp_execution.hpp"
#include "hw/sharing/jatala/jatala_mechanism.hpp"
#include "hw/sharing/jatala/jatala_occupancy.hpp"
#include "hw/sharing/jatala/lock_array.hpp"
#include "hw/sharing/jatala/pair_table.hpp"

namespace smshare::jatala {

// Units of the shared resource one CTA needs (registers or scratchpad bytes).
uint64_t units_per_cta(Resource r, const SmSpec& sm, const KernelResources& k);

class JatalaSm {
 public:
  // `reference` is the kernel's GPU-wide SM0 stall count for dynamic warp
  // execution (null: the instance keeps its own, as in tests).
  JatalaSm(Resource r, const SmSpec& sm, const KernelResources& k, const std::string& origin, const Settings& opt,
           uint32_t sm_id, DweReference* reference);

  // --- admission
  const Occupancy& occupancy() const { return occupancy_; }
  bool admit(uint32_t cta_slot, CtaAllocation& a);
  void release(const CtaAllocation& a);
  uint32_t registers_allocated() const { return regs_allocated_; }
  uint32_t smem_allocated() const { return smem_allocated_; }

  // --- register route (Fig. 3)
  OperandRoute route(const WarpContext& w, uint16_t reg);

  // --- warp gate
  bool may_issue(const WarpContext& w, const WarpInstruction& inst, uint64_t cycle);
  void issued(const WarpContext& w, const WarpInstruction& inst);
  uint8_t priority_class(const WarpContext& w) const;

  // --- hooks
  void warp_finished(const WarpContext& w);
  uint64_t next_wake() const { return dwe_ ? dwe_->next_boundary() : MechanismHooks::kNever; }
  void at_wake(uint64_t cycle, uint64_t non_issue) {
    if (dwe_) dwe_->at_boundary(cycle, non_issue);
  }
  // A refusal by a draw can change with time alone, except on SM0, whose
  // probability is always 0: there only ownership (an event) can lift it, so
  // a real deadlock on SM0 is still detected.
  bool waits_on_time(uint64_t cycle) const { return dwe_ && !dwe_->is_reference() && dwe_refused_cycle_ == cycle; }
  uint64_t epoch() const { return epoch_; }
  void collect(ActivityCounters& out) const;
  void counters(std::vector<std::pair<std::string, uint64_t>>& c) const;

  // --- what the structure modules show
  Resource resource() const { return resource_; }
  const PairTable& pair_table() const { return table_; }
  const RegisterLockArray& register_locks() const { return reg_locks_; }
  const ScratchpadLockArray& scratchpad_locks() const { return spm_locks_; }
  // The owner member (0/1) of `pair`, -1 while the pair is empty.
  int owner(uint32_t pair) const { return owner_[pair]; }
  // Warps whose last issue attempt a lock refused (busy-waiting, Fig. 3 / 4).
  uint32_t lock_waiting_warps() const { return waiting_count_; }
  // Waits begun (a warp's first refusal), and those begun by the Sec. III-A rule.
  uint64_t lock_waits() const { return lock_waits_; }
  uint64_t rule_refusals() const { return rule_refusals_; }
  uint64_t unshared_ctas_launched() const { return ctas_unshared_; }
  uint64_t shared_ctas_launched() const { return ctas_shared_; }
  uint64_t ownership_transfers() const { return ownership_transfers_; }
  // Null unless dynamic warp execution is on.
  const DynamicWarpExecution* dwe() const { return dwe_.get(); }
  uint64_t dwe_refusals() const { return dwe_refusals_; }

 private:
  bool needs_lock(const WarpInstruction& inst) const;
  void update_owner(uint32_t pair);
  void set_waiting(uint32_t slot, bool on, uint64_t cycle, uint16_t phase = 0);
  uint64_t next_random();
  uint64_t lock_decisions() const;

  Resource resource_;
  uint32_t banks_;
  CtaFootprint footprint_;
  Occupancy occupancy_;
  CtaSplit split_;
  uint32_t percent_;
  uint64_t private_regs_;
  uint64_t private_bytes_;
  PairTable table_;
  RegisterLockArray reg_locks_;
  ScratchpadLockArray spm_locks_;
  std::vector<int> owner_;
  std::vector<uint8_t> waiting_;
  std::vector<uint64_t> waiting_since_;
  std::vector<uint16_t> waiting_phase_;  // per warp slot: the phase of the instruction it waits to issue
  // A phased kernel's phase names, and per phase the lock waits begun in it
  // and their cycles: where in the kernel warps wait.
  std::vector<std::string> phase_names_;
  std::vector<uint64_t> phase_lock_waits_, phase_lock_wait_cycles_;
  uint32_t waiting_count_ = 0;
  DweReference own_reference_;
  std::unique_ptr<DynamicWarpExecution> dwe_;
  uint64_t rng_;
  uint64_t dwe_refused_cycle_ = ~0ull;
  uint32_t regs_allocated_ = 0, smem_allocated_ = 0;
  uint64_t epoch_ = 0, owner_changes_ = 0;
  uint64_t ctas_shared_ = 0, ctas_unshared_ = 0, lock_waits_ = 0, rule_refusals_ = 0, ownership_transfers_ = 0,
           dwe_refusals_ = 0, lock_wait_cycles_ = 0;
};

// The JatalaSm behind a mechanism instance that jatala::make built; null for
// any other mechanism's.
const JatalaSm* jatala_sm_of(const Mechanism& m);

}  // namespace smshare::jatala
