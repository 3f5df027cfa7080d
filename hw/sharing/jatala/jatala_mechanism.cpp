// The four interface objects of a Jatala mechanism instance, all views on
// one JatalaSm (jatala_sm.hpp), and the occupancy calculator.
#include "hw/sharing/jatala/jatala_mechanism.hpp"

#include "hw/sharing/admission_view.hpp"
#include "hw/sharing/jatala/jatala_sm.hpp"

namespace smshare::jatala {

namespace {

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

namespace {

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
  void issued(const WarpContext& w, const WarpInstruction& inst) override { s_->issued(w, inst); }
  uint8_t priority_class(const WarpContext& w) const override { return s_->priority_class(w); }

 private:
  std::shared_ptr<JatalaSm> s_;
};

class Hooks final : public MechanismHooks {
 public:
  explicit Hooks(std::shared_ptr<JatalaSm> s) : s_(std::move(s)) {}
  void warp_finished(const WarpContext& w) override { s_->warp_finished(w); }
  uint64_t next_wake() const override { return s_->next_wake(); }
  void at_wake(uint64_t cycle, const IssueActivity& a) override { s_->at_wake(cycle, a.non_issue_cycles()); }
  bool waits_on_time(uint64_t cycle) const override { return s_->waits_on_time(cycle); }
  uint64_t priority_epoch() const override { return s_->epoch(); }
  void collect(ActivityCounters& out) const override { s_->collect(out); }
  void counters(std::vector<std::pair<std::string, uint64_t>>& c) const override { s_->counters(c); }
  const JatalaSm& state() const { return *s_; }

 private:
  std::shared_ptr<JatalaSm> s_;
};

}  // namespace

Mechanism make(Resource r, const SmSpec& sm, const KernelResources& k, const std::string& origin,
               const Settings& settings, uint32_t sm_id, std::shared_ptr<KernelSharedState> shared) {
  auto* state = dynamic_cast<SharedState*>(shared.get());
  auto s = std::make_shared<JatalaSm>(r, sm, k, origin, settings, sm_id, state ? &state->reference : nullptr);
  Mechanism m;
  m.name = r == Resource::Registers ? "regshare" : "spmshare";
  m.admission = std::make_unique<AdmissionView<JatalaSm>>(s);
  m.route = std::make_unique<Route>(s);
  m.gate = std::make_unique<Gate>(s);
  m.hooks = std::make_unique<Hooks>(s);
  // Only dynamic warp execution reads or writes the kernel-wide state (SM0's
  // reference). Without it the instance is the SM's own: the SM may be
  // ticked ahead of the others (SmCore::runs_ahead_ok).
  if (settings.dynamic_warp_execution)
    m.shared_state = std::move(shared);  // keeps SM0's reference alive as long as the SM's mechanism
  return m;
}

// The hooks are the one interface object every instance has and only
// jatala::make builds: they lead back to the instance's state.
const JatalaSm* jatala_sm_of(const Mechanism& m) {
  const auto* hooks = dynamic_cast<const Hooks*>(m.hooks.get());
  return hooks ? &hooks->state() : nullptr;
}

}  // namespace smshare::jatala
