// Dhar & Chen's four cross-SM configurations as plain arithmetic: which SM
// of the GPU is active, inactive or left alone, whose resources each active
// SM borrows, and the hardware an active SM then has (Sec. IV, V; Fig. 4).
//
// The table the model derives from Sec. IV's prose (the paper's Tables I
// and II did not survive; docs/crosssm-reproduction.md prints it):
//
//   scheme     group  active  borrowed share     resident 32-thread warps  RF, scratchpad, L1  SIMD  CTA slots
//   Occ        pair   1       all of the other   x2                        x2                  x1    baseline
//   Bal        trio   2       half of the third  x1.5                      x1.5                x1    baseline
//   BigSM      pair   1       all of the other   x2 (48 wide warps)        x2                  x2    baseline
//   BigSM_Occ  pair   1       all of the other   x4 (96 wide warps)        x2                  x2    baseline
//
// SMs are grouped in SM order; SMs left over at the end (16 SMs in trios: the
// 16th) stay baseline SMs. The external memory bandwidth of an active SM is
// its own (one LDST unit). Every path that crosses the SM boundary takes
// `boundary_cycles` more (Sec. VI-A: one), and the dummy stages give the
// local path as many, so an active SM's front end (decode into the
// instruction buffer), operand dispatch, SP/SFU results, scratchpad and L1
// are each that much slower; with the bypass every SM is a baseline SM with
// baseline timing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/common/gpu_config.hpp"
#include "hw/sm/mechanism.hpp"

namespace smshare::crosssm {

enum class Scheme : uint8_t { Occ, Bal, BigSm, BigSmOcc };
const char* to_string(Scheme s);  // the mechanism's name: occ, bal, bigsm, bigsm_occ

struct SchemeShape {
  uint32_t group_size;        // SMs per group
  uint32_t actives_per_group;
  uint32_t borrowed_halves;   // of the inactive SM's resources, halves each active SM borrows (2: all, 1: half)
  uint32_t warp_multiplier;   // resident 32-thread warps over the baseline's, in halves (Occ 4 = x2, Bal 3 = x1.5)
  bool wide_warps;            // BigSM: warps two 32-thread halves wide, SIMD units merged
};
SchemeShape shape(Scheme s);

enum class Role : uint8_t { Baseline, Active, Inactive };
const char* to_string(Role r);

// One SM's place in the configuration.
struct Placement {
  Role role = Role::Baseline;
  int32_t neighbour = -1;  // active: the inactive SM it borrows from; inactive: -1
  uint32_t lender_side = 0;  // Bal: which half of the inactive SM it borrows (0: first, 1: second)
};

// Where SM `sm` of `num_sms` sits under `scheme` (bypass: every SM baseline).
Placement place(Scheme scheme, uint32_t num_sms, uint32_t sm, bool bypass);
// Groups formed and SMs of each role, for the report.
struct Layout {
  uint32_t groups = 0, active = 0, inactive = 0, baseline = 0;
};
Layout layout(Scheme scheme, uint32_t num_sms, bool bypass);

// The resources an active SM borrows from its neighbour (the part of a
// baseline SM it gets): warp slots, threads, registers, scratchpad, L1, and
// its share of the neighbour's register banks and operand collectors.
struct Borrowed {
  uint32_t warps = 0, threads = 0, registers = 0, smem_bytes = 0;
  uint32_t register_banks = 0;  // of the neighbour's banks, the ones lent to this SM (Bal: a half each)
  uint32_t oc_units_sp = 0, oc_units_sfu = 0, oc_units_mem = 0;
};
Borrowed borrowed(Scheme scheme, const SmSpec& base);

// InputError (naming `origin` and the key) unless an SM `sm` (with L1
// `l1`, when given) can be split as `scheme` lends it: Bal lends half of the
// middle SM's warp slots, threads, registers, scratchpad, register banks,
// operand collectors and L1 ways to each neighbour, so each must be even.
void check_lendable(Scheme scheme, const SmSpec& sm, const CacheSpec* l1, const std::string& origin);

// The active SM's hardware: `base` with the borrowed resources merged, the
// wide SIMD of BigSM, and every crossing path (and its dummy-stage twin)
// `boundary_cycles` longer.
GpuSpec active_spec(Scheme scheme, const GpuSpec& base, uint32_t boundary_cycles);

// The CTA pools of an active SM: its own (a baseline SM's resources) and the
// borrowed one (Occ, Bal: a CTA lives wholly in one, its warps' registers and
// collectors on that SM). BigSM splits every CTA over both SMs (the halves of
// its wide warps), so it has one merged pool: `merged` is true and `own` is
// the whole (`borrowed` then unused). CTA slots are the baseline's, shared.
struct Pools {
  bool merged = false;
  SmSpec own, borrowed;
};
Pools pools(Scheme scheme, const SmSpec& base);

}  // namespace smshare::crosssm
