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
//   phases:                           # optional: the kernel as phases in order (see below)
//     - {name: load, instructions: 40, repeat: 1, barrier_after: true, mix: {...},
//        dependence: {mean_distance: 3}, registers: {range: [0, 11], hot_count: 4, hot_fraction: 0.7},
//        shared: {range: [0.0, 0.5], stride_words: 1}}
//   paper:
//     source: "Jatala Table II"       # required
//     kernel: calculate_temp
//     limited_by: registers           # registers | scratchpad | threads | cta_slots | warp_slots
//     ctas_per_sm: {jatala-fermi: 3}  # GPU config name -> printed baseline CTAs/SM
//     ipc: {jatala-fermi: 489.5}      # GPU config name -> printed baseline IPC (thread instructions/cycle)
//     ranges: {registers: [28, 44], threads: [128, 1024], scratchpad: [a, b]}  # Zorua Table 3
//
// Without `phases` a warp loops over one body drawn from the top-level keys
// until it has issued instructions_per_warp (a flat profile). With `phases`
// a warp runs each phase in order, `repeat` times in a row, each execution
// being that phase's own static code of `instructions` instructions; a
// phase's mix, dependence, registers and scratchpad region are its own (mix
// and dependence default to the top level's), a barrier follows each
// execution of a phase with barrier_after, and instructions_per_warp is the
// sum over the phases (it and barriers_per_instruction must not be given).
// Registers of a phase are a range of logical registers in first-use
// numbering (R0 is the first the kernel touches); its shared range is the
// part [from, to) of the CTA's scratchpad, as fractions, its LDS/STS touch.
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

// One phase of a phase-structured profile, as written (defaults resolved
// against the top level by the loader).
struct ProfilePhase {
  std::string name;
  uint32_t instructions = 0;  // one execution of the phase's code
  uint32_t repeat = 1;        // executions in a row
  bool barrier_after = false;
  std::array<double, kNumMixClasses> mix{};
  double mean_dependence_distance = 4.0;
  uint32_t first_register = 0, last_register = 0;  // logical registers it writes and reads (inclusive)
  uint32_t hot_registers = 1;                      // the first hot_registers of its range are its hot set
  double hot_fraction = 0.8;
  double shared_from = 0.0, shared_to = 1.0;       // fractions of the CTA's scratchpad
  uint32_t shared_stride_words = 1;

  double mix_of(MixClass c) const { return mix[static_cast<unsigned>(c)]; }
  bool uses_scratchpad() const { return mix_of(MixClass::SharedLoad) + mix_of(MixClass::SharedStore) > 0; }
  // Dynamic instructions of its executions, barriers included.
  uint64_t dynamic_instructions() const { return (uint64_t{instructions} + barrier_after) * repeat; }
};

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

  // Empty: a flat profile. Otherwise instructions_per_warp is their sum and
  // mix their instruction-weighted mix (both filled in by the loader).
  std::vector<ProfilePhase> phases;

  double mix_of(MixClass c) const { return mix[static_cast<unsigned>(c)]; }
  // Whether any instruction of the kernel is a scratchpad access.
  bool uses_scratchpad() const;
};

// Loads configs/kernels/<name>.yaml, or a path (anything with '/' or a .yaml
// extension). Throws InputError naming the file and key on any problem.
KernelProfile load_kernel_profile(const std::string& name_or_path);

// Cross-key checks (mix sums, register indices, ranges vs. own values, shared
// ops without scratchpad, phases' register ranges covering every register).
// Run by the loader; exposed for tests and for profiles built in code.
void validate(const KernelProfile& p);

// For a profile built in code with phases: fills in instructions_per_warp
// (their sum) and mix (their instruction-weighted mix), as the loader does.
void summarize_phases(KernelProfile& p);

// A phase's scratchpad region in the CTA's `smem_words` words: its first word
// and its usable words (whole rows of 32 when it holds at least 32, so unit
// stride never conflicts; 0: no word).
uint32_t phase_smem_first_word(const ProfilePhase& ph, uint32_t smem_words);
// InputError (naming `origin` and phases[index].shared.range) when the phase
// has scratchpad accesses but its region of `smem_bytes` holds no word: the
// loader's check, and again with a --smem-per-cta override.
void check_phase_scratchpad(const ProfilePhase& ph, size_t index, uint32_t smem_bytes, const std::string& origin);
uint32_t phase_smem_words(const ProfilePhase& ph, uint32_t smem_words);

}  // namespace smshare
