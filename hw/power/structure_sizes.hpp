// Sizes of the storage structures the power and area models cost: the
// baseline SM's arrays and the structures each paper's mechanism adds, in
// bits, derived from GpuSpec where the paper defines them by a formula
// (Jatala Sec. V, EXPARS Sec. 3.3.7, Zorua Sec. 4.5) and from the papers'
// stated sizes otherwise. Each names the CACTI cfg (cacti-params/<node>/)
// whose per-bit area and leakage and per-access energy it uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/common/gpu_config.hpp"

namespace smshare {

struct SizedStructure {
  std::string name;       // report name (several can share one cfg)
  std::string cfg;        // cacti-params/<node>/<cfg>.cfg, the CACTI model used
  uint64_t bits = 0;      // storage of one instance
  uint32_t per_sm = 1;    // instances per SM
  std::string paper;      // where the size comes from
};

// Structures that are not CACTI arrays, with area taken from a paper.
struct PaperCost {
  std::string name;
  double area_mm2_per_sm = 0;   // averaged per SM (per pair / 2 for pairwise wiring)
  std::string paper;
};

// Parameters of the papers' designs that GpuSpec does not hold.
struct MechanismParams {
  // Zorua Sec. 5.1: 64 logical warps and 16 logical thread blocks per SM;
  // registers mapped in sets of 4 per thread (Sec. 4.5.1), scratchpad in 1 KB sets.
  uint32_t zorua_logical_warps = 64;
  uint32_t zorua_logical_ctas = 16;
  uint32_t zorua_regs_per_set = 4;
  uint32_t zorua_spm_set_bytes = 1024;
  uint32_t max_regs_per_thread = 63;   // Fermi's architectural registers (EXPARS Sec. 3.2)
  // EXPARS Sec. 3.3.7: 2 KB operand cache in 4 banks, 4-way sets.
  uint32_t expars_oc_bytes = 2048;
  uint32_t expars_oc_banks = 4;
  uint32_t expars_oc_ways = 4;
  uint32_t expars_counter_bits = 32;   // LTLWS per-warp instruction counter (4 B)
  // Dhar & Chen Sec. V-A: boundary buffer entries (our assumption, see the cfg).
  uint32_t boundary_buffer_entries = 8;
};

std::vector<std::string> known_mechanisms_for_area();

// The storage the mechanism adds to each SM (empty for baseline). Unknown
// mechanism -> InputError listing the allowed ones.
std::vector<SizedStructure> added_structures(const GpuSpec& spec, const std::string& mechanism,
                                             const MechanismParams& p = {});
// Costs the mechanism's paper gives that CACTI cannot model (wiring, logic).
std::vector<PaperCost> paper_costs(const std::string& mechanism);

// The baseline SM's and memory system's arrays sized from GpuSpec:
// register_file_bank, scratchpad_bank, l1d (per SM), l2_slice (per partition:
// per_sm holds 0 and the GPU-wide count is spec.dram.channels).
std::vector<SizedStructure> baseline_structures(const GpuSpec& spec);

// Bits of one instance of `structure` for `mechanism` on `spec`; 0 if the
// structure is neither baseline nor added by the mechanism.
uint64_t structure_bits(const GpuSpec& spec, const std::string& mechanism, const std::string& structure,
                        const MechanismParams& p = {});

// ceil(log2(n)) for n >= 1 (0 for n == 1), as the papers' bit counts use it.
uint32_t ceil_log2(uint64_t n);

}  // namespace smshare
