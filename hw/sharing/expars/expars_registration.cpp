// EXPARS (Yu et al. 2018) in the mechanism registry. Not simulated yet:
// registered for its hardware cost (Sec. 3.3.7), which `smshare area` and
// the energy model read.
#include "hw/sharing/registry.hpp"

namespace smshare::expars {
namespace {

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
  d.hardware = hardware;
  registry.add(std::move(d));
}

}  // namespace smshare::expars
