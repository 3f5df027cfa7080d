// A decimal fraction read exactly as a whole percentage ("0.8" -> 80), for
// settings whose arithmetic must not round (Jatala's sharing fraction,
// EXPARS's tau): 0.9 in binary floating point is not 9/10, and one CTA more
// or less is the whole result of an occupancy calculator.
#pragma once

#include <cstdint>
#include <string>

namespace smshare {

// Parses "[digits][.digits]" (at least one digit; "0.8", ".5", "0.30", "1")
// whose value is a whole number of hundredths; digits past the second
// decimal must be zeros. Stores the percentage; false (nothing stored) on
// anything else, including values above 100 %.
bool parse_fraction_percent(const std::string& text, uint32_t& percent);

}  // namespace smshare
