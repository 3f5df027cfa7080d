// The range of host threads a run may tick its SMs on: `smshare run
// --host-threads N` (hw/top/main.cpp) and a sweep spec's `host_threads:`
// (hw/sweep/sweep_spec.cpp) accept 1 to kMaxHostThreads, one range for both.
#pragma once

namespace smshare {

constexpr unsigned kMaxHostThreads = 256;

}  // namespace smshare
