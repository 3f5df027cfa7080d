// Jatala Sec. III-C (Eqs. 1-4) in exact arithmetic: the split into unshared
// CTAs and shared pairs, the --sharing parser, and Tables VI / VIII through
// the mechanisms' occupancy (what `smshare occupancy` prints).
#include <gtest/gtest.h>

#include <algorithm>

#include "../common/jatala_tables.hpp"
#include "hw/common/error.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/sharing/jatala/jatala_occupancy.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sm/mechanism.hpp"

namespace smshare {
namespace {

using jatala::split_ctas;

TEST(JatalaOccupancy, PaperExampleThreeUnsharedBecomeTwoPlusAPair) {
  // Sec. III: 35K units, 10K per CTA, t = 0.5: TB0, TB1 unshared, TB2+TB3 share 15K.
  const auto s = split_ctas(35000, 10000, 50, 8);
  EXPECT_EQ(s.base, 3u);
  EXPECT_EQ(s.ctas, 4u);
  EXPECT_EQ(s.unshared, 2u);
  EXPECT_EQ(s.shared_pairs, 1u);
  // Eq. (2): U Rtb + S Rtb (1 + t) <= R.
  EXPECT_LE(2 * 10000 + 1 * 15000, 35000);
}

TEST(JatalaOccupancy, NinetyPercentIsExactlyOneTenth) {
  // Rtb = 102, R mod Rtb = 51, t Rtb = 10.2: exactly 5 extra CTAs. In double
  // precision 51 / (0.1 * 102) = 4.999999999999999, one CTA short.
  const auto s = split_ctas(10 * 102 + 51, 102, 90, 100);
  EXPECT_EQ(s.base, 10u);
  EXPECT_EQ(s.by_sharing, 15u);
  EXPECT_EQ(s.shared_pairs, 5u);
  EXPECT_EQ(s.unshared, 5u);
  // M is capped by 2 floor(R/Rtb): every shared CTA needs a partner.
  const auto capped = split_ctas(2 * 2048 + 2047, 2048, 90, 100);
  EXPECT_EQ(capped.by_sharing, 4u);
  EXPECT_EQ(capped.unshared, 0u);
  EXPECT_EQ(capped.shared_pairs, 2u);
}

TEST(JatalaOccupancy, CapKeepsEveryCtaPaired) {
  const auto s = split_ctas(32768, 9216, 90, 5);  // hotspot: M = 3 + 5 -> 6, capped at 5
  EXPECT_EQ(s.ctas, 5u);
  EXPECT_EQ(s.shared_pairs, 2u);
  EXPECT_EQ(s.unshared, 1u);
  const auto none = split_ctas(32768, 9216, 0, 8);
  EXPECT_EQ(none.ctas, 3u);
  EXPECT_EQ(none.shared_pairs, 0u);
  const auto below = split_ctas(32768, 9216, 90, 2);  // another limit below floor(R/Rtb): no sharing
  EXPECT_EQ(below.ctas, 2u);
  EXPECT_EQ(below.shared_pairs, 0u);
  EXPECT_EQ(below.unshared, 2u);
}

TEST(JatalaOccupancy, PrivateUnitsFloorRegsTimesT) {
  EXPECT_EQ(jatala::private_units(24, 90), 2u);   // 2.4
  EXPECT_EQ(jatala::private_units(36, 50), 18u);
  EXPECT_EQ(jatala::private_units(40, 0), 40u);
  EXPECT_EQ(jatala::private_units(2180, 90), 218u);
}

TEST(JatalaOccupancy, SharingParserAcceptsTenthsAndRejectsTheRest) {
  EXPECT_EQ(jatala::parse_sharing_percent("0.9"), 90u);
  EXPECT_EQ(jatala::parse_sharing_percent(".5"), 50u);
  EXPECT_EQ(jatala::parse_sharing_percent("0.30"), 30u);
  EXPECT_EQ(jatala::parse_sharing_percent("0"), 0u);
  EXPECT_EQ(jatala::parse_sharing_percent("0.0"), 0u);
  for (const char* bad : {"1", "0.95", "0.91", "-0.1", "", ".", "0.9x", "1.0", "90", "0.05", "nan"}) {
    try {
      jatala::parse_sharing_percent(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--sharing"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("[0, 0.9]"), std::string::npos);
    }
  }
}

TEST(JatalaOccupancy, TablesSixAndEightByTheCalculator) {
  const GpuSpec spec = load_gpu_config("jatala-fermi", {});
  unsigned matched = 0, total = 0;
  for (const auto& row : tb::kJatalaTables) {
    const KernelProfile p = load_kernel_profile(row.kernel);
    for (size_t i = 0; i < tb::kJatalaSharingPercents.size(); ++i) {
      const uint32_t percent = tb::kJatalaSharingPercents[i];
      const Mechanism m = mechanism_registry()
                              .configure({row.registers ? "regshare" : "spmshare", {},
                                          "0." + std::to_string(percent / 10)})  // --sharing 0.P
                              .make(spec.sm, p.resources, p.file);
      const uint32_t got = m.admission->occupancy().ctas_per_sm;
      ++total;
      if (tb::jatala_scratchpad_exception(row.kernel, percent)) {
        EXPECT_EQ(got, tb::kHotspot90ScratchpadLimited) << row.kernel;
        EXPECT_EQ(m.admission->occupancy().limited_by, OccupancyLimit::Scratchpad);
        continue;
      }
      EXPECT_EQ(got, row.ctas[i]) << row.kernel << " at " << percent << " %";
      matched += got == row.ctas[i];
    }
  }
  EXPECT_EQ(total, 90u);
  EXPECT_EQ(matched, 89u);
}

TEST(JatalaOccupancy, HotspotGetsThePrintedSixWithA48KbScratchpad) {
  const GpuSpec spec = load_gpu_config("jatala-fermi", {"sm.scratchpad_bytes=49152"});
  const KernelProfile p = load_kernel_profile("hotspot");
  const ConfiguredMechanism regshare = mechanism_registry().configure({"regshare", {"jatala.sharing=0.9"}, ""});
  EXPECT_EQ(regshare.make(spec.sm, p.resources, p.file).admission->occupancy().ctas_per_sm, 6u);
}

TEST(JatalaOccupancy, SharingFlagIsRejectedForMechanismsThatDoNotShare) {
  EXPECT_THROW(mechanism_registry().configure({"baseline", {}, "0.9"}), InputError);
  EXPECT_NO_THROW(mechanism_registry().configure({"spmshare", {}, "0.9"}));
}

// --sharing P is the shorthand of --set jatala.sharing=P: same values, same effect.
TEST(JatalaOccupancy, SharingFlagIsTheShorthandOfTheSettingsKey) {
  const MechanismRegistry& r = mechanism_registry();
  for (const char* p : {"0", "0.3", ".5", "0.90"}) {
    const auto by_flag = r.configure({"regshare", {}, p}).effective();
    const auto by_key = r.configure({"regshare", {std::string("jatala.sharing=") + p}, ""}).effective();
    EXPECT_EQ(by_flag, by_key) << p;
  }
  const auto defaults = r.configure({"regshare", {}, ""}).effective();
  EXPECT_NE(std::find(defaults.begin(), defaults.end(), std::pair<std::string, std::string>{"jatala.sharing", "90%"}),
            defaults.end());
  for (const char* bad : {"0.95", "1", "abc"}) {
    EXPECT_THROW(r.configure({"regshare", {std::string("jatala.sharing=") + bad}, ""}), InputError) << bad;
    EXPECT_THROW(r.configure({"regshare", {}, bad}), InputError) << bad;
  }
}

// Settings regshare or spmshare would ignore are refused, as in the CLI.
TEST(JatalaOccupancy, SettingsThatWouldBeIgnoredAreRefused) {
  const MechanismRegistry& r = mechanism_registry();
  EXPECT_THROW(r.configure({"spmshare", {"jatala.deadlock_avoidance=false"}, ""}), InputError);
  EXPECT_NO_THROW(r.configure({"regshare", {"jatala.deadlock_avoidance=false"}, ""}));
  EXPECT_THROW(r.configure({"regshare", {"jatala.dwe_step_percent=20"}, ""}), InputError);
  EXPECT_NO_THROW(
      r.configure({"regshare", {"jatala.dynamic_warp_execution=true", "jatala.dwe_step_percent=20"}, ""}));
}

}  // namespace
}  // namespace smshare
