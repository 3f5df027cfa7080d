// A mechanism added from outside the model: this file registers a dummy
// mechanism, `cycle_gate`, in the process's registry and runs it through
// simulate() without any change to hw/sm or hw/top. Its gate lets warps issue
// only in cycles that are a multiple of `cycle_gate.period` (its one setting);
// admission and routing are the SM's defaults.
//
// On one warp of N independent int-ALU instructions the baseline issues one
// per cycle from cycle 1 (tb_sm_pipeline.cpp: IndependentAluIssuesOnePerCycle)
// and takes N + 7 cycles. Gated with period P, instruction i (1-based) issues
// in cycle i P, is read at i P + 1, dispatched at i P + 2 and written at
// i P + 6, so the run takes N P + 7 cycles: P - 1 refused cycles before each
// issue. Each TEST runs in its own process.
#include <gtest/gtest.h>

#include "common/scripted_kernel.hpp"
#include "hw/common/error.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/top/simulation.hpp"
#include "tb/common/compact_gtx480.hpp"

namespace smshare::tb {
namespace {

struct CycleGateSettings final : MechanismSettings {
  uint32_t period = 2;
};

// The gate and the hooks share what the gate refused: a refusal that time
// alone lifts must be reported (waits_on_time) or the SM would sleep through
// it and take the wait for a deadlock.
struct CycleGateState {
  uint32_t period = 2;
  uint64_t refused_cycle = ~0ull;
};

class CycleGate final : public WarpGate {
 public:
  explicit CycleGate(std::shared_ptr<CycleGateState> s) : s_(std::move(s)) {}
  bool may_issue(const WarpContext&, const WarpInstruction&, uint64_t cycle) override {
    if (cycle % s_->period == 0) return true;
    s_->refused_cycle = cycle;
    return false;
  }

 private:
  std::shared_ptr<CycleGateState> s_;
};

class CycleGateHooks final : public MechanismHooks {
 public:
  explicit CycleGateHooks(std::shared_ptr<CycleGateState> s) : s_(std::move(s)) {}
  bool waits_on_time(uint64_t cycle) const override { return s_->refused_cycle == cycle; }

 private:
  std::shared_ptr<CycleGateState> s_;
};

void register_cycle_gate() {
  MechanismRegistry& registry = mechanism_registry();
  if (registry.contains("cycle_gate")) return;
  MechanismDescriptor d;
  d.name = "cycle_gate";
  d.family = "cycle_gate";
  d.description = "test mechanism: warps issue only in cycles that are a multiple of the period";
  d.declare_settings = [](ParamTable& table) {
    auto s = std::make_shared<CycleGateSettings>();
    table.add_uint("cycle_gate.period", &s->period, 1, 16, "cycles between issue opportunities");
    return s;
  };
  d.occupancy = [](const SmSpec& sm, const KernelResources& k, const std::string& origin,
                   const MechanismSettings&) { return baseline_occupancy(sm, k, origin); };
  d.make = [](const SmSpec& sm, const KernelResources& k, const std::string& origin, const MechanismSettings& s,
              uint32_t, std::shared_ptr<KernelSharedState>) {
    auto state = std::make_shared<CycleGateState>();
    state->period = settings_as<CycleGateSettings>(s).period;
    Mechanism m = make_default_mechanism(sm, k, origin);
    m.gate = std::make_unique<CycleGate>(state);
    m.hooks = std::make_unique<CycleGateHooks>(state);
    return m;
  };
  registry.add(std::move(d));
}

constexpr uint64_t N = 24;

nlohmann::json run_independent_stream(std::vector<std::string> settings) {
  register_cycle_gate();
  KernelResources res;
  res.grid_ctas = 1;
  res.threads_per_cta = 32;
  res.regs_per_thread = 32;
  ScriptedKernel k("independent", res, [](uint32_t, uint32_t) {
    std::vector<WarpInstruction> v;
    for (uint64_t i = 0; i < N; ++i) v.push_back(alu(static_cast<uint16_t>(8 + i % 8), {0}));
    return v;
  });
  SimulateOptions o;
  o.kernel_origin = "scripted";
  o.mechanism = {"cycle_gate", std::move(settings), ""};
  return simulate(load_gpu_config("fermi-gtx480", tb::compact_gtx480({"gpu.num_sms=1"})), k, o);
}

TEST(RegistryDummyMechanism, ItsSettingIsEchoedAndItsGateSpacesTheIssues) {
  auto r = run_independent_stream({"cycle_gate.period=3"});
  EXPECT_EQ(r["mechanism"], "cycle_gate");
  EXPECT_EQ(r["config"]["params"]["cycle_gate.period"], "3");
  EXPECT_FALSE(r.contains("deadlock"));
  EXPECT_EQ(r["cycles"].get<uint64_t>(), N * 3 + 7);
  EXPECT_EQ(r["issue_cycles"].get<uint64_t>(), N);
  EXPECT_EQ(r["stall_reasons"]["gate"].get<uint64_t>(), N * (3 - 1));
}

TEST(RegistryDummyMechanism, DefaultPeriodIsTwo) {
  auto r = run_independent_stream({});
  EXPECT_EQ(r["config"]["params"]["cycle_gate.period"], "2");
  EXPECT_EQ(r["cycles"].get<uint64_t>(), N * 2 + 7);
}

TEST(RegistryDummyMechanism, PeriodOneIsTheBaselinesTiming) {
  auto r = run_independent_stream({"cycle_gate.period=1"});
  EXPECT_EQ(r["cycles"].get<uint64_t>(), N + 7);
  EXPECT_EQ(r["stall_reasons"]["gate"].get<uint64_t>(), 0u);
}

TEST(RegistryDummyMechanism, ItsKeyIsValidatedByItsOwnTable) {
  try {
    run_independent_stream({"cycle_gate.perod=3"});
    FAIL() << "a misspelt key was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cycle_gate.period"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_independent_stream({"cycle_gate.period=0"}), InputError);
}

// A mechanism deciding its SMs' slots from outside the SM (the extension
// point Zorua's logical warps and the cross-SM groups use): SM 0 holds 64
// warp slots and 16 CTA slots, more than Fermi's 48 and 8; SM 1 none (an
// inactive SM). Its admission takes CTAs while there are slots.
class SlotAdmission final : public CtaAdmission {
 public:
  SlotAdmission(Occupancy o, CtaFootprint f) : occupancy_(o), footprint_(f) {}
  Occupancy occupancy() const override { return occupancy_; }
  bool try_admit(uint32_t cta_slot, CtaAllocation& a) override {
    ++resident_;
    a = {cta_slot, footprint_.registers, footprint_.smem_bytes, footprint_.threads, footprint_.warps};
    return true;
  }
  void release(const CtaAllocation&) override { --resident_; }
  uint32_t registers_allocated() const override { return resident_ * footprint_.registers; }
  uint32_t smem_allocated() const override { return resident_ * footprint_.smem_bytes; }

 private:
  Occupancy occupancy_;
  CtaFootprint footprint_;
  uint32_t resident_ = 0;
};

void register_wide_slots() {
  MechanismRegistry& registry = mechanism_registry();
  if (registry.contains("wide_slots")) return;
  MechanismDescriptor d;
  d.name = "wide_slots";
  d.description = "test mechanism: SM 0 holds 64 warps and 16 CTAs, SM 1 nothing";
  d.occupancy = [](const SmSpec& sm, const KernelResources& k, const std::string& origin,
                   const MechanismSettings&) { return baseline_occupancy(sm, k, origin); };
  d.slots = [](const SmSpec&, const MechanismSettings&, uint32_t sm_id) {
    return sm_id == 0 ? SmSlots{64, 16} : SmSlots{0, 0};
  };
  d.make = [](const SmSpec& sm, const KernelResources& k, const std::string& origin, const MechanismSettings&,
              uint32_t, std::shared_ptr<KernelSharedState>) {
    Mechanism m = make_default_mechanism(sm, k, origin);
    m.admission = std::make_unique<SlotAdmission>(baseline_occupancy(sm, k, origin), cta_footprint(sm, k));
    return m;
  };
  registry.add(std::move(d));
}

TEST(RegistrySlots, AMechanismDecidesItsSmsWarpAndCtaSlots) {
  register_wide_slots();
  KernelResources res;
  res.grid_ctas = 16;
  res.threads_per_cta = 128;  // 4 warps
  res.regs_per_thread = 8;
  ScriptedKernel k("sixteen", res, [](uint32_t, uint32_t) {
    std::vector<WarpInstruction> v;
    for (int i = 0; i < 30; ++i) v.push_back(alu(static_cast<uint16_t>(1 + i % 4), {0}));
    return v;
  });
  SimulateOptions o;
  o.kernel_origin = "scripted";
  const GpuSpec spec = load_gpu_config("fermi-gtx480", tb::compact_gtx480({"gpu.num_sms=2"}));
  o.mechanism = {"wide_slots", {}, ""};
  const nlohmann::json wide = simulate(spec, k, o);  // one simulation per process: the baseline is known
  ASSERT_TRUE(wide["completed"].get<bool>());
  // All 16 CTAs (64 warps) at once on SM 0; the inactive SM 1 gets none.
  EXPECT_EQ(wide["per_sm"][0]["max_resident_ctas"].get<uint64_t>(), 16u);
  EXPECT_EQ(wide["per_sm"][0]["warp_instructions"].get<uint64_t>(), 16u * 4 * 30);
  EXPECT_EQ(wide["per_sm"][1]["max_resident_ctas"].get<uint64_t>(), 0u);
  EXPECT_EQ(wide["per_sm"][1]["warp_instructions"].get<uint64_t>(), 0u);
  EXPECT_EQ(wide["ctas_completed"].get<uint64_t>(), 16u);
  // More than the SM's own 48 warp and 8 CTA slots, which bound the baseline.
  EXPECT_GT(64u, spec.sm.max_warps);
  EXPECT_GT(16u, spec.sm.max_ctas);
}

TEST(RegistrySlots, SlotsForCtasWithoutWarpsAreBadInput) {
  MechanismDescriptor d;
  d.name = "half_slots";
  d.occupancy = [](const SmSpec& sm, const KernelResources& k, const std::string& origin,
                   const MechanismSettings&) { return baseline_occupancy(sm, k, origin); };
  d.slots = [](const SmSpec&, const MechanismSettings&, uint32_t) { return SmSlots{0, 4}; };
  d.make = [](const SmSpec& sm, const KernelResources& k, const std::string& origin, const MechanismSettings&,
              uint32_t, std::shared_ptr<KernelSharedState>) { return make_default_mechanism(sm, k, origin); };
  if (!mechanism_registry().contains("half_slots")) mechanism_registry().add(std::move(d));
  const ConfiguredMechanism m = mechanism_registry().configure({"half_slots", {}, ""});
  try {
    m.slots(GpuSpec{}.sm, 3);
    FAIL() << "0 warp slots with 4 CTA slots accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("SM 3 gets 0 warp slots and 4 CTA slots"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace smshare::tb
