// EXPARS (Yu et al. 2018) Sec. 3.2: instruction bundles and their PREF
// annotation, as a warp's instruction decoder reads them.
//
// The compiler cuts a kernel into bundles and puts a PREF, with a bit per
// architectural register the bundle uses, before each; the decoder hands the
// bit vector to the register prefetcher. Our front ends (profiles, traces)
// have no compiler pass, so BundleReader forms the bundles from the warp's
// own stream as the decoder reads it, by the rules the text gives: a bundle
// ends after a branch (OpClass::Control: a basic block ends there), a
// barrier or the exit; after `max_instructions`; and before an instruction
// that would give it more scratchpad-resident registers (indices >=
// Start_Reg) than the operand cache has lines, so that the cache can always
// hold a bundle. (The paper's rules (1)-(4) were lost in the text
// extraction; docs/expars-reproduction.md, "Bundles", says what we assume.)
//
// A PREF takes no issue slot and no fetch bandwidth here: its bit vector
// reaches the prefetcher when the decoder reads the bundle's first
// instruction (Sec. 3.3.4: "the instruction decoder sends the register
// information ... to the RP"). PREFs are counted apart (pref_instructions),
// never as warp instructions.
#pragma once

#include <bitset>
#include <cstdint>
#include <memory>
#include <vector>

#include "hw/frontend/kernel.hpp"

namespace smshare::expars {

using RegisterSet = std::bitset<kMaxArchRegs>;

// What one PREF carries, and the bundle's length.
struct Bundle {
  RegisterSet used;     // every register the bundle reads or writes: the PREF's bit vector
  RegisterSet live_in;  // those read before the bundle writes them: their value must be fetched
  uint32_t instructions = 0;
};

struct BundleRules {
  uint32_t max_instructions = 16;
  uint32_t start_reg = kMaxArchRegs;  // first scratchpad-resident register index (kernel-wide)
  uint32_t cache_lines = 16;          // registers >= start_reg one bundle may use
};

// Receives each bundle of warp slot `slot` as its decoder reads its PREF.
class BundleSink {
 public:
  virtual ~BundleSink() = default;
  virtual void decoded(uint32_t slot, const Bundle& bundle) = 0;
};

class BundleReader final : public WarpProgram {
 public:
  BundleReader(std::unique_ptr<WarpProgram> program, const BundleRules& rules, BundleSink& sink, uint32_t slot);
  bool next(WarpInstruction& out) override;

 private:
  // Reads the next bundle into buffer_ and hands its PREF to the sink; false
  // at the end of the stream.
  bool read_bundle();

  std::unique_ptr<WarpProgram> program_;
  BundleRules rules_;
  BundleSink& sink_;
  uint32_t slot_;
  std::vector<WarpInstruction> buffer_;  // the bundle read: entries [0, count_)
  size_t count_ = 0, next_ = 0;
  bool held_ = false;         // held_instruction_ did not fit the last bundle: it starts the next
  WarpInstruction held_instruction_;
};

}  // namespace smshare::expars
