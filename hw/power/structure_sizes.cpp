#include "hw/power/structure_sizes.hpp"

namespace smshare {

std::vector<SizedStructure> baseline_structures(const GpuSpec& spec) {
  const char* src = "GpuSpec (Fermi GTX 480: GPGPU-Sim config, papers' Table 1/2)";
  return {
      {"register_file_bank", "register_file_bank", uint64_t{spec.sm.registers} * 32 / spec.sm.register_banks,
       spec.sm.register_banks, src},
      {"scratchpad_bank", "scratchpad_bank", uint64_t{spec.sm.scratchpad_bytes} * 8 / spec.sm.scratchpad_banks,
       spec.sm.scratchpad_banks, src},
      {"l1d", "l1d", uint64_t{spec.l1.size_bytes} * 8, 1, src},
      {"l2_slice", "l2_slice", uint64_t{spec.l2.size_bytes} * 8 / spec.dram.channels, 0, src},
  };
}

uint64_t structure_bits(const GpuSpec& spec, const AddedHardware& added, const std::string& structure) {
  for (const auto& s : baseline_structures(spec))
    if (s.name == structure) return s.bits;
  for (const auto& s : added.structures)
    if (s.name == structure) return s.bits;
  return 0;
}

}  // namespace smshare
