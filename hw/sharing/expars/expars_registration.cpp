// EXPARS (Yu et al. 2018) in the mechanism registry. Not simulated yet:
// registered for its admission (Sec. 3.3.1, `smshare occupancy`, with the
// `expars.tau` setting) and its hardware cost (Sec. 3.3.7), which `smshare
// area` and the energy model read.
#include "hw/sharing/expars/expars_occupancy.hpp"
#include "hw/sharing/registry.hpp"

namespace smshare::expars {
namespace {

struct Settings final : MechanismSettings {
  uint32_t tau_percent = kPaperTauPercent;
};

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
  return s;
}

// Sec. 3.3.7: 2 KB operand cache in 4 banks, 4-way sets; LTLWS keeps a 4 B
// instruction counter per warp.
constexpr uint32_t kOperandCacheBytes = 2048;
constexpr uint32_t kOperandCacheBanks = 4;
constexpr uint32_t kOperandCacheWays = 4;
constexpr uint32_t kCounterBits = 32;
constexpr uint32_t kMaxRegsPerThread = 63;  // Fermi's architectural registers (Sec. 3.2)

AddedHardware hardware(const GpuSpec& spec) {
  const char* sec = "EXPARS (Yu et al. 2018), Sec. 3.3.7";
  const uint64_t W = spec.sm.max_warps, T = spec.sm.max_ctas;
  const uint64_t line_bits = uint64_t{spec.sm.warp_size} * 32;
  const uint64_t lines = uint64_t{kOperandCacheBytes} * 8 / line_bits;
  const uint64_t sets = lines / kOperandCacheWays;
  AddedHardware h;
  auto& v = h.structures;
  v.push_back({"operand_cache_bank", "operand_cache_bank", uint64_t{kOperandCacheBytes} * 8 / kOperandCacheBanks,
               kOperandCacheBanks, sec});
  // Tag: warp id, the Reg# bits above the bank and set bits, valid, dirty (10 bits on Fermi).
  const uint32_t reg_bits = ceil_log2(kMaxRegsPerThread + 1);
  const uint32_t tag_bits = ceil_log2(W) + (reg_bits - ceil_log2(kOperandCacheBanks) - ceil_log2(sets)) + 2;
  v.push_back({"operand_cache_tags", "operand_cache_tags", lines * tag_bits, 1, sec});
  // SBR table (one base address per CTA slot) + Start_CTA, Start_Reg, Max_Reg, Warps_Per_CTA.
  const uint64_t rat = T * ceil_log2(spec.sm.scratchpad_bytes) + ceil_log2(T) + 2 * reg_bits + ceil_log2(W + 1);
  v.push_back({"register_allocation_table", "register_allocation_table", rat, 1, "EXPARS Sec. 3.3.3 and 3.3.7"});
  v.push_back({"prefetch_bitvector_table", "prefetch_bitvector_table", W * kMaxRegsPerThread, 1,
               "EXPARS Sec. 3.3.4 and 3.3.7"});
  v.push_back({"ltlws_counters", "ltlws_counters", W * kCounterBits + ceil_log2(W + 1), 1, sec});
  return h;
}

}  // namespace

void register_mechanisms(MechanismRegistry& registry) {
  MechanismDescriptor d;
  d.name = "expars";
  d.family = "expars";
  d.description = "EXPARS (Yu et al. 2018): the register file expanded into the scratchpad, with an operand "
                  "cache, a register allocation table and a register prefetcher";
  d.declare_settings = declare_settings;
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
  d.hardware = hardware;
  registry.add(std::move(d));
}

}  // namespace smshare::expars
