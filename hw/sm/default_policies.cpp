// make_mechanism (the one place that knows every mechanism) and the baseline.
// Baseline: CTAs admitted while registers, scratchpad, threads, CTA slots and
// warp slots last; every register lives in bank (reg + warp) % banks, as in
// GPGPU-Sim; every warp may issue.
#include <algorithm>

#include "hw/common/error.hpp"
#include "hw/sharing/jatala/jatala_mechanism.hpp"
#include "hw/sm/mechanism.hpp"

namespace smshare {
namespace {

class BaselineAdmission final : public CtaAdmission {
 public:
  BaselineAdmission(const SmSpec& sm, const KernelResources& k, const std::string& origin)
      : footprint_(cta_footprint(sm, k)), occupancy_(baseline_occupancy(sm, k, origin)) {}

  Occupancy occupancy() const override { return occupancy_; }

  bool try_admit(uint32_t cta_slot, CtaAllocation& alloc) override {
    if (resident_ >= occupancy_.ctas_per_sm) return false;
    ++resident_;
    alloc = {cta_slot, footprint_.registers, footprint_.smem_bytes, footprint_.threads, footprint_.warps};
    return true;
  }
  void release(const CtaAllocation&) override { --resident_; }
  uint32_t registers_allocated() const override { return resident_ * footprint_.registers; }
  uint32_t smem_allocated() const override { return resident_ * footprint_.smem_bytes; }

 private:
  CtaFootprint footprint_;
  Occupancy occupancy_;
  uint32_t resident_ = 0;
};

class BaselineRoute final : public RegisterRoute {
 public:
  explicit BaselineRoute(uint32_t banks) : banks_(banks) {}
  OperandRoute route(const WarpContext& w, uint16_t reg, bool, uint64_t) override {
    return {false, static_cast<uint16_t>((reg + w.slot) % banks_), 0};
  }

 private:
  uint32_t banks_;
};

class OpenGate final : public WarpGate {
 public:
  bool may_issue(const WarpContext&, const WarpInstruction&, uint64_t) override { return true; }
};

}  // namespace

std::shared_ptr<KernelSharedState> make_kernel_shared_state(const std::string& name) {
  return jatala::is_jatala(name) ? jatala::make_shared_state() : nullptr;
}

std::vector<std::string> mechanism_probe_names(const std::string& name, const SmSpec& sm) {
  return jatala::is_jatala(name) ? jatala::probe_names(sm) : std::vector<std::string>{};
}

Mechanism make_mechanism(const std::string& name, const SmSpec& sm, const KernelResources& kernel,
                         const std::string& origin, const MechanismOptions& options, uint32_t sm_id,
                         std::shared_ptr<KernelSharedState> shared) {
  if (options.sharing_given && !jatala::is_jatala(name))
    throw InputError("--sharing: mechanism '" + name +
                     "' does not share resources; --sharing applies to regshare and spmshare");
  if (name == "regshare" || name == "spmshare")
    return jatala::make(name == "regshare" ? jatala::Resource::Registers : jatala::Resource::Scratchpad, sm, kernel,
                        origin, options, sm_id, std::move(shared));
  if (name == "baseline") {
    Mechanism m;
    m.name = name;
    m.admission = std::make_unique<BaselineAdmission>(sm, kernel, origin);
    m.route = std::make_unique<BaselineRoute>(sm.register_banks);
    m.gate = std::make_unique<OpenGate>();
    return m;
  }
  throw InputError("--mechanism: unknown mechanism '" + name + "' (known: " + join(list_mechanisms()) + ")");
}

std::vector<std::string> list_mechanisms() { return {"baseline", "regshare", "spmshare"}; }

}  // namespace smshare
