// The mechanism registry (hw/sharing/registry.hpp) on its own: a local
// registry with toy entries, so each rule is checked apart from the papers'
// mechanisms; and the process registry's one list.
#include <gtest/gtest.h>

#include <string>

#include "tb/common/input_error_of.hpp"
#include "hw/common/error.hpp"
#include "hw/sharing/registry.hpp"

namespace smshare {
namespace {

using tb::input_error_of;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct ToySettings final : MechanismSettings {
  uint32_t depth = 4;
  bool fast = false;
};

// A family "toy" with two members; `simulated` gives it a factory.
MechanismDescriptor toy(const std::string& name, bool simulated = true) {
  MechanismDescriptor d;
  d.name = name;
  d.family = "toy";
  d.description = "a toy for the registry's tests";
  d.declare_settings = [](ParamTable& t) {
    auto s = std::make_shared<ToySettings>();
    t.add_uint("toy.depth", &s->depth, 1, 16, "queue depth");
    t.add_bool("toy.fast", &s->fast, "skip the queue");
    return s;
  };
  if (simulated) {
    d.occupancy = [](const SmSpec& sm, const KernelResources& k, const std::string& origin,
                     const MechanismSettings&) { return baseline_occupancy(sm, k, origin); };
    d.make = [](const SmSpec& sm, const KernelResources& k, const std::string& origin, const MechanismSettings&,
                uint32_t, std::shared_ptr<KernelSharedState>) {
      return make_default_mechanism(sm, k, origin);
    };
  }
  return d;
}

MechanismDescriptor plain(const std::string& name) {
  MechanismDescriptor d;
  d.name = name;
  d.description = "no settings";
  return d;
}

TEST(MechanismRegistry, DuplicateNameIsRejected) {
  MechanismRegistry r;
  r.add(toy("alpha"));
  const std::string msg = input_error_of([&] { r.add(toy("alpha")); });
  EXPECT_TRUE(has(msg, "'alpha' is registered twice")) << msg;
  EXPECT_EQ(r.names(), std::vector<std::string>{"alpha"});
}

TEST(MechanismRegistry, UnknownMechanismListsTheRegisteredOnes) {
  MechanismRegistry r;
  r.add(toy("alpha"));
  r.add(toy("beta", false));
  const std::string msg = input_error_of([&] { r.at("gamma"); });
  EXPECT_TRUE(has(msg, "--mechanism")) << msg;
  EXPECT_TRUE(has(msg, "'gamma'")) << msg;
  EXPECT_TRUE(has(msg, "known: alpha, beta")) << msg;
  EXPECT_TRUE(has(msg, "run simulates: alpha)")) << msg;
}

TEST(MechanismRegistry, SettingsOfAnotherFamilyAreRejectedNamingItsMechanisms) {
  MechanismRegistry r;
  r.add(plain("base"));
  r.add(toy("alpha"));
  r.add(toy("beta"));
  const std::string msg = input_error_of([&] { r.configure({"base", {"toy.depth=2"}, ""}); });
  EXPECT_TRUE(has(msg, "--set toy.depth")) << msg;
  EXPECT_TRUE(has(msg, "alpha or beta")) << msg;
  EXPECT_TRUE(has(msg, "not 'base'")) << msg;
  EXPECT_TRUE(r.is_mechanism_setting("toy.anything=1"));
  EXPECT_FALSE(r.is_mechanism_setting("sm.registers=1"));
}

TEST(MechanismRegistry, FamilyKeysAreTypedAndUnknownKeysNameTheNearest) {
  MechanismRegistry r;
  r.add(toy("alpha"));
  const ConfiguredMechanism c = r.configure({"alpha", {"toy.depth=8", "toy.fast=true"}, ""});
  EXPECT_EQ(settings_as<ToySettings>(c.settings()).depth, 8u);
  EXPECT_TRUE(settings_as<ToySettings>(c.settings()).fast);
  const std::vector<std::pair<std::string, std::string>> effective = {{"toy.depth", "8"}, {"toy.fast", "true"}};
  EXPECT_EQ(c.effective(), effective);
  std::string msg = input_error_of([&] { r.configure({"alpha", {"toy.dpeth=8"}, ""}); });
  EXPECT_TRUE(has(msg, "unknown key")) << msg;
  EXPECT_TRUE(has(msg, "toy.depth")) << msg;
  msg = input_error_of([&] { r.configure({"alpha", {"toy.depth=17"}, ""}); });
  EXPECT_TRUE(has(msg, "[1, 16]")) << msg;
}

TEST(MechanismRegistry, SharingShorthandNeedsAFamilyWithASharingKey) {
  MechanismRegistry r;
  r.add(toy("alpha"));
  MechanismDescriptor shares = plain("sharer");
  shares.family = "pair";
  shares.declare_settings = [](ParamTable& t) {
    auto s = std::make_shared<ToySettings>();
    t.add_uint("pair.sharing", &s->depth, 0, 9, "shared tenths");
    return s;
  };
  r.add(shares);
  EXPECT_EQ(r.configure({"sharer", {}, "3"}).effective().front().second, "3");
  const std::string msg = input_error_of([&] { r.configure({"alpha", {}, "3"}); });
  EXPECT_TRUE(has(msg, "--sharing: mechanism 'alpha' does not share resources")) << msg;
  EXPECT_TRUE(has(msg, "applies to sharer")) << msg;
  // The shorthand and its key together: refused, whatever the order.
  const std::string both = input_error_of([&] { r.configure({"sharer", {"pair.sharing=5"}, "3"}); });
  EXPECT_TRUE(has(both, "--sharing 3 and --set pair.sharing")) << both;
}

TEST(MechanismRegistry, KeysOutsideTheFamilyAndFactoriesWithoutOccupancyAreRejected) {
  MechanismRegistry r;
  MechanismDescriptor stray = toy("stray");
  stray.family = "other";
  EXPECT_TRUE(has(input_error_of([&] { r.add(stray); }), "outside its family")) << input_error_of([&] { r.add(stray); });
  EXPECT_FALSE(r.contains("stray"));
  MechanismDescriptor blind = toy("blind");
  blind.occupancy = nullptr;
  EXPECT_TRUE(has(input_error_of([&] { r.add(blind); }), "no occupancy calculator"));
}

TEST(MechanismRegistry, CostOnlyMechanismIsRefusedByRunListingTheSimulatedOnes) {
  MechanismRegistry r;
  r.add(toy("alpha"));
  r.add(toy("beta", false));
  const ConfiguredMechanism beta = r.configure({"beta", {}, ""});
  const std::string msg = input_error_of([&] { beta.require_simulated("run"); });
  EXPECT_TRUE(has(msg, "run --mechanism: 'beta'")) << msg;
  EXPECT_TRUE(has(msg, "not simulated yet")) << msg;
  EXPECT_TRUE(has(msg, "accepts: alpha")) << msg;
  EXPECT_NO_THROW(r.configure({"alpha", {}, ""}).require_simulated("run"));
}

// An occupancy calculator without a factory (EXPARS today): occupancy
// accepts it, run refuses it naming what it is registered for.
TEST(MechanismRegistry, OccupancyOnlyMechanismIsAcceptedByOccupancyNotByRun) {
  MechanismRegistry r;
  r.add(toy("alpha"));
  r.add(toy("beta", false));
  MechanismDescriptor gamma = toy("gamma", false);
  gamma.occupancy = [](const SmSpec& sm, const KernelResources& k, const std::string& origin,
                       const MechanismSettings&) { return baseline_occupancy(sm, k, origin); };
  r.add(gamma);
  EXPECT_EQ(r.occupancy_names(), (std::vector<std::string>{"alpha", "gamma"}));
  const ConfiguredMechanism g = r.configure({"gamma", {}, ""});
  EXPECT_NO_THROW(g.require_occupancy("occupancy"));
  const std::string run = input_error_of([&] { g.require_simulated("run"); });
  EXPECT_TRUE(has(run, "registered for its occupancy and hardware cost (smshare occupancy")) << run;
  EXPECT_TRUE(has(run, "accepts: alpha")) << run;
  const std::string occ = input_error_of([&] { r.configure({"beta", {}, ""}).require_occupancy("occupancy"); });
  EXPECT_TRUE(has(occ, "occupancy --mechanism: 'beta' is registered for its hardware cost only")) << occ;
  EXPECT_TRUE(has(occ, "accepts: alpha, gamma")) << occ;
  EXPECT_TRUE(has(r.describe(), "gamma  occupancy")) << r.describe();
}

TEST(MechanismRegistry, DescribeListsEveryMechanismWithItsKeysAndDefaults) {
  MechanismRegistry r;
  r.add(plain("base"));
  r.add(toy("alpha"));
  r.add(toy("beta", false));
  const std::string text = r.describe();
  EXPECT_TRUE(has(text, "base ")) << text;
  EXPECT_TRUE(has(text, "toy.depth = 4")) << text;
  EXPECT_TRUE(has(text, "toy.fast = false")) << text;
  EXPECT_TRUE(has(text, "queue depth (an integer in [1, 16])")) << text;
  // The run column: alpha is simulated, beta is not.
  EXPECT_TRUE(has(text, "alpha  simulated")) << text;
  EXPECT_TRUE(has(text, "beta   cost only")) << text;
}

TEST(MechanismRegistry, TheOneListRegistersThePapersMechanismsInOrder) {
  const std::vector<std::string> expected = {"baseline", "regshare", "spmshare", "zorua", "expars",
                                             "occ",      "bal",      "bigsm",    "bigsm_occ"};
  EXPECT_EQ(mechanism_registry().names(), expected);
  const std::vector<std::string> simulated = {"baseline", "regshare", "spmshare", "zorua", "expars",
                                              "occ",      "bal",      "bigsm",    "bigsm_occ"};
  EXPECT_EQ(mechanism_registry().simulated_names(), simulated);
  const std::vector<std::string> with_formula = {"regshare", "spmshare", "zorua", "expars"};
  EXPECT_EQ(mechanism_registry().names_with_storage_formula(), with_formula);
}

}  // namespace
}  // namespace smshare
