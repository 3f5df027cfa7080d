// The front end's random numbers: splitmix64, written out here rather than
// taken from <random>, because the streams must be bit-identical on every
// standard library (std:: distributions are not specified exactly) and cheap
// enough to draw per lane.
#pragma once

#include <cstdint>

namespace smshare {

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed = 0) : state_(seed) {}
  uint64_t next() { return mix64(state_ += 0x9E3779B97F4A7C15ull); }
  // Uniform in [0, 1) with 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n) by multiply-high (bias below 2^-64 * n: irrelevant here).
  uint64_t below(uint64_t n) { return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64); }
  // Geometric on {1, 2, ...} with the given mean (>= 1), by Bernoulli trials
  // rather than log(): libm's log is not bit-identical everywhere. Capped at
  // `cap`; used only while building a kernel, never per instruction.
  uint32_t geometric(double mean, uint32_t cap) {
    const double stop = 1.0 / mean;
    uint32_t d = 1;
    while (d < cap && uniform() >= stop) ++d;
    return d;
  }

 private:
  uint64_t state_;
};

// Independent stream per (seed, a, b): each component goes through the mixer
// so that neighbouring CTAs and warps do not get correlated streams.
inline uint64_t stream_seed(uint64_t seed, uint64_t a, uint64_t b) {
  return mix64(mix64(seed ^ 0x6A09E667F3BCC909ull) ^ mix64(a + 0x3C6EF372FE94F82Bull) ^
               mix64((b << 1) + 0xA54FF53A5F1D36F1ull));
}

}  // namespace smshare
