// Energy and area from the cached CACTI results (hw/power/cacti_results.hpp)
// and the simulator's activity counters (hw/common/activity.hpp).
//
//   energy of a structure = reads  x E_read  x k + writes x E_write x k
//                         + leakage x (bits needed / bits in the cfg) x instances x simulated time
// where k = CACTI accesses per counted access (a cfg with a narrower block
// than the structure's access needs several), plus the static power of the
// SM units CACTI does not model (Dhar & Chen Table III), less the units of
// power-gated SMs. DRAM uses a per-access energy from the GDDR5 literature.
// See docs/power-area.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/common/activity.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/power/cacti_results.hpp"
#include "hw/power/structure_sizes.hpp"

namespace smshare {

// GTX 480 (GF100, 40 nm) die area. EXPARS's 0.861 mm^2 = 0.163% implies
// 528 mm^2; Zorua's 0.735 mm^2 = 0.134% implies 548 mm^2 (see docs).
inline constexpr double kGtx480DieMm2 = 529.0;

// DRAM energy per bit moved: GDDR5, about 14 pJ/bit including I/O (the figure
// O'Connor et al., MICRO 2017, give for GDDR5; GPUWattch's default GDDR5
// model is of the same order). Not from CACTI. One counted DRAM access moves
// one 128 B line.
inline constexpr double kDramEnergyPerBitJ = 14e-12;
inline constexpr uint32_t kDramAccessBytes = 128;

// Dhar & Chen Table III: static (leakage) power per SM in watts, from GPUSimPow.
struct SmUnitStatic {
  std::string unit;
  double watts;
  bool cacti_modelled;  // true: our CACTI leakage replaces this line (RF, L1D/shared memory)
};
const std::vector<SmUnitStatic>& dhar_chen_table3();
// Units of an inactive SM that are power-gated in Dhar & Chen's schemes:
// front end, SIMD, LDST, undifferentiated logic, texture/constant caches. A
// mechanism that keeps some of them busy declares its own list
// (AddedHardware::gated_units; BigSM merges the SIMD units).
std::vector<std::string> default_gated_units();

struct EnergyOptions {
  std::string node = "40nm";
  std::string mechanism;                // named in the report
  AddedHardware hardware;               // what the mechanism adds (leakage scaling, gating, wiring)
  uint32_t gated_sms = 0;               // SMs power-gated (Dhar & Chen Occ/Bal: inactive SMs)
  std::vector<std::string> gated_units; // empty: hardware.gated_units, else default_gated_units()
  bool sm_unit_static = true;           // add Table III static power of units CACTI does not model
};

// {"energy": {...}, "power": {...}}: per-structure dynamic and leakage energy
// in joules, totals, average power in watts. Unknown structure in
// `activity` -> InputError listing the known ones.
nlohmann::json energy_report(const GpuSpec& spec, const ActivityCounters& activity, double simulated_seconds,
                             const std::string& node = "40nm");
nlohmann::json energy_report(const GpuSpec& spec, const ActivityCounters& activity, double simulated_seconds,
                             const EnergyOptions& options);
nlohmann::json energy_report(const GpuSpec& spec, const ActivityCounters& activity, double simulated_seconds,
                             const EnergyOptions& options, const CactiResults& cacti);

// Area of each structure mechanism `mechanism` adds (`added`), per SM and
// for the GPU, total mm^2 and % of the GTX 480 die; also the baseline arrays
// for scale.
nlohmann::json area_report(const GpuSpec& spec, const std::string& mechanism, const AddedHardware& added,
                           const std::string& node = "40nm");
nlohmann::json area_report(const GpuSpec& spec, const std::string& mechanism, const AddedHardware& added,
                           const CactiResults& cacti);

// Area (mm^2) and leakage (W) of one instance of `bits` bits modelled by `entry`.
double scaled_area_mm2(const CactiEntry& entry, uint64_t bits);
double scaled_leakage_w(const CactiEntry& entry, uint64_t bits);

}  // namespace smshare
