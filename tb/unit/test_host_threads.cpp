// parse_host_threads: the one rule by which `smshare run --host-threads N`
// and a sweep spec's `host_threads:` read a count of host threads.
#include <gtest/gtest.h>

#include <string>

#include "hw/common/error.hpp"
#include "hw/common/host_threads.hpp"

namespace smshare {
namespace {

// The message parse_host_threads throws for `text`, or "" when it reads it.
std::string refusal(const std::string& text, const std::string& origin, const std::string& key = "") {
  try {
    parse_host_threads(text, origin, key);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(HostThreads, ReadsDecimalDigitsFromOneToTheMaximum) {
  EXPECT_EQ(parse_host_threads("1", "--host-threads"), 1u);
  EXPECT_EQ(parse_host_threads("2", "--host-threads"), 2u);
  EXPECT_EQ(parse_host_threads("256", "--host-threads"), kMaxHostThreads);
  EXPECT_EQ(parse_host_threads("004", "--host-threads"), 4u);  // leading zeros are digits
  EXPECT_EQ(parse_host_threads("0000000000000000000000256", "--host-threads"), 256u);
}

TEST(HostThreads, RefusesAnythingButDigitsInTheRangeNamingTheFlag) {
  for (const std::string bad : {"+2", "-2", " 2", "2 ", "2x", "0x2", "2.0", "2e0", "two", "", "0", "000", "257",
                                "99999999999999999999999"}) {
    EXPECT_EQ(refusal(bad, "--host-threads"),
              "--host-threads: '" + bad + "' is not a number of host threads (allowed: 1 to 256)")
        << bad;
  }
}

TEST(HostThreads, RefusalNamesTheSpecFileAndKey) {
  EXPECT_EQ(refusal("+2", "sweeps/s.yaml", "host_threads"),
            "sweeps/s.yaml: key 'host_threads': '+2' is not a number of host threads (allowed: 1 to 256)");
}

}  // namespace
}  // namespace smshare
