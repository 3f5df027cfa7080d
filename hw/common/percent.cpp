#include "hw/common/percent.hpp"

#include <cctype>

namespace smshare {

bool parse_fraction_percent(const std::string& text, uint32_t& out) {
  // Digits before the point, digits after: exact, no floating point.
  size_t i = 0;
  uint64_t whole = 0;
  bool any = false;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    whole = whole * 10 + static_cast<uint64_t>(text[i++] - '0');
    if (whole > 1) return false;
    any = true;
  }
  uint64_t hundredths = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (int d = 0; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++d, ++i) {
      any = true;
      const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
      if (d == 0) hundredths += 10 * digit;
      else if (d == 1) hundredths += digit;
      else if (digit != 0) return false;
    }
  }
  if (!any || i != text.size()) return false;
  const uint64_t percent = whole * 100 + hundredths;
  if (percent > 100) return false;
  out = static_cast<uint32_t>(percent);
  return true;
}

}  // namespace smshare
