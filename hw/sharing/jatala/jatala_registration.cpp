// regshare and spmshare in the mechanism registry: the `jatala.*` settings,
// the checks of settings that one of them would ignore, the occupancy
// calculator (Sec. III-C), the factory, the structure modules, and the
// Sec. V storage (hw-cost, area, energy).
#include <algorithm>

#include "hw/common/error.hpp"
#include "hw/sharing/jatala/dwe_module.hpp"
#include "hw/sharing/jatala/jatala_mechanism.hpp"
#include "hw/sharing/jatala/jatala_occupancy.hpp"
#include "hw/sharing/jatala/lock_array_module.hpp"
#include "hw/sharing/jatala/pair_table_module.hpp"

namespace smshare::jatala {
namespace {

constexpr const char* kFamily = "jatala";
constexpr const char* kSecV = "Jatala et al. 2016, Sec. V";

const char* name_of(Resource r) { return r == Resource::Registers ? "regshare" : "spmshare"; }

std::shared_ptr<MechanismSettings> declare_settings(ParamTable& table) {
  auto s = std::make_shared<Settings>();
  Settings* m = s.get();
  table.add_custom(
      "jatala.sharing", "0, 0.1, ..., 0.9; shown in percent",
      [m](const std::string& text) -> std::string {
        return parse_sharing_fraction(text, m->sharing_percent) ? "" : "value '" + text + "' is not " + kSharingFractions;
      },
      [m] { return std::to_string(m->sharing_percent) + "%"; },
      "shared fraction P = 1 - t of a CTA's registers or scratchpad (--sharing P is the shorthand)");
  table.add_bool("jatala.dynamic_warp_execution", &m->dynamic_warp_execution,
                 "Jatala Sec. IV-C: SM0-referenced throttling of non-owner memory instructions");
  table.add_bool("jatala.deadlock_avoidance", &m->deadlock_avoidance,
                 "Jatala Sec. III-A lock rule (false only to demonstrate the Fig. 5 deadlock)");
  table.add_uint("jatala.dwe_period_cycles", &m->dwe_period_cycles, 1, 1000000,
                 "dynamic warp execution monitoring period (paper: 1000)");
  table.add_uint("jatala.dwe_step_percent", &m->dwe_step_percent, 1, 100,
                 "dynamic warp execution probability step in percent (paper: p = 0.1)");
  return s;
}

// A setting that would be ignored is a mistake in the command, not a default.
void validate(Resource r, const MechanismSettings& base, const std::vector<std::string>& given) {
  const Settings& s = settings_as<Settings>(base);
  auto was_given = [&](const char* key) { return std::find(given.begin(), given.end(), key) != given.end(); };
  if (was_given("jatala.deadlock_avoidance") && r != Resource::Registers)
    throw InputError(std::string("--set jatala.deadlock_avoidance: the Sec. III-A rule is about register locks; it "
                                 "applies to --mechanism regshare, not '") + name_of(r) + "'");
  if ((was_given("jatala.dwe_period_cycles") || was_given("jatala.dwe_step_percent")) && !s.dynamic_warp_execution)
    throw InputError("--set jatala.dwe_*: set only with --set jatala.dynamic_warp_execution=true, which they tune");
}

// Sec. V: a sharing-mode bit per SM and a partner id per CTA slot; owner and
// sharing-mode bits per warp (registers) or per CTA (scratchpad); a lock per
// pair of warps (registers) or of CTAs (scratchpad).
AddedHardware hardware(Resource r, const GpuSpec& spec) {
  const uint64_t W = spec.sm.max_warps, T = spec.sm.max_ctas;
  AddedHardware h;
  auto& v = h.structures;
  v.push_back({"partner_id_table", "partner_id_table", 1 + T * ceil_log2(T + 1), 1, kSecV});
  if (r == Resource::Registers) {
    v.push_back({"owner_bits", "owner_bits", 2 * W, 1, kSecV});
    v.push_back({"lock_array_register", "lock_array_register", (W / 2) * ceil_log2(W), 1, kSecV});
  } else {
    v.push_back({"owner_bits", "owner_bits", W, 1, kSecV});
    v.push_back({"lock_array_scratchpad", "lock_array_scratchpad", (T / 2) * ceil_log2(T), 1, kSecV});
  }
  return h;
}

// gpu.smN.lock_array and gpu.smN.pair_table, probed for every pair an SM
// could form (sm.max_ctas / 2: the pairs a kernel forms depend on its
// footprint, unknown at elaboration), and gpu.smN.dynamic_warp_execution
// when it is on.
std::vector<std::unique_ptr<MechanismStructureModule>> make_modules(Resource r, const SmSpec& sm,
                                                                    const Settings& s, uint32_t sm_id) {
  const uint32_t pairs = sm.max_ctas / 2;
  std::vector<std::unique_ptr<MechanismStructureModule>> modules;
  modules.push_back(std::make_unique<LockArrayModule>("lock_array", r, pairs, sm_id));
  modules.push_back(std::make_unique<PairTableModule>("pair_table", pairs, sm_id));
  if (s.dynamic_warp_execution) modules.push_back(std::make_unique<DweModule>("dynamic_warp_execution", sm_id));
  return modules;
}

StorageFormula storage_formula(Resource r) {
  return {kSecV,
          r == Resource::Registers ? "(1 + T ceil(log2(T+1)) + 2W + floor(W/2) ceil(log2 W)) x N"
                                   : "(1 + T ceil(log2(T+1)) + W + floor(T/2) ceil(log2 T)) x N",
          2};
}

MechanismDescriptor descriptor(Resource r, std::string description) {
  MechanismDescriptor d;
  d.name = name_of(r);
  d.family = kFamily;
  d.description = std::move(description);
  d.declare_settings = declare_settings;
  d.validate = [r](const MechanismSettings& s, const std::vector<std::string>& given) { validate(r, s, given); };
  d.occupancy = [r](const SmSpec& sm, const KernelResources& k, const std::string& origin,
                    const MechanismSettings& s) {
    return sharing_occupancy(r, sm, k, origin, settings_as<Settings>(s).sharing_percent);
  };
  d.describe_occupancy = [](const MechanismSettings& s, const SmSpec&, const KernelResources&, const std::string&,
                            nlohmann::json& occ) {
    occ["sharing_percent"] = settings_as<Settings>(s).sharing_percent;
  };
  d.make = [r](const SmSpec& sm, const KernelResources& k, const std::string& origin, const MechanismSettings& s,
               uint32_t sm_id, std::shared_ptr<KernelSharedState> shared) {
    return make(r, sm, k, origin, settings_as<Settings>(s), sm_id, std::move(shared));
  };
  d.make_kernel_shared_state = make_shared_state;
  d.make_modules = [r](const SmSpec& sm, const MechanismSettings& s, uint32_t sm_id) {
    return make_modules(r, sm, settings_as<Settings>(s), sm_id);
  };
  d.hardware = [r](const GpuSpec& spec, const MechanismSettings&) { return hardware(r, spec); };
  d.storage_formula = [r](const GpuSpec&) { return storage_formula(r); };
  return d;
}

}  // namespace

void register_mechanisms(MechanismRegistry& registry) {
  registry.add(descriptor(Resource::Registers,
                          "Jatala et al. 2016, Sec. III-A: pairs of CTAs share (1 - t) of a CTA's registers, "
                          "held by a lock per warp pair"));
  registry.add(descriptor(Resource::Scratchpad,
                          "Jatala et al. 2016, Sec. III-B: pairs of CTAs share (1 - t) of a CTA's scratchpad, "
                          "held by a lock per CTA pair"));
}

}  // namespace smshare::jatala
