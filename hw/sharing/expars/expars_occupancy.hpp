// EXPARS (Yu et al. 2018) Sec. 3.3.1 and 3.3.3: how many CTAs an SM runs
// when part of some CTAs' registers live in the scratchpad, which of them
// are all-RF (CTA_RF) and which are mixed (CTA_Mix), and the per-thread
// register index where the scratchpad part starts (Start_Reg).
//
// Eqs. (7)-(9) as printed contradict Eqs. (1)-(2) (docs/expars-reproduction.md
// computes b+tree), so the constraints are solved directly, in exact integer
// arithmetic (tau is held in percent): for N CTAs of which M are mixed, each
// mixed CTA keeping registers [Start_Reg, regs_per_thread) of every thread
// in the scratchpad (s = regs_per_thread - Start_Reg registers per thread),
//   RF:         (N - M) R_CTA + M R_CTA(s) <= R,  R_CTA(s) the allocation of
//               the regs_per_thread - s registers left in the RF (same granularity)
//   tau:        s x threads <= tau R_CTA          (Eq. 2's tau R_CTA, per CTA)
//   scratchpad: N S_CTA + 4 M s x threads <= S    (bytes; a register is 4 B per thread)
//   N <= CTA_Upper (threads, CTA slots, warp slots).
// N is the largest such; for it, M is the fewest mixed CTAs and s the fewest
// registers per thread that satisfy them. When no CTA needs to be mixed the
// result is the baseline's, field for field.
#pragma once

#include <cstdint>
#include <string>

#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel.hpp"
#include "hw/sm/occupancy.hpp"

namespace smshare::expars {

// The paper's tau (Sec. 4.1: 0.8).
inline constexpr uint32_t kPaperTauPercent = 80;
// What --set expars.tau accepts, for errors and listings.
extern const char* const kTauFractions;
// Parses tau: a decimal fraction in [0, 1) in hundredths ("0.8", ".75", "0").
// Returns false if `text` is not one.
bool parse_tau(const std::string& text, uint32_t& percent);

struct Admission {
  Occupancy occupancy;                 // resident CTAs and warps, limits, limited_by
  uint32_t cta_rf = 0;                 // CTAs with every register in the RF (= Start_CTA, Sec. 3.3.3)
  uint32_t cta_mix = 0;                // CTAs with registers >= start_reg in the scratchpad
  uint32_t start_reg = 0;              // first per-thread register index in the scratchpad; regs_per_thread if none
  uint32_t spill_regs_per_cta = 0;     // registers of one mixed CTA in the scratchpad (per-thread count x threads)
  uint32_t spill_bytes_per_cta = 0;    // the same in scratchpad bytes (4 per register)
};

// InputError (naming `origin`) when not one CTA fits (as the baseline) or
// tau_percent is not below 100.
Admission admission(const SmSpec& sm, const KernelResources& k, const std::string& origin, uint32_t tau_percent);

}  // namespace smshare::expars
