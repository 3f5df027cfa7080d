// The cross-SM mechanism's policies: thin views on the SM's CrossSmState,
// the two-pool admission and the register indexing policy.
#include "hw/sharing/crosssm/crosssm_mechanism.hpp"

#include <memory>

#include "hw/sm/bank_arbitrator.hpp"

namespace smshare::crosssm {
namespace {

uint64_t source_operands(const WarpInstruction& inst) {
  uint64_t n = 0;
  for (uint8_t i = 0; i < inst.num_src; ++i) n += inst.src[i] != kNoReg;
  return n;
}

// Occ and Bal: a CTA takes the SM's own resources while they last, then
// those it borrows; CTA slots (the baseline's) are shared.
class PoolAdmission final : public CtaAdmission {
 public:
  PoolAdmission(const Pools& p, const KernelResources& k, const std::string& origin)
      : footprint_(cta_footprint(p.own, k)),
        occupancy_(active_occupancy_of(p, k, origin)),
        own_cap_(fitting_ctas(resource_limits(p.own, footprint_))),
        borrowed_cap_(p.merged ? 0 : fitting_ctas(resource_limits(p.borrowed, footprint_))) {}

  static Occupancy active_occupancy_of(const Pools& p, const KernelResources& k, const std::string& origin) {
    Occupancy o = baseline_occupancy(p.own, k, origin);  // InputError if not one CTA fits the SM's own resources
    if (p.merged) return o;
    const CtaFootprint f = cta_footprint(p.own, k);
    const Occupancy own = o, lent = resource_limits(p.borrowed, f);
    // Each resource's limit over both pools (one the CTA does not use keeps its own: it never binds).
    auto both = [](uint32_t own_limit, uint32_t lent_limit, uint64_t need) {
      return need ? own_limit + lent_limit : own_limit;
    };
    o.by_registers = both(own.by_registers, lent.by_registers, f.registers);
    o.by_scratchpad = both(own.by_scratchpad, lent.by_scratchpad, f.smem_bytes);
    o.by_threads = both(own.by_threads, lent.by_threads, f.threads);
    o.by_warp_slots = both(own.by_warp_slots, lent.by_warp_slots, f.warps);
    o.by_cta_slots = p.own.max_ctas;
    choose_limit(o, f, k);
    // A CTA lives in one pool: the pools' own limits, not the sums', bind.
    const uint32_t pooled = fitting_ctas(own) + fitting_ctas(lent);
    if (pooled < o.ctas_per_sm) {
      o.ctas_per_sm = pooled;
      o.warps_per_sm = pooled * f.warps;
    }
    return o;
  }

  Occupancy occupancy() const override { return occupancy_; }
  bool try_admit(uint32_t cta_slot, CtaAllocation& alloc) override {
    if (own_ + borrowed_ >= occupancy_.ctas_per_sm) return false;
    uint8_t home = 0;
    if (own_ < own_cap_) ++own_;
    else if (borrowed_ < borrowed_cap_) ++borrowed_, home = 1;
    else return false;
    alloc = {cta_slot, footprint_.registers, footprint_.smem_bytes, footprint_.threads, footprint_.warps, home};
    return true;
  }
  void release(const CtaAllocation& alloc) override { alloc.home ? --borrowed_ : --own_; }
  uint32_t registers_allocated() const override { return (own_ + borrowed_) * footprint_.registers; }
  uint32_t smem_allocated() const override { return (own_ + borrowed_) * footprint_.smem_bytes; }

 private:
  CtaFootprint footprint_;
  Occupancy occupancy_;
  uint32_t own_cap_, borrowed_cap_;
  uint32_t own_ = 0, borrowed_ = 0;
};

// An inactive SM holds no warp: the CTA dispatcher never reaches it.
class NoAdmission final : public CtaAdmission {
 public:
  Occupancy occupancy() const override { return {}; }
  bool try_admit(uint32_t, CtaAllocation&) override { return false; }
  void release(const CtaAllocation&) override {}
  uint32_t registers_allocated() const override { return 0; }
  uint32_t smem_allocated() const override { return 0; }
};

// The register indexing policy (Sec. V-B2): home 0 in the SM's own banks,
// home 1 in the neighbour's banks lent to it, bank (reg + slot) mod banks in
// either, as the baseline's.
class Route final : public RegisterRoute {
 public:
  Route(uint32_t own_banks, uint32_t lent_banks, uint32_t first_lent, bool wide)
      : own_banks_(own_banks), lent_banks_(lent_banks), first_lent_(first_lent), wide_(wide) {}
  OperandRoute route(const WarpContext& w, uint16_t reg, bool, uint64_t) override {
    if (w.home == 0) return {false, static_cast<uint16_t>((reg + w.slot) % own_banks_), 0, BankGroup::RegisterFile};
    return {false, static_cast<uint16_t>(first_lent_ + (reg + w.slot) % lent_banks_), 0,
            BankGroup::RemoteRegisterFile};
  }
  // BigSM: a wide warp's upper half (odd warp of the CTA) on the neighbour.
  uint8_t home(const WarpContext& w) const override { return wide_ ? w.warp_in_cta & 1 : w.home; }

 private:
  uint32_t own_banks_, lent_banks_, first_lent_;
  bool wide_;
};

class Gate final : public WarpGate {
 public:
  explicit Gate(std::shared_ptr<CrossSmState> s) : s_(std::move(s)) {}
  bool may_issue(const WarpContext&, const WarpInstruction&, uint64_t) override { return true; }
  void issued(const WarpContext& w, const WarpInstruction& inst) override { s_->issued(w, inst); }

 private:
  std::shared_ptr<CrossSmState> s_;
};

class Hooks final : public MechanismHooks {
 public:
  explicit Hooks(std::shared_ptr<CrossSmState> s) : s_(std::move(s)) {}
  void begin_cycle(uint64_t cycle) override { s_->begin_cycle(cycle); }
  void bind(BankArbitrator& arbitrator) override { s_->bind(arbitrator); }
  void counters(std::vector<std::pair<std::string, uint64_t>>& c) const override { s_->counters(c); }
  void collect(ActivityCounters& out) const override { s_->collect(out); }
  const CrossSmState& state() const { return *s_; }

 private:
  std::shared_ptr<CrossSmState> s_;
};

}  // namespace

CrossSmState::CrossSmState(const SmSettings& s, uint32_t warps_per_cta, uint32_t cta_slots)
    : settings_(s), warps_per_cta_(warps_per_cta) {
  if (wide()) halves_.resize(size_t{warps_per_cta} * cta_slots);
}

CrossSmState::Half& CrossSmState::half(const WarpContext& w) {
  Half& h = halves_[size_t{w.cta_slot} * warps_per_cta_ + w.warp_in_cta];
  if (h.age != w.age) h = Half{w.age};  // a new warp in the slot
  return h;
}

const CrossSmState::Half* CrossSmState::other_half(const WarpContext& w) const {
  const bool lower = (w.warp_in_cta & 1) == 0;
  if (lower && w.warp_in_cta + 1 >= warps_per_cta_) return nullptr;  // an odd CTA's last warp: no upper half
  const uint32_t other = lower ? w.warp_in_cta + 1 : w.warp_in_cta - 1;
  const Half& h = halves_[size_t{w.cta_slot} * warps_per_cta_ + other];
  const uint64_t age = lower ? w.age + 1 : w.age - 1;  // launched together, in order
  return h.age == age ? &h : nullptr;
}

void CrossSmState::issued(const WarpContext& w, const WarpInstruction& inst) {
  const bool entered_pipeline = !acts_at_issue(inst.op);
  if (wide()) {
    Half& self = half(w);
    const uint64_t n = self.issued++;
    self.last_issue_cycle = now_;
    if (w.home == 0) {
      self.pcs[n % Half::kPcs] = inst.pc;
    } else {
      ++traffic_.instruction_buffer;
      if (is_memory(inst.op)) {  // to the active SM's LDST unit
        ++traffic_.operand_dispatch;
        traffic_.operands_crossed += source_operands(inst);
      }
      const Half* lower = other_half(w);
      if (lower && lower->last_issue_cycle == now_ && lower->issued == self.issued) {
        ++traffic_.mirrored_issues;
      } else {
        ++traffic_.split_issues;
        if (lower && lower->issued > n && lower->issued - n <= Half::kPcs && lower->pcs[n % Half::kPcs] != inst.pc)
          ++traffic_.divergent_issues;
      }
    }
  } else if (w.home == 1) {
    ++traffic_.instruction_buffer;
    if (entered_pipeline) {  // two-stage dispatch to the active SM's units
      ++traffic_.operand_dispatch;
      traffic_.operands_crossed += source_operands(inst);
    }
    if (inst.op == OpClass::SharedLoad || inst.op == OpClass::SharedStore) ++traffic_.remote_scratchpad;
  }
  if (w.home == 0 && entered_pipeline) ++traffic_.dummy_stage;
}

void CrossSmState::collect(ActivityCounters& out) const {
  const BoundaryTraffic& t = traffic_;
  const uint64_t crossings = t.instruction_buffer + t.operands_crossed + t.remote_scratchpad + t.mirrored_issues;
  StructureActivity& buffer = out["boundary_buffer"];
  buffer.reads += crossings;
  buffer.writes += crossings;
}

void CrossSmState::bind(const BankArbitrator& arbitrator) {
  arbitrator_ = &arbitrator;
  const BankArray& remote = arbitrator.group(BankGroup::RemoteRegisterFile);
  remote_before_ = remote.total_reads() + remote.total_writes();
}

uint64_t CrossSmState::remote_register_accesses() const {
  if (!arbitrator_) return 0;
  const BankArray& remote = arbitrator_->group(BankGroup::RemoteRegisterFile);
  return remote.total_reads() + remote.total_writes() - remote_before_;
}

void CrossSmState::counters(std::vector<std::pair<std::string, uint64_t>>& c) const {
  // A baseline SM runs the baseline's own mechanism (no counters): the
  // report's SMs less these two are the baseline SMs.
  const Role role = settings_.place.role;
  c.push_back({"active_sms", role == Role::Active});
  c.push_back({"inactive_sms", role == Role::Inactive});
  c.push_back({"boundary_instruction_buffer", traffic_.instruction_buffer});
  c.push_back({"boundary_operand_dispatch", traffic_.operand_dispatch});
  c.push_back({"boundary_remote_scratchpad", traffic_.remote_scratchpad});
  c.push_back({"remote_register_accesses", remote_register_accesses()});
  c.push_back({"dummy_stage_instructions", traffic_.dummy_stage});
  c.push_back({"wide_mirrored_issues", traffic_.mirrored_issues});
  c.push_back({"wide_split_issues", traffic_.split_issues});
  c.push_back({"wide_divergent_issues", traffic_.divergent_issues});
}

Occupancy active_occupancy(Scheme scheme, const SmSpec& base, const KernelResources& k, const std::string& origin) {
  return PoolAdmission::active_occupancy_of(pools(scheme, base), k, origin);
}

Mechanism make(const SmSpec& sm, const KernelResources& k, const std::string& origin, const SmSettings& s) {
  const Role role = s.place.role;
  if (role == Role::Baseline) return make_default_mechanism(s.base, k, origin);  // bit for bit the baseline's SM
  Mechanism m;
  m.route = make_default_route(s.base.register_banks);
  const uint32_t warps_per_cta = k.warps_per_cta(sm.warp_size);
  auto state = std::make_shared<CrossSmState>(s, warps_per_cta, sm.max_ctas);
  m.gate = std::make_unique<Gate>(state);
  m.hooks = std::make_unique<Hooks>(state);
  if (role == Role::Inactive) {
    m.admission = std::make_unique<NoAdmission>();
    return m;
  }
  const Scheme scheme = s.run.scheme;
  const Borrowed lent = borrowed(scheme, s.base);
  m.admission = std::make_unique<PoolAdmission>(pools(scheme, s.base), k, origin);
  m.route = std::make_unique<Route>(s.base.register_banks, lent.register_banks,
                                    s.place.lender_side * lent.register_banks, shape(scheme).wide_warps);
  m.own_collector_units = {s.base.oc_units_sp, s.base.oc_units_sfu, s.base.oc_units_mem};
  m.wide_warps = shape(scheme).wide_warps;
  return m;
}

const CrossSmState* crosssm_state_of(const Mechanism& m) {
  const auto* hooks = dynamic_cast<const Hooks*>(m.hooks.get());
  return hooks ? &hooks->state() : nullptr;
}

}  // namespace smshare::crosssm
