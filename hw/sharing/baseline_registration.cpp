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
    return make_default_mechanism(sm, k, origin);
  };
  registry.add(std::move(d));
}

}  // namespace smshare
