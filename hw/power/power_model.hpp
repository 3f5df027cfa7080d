// Energy and area from the cached CACTI results (hw/power/cacti_results.hpp)
// and the simulator's activity counters (hw/common/activity.hpp).
//
//   energy of a structure = reads  x E_read  x k + writes x E_write x k
//                         + leakage x (bits needed / bits in the cfg) x instances x simulated time
// where k = CACTI accesses per counted access (a cfg with a narrower block
// than the structure's access needs several), plus the static power of the
// SM units CACTI does not model (Dhar & Chen Table III), less the units of
// power-gated SMs, plus the pipeline's dynamic energy per event (SP/SFU lanes
// from GPUWattch, the front end, scheduler, scoreboard, collectors and
// coalescer as CACTI arrays, flits on CACTI's wire model; PipelineActivity).
// DRAM uses a per-line energy from the GDDR5 literature.
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

// DRAM energy per counted access (one 128 B line read or written, I/O
// included): 16 nJ, "DRAM read/write (for an entire cache line) 16000 pJ" in
// the energy budget of a GDDR5 GPU chip (Kepler/Maxwell, 28 nm) tabulated in
// BMC Bioinformatics 19:421 (2018), Table 7, after Keckler/Dally. The 14 pJ/bit
// once cited here to O'Connor et al. (MICRO 2017) could not be read in the
// source (docs/power-area.md, "DRAM"). Not from CACTI.
inline constexpr double kDramEnergyPerLineJ = 16000e-12;
inline constexpr uint32_t kDramAccessBytes = 128;

// Average length of an interconnect wire: the mean Manhattan distance
// between two points placed independently and uniformly on a square die of
// kGtx480DieMm2, 2/3 of its side (an SM and a memory partition anywhere on
// the die; the crossbar's own layout is not modelled). 15.33 mm.
double icnt_average_wire_mm();

// Pipeline events the SMs and the interconnect count, summed over the GPU:
// what the per-event dynamic energy of the pipeline is charged on (see
// pipeline_energy_components()). Derived from counters the SMs and the memory
// system keep anyway; the scheduler's cycles are the SMs' active cycles.
struct PipelineActivity {
  uint64_t warp_instructions = 0;     // decoded into the instruction buffer, issued, checked against the scoreboard
  uint64_t scheduler_cycles = 0;      // cycles a warp scheduler ran: SM active cycles x sm.num_schedulers
  uint64_t scoreboard_updates = 0;    // destination bits set at issue and cleared at writeback: 2 x register writes
  uint64_t collector_dispatches = 0;  // instructions that went through an operand collector (all but barrier/exit)
  uint64_t operand_reads = 0;         // register operands read into collectors (register file bank reads)
  uint64_t int_alu_thread_ops = 0;    // active lanes of issued IntAlu instructions
  uint64_t fp_thread_ops = 0;         // ... FpAlu
  uint64_t sfu_thread_ops = 0;        // ... Sfu
  uint64_t memory_thread_ops = 0;     // ... global, local and shared loads and stores (one address each)
  uint64_t global_transactions = 0;   // coalesced line requests of global/local accesses
  uint64_t icnt_flits = 0;            // flits the SMs send (write data) and receive (read data)
};

// One pipeline component's per-event dynamic energy and where it comes from.
struct PipelineComponent {
  std::string name;                        // key under energy.pipeline.components
  std::string event;                       // what one event is
  uint64_t PipelineActivity::*events;      // its count
  double energy_per_event_j;               // at the report's node
  std::string source;
};
// The components at `node` ("40nm" or "32nm"; anything else -> InputError
// naming the allowed nodes), with `cacti`'s arrays and wires. SP/SFU lane
// energies: GPUWattch's functional-unit model (gpgpu-sim
// src/gpuwattch/logic.cc) with gpuwattch_gtx480.xml's scaling coefficients,
// at the node's Vdd and McPAT's short-circuit coefficient; the address
// generation of the LDST unit is one integer ALU add per thread. The front
// end, scheduler, scoreboard, collectors and coalescer are CACTI arrays, as
// McPAT models them (instruction_buffer, scheduler_readiness_table,
// scoreboard, operand_collector_storage, coalescer_pending_requests cfgs);
// a flit is CACTI's repeated global wire over icnt_average_wire_mm() for each
// of the spec's icnt.bytes_per_cycle x 8 bits. A cache without one of those
// arrays or wire models -> InputError naming its file.
std::vector<PipelineComponent> pipeline_energy_components(const GpuSpec& spec, const std::string& node,
                                                          const CactiResults& cacti);
std::vector<PipelineComponent> pipeline_energy_components(const GpuSpec& spec, const std::string& node);

// Energy of `reads` reads and `writes` writes of one counted access of `e`
// (CACTI's per-access energies x accesses_per_access()).
double cacti_access_j(const CactiEntry& e, double reads, double writes);

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
// With the pipeline's events (the forms above cost none: every component is
// listed with zero events).
nlohmann::json energy_report(const GpuSpec& spec, const ActivityCounters& activity, const PipelineActivity& pipeline,
                             double simulated_seconds, const EnergyOptions& options);
nlohmann::json energy_report(const GpuSpec& spec, const ActivityCounters& activity, const PipelineActivity& pipeline,
                             double simulated_seconds, const EnergyOptions& options, const CactiResults& cacti);

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
