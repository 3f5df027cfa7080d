#include "hw/sharing/jatala/jatala_mechanism.hpp"

#include <algorithm>

#include "hw/common/error.hpp"
#include "hw/sharing/jatala/dynamic_warp_execution.hpp"
#include "hw/sharing/jatala/jatala_occupancy.hpp"
#include "hw/sharing/jatala/lock_array.hpp"
#include "hw/sharing/jatala/pair_table.hpp"

namespace smshare::jatala {

namespace {

// Units of the shared resource one CTA needs. Registers: the baseline's
// footprint (threads padded to whole warps, GPGPU-Sim's allocation); it gives
// Table VI exactly, and so does 508 x 24 for b+tree (docs/jatala-reproduction.md).
// Scratchpad: the kernel's bytes, not rounded to sm.smem_alloc_granularity:
// Table VIII's NW1/NW2 entries at 50 % and 70 % (8 CTAs) need the exact 2180 B.
uint64_t units_per_cta(Resource r, const SmSpec& sm, const KernelResources& k) {
  return r == Resource::Registers ? cta_footprint(sm, k).registers : k.smem_bytes_per_cta;
}

struct SharedState final : KernelSharedState {
  DweReference reference;
};

}  // namespace

Occupancy sharing_occupancy(Resource r, const SmSpec& sm, const KernelResources& k, const std::string& origin,
                            uint32_t percent) {
  Occupancy o = baseline_occupancy(sm, k, origin);
  const uint64_t R = r == Resource::Registers ? sm.registers : sm.scratchpad_bytes;
  const uint64_t Rtb = units_per_cta(r, sm, k);
  if (Rtb == 0) return o;  // the CTA does not use the shared resource: nothing to share
  CtaSplit eq = split_ctas(R, Rtb, percent, ~0u);
  uint32_t& mine = r == Resource::Registers ? o.by_registers : o.by_scratchpad;
  mine = eq.by_sharing;
  choose_limit(o, cta_footprint(sm, k), k);
  return o;
}

std::shared_ptr<KernelSharedState> make_shared_state() { return std::make_shared<SharedState>(); }

std::vector<std::string> probe_names(const SmSpec& sm) {
  std::vector<std::string> names;
  for (uint32_t p = 0; p < sm.max_ctas / 2; ++p) {
    names.push_back("pair" + std::to_string(p) + "_owner_cta");
    names.push_back("pair" + std::to_string(p) + "_locks_held");
  }
  names.push_back("lock_waiting_warps");
  names.push_back("dwe_probability_pct");
  return names;
}

namespace {

// Everything one SM's Jatala instance knows; the four interface objects are
// thin views on it.
class JatalaSm {
 public:
  JatalaSm(Resource r, const SmSpec& sm, const KernelResources& k, const std::string& origin,
           const Settings& opt, uint32_t sm_id, SharedState* shared)
      : resource_(r),
        banks_(sm.register_banks),
        footprint_(cta_footprint(sm, k)),
        occupancy_(sharing_occupancy(r, sm, k, origin, opt.sharing_percent)),
        split_(split_ctas(r == Resource::Registers ? sm.registers : sm.scratchpad_bytes, units_per_cta(r, sm, k),
                          opt.sharing_percent, occupancy_.ctas_per_sm)),
        percent_(opt.sharing_percent),
        private_regs_(private_units(k.regs_per_thread, opt.sharing_percent)),
        private_bytes_(private_units(k.smem_bytes_per_cta, opt.sharing_percent)),
        table_(split_.unshared, split_.shared_pairs, sm.max_ctas),
        reg_locks_(split_.shared_pairs, footprint_.warps, opt.deadlock_avoidance),
        spm_locks_(split_.shared_pairs),
        owner_(split_.shared_pairs, -1),
        waiting_(sm.max_warps, 0),
        waiting_since_(sm.max_warps, 0),
        rng_(0x9E3779B97F4A7C15ull * (sm_id + 1)) {
    if (opt.dynamic_warp_execution)
      dwe_ = std::make_unique<DynamicWarpExecution>(sm_id == 0, opt.dwe_period_cycles, opt.dwe_step_percent,
                                                    shared ? &shared->reference : &own_reference_);
  }

  // --- admission
  const Occupancy& occupancy() const { return occupancy_; }
  bool admit(uint32_t cta_slot, CtaAllocation& a) {
    if (table_.resident_ctas() >= occupancy_.ctas_per_sm) return false;
    Seat s;
    if (!table_.place(cta_slot, s)) return false;
    a = {cta_slot, footprint_.registers, footprint_.smem_bytes, footprint_.threads, footprint_.warps,
         s.shared, s.pair, s.member};
    if (s.shared) {
      // A pair holds Rtb (1 + t): each member is charged half of it.
      uint32_t& share = resource_ == Resource::Registers ? a.registers : a.smem_bytes;
      share = static_cast<uint32_t>(uint64_t{share} * (200 - percent_) / 200);
      ++ctas_shared_;
      update_owner(s.pair);
    } else {
      ++ctas_unshared_;
    }
    regs_allocated_ += a.registers;
    smem_allocated_ += a.smem_bytes;
    return true;
  }
  void release(const CtaAllocation& a) {
    table_.remove(a.cta_slot);
    regs_allocated_ -= a.registers;
    smem_allocated_ -= a.smem_bytes;
    if (!a.shared) return;
    spm_locks_.release(a.pair, a.member);
    const int before = owner_[a.pair];
    update_owner(a.pair);
    if (before == a.member && owner_[a.pair] >= 0 && owner_[a.pair] != a.member) ++ownership_transfers_;
  }
  uint32_t registers_allocated() const { return regs_allocated_; }
  uint32_t smem_allocated() const { return smem_allocated_; }

  // --- register route (Fig. 3)
  OperandRoute route(const WarpContext& w, uint16_t reg) {
    const uint16_t bank = static_cast<uint16_t>((reg + w.slot) % banks_);
    if (resource_ != Resource::Registers || reg < private_regs_) return {false, bank, 0};  // step (c)
    const Seat& s = table_.seat(w.cta_slot);
    if (!s.shared) return {false, bank, 0};                                                // step (b)
    if (!reg_locks_.holds(s.pair, s.member, w.warp_in_cta)) return {true, bank, 0};       // step (e)
    return {false, bank, 0};
  }

  // --- warp gate
  bool may_issue(const WarpContext& w, const WarpInstruction& inst, uint64_t cycle) {
    const Seat& s = table_.seat(w.cta_slot);
    if (!s.shared) return true;
    if (dwe_ && is_memory(inst.op) && !is_shared_memory(inst.op) && owner_[s.pair] != s.member) {
      if (!dwe_->allow(static_cast<uint32_t>(next_random() % 100))) {
        ++dwe_refusals_;
        dwe_refused_cycle_ = cycle;
        return false;
      }
    }
    if (needs_lock(inst)) {
      const LockResult r = resource_ == Resource::Registers ? reg_locks_.acquire(s.pair, s.member, w.warp_in_cta)
                                                            : spm_locks_.acquire(s.pair, s.member);
      if (r == LockResult::Busy || r == LockResult::Refused) {
        if (!waiting_[w.slot] && r == LockResult::Refused) ++rule_refusals_;
        set_waiting(w.slot, true, cycle);
        return false;
      }
      if (r == LockResult::Granted) update_owner(s.pair);
    }
    set_waiting(w.slot, false, cycle);
    return true;
  }
  uint8_t priority_class(const WarpContext& w) const {
    if (!table_.resident(w.cta_slot)) return 1;
    const Seat& s = table_.seat(w.cta_slot);
    if (!s.shared) return 1;
    return owner_[s.pair] == s.member ? 0 : 2;
  }

  // --- hooks
  void warp_finished(const WarpContext& w) {
    set_waiting(w.slot, false, 0);
    const Seat& s = table_.seat(w.cta_slot);
    if (!s.shared || resource_ != Resource::Registers) return;
    reg_locks_.release(s.pair, s.member, w.warp_in_cta);
    update_owner(s.pair);
  }
  uint64_t next_wake() const { return dwe_ ? dwe_->next_boundary() : MechanismHooks::kNever; }
  void at_wake(uint64_t cycle, uint64_t non_issue) {
    if (dwe_) dwe_->at_boundary(cycle, non_issue);
  }
  // A refusal by a draw can change with time alone, except on SM0, whose
  // probability is always 0: there only ownership (an event) can lift it, so
  // a real deadlock on SM0 is still detected.
  bool waits_on_time(uint64_t cycle) const {
    return dwe_ && !dwe_->is_reference() && dwe_refused_cycle_ == cycle;
  }
  uint64_t epoch() const { return epoch_; }

  void collect(ActivityCounters& out) const {
    const bool regs = resource_ == Resource::Registers;
    auto& lock = out[regs ? "lock_array_register" : "lock_array_scratchpad"];
    // Usable lookups, plus one lookup per cycle a refused warp busy-waits.
    lock.reads += (regs ? reg_locks_.reads() : spm_locks_.reads()) + lock_wait_cycles_;
    lock.writes += regs ? reg_locks_.writes() : spm_locks_.writes();
    lock.instances = 1;  // per SM; the report multiplies by SMs
    // The partner id table and owner bits are written when CTAs are seated
    // and ownership changes, read on every lock decision.
    auto& partner = out["partner_id_table"];
    partner.writes += ctas_shared_ + ctas_unshared_;
    partner.reads += lock_decisions();
    partner.instances = 1;
    auto& owner = out["owner_bits"];
    owner.writes += owner_changes_;
    owner.reads += lock_decisions();
    owner.instances = 1;
  }
  void counters(std::vector<std::pair<std::string, uint64_t>>& c) const {
    const bool regs = resource_ == Resource::Registers;
    c.push_back({"unshared_ctas_launched", ctas_unshared_});
    c.push_back({"shared_ctas_launched", ctas_shared_});
    c.push_back({"lock_acquisitions", regs ? reg_locks_.acquisitions() : spm_locks_.acquisitions()});
    c.push_back({"lock_waits", lock_waits_});
    c.push_back({"lock_wait_cycles", lock_wait_cycles_});
    c.push_back({"deadlock_rule_refusals", rule_refusals_});
    c.push_back({"ownership_transfers", ownership_transfers_});
    c.push_back({"dwe_refusals", dwe_refusals_});
  }
  void sample(std::vector<int32_t>& v) const {
    size_t i = 0;
    const uint32_t pairs = static_cast<uint32_t>(v.size() - 2) / 2;
    for (uint32_t p = 0; p < pairs; ++p) {
      int32_t owner_slot = -1, held = 0;
      if (p < owner_.size() && owner_[p] >= 0) {
        owner_slot = static_cast<int32_t>(table_.occupant(p, static_cast<uint8_t>(owner_[p])));
        held = resource_ == Resource::Registers
                   ? static_cast<int32_t>(reg_locks_.held_by(p, 0) + reg_locks_.held_by(p, 1))
                   : (spm_locks_.holder(p) >= 0 ? 1 : 0);
      }
      v[i++] = owner_slot;
      v[i++] = held;
    }
    v[i++] = static_cast<int32_t>(waiting_count_);
    v[i++] = dwe_ ? static_cast<int32_t>(dwe_->probability_percent()) : 100;
  }

 private:
  bool needs_lock(const WarpInstruction& inst) const {
    if (resource_ == Resource::Registers) {
      for (uint8_t i = 0; i < inst.num_src; ++i)
        if (inst.src[i] != kNoReg && inst.src[i] >= private_regs_) return true;
      for (uint8_t i = 0; i < inst.num_dst; ++i)
        if (inst.dst[i] != kNoReg && inst.dst[i] >= private_regs_) return true;
      return false;
    }
    if (!is_shared_memory(inst.op)) return false;
    // Scratchpad addresses are offsets in the CTA's allocation: the first
    // floor(S_tb t) bytes are private (Fig. 4).
    for (unsigned lane = 0; lane < kWarpLanes; ++lane)
      if ((inst.active_mask >> lane & 1u) && inst.addr[lane] >= private_bytes_) return true;
    return false;
  }
  void update_owner(uint32_t pair) {
    bool holds[2];
    for (uint8_t m = 0; m < 2; ++m)
      holds[m] = resource_ == Resource::Registers ? reg_locks_.held_by(pair, m) > 0 : spm_locks_.holder(pair) == m;
    const int o = table_.owner(pair, holds);
    if (o != owner_[pair]) {
      owner_[pair] = o;
      ++epoch_;
      ++owner_changes_;
    }
  }
  // A warp refused by a lock busy-waits (Fig. 3: retry in another cycle)
  // from the cycle of its first refusal to the cycle it gets the lock.
  void set_waiting(uint32_t slot, bool on, uint64_t cycle) {
    if (waiting_[slot] == on) return;
    waiting_[slot] = on;
    if (on) {
      ++waiting_count_;
      ++lock_waits_;
      waiting_since_[slot] = cycle;
    } else {
      --waiting_count_;
      if (cycle > waiting_since_[slot]) lock_wait_cycles_ += cycle - waiting_since_[slot];
    }
  }
  uint64_t next_random() {  // splitmix64: deterministic per SM
    uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t lock_decisions() const {
    return lock_waits_ + (resource_ == Resource::Registers ? reg_locks_.acquisitions() : spm_locks_.acquisitions());
  }

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

class Admission final : public CtaAdmission {
 public:
  explicit Admission(std::shared_ptr<JatalaSm> s) : s_(std::move(s)) {}
  Occupancy occupancy() const override { return s_->occupancy(); }
  bool try_admit(uint32_t cta_slot, CtaAllocation& alloc) override { return s_->admit(cta_slot, alloc); }
  void release(const CtaAllocation& alloc) override { s_->release(alloc); }
  uint32_t registers_allocated() const override { return s_->registers_allocated(); }
  uint32_t smem_allocated() const override { return s_->smem_allocated(); }

 private:
  std::shared_ptr<JatalaSm> s_;
};

class Route final : public RegisterRoute {
 public:
  explicit Route(std::shared_ptr<JatalaSm> s) : s_(std::move(s)) {}
  OperandRoute route(const WarpContext& w, uint16_t reg, bool, uint64_t) override { return s_->route(w, reg); }

 private:
  std::shared_ptr<JatalaSm> s_;
};

class Gate final : public WarpGate {
 public:
  explicit Gate(std::shared_ptr<JatalaSm> s) : s_(std::move(s)) {}
  bool may_issue(const WarpContext& w, const WarpInstruction& inst, uint64_t cycle) override {
    return s_->may_issue(w, inst, cycle);
  }
  uint8_t priority_class(const WarpContext& w) const override { return s_->priority_class(w); }

 private:
  std::shared_ptr<JatalaSm> s_;
};

class Hooks final : public MechanismHooks {
 public:
  explicit Hooks(std::shared_ptr<JatalaSm> s) : s_(std::move(s)) {}
  void warp_finished(const WarpContext& w) override { s_->warp_finished(w); }
  uint64_t next_wake() const override { return s_->next_wake(); }
  void at_wake(uint64_t cycle, uint64_t non_issue) override { s_->at_wake(cycle, non_issue); }
  bool waits_on_time(uint64_t cycle) const override { return s_->waits_on_time(cycle); }
  uint64_t priority_epoch() const override { return s_->epoch(); }
  void collect(ActivityCounters& out) const override { s_->collect(out); }
  void counters(std::vector<std::pair<std::string, uint64_t>>& c) const override { s_->counters(c); }
  void sample_probes(std::vector<int32_t>& v) const override { s_->sample(v); }

 private:
  std::shared_ptr<JatalaSm> s_;
};

}  // namespace

Mechanism make(Resource r, const SmSpec& sm, const KernelResources& k, const std::string& origin,
               const Settings& settings, uint32_t sm_id, std::shared_ptr<KernelSharedState> shared) {
  auto* state = dynamic_cast<SharedState*>(shared.get());
  auto s = std::make_shared<JatalaSm>(r, sm, k, origin, settings, sm_id, state);
  Mechanism m;
  m.name = r == Resource::Registers ? "regshare" : "spmshare";
  m.admission = std::make_unique<Admission>(s);
  m.route = std::make_unique<Route>(s);
  m.gate = std::make_unique<Gate>(s);
  m.hooks = std::make_unique<Hooks>(s);
  m.shared_state = std::move(shared);  // keeps SM0's reference alive as long as the SM's mechanism
  return m;
}

}  // namespace smshare::jatala
