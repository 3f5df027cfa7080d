#include "hw/sm/occupancy.hpp"

#include <algorithm>
#include <limits>

#include "hw/common/error.hpp"

namespace smshare {

namespace {

constexpr uint64_t kU32Max = std::numeric_limits<uint32_t>::max();

uint64_t round_up(uint64_t v, uint64_t granularity) {
  if (granularity <= 1) return v;
  return (v + granularity - 1) / granularity * granularity;
}

uint32_t saturate(uint64_t v) { return static_cast<uint32_t>(std::min(v, kU32Max)); }

// CTAs of `need` units that fit in `have`. A resource the CTA does not use
// never binds: it reports the CTA-slot limit, the most the SM can hold anyway.
uint32_t fit(uint64_t have, uint64_t need, uint32_t unused_value) {
  if (need == 0) return unused_value;
  return saturate(have / need);
}

}  // namespace

std::string to_string(OccupancyLimit limit) {
  switch (limit) {
    case OccupancyLimit::Registers: return "registers";
    case OccupancyLimit::Scratchpad: return "scratchpad";
    case OccupancyLimit::Threads: return "threads";
    case OccupancyLimit::CtaSlots: return "cta_slots";
    case OccupancyLimit::WarpSlots: return "warp_slots";
    case OccupancyLimit::Grid: return "grid";
  }
  return "unknown";
}

CtaFootprint cta_footprint(const SmSpec& sm, const KernelResources& k) {
  const uint64_t warp_size = sm.warp_size ? sm.warp_size : kWarpLanes;
  const uint64_t warps = (uint64_t{k.threads_per_cta} + warp_size - 1) / warp_size;
  const uint64_t regs_per_thread = round_up(k.regs_per_thread, sm.reg_alloc_thread_granularity);
  const uint64_t regs_per_warp = round_up(regs_per_thread * warp_size, sm.reg_alloc_warp_granularity);

  CtaFootprint f;
  f.warps = saturate(warps);
  f.threads = saturate(warps * warp_size);  // padded to whole warps, as the thread limit counts them
  f.registers = saturate(regs_per_warp * warps);
  f.smem_bytes = saturate(round_up(k.smem_bytes_per_cta, sm.smem_alloc_granularity));
  return f;
}

Occupancy resource_limits(const SmSpec& sm, const CtaFootprint& f) {
  Occupancy o;
  o.by_cta_slots = sm.max_ctas;
  o.by_registers = fit(sm.registers, f.registers, o.by_cta_slots);
  o.by_scratchpad = fit(sm.scratchpad_bytes, f.smem_bytes, o.by_cta_slots);
  o.by_threads = fit(sm.max_threads, f.threads, o.by_cta_slots);
  o.by_warp_slots = fit(sm.max_warps, f.warps, o.by_cta_slots);
  return o;
}

uint32_t fitting_ctas(const Occupancy& o) {
  return std::min({o.by_registers, o.by_scratchpad, o.by_threads, o.by_cta_slots, o.by_warp_slots});
}

Occupancy baseline_occupancy(const SmSpec& sm, const KernelResources& k, const std::string& origin) {
  if (k.threads_per_cta == 0) throw input_error(origin, "threads_per_cta", "a CTA needs at least one thread");
  if (k.grid_ctas == 0) throw input_error(origin, "grid_ctas", "a grid needs at least one CTA");

  const CtaFootprint f = cta_footprint(sm, k);
  Occupancy o = resource_limits(sm, f);
  choose_limit(o, f, k);

  if (o.ctas_per_sm == 0) {
    // Name every resource one CTA overflows; the key is the first of them.
    std::string key;
    std::string problem = "not one CTA fits on an SM:";
    auto report = [&](const std::string& resource_key, const std::string& what) {
      if (key.empty()) key = resource_key;
      problem += " " + what + ";";
    };
    if (o.by_registers == 0)
      report("regs_per_thread", "registers: one CTA needs " + std::to_string(f.registers) + " (" +
                                    std::to_string(k.regs_per_thread) + " per thread x " +
                                    std::to_string(f.warps) + " warps, after allocation granularity)" +
                                    ", the SM has " + std::to_string(sm.registers) + " (sm.registers)");
    if (o.by_scratchpad == 0)
      report("smem_bytes_per_cta", "scratchpad: one CTA needs " + std::to_string(f.smem_bytes) +
                                       " bytes, the SM has " + std::to_string(sm.scratchpad_bytes) +
                                       " (sm.scratchpad_bytes)");
    if (o.by_threads == 0)
      report("threads_per_cta", "threads: one CTA needs " + std::to_string(f.threads) +
                                    " (padded to whole warps), the SM has " + std::to_string(sm.max_threads) +
                                    " (sm.max_threads)");
    if (o.by_cta_slots == 0)
      report("threads_per_cta", "CTA slots: one CTA needs 1, the SM has 0 (sm.max_ctas)");
    if (o.by_warp_slots == 0)
      report("threads_per_cta", "warp slots: one CTA needs " + std::to_string(f.warps) + ", the SM has " +
                                    std::to_string(sm.max_warps) + " (sm.max_warps)");
    problem.pop_back();  // trailing ';'
    throw input_error(origin, key, problem);
  }

  return o;
}

void choose_limit(Occupancy& o, const CtaFootprint& f, const KernelResources& k) {
  // Precedence on ties is the enum's declaration order: registers, scratchpad,
  // threads, CTA slots, warp slots, then grid. The per-kernel allocations come
  // first (the resources the sharing mechanisms reclaim), and threads before
  // warp slots (they always tie when threads are padded to whole warps and
  // max_threads = max_warps x warp_size, and the papers say "threads").
  // A resource the CTA does not use (0 registers, 0 scratchpad) never binds.
  struct Candidate {
    OccupancyLimit limit;
    uint32_t ctas;
    bool used;
  };
  const Candidate candidates[] = {
      {OccupancyLimit::Registers, o.by_registers, f.registers > 0},
      {OccupancyLimit::Scratchpad, o.by_scratchpad, f.smem_bytes > 0},
      {OccupancyLimit::Threads, o.by_threads, true},
      {OccupancyLimit::CtaSlots, o.by_cta_slots, true},
      {OccupancyLimit::WarpSlots, o.by_warp_slots, true},
  };
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates)
    if (c.used && (best == nullptr || c.ctas < best->ctas)) best = &c;
  o.ctas_per_sm = best->ctas;
  o.limited_by = best->limit;
  if (best->ctas > 0 && k.grid_ctas < o.ctas_per_sm) {
    o.ctas_per_sm = k.grid_ctas;
    o.limited_by = OccupancyLimit::Grid;
  }
  o.warps_per_sm = saturate(uint64_t{o.ctas_per_sm} * f.warps);
}

}  // namespace smshare
