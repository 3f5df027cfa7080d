// The progress line of `smshare run`: its text, and when it redraws (a fake
// host clock stands in for the steady clock).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "hw/common/progress.hpp"

namespace smshare {
namespace {

ProgressSample sample(uint64_t cycles, uint64_t done, std::optional<uint64_t> total = std::nullopt) {
  ProgressSample s;
  s.cycles = cycles;
  s.warp_instructions = done;
  s.total_warp_instructions = total;
  return s;
}

// A host clock the test sets by hand.
struct FakeClock {
  double now = 100.0;  // any origin: the line counts from construction
  ProgressLine::HostClock clock() {
    return [this] { return now; };
  }
};

TEST(ProgressLine, FormatsCountsShareRateAndTimeLeft) {
  // 62.1% of hotspot's 1.98M: 1.2296M done in 1.2 s is 1.02M/s, and the
  // 0.7504M left take 0.73 s at that rate.
  EXPECT_EQ(ProgressLine::format(sample(111890, 1229600, 1980000), 1.2),
            "112k cycles | 1.23M/1.98M warp-inst (62.1%) | 1.02M warp-inst/s | 1.2 s, ~0.7 s left");
}

TEST(ProgressLine, UnknownTotalShowsNoShareAndNoTimeLeft) {
  EXPECT_EQ(ProgressLine::format(sample(950, 4000), 2.0), "950 cycles | 4.00k warp-inst | 2.00k warp-inst/s | 2.0 s");
}

TEST(ProgressLine, NamesTheKernelOfAStream) {
  ProgressSample s = sample(5000, 500, 2000);
  s.kernel = 2;
  s.kernels = 3;
  EXPECT_EQ(ProgressLine::format(s, 0.5),
            "kernel 2/3 | 5.00k cycles | 500/2.00k warp-inst (25.0%) | 1.00k warp-inst/s | 0.5 s, ~1.5 s left");
  s.kernels = 1;  // a single kernel is not numbered
  EXPECT_EQ(ProgressLine::format(s, 0.5).rfind("5.00k cycles", 0), 0u);
}

TEST(ProgressLine, ShareIsRoundedDownAndDoneHasNoTimeLeft) {
  EXPECT_NE(ProgressLine::format(sample(1, 9999, 10000), 1).find("(99.9%)"), std::string::npos);
  const std::string done = ProgressLine::format(sample(1, 10000, 10000), 1);
  EXPECT_NE(done.find("(100.0%)"), std::string::npos) << done;
  EXPECT_EQ(done.find("left"), std::string::npos) << done;
}

TEST(ProgressLine, CompactNumbersKeepThreeDigitsAcrossUnits) {
  const auto cycles = [](uint64_t n) {
    const std::string line = ProgressLine::format(sample(n, 0), 1);
    return line.substr(0, line.find(" cycles"));
  };
  EXPECT_EQ(cycles(0), "0");
  EXPECT_EQ(cycles(999), "999");
  EXPECT_EQ(cycles(1000), "1.00k");
  EXPECT_EQ(cycles(9996), "10.0k");   // not "10.00k"
  EXPECT_EQ(cycles(99960), "100k");   // not "100.0k"
  EXPECT_EQ(cycles(999499), "999k");
  EXPECT_EQ(cycles(999500), "1.00M");  // not "1000k"
  EXPECT_EQ(cycles(1234567890123), "1.23T");
}

TEST(ProgressLine, ElapsedTimeInSecondsThenMinutesThenHours) {
  const auto elapsed = [](double s) {
    const std::string line = ProgressLine::format(sample(1, 1), s);
    return line.substr(line.rfind("| ") + 2);
  };
  EXPECT_EQ(elapsed(0.04), "0.0 s");
  EXPECT_EQ(elapsed(59.9), "59.9 s");
  EXPECT_EQ(elapsed(125), "2m05s");
  EXPECT_EQ(elapsed(3720), "1h02m");
  // No time has passed: no rate (not a division by zero).
  EXPECT_NE(ProgressLine::format(sample(1, 1), 0).find("| 0 warp-inst/s |"), std::string::npos);
}

TEST(ProgressLine, RedrawsAtMostFourTimesASecond) {
  FakeClock t;
  std::ostringstream out;
  ProgressLine line(out, t.clock());
  EXPECT_FALSE(line.due()) << "a run shorter than the interval draws nothing";
  t.now += 0.2499;
  EXPECT_FALSE(line.due());
  t.now += 0.0001;
  EXPECT_TRUE(line.due());
  line.draw(sample(10, 10));
  EXPECT_FALSE(line.due()) << "due again only an interval after the draw";
  t.now += 0.1;
  EXPECT_FALSE(line.due());
  t.now += 0.15;
  EXPECT_TRUE(line.due());
  // Over ten seconds asked every millisecond: at most 4 redraws a second.
  int draws = 0;
  for (int ms = 0; ms < 10000; ++ms, t.now += 0.001)
    if (line.due()) {
      line.draw(sample(10, 10));
      ++draws;
    }
  EXPECT_GE(draws, 39);
  EXPECT_LE(draws, 40);
}

TEST(ProgressLine, DrawsInPlaceAndBlanksALongerPreviousLine) {
  FakeClock t;
  std::ostringstream out;
  ProgressLine line(out, t.clock());
  t.now += 1;
  line.draw(sample(123456, 1000, 100000));
  const std::string first = out.str();
  ASSERT_EQ(first[0], '\r');
  EXPECT_EQ(first.find('\n'), std::string::npos) << "a redraw must not start a new line";
  EXPECT_EQ(first.substr(1), ProgressLine::format(sample(123456, 1000, 100000), 1));
  out.str("");
  t.now += 1;
  line.draw(sample(5, 5));  // shorter text: padded to the old width
  const std::string second = out.str();
  EXPECT_EQ(second.size(), first.size());
  EXPECT_EQ(second.substr(1, second.find_last_not_of(' ')), ProgressLine::format(sample(5, 5), 2));
}

TEST(ProgressLine, FinishRedrawsTheFinalCountsAndEndsTheLine) {
  FakeClock t;
  std::ostringstream out;
  {
    ProgressLine line(out, t.clock());
    t.now += 0.5;
    line.draw(sample(100, 50, 100));
    t.now += 0.5;
    line.finish(sample(200, 100, 100));
  }  // the destructor adds nothing after finish()
  const std::string text = out.str();
  ASSERT_EQ(text.find('\n'), text.size() - 1) << "exactly one newline, at the end";
  // The last redraw: the final counts, padded over the longer line before ("~0.5 s left").
  const std::string last = text.substr(text.rfind('\r') + 1);
  const std::string final_text = ProgressLine::format(sample(200, 100, 100), 1.0);
  EXPECT_EQ(last.substr(0, final_text.size()), final_text);
  EXPECT_EQ(last.find_first_not_of(' ', final_text.size()), last.size() - 1) << "only blanks before the newline";
}

TEST(ProgressLine, ARunThatNeverDrewWritesNothing) {
  FakeClock t;
  std::ostringstream out;
  {
    ProgressLine line(out, t.clock());
    t.now += 0.1;
    line.finish(sample(1, 1));
  }
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressLine, AnOpenLineIsEndedWhenTheRunThrows) {
  FakeClock t;
  std::ostringstream out;
  {
    ProgressLine line(out, t.clock());
    t.now += 1;
    line.draw(sample(1, 1));
  }  // no finish(): the simulation threw
  ASSERT_FALSE(out.str().empty());
  EXPECT_EQ(out.str().back(), '\n');
}

}  // namespace
}  // namespace smshare
