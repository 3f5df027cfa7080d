// The host threads a run may tick its SMs on: `smshare run --host-threads N`
// (hw/top/main.cpp) and a sweep spec's `host_threads:` (hw/sweep/sweep_spec.cpp)
// read their count with parse_host_threads, one rule and one range for both.
#pragma once

#include <string>

namespace smshare {

constexpr unsigned kMaxHostThreads = 256;

// Reads a count of host threads: decimal digits only (no sign, space, point
// or exponent: "+2", " 2", "2.0" and "2e0" are not counts), with a value of
// 1 to kMaxHostThreads. Anything else throws the InputError
// "<origin>[: key '<key>']: '<text>' is not a number of host threads
// (allowed: 1 to 256)" -- `origin` is the flag ("--host-threads") or the spec
// file, and `key` the spec's key (empty for a flag).
unsigned parse_host_threads(const std::string& text, const std::string& origin, const std::string& key = "");

}  // namespace smshare
