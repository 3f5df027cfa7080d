// Dhar & Chen's cross-SM sharing configurations in the mechanism registry:
// Occ, Bal, BigSM and BigSM_Occ. Not simulated yet: registered for their
// hardware cost (Sec. V-A, VI-A) and static power (Table III), which
// `smshare area` and the energy model read.
#include "hw/sharing/registry.hpp"

namespace smshare::crosssm {
namespace {

// Sec. V-A: boundary buffer entries (our assumption, see the cfg).
constexpr uint32_t kBoundaryBufferEntries = 8;

// What every configuration adds; `merged_simd`: BigSM merges the SIMD units
// of a pair, so an inactive SM's SIMD units stay on.
AddedHardware hardware(const GpuSpec& spec, bool merged_simd) {
  AddedHardware h;
  h.structures.push_back({"boundary_buffer", "boundary_buffer",
                          uint64_t{kBoundaryBufferEntries} * spec.sm.warp_size * 32, 1,
                          "Dhar & Chen, Sec. V-A and VI-A (size assumed)"});
  // Sec. VI-A: wiring 4.71 mm^2 per pair of SMs (no overlap with logic);
  // issue-unit pipelining 0.064 "um^2" per SM (Design Compiler, 45 nm; the
  // unit must be mm^2: 0.064 um^2 is smaller than one transistor).
  h.paper_costs = {
      {"cross_sm_wiring", 4.71 / 2, "Dhar & Chen Sec. VI-A: 4.71 mm^2 per SM pair (CACTI wire model)", true},
      {"issue_pipelining_logic", 0.064, "Dhar & Chen Sec. VI-A: 0.064 mm^2 per SM (synthesized, 45 nm)", false}};
  if (merged_simd) h.gated_units = {"front_end", "ldst", "undiff", "tex_const_cache"};
  h.cross_sm_wiring_static = true;
  return h;
}

MechanismDescriptor descriptor(const char* name, bool merged_simd, const char* description) {
  MechanismDescriptor d;
  d.name = name;
  d.family = "crosssm";
  d.description = description;
  d.hardware = [merged_simd](const GpuSpec& spec, const MechanismSettings&) { return hardware(spec, merged_simd); };
  return d;
}

}  // namespace

void register_mechanisms(MechanismRegistry& registry) {
  registry.add(descriptor("occ", false,
                          "Dhar & Chen, Occ: half the SMs off; each active SM doubles warps, registers, "
                          "scratchpad and L1 with its neighbour's"));
  registry.add(descriptor("bal", false,
                          "Dhar & Chen, Bal: one third of the SMs off, their resources split over two active "
                          "SMs (+50%)"));
  registry.add(descriptor("bigsm", true,
                          "Dhar & Chen, BigSM: pairs of SMs with doubled warp width and merged SIMD units"));
  registry.add(descriptor("bigsm_occ", true, "Dhar & Chen, BigSM_Occ: BigSM and Occ combined"));
}

}  // namespace smshare::crosssm
