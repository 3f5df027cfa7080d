// Zorua as an smshare mechanism: the four interface objects, thin views on
// the SM's ZoruaSm (zorua_sm.hpp), and the factory.
#include "hw/sharing/zorua/zorua_mechanism.hpp"

#include "hw/sharing/admission_view.hpp"

namespace smshare::zorua {
namespace {

class Route final : public RegisterRoute {
 public:
  explicit Route(std::shared_ptr<ZoruaSm> s) : s_(std::move(s)) {}
  OperandRoute route(const WarpContext& w, uint16_t reg, bool, uint64_t) override { return s_->route(w, reg); }

 private:
  std::shared_ptr<ZoruaSm> s_;
};

// The coordinator's list of schedulable warps, as the gate the schedulers see.
class Gate final : public WarpGate {
 public:
  explicit Gate(std::shared_ptr<ZoruaSm> s) : s_(std::move(s)) {}
  bool may_issue(const WarpContext& w, const WarpInstruction& inst, uint64_t cycle) override {
    return s_->may_issue(w, inst, cycle);
  }
  void issued(const WarpContext& w, const WarpInstruction& inst) override { s_->issued(w, inst); }

 private:
  std::shared_ptr<ZoruaSm> s_;
};

class Hooks final : public MechanismHooks {
 public:
  explicit Hooks(std::shared_ptr<ZoruaSm> s) : s_(std::move(s)) {}
  std::unique_ptr<WarpProgram> decode(const WarpContext& w, std::unique_ptr<WarpProgram> program) override {
    s_->warp_started(w);  // a CTA's warps join the coordinator as they launch
    return program;
  }
  void bind_memory(MechanismMemoryPort& port) override { s_->bind_memory(port); }
  void memory_response(uint64_t tag, uint64_t cycle) override { s_->memory_response(tag, cycle); }
  void operands_read(const WarpContext& w, const WarpInstruction& inst) override { s_->operands_read(w, inst); }
  void register_written(const WarpContext& w, uint16_t reg) override { s_->register_written(w, reg); }
  void warp_finished(const WarpContext& w) override { s_->warp_finished(w); }
  void begin_cycle(uint64_t cycle) override { s_->begin_cycle(cycle); }
  // Swap reads end waits; the epochs stop waking a coordinator that is stuck.
  bool wake_ends_a_wait() const override { return true; }
  uint64_t next_wake() const override { return s_->next_wake(); }
  bool waits_on_memory(uint64_t cycle) const override { return s_->waits_on_swap(cycle); }
  void at_wake(uint64_t cycle, const IssueActivity& a) override { s_->at_wake(cycle, a); }
  void collect(ActivityCounters& out) const override { s_->collect(out); }
  std::string describe() const override { return s_->describe(); }
  void counters(std::vector<std::pair<std::string, uint64_t>>& c) const override { s_->counters(c); }
  const ZoruaSm& state() const { return *s_; }

 private:
  std::shared_ptr<ZoruaSm> s_;
};

}  // namespace

Mechanism make(const SmSpec& sm, const KernelResources& k, const std::string& origin, const Settings& settings) {
  auto s = std::make_shared<ZoruaSm>(sm, k, origin, settings);
  Mechanism m;
  m.name = "zorua";
  m.admission = std::make_unique<AdmissionView<ZoruaSm>>(s);
  m.route = std::make_unique<Route>(s);
  m.gate = std::make_unique<Gate>(s);
  m.hooks = std::make_unique<Hooks>(s);
  return m;
}

const ZoruaSm* zorua_sm_of(const Mechanism& m) {
  const auto* hooks = dynamic_cast<const Hooks*>(m.hooks.get());
  return hooks ? &hooks->state() : nullptr;
}

}  // namespace smshare::zorua
