// Bit sets kept as arrays of 64-bit words (member i: bit i % 64 of word
// i / 64), scanned a word at a time: the SM's hot scans over warp slots and
// collector units visit the set members only, in the rotating orders its
// round-robin rules use (a warp scheduler's LRR order, fetch's round robin,
// the operand collectors' reading order).
#pragma once

#include <cstdint>
#include <vector>

namespace smshare {

// The number of set bits, by halves: the portable x86-64 build has no
// POPCNT, and __builtin_popcount / std::bitset::count there are a libgcc
// call costing twice as much.
constexpr uint32_t count_bits(uint32_t v) {
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  return (((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}

// Whether v is a power of two (0 is not).
constexpr bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// ceil(log2(n)): the fewest bits b with 2^b >= n (0 for n <= 1). A table's
// or ring's power-of-two size, a field's width in the papers' bit counts.
constexpr uint32_t ceil_log2(uint64_t n) {
  uint32_t b = 0;
  while ((uint64_t{1} << b) < n) ++b;
  return b;
}

// Words for a set of `size` members: members are below `size`, and set_bit
// is only called with such an i (the scans rely on it).
inline std::vector<uint64_t> bit_words(uint32_t size) { return std::vector<uint64_t>((size + 63) / 64, 0); }

inline void set_bit(std::vector<uint64_t>& words, uint32_t i, bool member) {
  const uint64_t bit = uint64_t{1} << (i % 64);
  uint64_t& word = words[i / 64];
  word = member ? word | bit : word & ~bit;
}

// The first member in [from, to), or `to`.
inline uint32_t first_set_bit(const std::vector<uint64_t>& words, uint32_t from, uint32_t to) {
  for (uint32_t w = from / 64; w * 64 < to; ++w) {
    uint64_t word = words[w];
    if (w == from / 64) word &= ~uint64_t{0} << (from % 64);
    if (word) {
      const uint32_t i = w * 64 + static_cast<uint32_t>(__builtin_ctzll(word));
      return i < to ? i : to;
    }
  }
  return to;
}

// Visits the members of a set of `size` in rotating order from `start`
// ([start, size), then [0, start)) until visit(i) returns true; returns
// whether one did. A visit may remove its own member; a word is read when
// the scan reaches it, so other changes to a word being scanned are not seen.
template <class Visit>
bool visit_set_bits_from(const std::vector<uint64_t>& words, uint32_t size, uint32_t start, Visit&& visit) {
  if (size <= 64) {
    // One word (a scheduler's warps, the collector units): its members from
    // `start` on, then those before, in one loop, so that `visit` is
    // compiled once (a loop for each half paid the visit's register set-up
    // twice; the collectors' reads had a loop like this one of their own).
    // The word is not masked to `size`: a set's members are below its size
    // (set_bit's callers), and the mask cost the collectors' reads about
    // 19 M host instructions on the bench trace.
    const uint64_t word = size == 0 ? 0 : words[0];
    const uint64_t from_start = start < 64 ? ~uint64_t{0} << start : 0;
    uint64_t scan = word & from_start, below = word & ~from_start;
    for (;;) {
      if (scan == 0) {
        if (below == 0) return false;
        scan = below;
        below = 0;
      }
      if (visit(static_cast<uint32_t>(__builtin_ctzll(scan)))) return true;
      scan &= scan - 1;
    }
  }
  auto visit_range = [&](uint32_t from, uint32_t to) {
    for (uint32_t w = from / 64; w * 64 < to; ++w) {
      uint64_t word = words[w];
      if (w == from / 64) word &= ~uint64_t{0} << (from % 64);
      for (; word; word &= word - 1) {
        const uint32_t i = w * 64 + static_cast<uint32_t>(__builtin_ctzll(word));
        if (i >= to) return false;
        if (visit(i)) return true;
      }
    }
    return false;
  };
  return visit_range(start, size) || visit_range(0, start);
}

}  // namespace smshare
