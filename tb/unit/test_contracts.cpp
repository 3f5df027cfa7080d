// Contract tests: one suite run against every implementation of an
// interface (STYLE.md), so a new mechanism or scheduler policy is checked
// the moment it is registered (hw/sharing/all_mechanisms.cpp,
// scheduler_policy_names()).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sm/mechanism.hpp"
#include "hw/sm/scheduler_policy.hpp"

namespace smshare {
namespace {

// --- SchedulerPolicy: every policy orders only valid warps, each once.

TEST(SchedulerPolicyContract, EveryPolicyOrdersOnlyValidWarpsEachOnce) {
  for (const auto& name : scheduler_policy_names()) {
    auto policy = make_scheduler_policy(name, 4);
    policy->kernel_started();
    std::vector<WarpView> views(24);
    std::vector<uint32_t> order;
    uint64_t rng = 12345;
    for (int cycle = 0; cycle < 500; ++cycle) {
      for (uint32_t i = 0; i < views.size(); ++i) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        WarpView& v = views[i];
        v.slot = 2 * i;  // one scheduler's slots of a two-scheduler SM
        if ((rng >> 60) == 0) {  // warps come and go
          if (v.valid) policy->warp_finished(v.slot);
          v.valid = !v.valid;
        }
        v.age = i + (cycle / 100) * 100;
        v.waiting = (rng >> 50) & 1;
        v.priority_class = static_cast<uint8_t>((rng >> 40) % 3);
      }
      policy->order(views, order);
      std::set<uint32_t> seen;
      const bool any_valid = std::any_of(views.begin(), views.end(), [](const WarpView& v) { return v.valid; });
      for (uint32_t slot : order) {
        auto it = std::find_if(views.begin(), views.end(), [&](const WarpView& v) { return v.slot == slot; });
        ASSERT_NE(it, views.end()) << name << ": ordered a slot it was not given";
        EXPECT_TRUE(it->valid) << name << ": ordered an invalid warp";
        EXPECT_TRUE(seen.insert(slot).second) << name << ": ordered slot " << slot << " twice";
      }
      if (any_valid) {
        EXPECT_FALSE(order.empty()) << name << ": ordered nothing while warps are valid";
      }
      if (!order.empty()) policy->issued(order.front());
    }
  }
}

// --- Mechanisms: admission, route and gate keep the SM's invariants.

struct Case {
  const char* config;
  const char* kernel;
};

struct NoInstructions final : WarpProgram {
  bool next(WarpInstruction&) override { return false; }
};

// The SM's memory port for a mechanism's own transactions: answered after 100 cycles.
struct FixedLatencyPort final : MechanismMemoryPort {
  SwapRegion swap_region() const override { return {1ull << 48, 64ull << 20}; }
  uint64_t access(uint64_t, bool, uint64_t cycle, uint64_t) override { return cycle + 100; }
};

TEST(MechanismContract, EveryMechanismAdmitsWhatItsOccupancySaysWithinTheSm) {
  const Case cases[] = {{"jatala-fermi", "hotspot"}, {"jatala-fermi", "lavamd"}, {"jatala-fermi", "nw1"},
                        {"fermi-gtx480", "sgemm"}};
  unsigned checked = 0;
  const MechanismRegistry& registry = mechanism_registry();
  for (const auto& name : registry.simulated_names()) {
    MechanismChoice choice;
    choice.name = name;
    const ConfiguredMechanism configured = registry.configure(choice);  // the defaults
    for (const Case& c : cases) {
      // SM 0 as the run configures it (cross-SM sharing: an active SM, its
      // resources merged with its neighbour's).
      const SmConfiguration sm0 = configured.configure_sm(load_gpu_config(c.config, {}), 0);
      const GpuSpec& spec = sm0.spec;
      const KernelProfile p = load_kernel_profile(c.kernel);
      Mechanism m = configured.make(spec.sm, p.resources, p.file, 0, configured.make_kernel_shared_state(),
                                    sm0.settings.get());
      FixedLatencyPort port;
      m.hooks->bind_memory(port);  // as the SM does at launch
      const std::string what = name + " / " + c.kernel + " on " + c.config;
      EXPECT_EQ(m.name, name) << what;
      const Occupancy occ = m.admission->occupancy();
      // The occupancy calculator (smshare occupancy, the report) promises what the admission does.
      const Occupancy calculated = configured.occupancy(load_gpu_config(c.config, {}).sm, p.resources, p.file);
      EXPECT_EQ(calculated.ctas_per_sm, occ.ctas_per_sm) << what;
      EXPECT_EQ(calculated.limited_by, occ.limited_by) << what;
      // Within the SM's slots: its own, or the logical ones the mechanism gives it (Zorua).
      const SmSlots slots = sm0.slots;
      ASSERT_GE(occ.ctas_per_sm, 1u) << what;
      ASSERT_LE(occ.ctas_per_sm, slots.ctas) << what;

      // Fill the SM: exactly the promised number of CTAs fits.
      for (int round = 0; round < 2; ++round) {
        std::vector<CtaAllocation> admitted;
        CtaAllocation a;
        for (uint32_t slot = 0; slot < slots.ctas && m.admission->try_admit(slot, a); ++slot)
          admitted.push_back(a);
        EXPECT_EQ(admitted.size(), occ.ctas_per_sm) << what << " (round " << round << ")";
        EXPECT_LE(m.admission->registers_allocated(), spec.sm.registers) << what;
        EXPECT_LE(m.admission->smem_allocated(), spec.sm.scratchpad_bytes) << what;
        uint32_t threads = 0, warps = 0;
        for (const auto& x : admitted) {
          threads += x.threads;
          warps += x.warps;
        }
        EXPECT_LE(threads, slots.warps * spec.sm.warp_size) << what;
        EXPECT_LE(warps, slots.warps) << what;

        // Every register of every warp maps to a real bank (or waits).
        for (const auto& x : admitted)
          for (uint32_t w = 0; w < x.warps; ++w) {
            WarpContext ctx{x.cta_slot * x.warps + w, x.cta_slot, w, x.cta_slot * 100ull + w, x.home};
            ctx.home = m.route->home(ctx);  // as the SM does at launch
            m.hooks->decode(ctx, std::make_unique<NoInstructions>());  // the warp launches, as the SM does it
            EXPECT_LE(m.gate->priority_class(ctx), 2u) << what;
            for (uint16_t r = 0; r < p.resources.regs_per_thread; ++r) {
              const OperandRoute route = m.route->route(ctx, r, false, 0);
              if (!route.retry) {
                EXPECT_LT(route.bank, spec.sm.register_banks) << what;
              }
            }
          }

        // Releasing everything empties the SM, and it fills the same way again.
        for (const auto& x : admitted) m.admission->release(x);
        EXPECT_EQ(m.admission->registers_allocated(), 0u) << what;
        EXPECT_EQ(m.admission->smem_allocated(), 0u) << what;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 3u * 4u);  // baseline, regshare and spmshare at least
}

// Every registered mechanism, simulated or not, describes itself and states
// its hardware as sized, sourced structures (test_power_model checks the
// CACTI cache prices each one).
TEST(MechanismContract, EveryMechanismDescribesItsHardware) {
  const MechanismRegistry& registry = mechanism_registry();
  const GpuSpec spec = load_gpu_config("fermi-gtx480", {});
  for (const auto& name : registry.names()) {
    const MechanismDescriptor& d = registry.at(name);
    EXPECT_FALSE(d.description.empty()) << name;
    MechanismChoice choice;
    choice.name = name;
    const ConfiguredMechanism configured = registry.configure(choice);
    for (const auto& s : configured.hardware(spec).structures) {
      EXPECT_GT(s.bits, 0u) << name << " " << s.name;
      EXPECT_GE(s.per_sm, 1u) << name << " " << s.name;
      EXPECT_FALSE(s.paper.empty()) << name << " " << s.name;
    }
    if (d.storage_formula) {
      EXPECT_FALSE(configured.hardware(spec).structures.empty()) << name;
    }
    for (const auto& [key, value] : configured.effective())
      EXPECT_EQ(key.rfind(d.family + ".", 0), 0u) << name << ": key " << key << " outside its family";
  }
}

}  // namespace
}  // namespace smshare
