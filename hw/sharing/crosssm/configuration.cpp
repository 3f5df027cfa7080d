#include "hw/sharing/crosssm/configuration.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "hw/common/error.hpp"

namespace smshare::crosssm {

const char* to_string(Scheme s) {
  switch (s) {
    case Scheme::Occ: return "occ";
    case Scheme::Bal: return "bal";
    case Scheme::BigSm: return "bigsm";
    case Scheme::BigSmOcc: return "bigsm_occ";
  }
  return "unknown";
}

const char* to_string(Role r) {
  switch (r) {
    case Role::Baseline: return "baseline";
    case Role::Active: return "active";
    case Role::Inactive: return "inactive";
  }
  return "unknown";
}

SchemeShape shape(Scheme s) {
  switch (s) {
    case Scheme::Occ: return {2, 1, 2, 4, false};
    case Scheme::Bal: return {3, 2, 1, 3, false};
    case Scheme::BigSm: return {2, 1, 2, 4, true};
    case Scheme::BigSmOcc: return {2, 1, 2, 8, true};
  }
  throw std::logic_error("crosssm: unknown scheme");
}

// In a group, the inactive SM is the middle one of a trio (both actives are
// its neighbours, Fig. 4(c)) and the second of a pair.
Placement place(Scheme scheme, uint32_t num_sms, uint32_t sm, bool bypass) {
  const SchemeShape sh = shape(scheme);
  Placement p;
  if (bypass || sm >= num_sms / sh.group_size * sh.group_size) return p;  // left over: a baseline SM
  const uint32_t first = sm / sh.group_size * sh.group_size, inactive = first + 1;
  if (sm == inactive) {
    p.role = Role::Inactive;
    return p;
  }
  p.role = Role::Active;
  p.neighbour = static_cast<int32_t>(inactive);
  p.lender_side = sm == first ? 0 : 1;
  return p;
}

Layout layout(Scheme scheme, uint32_t num_sms, bool bypass) {
  Layout l;
  for (uint32_t sm = 0; sm < num_sms; ++sm) {
    switch (place(scheme, num_sms, sm, bypass).role) {
      case Role::Active: ++l.active; break;
      case Role::Inactive: ++l.inactive; break;
      case Role::Baseline: ++l.baseline; break;
    }
  }
  l.groups = l.inactive;
  return l;
}

Borrowed borrowed(Scheme scheme, const SmSpec& base) {
  const uint32_t halves = shape(scheme).borrowed_halves;
  auto part = [halves](uint32_t whole) { return whole * halves / 2; };
  Borrowed b;
  b.warps = part(base.max_warps);
  b.threads = part(base.max_threads);
  b.registers = part(base.registers);
  b.smem_bytes = part(base.scratchpad_bytes);
  b.register_banks = part(base.register_banks);
  b.oc_units_sp = part(base.oc_units_sp);
  b.oc_units_sfu = part(base.oc_units_sfu);
  b.oc_units_mem = part(base.oc_units_mem);
  return b;
}

void check_lendable(Scheme scheme, const SmSpec& sm, const CacheSpec* l1, const std::string& origin) {
  if (shape(scheme).borrowed_halves == 2) return;  // the whole SM is lent
  const std::pair<const char*, uint32_t> halved[] = {
      {"sm.max_warps", sm.max_warps},         {"sm.max_threads", sm.max_threads},
      {"sm.registers", sm.registers},         {"sm.scratchpad_bytes", sm.scratchpad_bytes},
      {"sm.register_banks", sm.register_banks}, {"sm.oc_units_sp", sm.oc_units_sp},
      {"sm.oc_units_sfu", sm.oc_units_sfu},   {"sm.oc_units_mem", sm.oc_units_mem},
      {"l1.ways", l1 && l1->size_bytes ? l1->ways : 2}};
  for (const auto& [key, value] : halved)
    if (value % 2 != 0)
      throw input_error(origin, key,
                        std::string(to_string(scheme)) + " lends half of the middle SM's " + key +
                            " to each of its two neighbours: it must be even, not " + std::to_string(value));
}

namespace {
// `base` with an active SM's resident capacity: its warp slots and threads
// (the scheme's multiplier), its own and the borrowed registers and scratchpad.
SmSpec with_merged_capacity(Scheme scheme, const SmSpec& base) {
  const uint32_t multiplier = shape(scheme).warp_multiplier;
  const Borrowed b = borrowed(scheme, base);
  SmSpec sm = base;
  sm.max_warps = base.max_warps * multiplier / 2;
  sm.max_threads = base.max_threads * multiplier / 2;
  sm.registers += b.registers;
  sm.scratchpad_bytes += b.smem_bytes;
  return sm;
}
}  // namespace

GpuSpec active_spec(Scheme scheme, const GpuSpec& base, uint32_t boundary_cycles) {
  const SchemeShape sh = shape(scheme);
  const Borrowed b = borrowed(scheme, base.sm);
  GpuSpec g = base;
  g.sm = with_merged_capacity(scheme, base.sm);
  SmSpec& sm = g.sm;
  sm.oc_units_sp += b.oc_units_sp;
  sm.oc_units_sfu += b.oc_units_sfu;
  sm.oc_units_mem += b.oc_units_mem;
  if (sh.wide_warps) {  // the neighbour's SIMD units execute the upper halves
    sm.sp_units *= 2;
    sm.sfu_units *= 2;
    // One fetch and decode of a wide warp fills both halves' instruction-
    // buffer banks: in 32-thread halves, twice the baseline's fetches.
    sm.fetch_per_cycle *= 2;
  }
  // The L1: Occ and BigSM take the neighbour's whole cache (twice the sets,
  // the tag array's MSB naming the SM); Bal's half of it as half as many
  // ways again (our cache needs a power-of-two number of sets).
  if (base.l1.size_bytes) {
    if (sh.borrowed_halves == 2) g.l1.size_bytes *= 2;
    else {
      g.l1.size_bytes += base.l1.size_bytes / 2;
      g.l1.ways += base.l1.ways / 2;
    }
    g.l1.hit_latency += boundary_cycles;
  }
  // Dummy pipelining: each path that may cross the boundary, and its local
  // twin, one stage deeper (Sec. V-A, V-B1-3).
  if (base.icache.size_bytes) g.icache.hit_latency += boundary_cycles;  // decode into the instruction buffer
  sm.int_alu.latency += boundary_cycles;  // two-stage operand dispatch / mirrored requests
  sm.fp_alu.latency += boundary_cycles;
  sm.sfu.latency += boundary_cycles;
  sm.smem_latency += boundary_cycles;
  return g;
}

Pools pools(Scheme scheme, const SmSpec& base) {
  Pools p;
  if (shape(scheme).wide_warps) {  // every CTA spans both SMs: one pool
    p.merged = true;
    p.own = with_merged_capacity(scheme, base);
    return p;
  }
  const Borrowed b = borrowed(scheme, base);
  p.own = base;
  p.borrowed = base;
  p.borrowed.max_warps = b.warps;
  p.borrowed.max_threads = b.threads;
  p.borrowed.registers = b.registers;
  p.borrowed.scratchpad_bytes = b.smem_bytes;
  return p;
}

}  // namespace smshare::crosssm
