// The baseline in the mechanism registry: the SM's default policies
// (hw/sm/default_policies.cpp), no settings, nothing added to the hardware.
#include "hw/sharing/registry.hpp"

namespace smshare {

void register_baseline(MechanismRegistry& registry) {
  MechanismDescriptor d;
  d.name = "baseline";
  d.description = "no sharing: CTAs admitted while registers, scratchpad, threads, CTA and warp slots last";
  d.occupancy = [](const SmSpec& sm, const KernelResources& k, const std::string& origin, const MechanismSettings&) {
    return baseline_occupancy(sm, k, origin);
  };
  d.make = [](const SmSpec& sm, const KernelResources& k, const std::string& origin, const MechanismSettings&,
              uint32_t, std::shared_ptr<KernelSharedState>) {
    Mechanism m;
    m.admission = make_default_admission(sm, k, origin);
    m.route = make_default_route(sm.register_banks);
    m.gate = make_open_gate();
    return m;
  };
  registry.add(std::move(d));
}

}  // namespace smshare
