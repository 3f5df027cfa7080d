// The contract between a workload (a synthetic kernel profile, or a recorded
// trace) and the GPU model: a kernel's resource usage and, per warp, a stream
// of decoded instructions.
#pragma once

#include <bitset>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hw/common/instruction.hpp"

namespace smshare {

// What one phase of a kernel holds while a warp runs it: Zorua's phase
// specifier (Sec. 4.6), derived by the front end from the register-use
// pattern (kernel_profile.hpp, trace_phases.hpp). A register or scratchpad
// byte is held in a phase when the phase touches it or it is live through
// the phase (written before, read after).
struct PhaseNeed {
  std::bitset<kMaxArchRegs> registers;  // per thread, in the kernel's final numbering
  // Scratchpad bytes of the CTA, as sorted, disjoint [first, end) ranges.
  std::vector<std::pair<uint32_t, uint32_t>> smem;
};

// What CTA admission needs to know about a kernel.
struct KernelResources {
  uint32_t grid_ctas = 1;          // CTAs in the grid
  uint32_t threads_per_cta = 32;
  uint32_t regs_per_thread = 0;
  uint32_t smem_bytes_per_cta = 0;
  // A phased profile's phases in order (WarpInstruction::phase indexes it);
  // empty for a kernel without phases. For mechanisms that act or report per
  // phase.
  std::vector<std::string> phase_names;
  // What each phase holds (indexed like phase_names; one entry for a kernel
  // without phases). Empty when the workload does not say: a mechanism then
  // takes the whole allocation (regs_per_thread, smem_bytes_per_cta) as
  // every phase's need.
  std::vector<PhaseNeed> phase_needs;

  uint32_t warps_per_cta(unsigned warp_size = kWarpLanes) const {
    return (threads_per_cta + warp_size - 1) / warp_size;
  }
};

// Overrides from the CLI's what-if flags (--ctas, --threads-per-cta, ...);
// a negative value keeps the workload's own value.
struct ResourceOverrides {
  int64_t grid_ctas = -1;
  int64_t threads_per_cta = -1;
  int64_t regs_per_thread = -1;
  int64_t smem_bytes_per_cta = -1;
  // --set frontend.constant_work=true (Zorua Sec. 5.2): with threads_per_cta,
  // the grid becomes the one that runs the workload's own total threads
  // (constant_work_grid); not with grid_ctas.
  bool constant_work = false;
  bool any() const {
    return grid_ctas >= 0 || threads_per_cta >= 0 || regs_per_thread >= 0 || smem_bytes_per_cta >= 0;
  }
};

// Zorua Sec. 5.2 keeps the total work constant when the threads per CTA
// change: for overrides.constant_work, the grid of
// ceil(own grid x own threads / overrides.threads_per_cta) CTAs, from the
// workload's own grid and threads per CTA (`own`). Throws InputError naming
// `origin` when constant_work comes with --ctas, without --threads-per-cta,
// or gives a grid beyond 2^31 - 1 CTAs.
uint32_t constant_work_grid(const KernelResources& own, const ResourceOverrides& overrides, const std::string& origin);

// One warp's instruction stream. Produced on demand so a kernel never has to
// be held in memory whole.
class WarpProgram {
 public:
  virtual ~WarpProgram() = default;
  // Writes the next instruction into `out` and returns true; returns false
  // once the warp has no more instructions (the warp then exits).
  virtual bool next(WarpInstruction& out) = 0;
};

// A kernel: its name and resources, and a factory for its warps' streams.
class KernelSource {
 public:
  virtual ~KernelSource() = default;
  virtual const std::string& name() const = 0;
  virtual const KernelResources& resources() const = 0;
  // Stream for warp `warp_in_cta` of CTA `cta_id` (0-based, grid order).
  // Deterministic: the same (kernel, seed, cta, warp) gives the same stream.
  virtual std::unique_ptr<WarpProgram> warp_program(uint32_t cta_id, uint32_t warp_in_cta) = 0;
  // Warp instructions the whole grid streams (every warp_program drained),
  // when the workload knows it before running: the progress line of a long
  // run shows the share done. Empty when it is not known ahead.
  virtual std::optional<uint64_t> total_warp_instructions() const { return std::nullopt; }
};

}  // namespace smshare
