// Jatala et al. 2016, Sec. III-C: how many CTAs an SM runs when pairs of
// CTAs share (1 - t) of a CTA's register or scratchpad allocation, and how
// many of them are unshared and how many are shared pairs. Exact integer
// arithmetic: the sharing fraction is held in percent, t = (100 - P)/100, so
// 90 % sharing is t = 1/10 exactly (floating point gives off-by-one CTAs).
#pragma once

#include <cstdint>
#include <string>

namespace smshare::jatala {

// Parses --sharing: a decimal fraction in [0, 0.9] in steps of 0.1 (the
// steps of the paper's Tables V-VIII), e.g. "0.9", ".5", "0.30". Returns the
// percentage (0, 10, ..., 90). Throws InputError naming --sharing otherwise.
uint32_t parse_sharing_percent(const std::string& text);
// The same grammar without throwing: false if `text` is not such a fraction.
bool parse_sharing_fraction(const std::string& text, uint32_t& percent);
// What parse_sharing_fraction accepts, for errors and listings.
extern const char* const kSharingFractions;

// Registers (or bytes) of `units` that stay private at sharing `percent`:
// floor(units * t). Fig. 3 step (c): a register RegNo (1-based) is private
// iff RegNo <= R_w * t, i.e. 0-based index < floor(regs * t).
uint64_t private_units(uint64_t units, uint32_t percent);

struct CtaSplit {
  uint32_t base = 0;          // floor(R / Rtb): CTAs without sharing, Eq. (1)'s S + U
  uint32_t by_sharing = 0;    // M of Eq. (4), capped by 2 * base (every shared CTA needs a partner)
  uint32_t ctas = 0;          // min(by_sharing, cap): resident CTAs
  uint32_t unshared = 0;      // U
  uint32_t shared_pairs = 0;  // S; ctas = U + 2 S (Eq. 3)
};

// Eqs. (1)-(4) for a resource of `R` units and `Rtb` per CTA at sharing
// `percent`, then capped by `cap` (the other limits: threads, CTA slots, warp
// slots, the resource not shared). Rtb == 0 (the CTA does not use the
// resource): no sharing, `cap` CTAs, all unshared.
CtaSplit split_ctas(uint64_t R, uint64_t Rtb, uint32_t percent, uint32_t cap);

}  // namespace smshare::jatala
