// Phases of a traced kernel, by Zorua's rule (Vijaykumar et al. 2016,
// Sec. 4.3): a kernel is cut where the set of live registers changes by at
// least 25 %, at least 10 instructions after the last cut and not where the
// warp is diverged; a barrier always ends a phase. Profiles declare their
// phases (kernel_profile.hpp, `phases:`); a trace has only its instructions,
// so the front end derives them, one phase model for both (KernelResources::
// phase_names, WarpInstruction::phase).
//
// The rule is applied to one warp's dynamic stream (the kernel's first
// traced warp, whose code every warp runs): a register is live before an
// instruction if the stream reads it at or after that instruction before
// writing it (exact for that stream: loops are unrolled in it). The live set
// "changes by 25 %" when the symmetric difference of the set at the phase's
// start and the set now is at least a quarter of their union. "Diverged":
// the instruction's active mask is not the warp's first instruction's. Each
// PC then belongs to the phase of its first execution in that stream (Zorua
// places its phase specifiers in the static code), and a PC the stream never
// ran to that of the nearest lower PC it ran.
//
// What each phase holds (its registers; KernelResources::phase_needs) comes
// from the same stream: the registers read or written by the instructions
// of the phase (by their PC's phase, as warps report it) plus those live
// before any of them. Scratchpad is not bounded here: a trace's shared
// addresses are per thread and data dependent, so the kernel gives each
// phase its whole allocation (trace_kernel.cpp).
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hw/common/instruction.hpp"

namespace smshare {

class TracePhases {
 public:
  static constexpr uint32_t kMinInstructions = 10;  // between two cuts (barriers aside)
  static constexpr uint32_t kChangePercent = 25;    // live-set change that makes a cut

  // Derives the phases from one warp's stream (empty: one phase).
  explicit TracePhases(const std::vector<WarpInstruction>& stream);

  // "phase0", "phase1", ... in order (one name when nothing was cut).
  const std::vector<std::string>& names() const { return names_; }
  // The phase of the instruction at `pc` (PhaseLookup below).
  uint16_t phase_of(uint64_t pc) const;
  // The phase each instruction of the stream was given (for tests and
  // documentation), in stream order.
  const std::vector<uint16_t>& stream_phases() const { return stream_phases_; }
  // Per phase (indexed like names()), the registers it holds: read or
  // written by its instructions, or live at one of them.
  const std::vector<std::bitset<kMaxArchRegs>>& registers() const { return registers_; }

 private:
  std::vector<std::string> names_;
  std::vector<std::pair<uint64_t, uint16_t>> by_pc_;  // sorted by pc
  // phase_of() for every 8-byte PC slot up to the last known PC (SASS
  // instructions are 8 or 16 bytes), so a streamed instruction looks its
  // phase up in one step; empty for code too large to tabulate.
  std::vector<uint16_t> by_slot_;
  uint16_t lookup(uint64_t pc) const;  // phase_of by binary search in by_pc_
  std::vector<uint16_t> stream_phases_;
  std::vector<std::bitset<kMaxArchRegs>> registers_;

  friend class PhaseLookup;
};

// TracePhases::phase_of as the trace's warp programs keep it at hand (they
// ask it for every instruction they stream): the slot table's start and
// length held here, so that a lookup loads neither the phases nor their
// vector. Null phases are a kernel of one phase: every PC is in phase 0.
class PhaseLookup {
 public:
  explicit PhaseLookup(const TracePhases* phases)
      : phases_(phases),
        table_(phases ? phases->by_slot_.data() : nullptr),
        slots_(phases ? phases->by_slot_.size() : 0) {}

  uint16_t operator()(uint64_t pc) const {
    const uint64_t slot = pc / 8;
    if (slot < slots_) return table_[slot];
    // Past the table, the last slot's phase; with no table (code too large
    // to tabulate), the binary search.
    if (slots_ > 0) return table_[slots_ - 1];
    return phases_ ? phases_->lookup(pc) : 0;
  }

 private:
  const TracePhases* phases_;
  const uint16_t* table_;
  uint64_t slots_;
};

inline uint16_t TracePhases::phase_of(uint64_t pc) const { return PhaseLookup(this)(pc); }

}  // namespace smshare
