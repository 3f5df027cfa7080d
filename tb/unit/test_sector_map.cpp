// SectorMap (hw/sm/sector_map.hpp), the L1's table of fills in flight,
// against std::map: the same answers through growth, collisions, erases
// that shift probe runs back, and pruning.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "hw/sm/sector_map.hpp"

namespace smshare {
namespace {

TEST(SectorMap, AgreesWithStdMapUnderRandomUse) {
  SectorMap<uint64_t> m;
  std::map<uint64_t, uint64_t> ref;
  std::mt19937_64 rng(14);
  // 600 distinct sectors: the table grows past 64 slots and probe runs collide.
  auto key = [&] { return (rng() % 600) * 32; };
  for (int step = 0; step < 200000; ++step) {
    const uint64_t k = key();
    switch (rng() % 4) {
      case 0:
      case 1: {
        const uint64_t v = rng() % 1000;
        m.set(k, v);
        ref[k] = v;
        break;
      }
      case 2:
        m.erase(k);
        ref.erase(k);
        break;
      case 3:
        if (uint64_t* found = m.find(k)) {
          ASSERT_NE(ref.count(k), 0u);
          m.erase_found(found);
          ref.erase(k);
        }
        break;
    }
    if (step % 5000 == 4999) {
      const uint64_t cut = rng() % 1000;
      m.erase_if([cut](uint64_t v) { return v <= cut; });
      for (auto it = ref.begin(); it != ref.end();) it = it->second <= cut ? ref.erase(it) : std::next(it);
    }
    ASSERT_EQ(m.size(), ref.size()) << "step " << step;
    const uint64_t probe = key();
    const uint64_t* found = m.find(probe);
    const auto expected = ref.find(probe);
    ASSERT_EQ(found != nullptr, expected != ref.end()) << "step " << step;
    if (found) {
      ASSERT_EQ(*found, expected->second) << "step " << step;
    }
  }
  for (const auto& [k, v] : ref) {
    const uint64_t* found = m.find(k);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, v);
  }
  m.clear();
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.find(ref.empty() ? 0 : ref.begin()->first), nullptr);
}

// A prune leaves a table sized for what it kept (the L1 probes it at
// random: a table left at its largest size spreads a few live entries over
// lines the host's caches have dropped), and the kept entries are all found.
TEST(SectorMap, EraseIfShrinksTheTableToWhatItKeeps) {
  SectorMap<uint64_t> m;
  EXPECT_EQ(m.slots(), 64u);
  for (uint64_t s = 0; s < 5000; ++s) m.set(s * 32, s);
  EXPECT_EQ(m.slots(), 16384u);  // at most half full
  m.erase_if([](uint64_t v) { return v >= 40; });  // keeps 40
  EXPECT_EQ(m.size(), 40u);
  EXPECT_EQ(m.slots(), 128u);  // the fewest that hold 40 at most half full
  for (uint64_t s = 0; s < 5000; ++s) {
    const uint64_t* found = m.find(s * 32);
    ASSERT_EQ(found != nullptr, s < 40) << "sector " << s;
    if (found) {
      EXPECT_EQ(*found, s);
    }
  }
  m.erase_if([](uint64_t) { return true; });
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.slots(), 64u);  // never below the first table's
  m.set(32, 7);
  ASSERT_NE(m.find(32), nullptr);
  EXPECT_EQ(*m.find(32), 7u);
}

}  // namespace
}  // namespace smshare
