// The four extension points through which a resource-sharing mechanism plugs
// into the SM pipeline (DESIGN.md, principle 2). The pipeline is written once
// and calls only these; a mechanism is a bundle of implementations. Baseline
// is the trivial implementation of each.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/common/gpu_config.hpp"
#include "hw/common/instruction.hpp"
#include "hw/frontend/kernel.hpp"
#include "hw/sm/occupancy.hpp"

namespace smshare {

// What a mechanism may know about a warp when routing or gating it.
struct WarpContext {
  uint32_t slot = 0;         // warp slot on the SM
  uint32_t cta_slot = 0;     // CTA slot on the SM
  uint32_t warp_in_cta = 0;
  uint64_t age = 0;          // dynamic warp id (launch order)
};

// Where a CTA's resources were placed.
struct CtaAllocation {
  uint32_t cta_slot = 0;
  uint32_t registers = 0;
  uint32_t smem_bytes = 0;
  uint32_t threads = 0;
  uint32_t warps = 0;
};

// May another CTA start on this SM, and with which resources.
class CtaAdmission {
 public:
  virtual ~CtaAdmission() = default;
  // Resident CTAs without simulating (what `smshare occupancy` prints).
  virtual Occupancy occupancy() const = 0;
  // Admits one CTA into `cta_slot` if resources allow; fills `alloc`.
  virtual bool try_admit(uint32_t cta_slot, CtaAllocation& alloc) = 0;
  virtual void release(const CtaAllocation& alloc) = 0;
  // Resources currently allocated, for utilization statistics.
  virtual uint32_t registers_allocated() const = 0;
  virtual uint32_t smem_allocated() const = 0;
};

// Where a register operand access goes and what it costs.
struct OperandRoute {
  bool retry = false;         // not accessible this cycle (e.g. a lock held by the partner)
  uint16_t bank = 0;          // register-file bank that serves it
  uint16_t extra_cycles = 0;  // added latency (mapping table, remote bank, ...)
};

class RegisterRoute {
 public:
  virtual ~RegisterRoute() = default;
  virtual OperandRoute route(const WarpContext& w, uint16_t reg, bool is_write, uint64_t cycle) = 0;
};

// Which warps may issue this cycle (beyond the pipeline's own hazards).
class WarpGate {
 public:
  virtual ~WarpGate() = default;
  virtual bool may_issue(const WarpContext& w, const WarpInstruction& inst, uint64_t cycle) = 0;
  // Scheduling class the scheduler policy may use (0 = first): OWF's owner,
  // unshared, non-owner. Baseline: everyone equal.
  virtual uint8_t priority_class(const WarpContext&) const { return 1; }
};

// A mechanism instance for one SM.
struct Mechanism {
  std::string name;
  std::unique_ptr<CtaAdmission> admission;
  std::unique_ptr<RegisterRoute> route;
  std::unique_ptr<WarpGate> gate;
};

// Builds mechanism `name` for one SM running `kernel`. `origin` names the
// input (kernel file) for errors such as a CTA that can never fit.
Mechanism make_mechanism(const std::string& name, const SmSpec& sm, const KernelResources& kernel,
                         const std::string& origin);

std::vector<std::string> list_mechanisms();

}  // namespace smshare
