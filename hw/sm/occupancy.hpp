// Baseline CTA occupancy: how many CTAs of a kernel fit on one SM, and which
// resource stops the next one. Plain arithmetic shared by `smshare
// occupancy` (no simulation) and the SM's baseline CTA admission.
#pragma once

#include <cstdint>
#include <string>

#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel.hpp"

namespace smshare {

// Resource usage of one CTA after allocation granularity is applied.
struct CtaFootprint {
  uint32_t threads = 0;     // padded to whole warps (what the thread limit counts)
  uint32_t warps = 0;
  uint32_t registers = 0;   // regs/thread rounded to the thread granularity, x warp size, rounded
                            // to the warp granularity, x warps
  uint32_t smem_bytes = 0;  // rounded up to sm.smem_alloc_granularity
};

enum class OccupancyLimit { Registers, Scratchpad, Threads, CtaSlots, WarpSlots, Grid };
std::string to_string(OccupancyLimit limit);  // "registers", "scratchpad", "threads", "cta_slots", "warp_slots", "grid"

struct Occupancy {
  uint32_t ctas_per_sm = 0;
  uint32_t warps_per_sm = 0;
  // The binding resource. On ties, the first in declaration order of
  // OccupancyLimit: registers, scratchpad, threads, CTA slots, warp slots;
  // grid only when the grid is smaller than every resource limit. A resource
  // the CTA does not use (0 registers, 0 scratchpad) never binds.
  OccupancyLimit limited_by = OccupancyLimit::CtaSlots;
  // Each resource's own limit (CTAs), for reports and what-if sweeps. A
  // resource the CTA does not use reports the CTA-slot limit.
  uint32_t by_registers = 0, by_scratchpad = 0, by_threads = 0, by_cta_slots = 0, by_warp_slots = 0;
};

CtaFootprint cta_footprint(const SmSpec& sm, const KernelResources& k);

// Each resource's own limit (the by_* fields, nothing chosen yet) for CTAs
// of footprint `f` on `sm`; a resource with room for no CTA says 0, one the
// CTA does not use the CTA-slot limit.
Occupancy resource_limits(const SmSpec& sm, const CtaFootprint& f);
// The CTAs every resource of `o` (resource_limits) has room for, the grid aside.
uint32_t fitting_ctas(const Occupancy& o);

// Given each resource's own limit in o.by_*, picks the binding one (ties:
// registers, scratchpad, threads, CTA slots, warp slots; a resource the CTA
// does not use never binds), caps by the grid, and sets ctas_per_sm,
// limited_by and warps_per_sm. Mechanisms that change one limit (Jatala's
// sharing) call it again.
void choose_limit(Occupancy& o, const CtaFootprint& f, const KernelResources& k);

// Throws InputError (naming `origin`) when not even one CTA fits: a kernel
// that can never run must not hang the simulator.
Occupancy baseline_occupancy(const SmSpec& sm, const KernelResources& k, const std::string& origin);

}  // namespace smshare
