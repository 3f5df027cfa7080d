// A KernelSource made from a KernelProfile: every warp loops over the
// kernel's static body (kernel_body.hpp) and makes its own memory addresses.
//
// Streams are deterministic per (profile, seed, cta, warp) and cost a copy
// per ALU instruction: no allocation and no random draw after
// warp_program() returns (random global addresses draw one number per lane).
//
// The kernel's resources carry what each phase holds (phase_needs), derived
// once per kernel from the final static code, after any register
// renumbering: registers by phase_registers (kernel_body.hpp); scratchpad,
// a phase's region when its code has shared accesses plus the parts stored
// before it and loaded after it (a flat profile: the whole allocation).
#pragma once

#include <memory>

#include "hw/frontend/kernel.hpp"
#include "hw/frontend/kernel_profile.hpp"

namespace smshare {

struct FrontendOptions {
  // Jatala Sec. IV-B: renumber registers by first use so that the registers
  // a warp touches first are the low (unshared) ones.
  bool reorder_registers = false;
  // EXPARS Sec. 3.2: renumber registers by reference weight so that the least
  // referenced ones get the high indices EXPARS places in the scratchpad.
  // At most one of the two renumberings.
  bool reorder_registers_by_weight = false;
};

// Global memory layout of profiled kernels: everything lies below
// kGlobalLimit (the profile loader rejects footprints that would cross it),
// so the swap region (dram.swap_base, default 2^48) must start at or above it;
// the run set-up checks that.
constexpr uint64_t kGlobalLoadBase = 0x10000000ull;  // loads sweep [base, base + footprint)
constexpr uint64_t kGlobalRegionAlign = 1ull << 20;  // stores start at the next MiB above the load region
constexpr uint64_t kGlobalLimit = 0xF000000000ull;
static_assert(kGlobalLimit <= kInstructionBase, "profile data must stay below the instruction region");

// Applies `overrides` (validated: threads in [1, 2048], regs in [1, 255],
// smem in [0, 1 MiB], grid in [1, 2^31), and scratchpad present when the mix
// has shared accesses) and builds the kernel. Throws InputError naming the
// profile file and the overridden key.
std::unique_ptr<KernelSource> make_profile_kernel(const KernelProfile& profile, const ResourceOverrides& overrides,
                                                  const FrontendOptions& options);

}  // namespace smshare
