// Sizes of the storage structures the power and area models cost: the
// baseline SM's arrays, sized from GpuSpec, and the hardware a mechanism
// adds, which the mechanism declares in its registry entry
// (hw/sharing/<paper>/, AddedHardware below). Each structure names the CACTI
// cfg (cacti-params/<node>/) whose per-bit area and leakage and per-access
// energy it uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/common/bit_words.hpp"  // ceil_log2, for the mechanisms' bit counts
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
  bool pairwise = false;        // exists only between complete pairs of SMs (cross-SM wiring)
};

// What a mechanism adds to the GPU, for the area and energy models.
struct AddedHardware {
  std::vector<SizedStructure> structures;  // storage per SM, costed with CACTI
  std::vector<PaperCost> paper_costs;      // wiring and logic CACTI cannot model
  // Units of a power-gated SM that are gated (Dhar & Chen Table III names);
  // empty: default_gated_units() (hw/power/power_model.hpp).
  std::vector<std::string> gated_units;
  // SMs whose gated_units are off in this configuration (Dhar & Chen's inactive SMs).
  uint32_t gated_sms = 0;
  // Every SM pays Table III's "additional wiring" static power (cross-SM sharing).
  bool cross_sm_wiring_static = false;
};

// The baseline SM's and memory system's arrays sized from GpuSpec:
// register_file_bank, scratchpad_bank, l1d (per SM), l2_slice (per partition:
// per_sm holds 0 and the GPU-wide count is spec.dram.channels).
std::vector<SizedStructure> baseline_structures(const GpuSpec& spec);

// Bits of one instance of `structure` on `spec`, a baseline array or one the
// mechanism adds (`added`); 0 if neither.
uint64_t structure_bits(const GpuSpec& spec, const AddedHardware& added, const std::string& structure);

}  // namespace smshare
