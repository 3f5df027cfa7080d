#include "hw/sharing/jatala/jatala_occupancy.hpp"

#include <algorithm>

#include "hw/common/error.hpp"
#include "hw/common/percent.hpp"

namespace smshare::jatala {

const char* const kSharingFractions =
    "a sharing fraction in [0, 0.9] in steps of 0.1 (0, 0.1, ..., 0.9; P = 1 - t of Jatala et al.)";

bool parse_sharing_fraction(const std::string& text, uint32_t& out) {
  uint32_t percent = 0;
  if (!parse_fraction_percent(text, percent) || percent > 90 || percent % 10 != 0) return false;
  out = percent;
  return true;
}

uint32_t parse_sharing_percent(const std::string& text) {
  uint32_t percent = 0;
  if (!parse_sharing_fraction(text, percent))
    throw InputError("--sharing: '" + text + "' is not " + kSharingFractions);
  return percent;
}

uint64_t private_units(uint64_t units, uint32_t percent) { return units * (100 - percent) / 100; }

CtaSplit split_ctas(uint64_t R, uint64_t Rtb, uint32_t percent, uint32_t cap) {
  CtaSplit s;
  if (Rtb == 0) {
    s.base = s.by_sharing = s.ctas = s.unshared = cap;
    return s;
  }
  const uint64_t base = R / Rtb;
  // Eq. (4): M = floor(R/Rtb) + floor((R mod Rtb) / (t Rtb)), t = (100 - P)/100:
  // (R mod Rtb) / (t Rtb) = 100 (R mod Rtb) / ((100 - P) Rtb).
  const uint64_t extra = (R % Rtb) * 100 / ((100 - uint64_t{percent}) * Rtb);
  const uint64_t m = std::min(base + extra, 2 * base);
  s.base = static_cast<uint32_t>(std::min<uint64_t>(base, UINT32_MAX));
  s.by_sharing = static_cast<uint32_t>(std::min<uint64_t>(m, UINT32_MAX));
  s.ctas = std::min(s.by_sharing, cap);
  s.shared_pairs = s.ctas > s.base ? s.ctas - s.base : 0;
  s.unshared = s.ctas - 2 * s.shared_pairs;
  return s;
}

}  // namespace smshare::jatala
