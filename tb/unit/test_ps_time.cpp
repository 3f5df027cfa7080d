// ps_time (hw/mem/ps_time.hpp) must build the sc_time sc_time::from_value
// builds, for every count: through the inline double arithmetic below 2^52
// picoseconds, through from_value above.
#include <gtest/gtest.h>

#include <cstdint>

#include "hw/mem/ps_time.hpp"

namespace smshare {
namespace {

TEST(PsTime, EqualsFromValueOnBothSidesOfTheDoubleLimit) {
  const sc_core::sc_time resolution = sc_core::sc_get_time_resolution();
  ASSERT_EQ(resolution, sc_core::sc_time(1, sc_core::SC_PS));  // SystemC's default, which MemorySystem requires
  constexpr uint64_t kLimit = uint64_t{1} << 52;
  for (uint64_t ps : {uint64_t{0}, uint64_t{1}, uint64_t{714}, uint64_t{399840}, (uint64_t{1} << 40) + 3,
                      kLimit - 1, kLimit, kLimit + 1, (uint64_t{1} << 60) + 7, ~uint64_t{0} >> 1}) {
    EXPECT_EQ(ps_time(ps, resolution).value(), ps) << ps;
    EXPECT_EQ(ps_time(ps, resolution), sc_core::sc_time::from_value(ps)) << ps;
  }
}

}  // namespace
}  // namespace smshare
