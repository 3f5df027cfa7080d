// Software prefetch of a byte range, for data the host's caches have
// likely dropped by the time the model reads it (docs/performance.md,
// "Seventeenth round").
#pragma once

#include <cstddef>
#include <cstdint>

namespace smshare {

// The host's cache line (x86-64, and most others).
constexpr uintptr_t kHostLineBytes = 64;

// Asks the host for the cache lines of [p, p + bytes): a hint, nothing
// waits for them, and they need not be mapped. The addresses are computed
// as integers because the range may run past the object or mapping `p`
// points into, where pointer arithmetic would be undefined.
inline void prefetch_lines(const void* p, size_t bytes) {
  const auto begin = reinterpret_cast<uintptr_t>(p);
  for (uintptr_t line = begin & ~(kHostLineBytes - 1); line < begin + bytes; line += kHostLineBytes)
    __builtin_prefetch(reinterpret_cast<const void*>(line));
}

}  // namespace smshare
