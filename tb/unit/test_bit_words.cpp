// The word-at-a-time scans of bit_words.hpp must give what a plain loop over
// the members gives, across word boundaries and for every rotation start.
#include "hw/common/bit_words.hpp"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

namespace smshare {
namespace {

TEST(BitWords, ScansMatchAPlainLoopForEveryStart) {
  std::mt19937 rng(7);
  for (uint32_t size : {1u, 24u, 63u, 64u, 65u, 130u}) {
    std::vector<bool> member(size);
    std::vector<uint64_t> words = bit_words(size);
    for (uint32_t i = 0; i < size; ++i) {
      member[i] = rng() % 3 == 0;
      set_bit(words, i, member[i]);
    }
    for (uint32_t start = 0; start <= size; ++start) {
      uint32_t first = size;
      for (uint32_t i = start; i < size && first == size; ++i)
        if (member[i]) first = i;
      EXPECT_EQ(first_set_bit(words, start, size), first) << "size " << size << " from " << start;

      std::vector<uint32_t> expected, visited;
      for (uint32_t k = 0; k < size; ++k) {
        const uint32_t i = (start + k) % size;
        if (member[i]) expected.push_back(i);
      }
      EXPECT_FALSE(visit_set_bits_from(words, size, start, [&](uint32_t i) {
        visited.push_back(i);
        return false;
      }));
      EXPECT_EQ(visited, expected) << "size " << size << " start " << start;
    }
  }
}

TEST(BitWords, VisitStopsAtTheFirstTrueAndMayRemoveItsOwnMember) {
  std::vector<uint64_t> words = bit_words(100);
  for (uint32_t i : {3u, 70u, 90u}) set_bit(words, i, true);
  std::vector<uint32_t> visited;
  EXPECT_TRUE(visit_set_bits_from(words, 100, 80, [&](uint32_t i) {
    visited.push_back(i);
    set_bit(words, i, false);
    return i == 3;
  }));
  EXPECT_EQ(visited, (std::vector<uint32_t>{90, 3}));
  EXPECT_EQ(first_set_bit(words, 0, 100), 70u);
  EXPECT_EQ(first_set_bit(words, 71, 100), 100u);
  EXPECT_EQ(first_set_bit(words, 0, 70), 70u);  // `to` when none in range
}

// The power-of-two helpers every size computation shares (cache geometry,
// SectorMap's table, ResultCycles' ring, the papers' bit counts).
TEST(BitWords, PowersOfTwoAndCeilLog2) {
  EXPECT_FALSE(is_power_of_two(0));
  EXPECT_TRUE(is_power_of_two(1));
  EXPECT_TRUE(is_power_of_two(uint64_t{1} << 40));
  EXPECT_FALSE(is_power_of_two(96));
  const std::pair<uint64_t, uint32_t> cases[] = {{0, 0}, {1, 0},  {2, 1},  {3, 2},        {4, 2},
                                                 {5, 3}, {32, 5}, {33, 6}, {1024, 10},
                                                 {(uint64_t{1} << 40) + 1, 41}};
  for (const auto& [n, bits] : cases) EXPECT_EQ(ceil_log2(n), bits) << n;
  // The definition, for every n up to 4,096: 2^b >= n > 2^(b-1).
  for (uint64_t n = 2; n <= 4096; ++n) {
    const uint32_t b = ceil_log2(n);
    EXPECT_GE(uint64_t{1} << b, n);
    EXPECT_LT(uint64_t{1} << (b - 1), n);
  }
}

}  // namespace
}  // namespace smshare
