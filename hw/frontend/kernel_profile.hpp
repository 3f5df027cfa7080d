// A kernel profile: the statistical description of one kernel from the
// papers' tables (resources as printed, instruction mix and access patterns as
// our estimates), read from configs/kernels/<name>.yaml. The profile
// generator (profile_kernel.hpp) turns it into warp instruction streams.
//
// YAML schema (every key validated; unknown keys are errors; full reference
// with ranges in docs/kernel-profiles.md):
//
//   name: hotspot                     # required, free text (usually the file stem)
//   description: ...                  # where the numbers come from
//   bound: compute                    # required: compute | memory
//   grid_ctas: 420                    # [1, 2^31)   CTAs in the (scaled-down) grid
//   threads_per_cta: 256              # [1, 2048]
//   regs_per_thread: 36               # [1, 255]
//   smem_bytes_per_cta: 3072          # [0, 1 MiB]
//   instructions_per_warp: 1200       # [1, 1e9]    dynamic, barriers included
//   static_instructions: 256          # [8, 65536]  minimum loop body length (default 256)
//   seed: 1                           # any uint64
//   mix: {int_alu, fp_alu, sfu, global_load, global_store,
//         shared_load, shared_store}  # each [0,1], missing = 0, sum = 1 +- 1e-6
//   barriers_per_instruction: 0.01    # [0, 0.5]
//   dependence:
//     mean_distance: 6                # [1, 64] instructions back to the producer
//   registers:
//     hot_count: 8                    # [1, 255], <= regs_per_thread
//     hot_fraction: 0.8               # [0, 1] share of destinations in the hot set
//     first_use_order: shuffled       # ascending | descending | shuffled | [r, r, ...]
//   divergence: {fraction: 0, active_lanes: 16}
//   global:
//     pattern: coalesced              # coalesced | strided | random
//     stride_bytes: 128               # [1, 1 MiB] lane-to-lane distance (strided)
//     footprint_bytes: 8388608        # [128, 64 GiB] load region; stores use an equal region above
//     access_bytes: 4                 # 1 | 2 | 4 | 8 | 16 bytes per lane
//   shared:
//     stride_words: 1                 # [1, 64] lane-to-lane distance in 4-byte words
//   paper:
//     source: "Jatala Table II"       # required
//     kernel: calculate_temp
//     limited_by: registers           # registers | scratchpad | threads | cta_slots | warp_slots
//     ctas_per_sm: {jatala-fermi: 3}  # GPU config name -> printed baseline CTAs/SM
//     ipc: {jatala-fermi: 489.5}      # GPU config name -> printed baseline IPC (thread instructions/cycle)
//     ranges: {registers: [28, 44], threads: [128, 1024], scratchpad: [a, b]}  # Zorua Table 3
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hw/frontend/kernel.hpp"

namespace smshare {

// Instruction classes a profile's mix may name, in schema order.
enum class MixClass : uint8_t { IntAlu, FpAlu, Sfu, GlobalLoad, GlobalStore, SharedLoad, SharedStore };
constexpr unsigned kNumMixClasses = 7;
const char* mix_key(MixClass c);  // "int_alu", ... as in the YAML
OpClass to_op_class(MixClass c);

enum class GlobalPattern : uint8_t { Coalesced, Strided, Random };
enum class FirstUseOrder : uint8_t { Ascending, Descending, Shuffled, Explicit };

struct KernelProfile {
  std::string file;  // where it was read from: every later error names it
  std::string name;
  std::string description;
  bool memory_bound = false;  // bound: memory

  KernelResources resources;
  uint32_t instructions_per_warp = 1000;
  uint32_t static_instructions = 256;
  uint64_t seed = 1;

  std::array<double, kNumMixClasses> mix{};  // indexed by MixClass
  double barriers_per_instruction = 0.0;
  double mean_dependence_distance = 4.0;

  uint32_t hot_registers = 8;
  double hot_fraction = 0.8;
  FirstUseOrder first_use = FirstUseOrder::Ascending;
  std::vector<uint16_t> first_use_list;  // FirstUseOrder::Explicit: registers in first-use order

  double divergent_fraction = 0.0;
  uint32_t divergent_active_lanes = 16;

  GlobalPattern global_pattern = GlobalPattern::Coalesced;
  uint32_t global_stride_bytes = 128;
  uint64_t global_footprint_bytes = 1ull << 24;
  uint32_t global_access_bytes = 4;
  uint32_t shared_stride_words = 1;

  struct Range {
    uint32_t lo = 0, hi = 0;
  };
  struct Paper {
    std::string source;
    std::string kernel;
    std::string limited_by;                     // empty when not printed
    std::map<std::string, uint32_t> ctas_per_sm;  // GPU config name -> printed CTAs/SM
    std::map<std::string, double> ipc;            // GPU config name -> printed baseline IPC (thread insts/cycle)
    std::map<std::string, Range> ranges;        // "registers" | "scratchpad" | "threads"
  } paper;

  double mix_of(MixClass c) const { return mix[static_cast<unsigned>(c)]; }
};

// Loads configs/kernels/<name>.yaml, or a path (anything with '/' or a .yaml
// extension). Throws InputError naming the file and key on any problem.
KernelProfile load_kernel_profile(const std::string& name_or_path);

// Cross-key checks (mix sum, register indices, ranges vs. own values, shared
// ops without scratchpad). Run by the loader; exposed for tests and for
// profiles built in code.
void validate(const KernelProfile& p);

}  // namespace smshare
