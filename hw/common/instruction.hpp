// The unit of work that flows from the front end into the SM: one warp
// instruction, already decoded into what the timing model needs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "hw/common/bit_words.hpp"

namespace smshare {

constexpr unsigned kWarpLanes = 32;      // lanes per warp (Fermi through Maxwell)
constexpr unsigned kMaxDstRegs = 2;
constexpr unsigned kMaxSrcRegs = 4;
constexpr uint16_t kNoReg = 0xFFFF;      // empty operand slot
constexpr unsigned kMaxArchRegs = 256;   // architectural register index space per thread

// Instruction memory. A kernel's instruction at byte offset `pc` of its code
// (both front ends number from 0) is read by the instruction cache from
// instruction_address(pc), as GPGPU-Sim adds PROGRAM_MEM_START to the PC.
// The region is the top 4 GiB below 2^48 (the default dram.swap_base), so it
// lies above every profile's global data (kGlobalLimit) and above the user
// address space of the machines traces come from (CUDA's unified addresses
// are host user-space pointers, below 2^47 on x86-64); the trace reader
// rejects PCs that would leave it, and the config check rejects a swap region
// that would overlap it.
constexpr uint64_t kInstructionRegionBytes = 1ull << 32;
constexpr uint64_t kInstructionBase = (1ull << 48) - kInstructionRegionBytes;
inline uint64_t instruction_address(uint64_t pc) { return kInstructionBase + pc; }

// Instruction classes the pipeline distinguishes. Each maps to one functional
// unit and one latency; the front end (profiles or traces) decides the class.
enum class OpClass : uint8_t {
  IntAlu,
  FpAlu,
  Sfu,
  GlobalLoad,
  GlobalStore,
  LocalLoad,    // thread-private memory in global space (register spills)
  LocalStore,
  SharedLoad,   // scratchpad
  SharedStore,
  Barrier,      // CTA-wide __syncthreads
  Control,      // branch and other control flow: occupies the SP pipe
  Exit,         // warp finished
};
constexpr unsigned kNumOpClasses = 12;
// Tables indexed by class (exec_unit_of, the SM's unit timings, counters) are this long.
static_assert(kNumOpClasses == static_cast<unsigned>(OpClass::Exit) + 1, "kNumOpClasses must count every OpClass");

std::string_view to_string(OpClass op);

inline bool is_global_memory(OpClass op) {
  return op == OpClass::GlobalLoad || op == OpClass::GlobalStore || op == OpClass::LocalLoad ||
         op == OpClass::LocalStore;
}
inline bool is_shared_memory(OpClass op) {
  return op == OpClass::SharedLoad || op == OpClass::SharedStore;
}
inline bool is_memory(OpClass op) { return is_global_memory(op) || is_shared_memory(op); }
inline bool is_load(OpClass op) {
  return op == OpClass::GlobalLoad || op == OpClass::LocalLoad || op == OpClass::SharedLoad;
}
// Barrier and exit act at issue: no pipeline, no collector unit, so their
// register operands (a named barrier's, BAR.SYNC R3) are never read.
inline bool acts_at_issue(OpClass op) { return op == OpClass::Barrier || op == OpClass::Exit; }

// A decoded warp instruction. Register indices are architectural, per thread
// (R0..R254). Memory instructions carry one byte address per lane; lanes not
// in active_mask have undefined addresses.
struct WarpInstruction {
  OpClass op = OpClass::IntAlu;
  uint8_t num_dst = 0;
  uint8_t num_src = 0;
  uint8_t access_bytes = 0;  // bytes per active lane for memory instructions, else 0
  uint32_t active_mask = 0xFFFFFFFFu;
  uint64_t pc = 0;  // byte offset in the kernel's code, below kInstructionRegionBytes
  std::array<uint16_t, kMaxDstRegs> dst{kNoReg, kNoReg};
  std::array<uint16_t, kMaxSrcRegs> src{kNoReg, kNoReg, kNoReg, kNoReg};
  // The kernel phase it belongs to: its index in KernelResources::phase_names
  // (a phased profile); 0 for a kernel without phases.
  uint16_t phase = 0;
  // True when its reader gave the lanes as one run (set_evenly_spaced_lanes):
  // every lane, active or not, at addr[0] + lane * (addr[1] - addr[0])
  // (mod 2^64), and only addr[0] and addr[1] are written. The LDST unit and
  // the scratchpad then know a unit-stride access from two lanes instead of
  // comparing all 32 (about 100 host instructions a memory instruction), and
  // neither the reader nor the pipeline's copies write the other 30 (256
  // bytes a copy). False: addr holds every lane. Whoever writes addr lane by
  // lane leaves it false.
  bool lanes_evenly_spaced = false;
  // The lanes' byte addresses as written; read them through lane_address(),
  // which knows whether only the first two were written.
  std::array<uint64_t, kWarpLanes> addr{};

  unsigned active_lanes() const { return count_bits(active_mask); }

  // Lane `lane`'s byte address (defined for a memory instruction's active
  // lanes, and for all lanes of one given as a run).
  uint64_t lane_address(unsigned lane) const {
    return lanes_evenly_spaced ? addr[0] + lane * (addr[1] - addr[0]) : addr[lane];
  }

  // Lane l at first + l * step for every lane (mod 2^64): the front ends'
  // commonest pattern (a trace's base-and-stride records of a full warp, a
  // profile's coalesced global and unwrapped shared accesses).
  void set_evenly_spaced_lanes(uint64_t first, uint64_t step) {
    addr[0] = first;
    addr[1] = first + step;
    lanes_evenly_spaced = true;
  }
};

// Copies all of `src` but its lane addresses into `dst` (whose addr is left
// as it was): for a stage that has done with the addresses (the LDST unit
// once it has coalesced them) and needs only the rest.
inline void copy_without_addresses(WarpInstruction& dst, const WarpInstruction& src) {
  static_assert(offsetof(WarpInstruction, addr) + sizeof(WarpInstruction::addr) == sizeof(WarpInstruction),
                "the lane addresses are the last member");
  std::memcpy(static_cast<void*>(&dst), &src, offsetof(WarpInstruction, addr));
}

// Copies `src` into `dst` as the pipeline passes it on (into a collector
// unit or a pipeline register): the lane addresses, most of the struct, only
// for a memory instruction (the others' are undefined and never read), and
// of lanes given as a run only the two that define them.
inline void copy_decoded(WarpInstruction& dst, const WarpInstruction& src) {
  copy_without_addresses(dst, src);
  if (!is_memory(src.op)) return;
  if (src.lanes_evenly_spaced) {
    dst.addr[0] = src.addr[0];
    dst.addr[1] = src.addr[1];
  } else {
    dst.addr = src.addr;
  }
}

}  // namespace smshare
