// The SM's default policies (the baseline mechanism's): CTAs admitted while
// registers, scratchpad, threads, CTA slots and warp slots last; every
// register lives in bank (reg + warp) % banks, as in GPGPU-Sim; every warp
// may issue. The baseline mechanism is registered with the others, outside
// the SM (baseline_registration.cpp beside the registry).
#include "hw/sm/mechanism.hpp"

namespace smshare {
namespace {

class DefaultAdmission final : public CtaAdmission {
 public:
  DefaultAdmission(const SmSpec& sm, const KernelResources& k, const std::string& origin)
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
  bool allocation_changes_only_on_admit_and_release() const override { return true; }

 private:
  CtaFootprint footprint_;
  Occupancy occupancy_;
  uint32_t resident_ = 0;
};

class DefaultRoute final : public RegisterRoute {
 public:
  explicit DefaultRoute(uint32_t banks) : RegisterRoute(banks), banks_(banks) {}
  OperandRoute route(const WarpContext& w, uint16_t reg, bool, uint64_t) override {
    return interleaved(w, reg, banks_);
  }

 private:
  uint32_t banks_;
};

class OpenGate final : public WarpGate {
 public:
  bool may_issue(const WarpContext&, const WarpInstruction&, uint64_t) override { return true; }
  bool inert() const override { return true; }
};

}  // namespace

std::unique_ptr<CtaAdmission> make_default_admission(const SmSpec& sm, const KernelResources& kernel,
                                                     const std::string& origin) {
  return std::make_unique<DefaultAdmission>(sm, kernel, origin);
}

std::unique_ptr<RegisterRoute> make_default_route(uint32_t banks) { return std::make_unique<DefaultRoute>(banks); }

std::unique_ptr<WarpGate> make_open_gate() { return std::make_unique<OpenGate>(); }

Mechanism make_default_mechanism(const SmSpec& sm, const KernelResources& kernel, const std::string& origin) {
  Mechanism m;
  m.admission = make_default_admission(sm, kernel, origin);
  m.route = make_default_route(sm.register_banks);
  m.gate = make_open_gate();
  return m;
}

}  // namespace smshare
