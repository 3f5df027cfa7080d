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

}  // namespace
}  // namespace smshare
