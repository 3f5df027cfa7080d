// EXPARS (Yu et al. 2018) in the mechanism registry: the `expars.*`
// settings, the admission (Sec. 3.3.1, `smshare occupancy`), the factory
// (expars_mechanism.hpp), the structure modules, and the Sec. 3.3.7 storage
// that `smshare area` and the energy model read.
#include "hw/sharing/expars/expars_mechanism.hpp"
#include "hw/sharing/expars/expars_modules.hpp"
#include "hw/sharing/registry.hpp"

namespace smshare::expars {
namespace {

std::shared_ptr<MechanismSettings> declare_settings(ParamTable& table) {
  auto s = std::make_shared<Settings>();
  Settings* m = s.get();
  table.add_custom(
      "expars.tau", kTauFractions,
      [m](const std::string& text) -> std::string {
        return parse_tau(text, m->tau_percent) ? "" : "value '" + text + "' is not " + kTauFractions;
      },
      [m] { return std::to_string(m->tau_percent) + "%"; },
      "Sec. 3.3.1: the largest share of a mixed CTA's registers placed in the scratchpad (paper: 0.8)");
  table.add_uint("expars.operand_cache_bytes", &m->operand_cache_bytes, kWarpRegisterBytes, 1u << 20,
                 "Sec. 3.3.7: operand cache size; a multiple of sm.register_banks x 128 B (paper: 2048)");
  table.add_uint("expars.bundle_instructions", &m->bundle_instructions, 1, 4096,
                 "longest bundle a PREF covers, in instructions (a branch, barrier or exit ends one sooner; "
                 "the paper gives no length)");
  return s;
}

// Sec. 3.3.7 sized for the SM and the settings: the operand cache in one
// bank per register bank; LTLWS keeps a 4 B instruction counter per warp.
constexpr uint32_t kCounterBits = 32;
constexpr uint32_t kMaxRegsPerThread = 63;  // Fermi's architectural registers (Sec. 3.2)

AddedHardware hardware(const GpuSpec& spec, const Settings& s) {
  check_operand_cache(spec.sm, s);  // priced only in a size `run` accepts
  const char* sec = "EXPARS (Yu et al. 2018), Sec. 3.3.7";
  const uint64_t W = spec.sm.max_warps, T = spec.sm.max_ctas;
  const uint32_t banks = spec.sm.register_banks;
  const uint64_t lines = s.operand_cache_bytes / kWarpRegisterBytes;
  AddedHardware h;
  auto& v = h.structures;
  v.push_back({"operand_cache_bank", "operand_cache_bank", uint64_t{s.operand_cache_bytes} * 8 / banks, banks, sec});
  // Tag: warp slot and the whole register index (the cache is fully
  // associative: operand_cache.hpp), valid, dirty: 14 bits on Fermi where
  // the paper's direct mapping needs 10.
  const uint32_t reg_bits = ceil_log2(kMaxRegsPerThread + 1);
  v.push_back({"operand_cache_tags", "operand_cache_tags", lines * (ceil_log2(W) + reg_bits + 2), 1, sec});
  // SBR table (one base address per CTA slot) + Start_CTA, Start_Reg, Max_Reg, Warps_Per_CTA.
  const uint64_t rat = T * ceil_log2(spec.sm.scratchpad_bytes) + ceil_log2(T) + 2 * reg_bits + ceil_log2(W + 1);
  v.push_back({"register_allocation_table", "register_allocation_table", rat, 1, "EXPARS Sec. 3.3.3 and 3.3.7"});
  v.push_back({"prefetch_bitvector_table", "prefetch_bitvector_table", W * kMaxRegsPerThread, 1,
               "EXPARS Sec. 3.3.4 and 3.3.7"});
  v.push_back({"ltlws_counters", "ltlws_counters", W * kCounterBits + ceil_log2(W + 1), 1, sec});
  return h;
}

StorageFormula storage_formula() {
  return {"EXPARS (Yu et al. 2018), Sec. 3.3.7",
          "OC 8 B_OC + tags (B_OC / 128)(ceil(log2 W) + 6 + 2) + RAT (T ceil(log2 S) + ceil(log2 T) + 12 + "
          "ceil(log2(W+1))) + PREF bit vectors 63 W + LTLWS counters (32 W + ceil(log2(W+1))), per SM",
          2};  // the judgement logic's two comparators (Start_CTA, Start_Reg)
}

// gpu.smN.register_allocation_table, gpu.smN.operand_cache and
// gpu.smN.register_prefetcher.
std::vector<std::unique_ptr<MechanismStructureModule>> make_modules(uint32_t sm_id) {
  std::vector<std::unique_ptr<MechanismStructureModule>> modules;
  modules.push_back(std::make_unique<RegisterAllocationTableModule>("register_allocation_table", sm_id));
  modules.push_back(std::make_unique<OperandCacheModule>("operand_cache", sm_id));
  modules.push_back(std::make_unique<RegisterPrefetcherModule>("register_prefetcher", sm_id));
  return modules;
}

}  // namespace

void register_mechanisms(MechanismRegistry& registry) {
  MechanismDescriptor d;
  d.name = "expars";
  d.family = "expars";
  d.description = "EXPARS (Yu et al. 2018): the register file expanded into the scratchpad, with an operand "
                  "cache, a register allocation table and a register prefetcher";
  d.declare_settings = declare_settings;
  d.numbers_registers_by_weight = true;
  d.occupancy = [](const SmSpec& sm, const KernelResources& k, const std::string& origin,
                   const MechanismSettings& s) {
    return admission(sm, k, origin, settings_as<Settings>(s).tau_percent).occupancy;
  };
  d.describe_occupancy = [](const MechanismSettings& s, const SmSpec& sm, const KernelResources& k,
                            const std::string& origin, nlohmann::json& occ) {
    const Admission a = admission(sm, k, origin, settings_as<Settings>(s).tau_percent);
    occ["tau_percent"] = settings_as<Settings>(s).tau_percent;
    occ["cta_rf"] = a.cta_rf;
    occ["cta_mix"] = a.cta_mix;
    occ["start_reg"] = a.start_reg;
    occ["spill_regs_per_mixed_cta"] = a.spill_regs_per_cta;
    occ["spill_bytes_per_mixed_cta"] = a.spill_bytes_per_cta;
  };
  d.make = [](const SmSpec& sm, const KernelResources& k, const std::string& origin, const MechanismSettings& s,
              uint32_t, std::shared_ptr<KernelSharedState>) { return make(sm, k, origin, settings_as<Settings>(s)); };
  d.make_modules = [](const SmSpec&, const MechanismSettings&, uint32_t sm_id) { return make_modules(sm_id); };
  d.hardware = [](const GpuSpec& spec, const MechanismSettings& s) { return hardware(spec, settings_as<Settings>(s)); };
  d.storage_formula = [](const GpuSpec&) { return storage_formula(); };
  registry.add(std::move(d));
}

}  // namespace smshare::expars
