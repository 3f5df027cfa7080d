// The static code of a profiled kernel: for a flat profile a loop body of
// `static_instructions` decoded instructions that every warp of the kernel
// executes, looping, until it has issued `instructions_per_warp`; for a
// phased profile each phase's own code, run in phase order. Building it once per kernel is what
// makes the per-instruction cost a copy: op classes, registers, dependences
// and divergence masks are all decided here; only addresses are made per
// warp at run time.
//
// Being static code also gives the properties real kernels have and the
// mechanisms rely on: every warp uses the same registers at the same PCs,
// registers have a first-use order (Jatala's declaration reordering is a pass
// over this body), and the mix is exact per loop iteration.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <vector>

#include "hw/common/instruction.hpp"

namespace smshare {

struct KernelProfile;

struct BodyInstruction {
  OpClass op = OpClass::IntAlu;
  uint8_t num_dst = 0;
  uint8_t num_src = 0;
  uint32_t active_mask = 0xFFFFFFFFu;  // divergence; ANDed with the warp's lanes at run time
  std::array<uint16_t, kMaxDstRegs> dst{kNoReg, kNoReg};
  std::array<uint16_t, kMaxSrcRegs> src{kNoReg, kNoReg, kNoReg, kNoReg};
};

using KernelBody = std::vector<BodyInstruction>;

// One phase's code in the body: body[first, first + size). A flat profile is
// one phase that loops (repeat 0) until the warp's instructions run out.
struct PhaseCode {
  uint32_t first = 0, size = 0;
  uint32_t repeat = 0;  // executions in a row; 0: loop for the rest of the warp
  bool barrier_after = false;
  uint32_t first_register = 0, last_register = 0;  // logical registers (before first-use renumbering)
};

struct KernelCode {
  KernelBody body;  // every phase's code, in phase order
  std::vector<PhaseCode> phases;
};

// Builds the code for `regs_per_thread` registers (the profile's own value or
// an override, to which the phases' register ranges are scaled).
// Deterministic in the profile's seed; a flat profile's body is the same
// as it always was.
KernelCode build_kernel_code(const KernelProfile& profile, uint32_t regs_per_thread);

// Registers in the order the body first touches them (sources before the
// destination within an instruction); registers never touched are not listed.
std::vector<uint16_t> first_use_order(const KernelBody& body);

// Jatala Sec. IV-B, register declaration unrolling and reordering: renumbers
// registers so that the k-th register first used becomes Rk. Registers the
// body never touches keep the highest numbers. Rewrites `body` in place once
// per kernel, so it costs nothing per instruction.
void reorder_registers_by_first_use(KernelBody& body, uint32_t regs_per_thread);

// Registers by reference weight, heaviest first: static reads plus writes in
// the body (each operand counts), ties in first-use order; registers never
// touched are not listed.
std::vector<uint16_t> reference_weight_order(const KernelBody& body);

// EXPARS Sec. 3.2 / 3.3.3: the compiler sorts register declarations by
// reference weight, descending, so that the registers placed in the
// scratchpad (index >= Start_Reg) are the least referenced. Renumbers so that
// the k-th heaviest register becomes Rk; untouched registers keep the highest
// numbers. Only the numbering changes: same operations, same dependences.
void reorder_registers_by_weight(KernelBody& body, uint32_t regs_per_thread);

// Zorua's phase specifier for registers (Sec. 4.6), per phase of `code` in
// its final numbering: the registers the phase's instructions read or write,
// plus those live through it: written by an earlier phase and read by a
// later one (phases run in order). A rewrite in between is not taken to end
// the earlier value, so the set may hold a register whose value is already
// dead, but never lacks one a later phase reads.
std::vector<std::bitset<kMaxArchRegs>> phase_registers(const KernelCode& code);

// Operand counts per class: destinations, and sources (`wide` for three-input
// forms such as FFMA / IMAD).
unsigned dst_count(OpClass op);
unsigned src_count(OpClass op, bool wide);

}  // namespace smshare
