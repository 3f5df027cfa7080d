// EXPARS as an smshare mechanism: the four interface objects, thin views on
// the SM's ExparsSm (expars_sm.hpp), and the factory.
#include "hw/sharing/expars/expars_mechanism.hpp"

#include "hw/common/error.hpp"
#include "hw/sharing/admission_view.hpp"

namespace smshare::expars {
namespace {

class Route final : public RegisterRoute {
 public:
  explicit Route(std::shared_ptr<ExparsSm> s) : s_(std::move(s)) {}
  OperandRoute route(const WarpContext& w, uint16_t reg, bool is_write, uint64_t) override {
    return s_->route(w, reg, is_write);
  }

 private:
  std::shared_ptr<ExparsSm> s_;
};

class Gate final : public WarpGate {
 public:
  explicit Gate(std::shared_ptr<ExparsSm> s) : s_(std::move(s)) {}
  bool may_issue(const WarpContext& w, const WarpInstruction&, uint64_t cycle) override {
    return s_->may_issue(w, cycle);
  }
  void issued(const WarpContext& w, const WarpInstruction& inst) override { s_->issued(w, inst); }

 private:
  std::shared_ptr<ExparsSm> s_;
};

class Hooks final : public MechanismHooks {
 public:
  explicit Hooks(std::shared_ptr<ExparsSm> s) : s_(std::move(s)) {}
  void bind(BankArbitrator& arbitrator) override { s_->bind(arbitrator); }
  std::unique_ptr<WarpProgram> decode(const WarpContext& w, std::unique_ptr<WarpProgram> program) override {
    return s_->decode(w, std::move(program));
  }
  void operands_read(const WarpContext& w, const WarpInstruction& inst) override { s_->operands_read(w, inst); }
  void register_written(const WarpContext& w, uint16_t reg) override { s_->register_written(w, reg); }
  void warp_finished(const WarpContext& w) override { s_->warp_finished(w); }
  uint64_t next_wake() const override { return s_->next_wake(); }
  void at_wake(uint64_t cycle, const IssueActivity&) override { s_->step(cycle); }
  bool waits_on_time(uint64_t cycle) const override { return s_->waits_on_time(cycle); }
  void collect(ActivityCounters& out) const override { s_->collect(out); }
  void counters(std::vector<std::pair<std::string, uint64_t>>& c) const override { s_->counters(c); }
  const ExparsSm& state() const { return *s_; }

 private:
  std::shared_ptr<ExparsSm> s_;
};

}  // namespace

void check_operand_cache(const SmSpec& sm, const Settings& s) {
  const uint32_t line_group = sm.register_banks * kWarpRegisterBytes;  // one line in every bank
  const uint32_t min_lines = kMaxSrcRegs + kMaxDstRegs;                  // one instruction's registers
  if (s.operand_cache_bytes % line_group != 0 || s.operand_cache_bytes / kWarpRegisterBytes < min_lines)
    throw InputError("--set expars.operand_cache_bytes=" + std::to_string(s.operand_cache_bytes) +
                     ": the operand cache has one bank per register bank (sm.register_banks = " +
                     std::to_string(sm.register_banks) + ") and " + std::to_string(kWarpRegisterBytes) +
                     "-byte lines: give a multiple of " + std::to_string(line_group) + " bytes holding at least " +
                     std::to_string(min_lines) + " lines (" + std::to_string(min_lines * kWarpRegisterBytes) +
                     " bytes; the paper: 2048)");
}

Mechanism make(const SmSpec& sm, const KernelResources& k, const std::string& origin, const Settings& settings) {
  check_operand_cache(sm, settings);
  auto s = std::make_shared<ExparsSm>(sm, k, origin, settings);
  Mechanism m;
  m.name = "expars";
  m.admission = std::make_unique<AdmissionView<ExparsSm>>(s);
  m.route = std::make_unique<Route>(s);
  m.gate = std::make_unique<Gate>(s);
  m.hooks = std::make_unique<Hooks>(s);
  m.operand_cache_banks = sm.register_banks;
  return m;
}

// The hooks are the one interface object only expars::make builds: they
// lead back to the instance's state.
const ExparsSm* expars_sm_of(const Mechanism& m) {
  const auto* hooks = dynamic_cast<const Hooks*>(m.hooks.get());
  return hooks ? &hooks->state() : nullptr;
}

}  // namespace smshare::expars
