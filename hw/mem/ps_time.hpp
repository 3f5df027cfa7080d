// sc_time from a count of picoseconds (the 1 ps resolution MemorySystem
// requires) on the memory transaction path, where every transaction builds
// two delays (the SM's on the way in, the memory system's on the way out).
//
// sc_time::from_value is out of line in the SystemC library and consults
// the simulation context (~24 host instructions a call). sc_time's inline
// arithmetic scales the resolution instead: through a double, exact for
// every count below 2^52 (about 75 simulated minutes); a larger count
// still goes through from_value, so the value is the same for any count.
#pragma once

#include <cstdint>

#include <systemc>

namespace smshare {

// `resolution` is sc_core::sc_get_time_resolution(), read once by the caller
// (it must be 1 ps for the count to be picoseconds).
inline sc_core::sc_time ps_time(uint64_t ps, const sc_core::sc_time& resolution) {
  constexpr uint64_t kExactBelow = uint64_t{1} << 52;  // a double's integers, +0.5 rounding included
  if (ps >= kExactBelow) return sc_core::sc_time::from_value(ps);
  return resolution * static_cast<double>(ps);
}

}  // namespace smshare
