// EXPARS (Yu et al. 2018) Sec. 3.3.4 and 3.3.7: the operand cache (OC). It
// holds the scratchpad-resident registers of the bundles being executed, one
// warp register (32 lanes x 4 B = 1,024 bits) per line, in as many banks as
// the register file; line i sits in bank i mod banks.
//
// Placement (docs/expars-reproduction.md, "Operand cache"): the paper maps a
// register to one line by its low 4 index bits (bank, then set). Such an OC
// cannot hold an instruction whose scratchpad operands share those bits (R17
// and R33), which Table 3's kernels with more than 16 registers per thread
// in the scratchpad meet. Ours is fully associative with the register's bank
// preferred: a register goes to a line of the register file's bank for it,
// (reg + warp slot) mod banks (GPGPU-Sim's bank function, so the compiler's
// bank assignment is kept), else to any line. Its tag is therefore the warp
// slot and the whole register index, plus valid and dirty bits.
//
// Values. The model carries no data, but whether a read sees the last write
// is checked: every write gives the line a new version; a dirty line written
// back stores its version at its scratchpad address; a fill reads it from
// there. read() throws std::logic_error if the line's version is not the last
// one written to that (warp, register): a stale value would be served.
//
// Pinning (which lines a bundle still needs) is the prefetcher's business:
// each line records the bundle of its warp that last claimed it and the
// accesses of issued instructions it still owes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace smshare::expars {

class OperandCache {
 public:
  static constexpr int kAbsent = -1;

  struct Line {
    bool valid = false;
    bool dirty = false;
    uint32_t slot = 0;        // warp slot
    uint16_t reg = 0;         // architectural register index
    uint32_t address = 0;     // its scratchpad byte address (RAT), where a write-back goes
    uint64_t bundle = 0;      // the bundle of `slot` that last claimed it (1, 2, ...)
    uint32_t pending = 0;     // reads and writes of issued instructions still to come
    uint64_t version = 0;     // of the value it holds
  };

  // `bytes` of storage in `banks` banks; each bank must hold a whole number
  // (at least one) of 128-byte lines (std::logic_error otherwise: the
  // settings check reports it to the user first).
  OperandCache(uint32_t bytes, uint32_t banks, uint32_t max_warps, uint32_t max_regs);

  uint32_t lines() const { return static_cast<uint32_t>(lines_.size()); }
  uint32_t banks() const { return banks_; }
  uint32_t bank_of_line(uint32_t line) const { return line % banks_; }
  // The register file's bank of (slot, reg): the OC bank it prefers.
  uint32_t preferred_bank(uint32_t slot, uint16_t reg) const { return (reg + slot) % banks_; }
  const Line& line(uint32_t i) const { return lines_.at(i); }

  // The line holding (slot, reg), or kAbsent.
  int find(uint32_t slot, uint16_t reg) const { return where_[index(slot, reg)]; }

  // Takes line `i` for (slot, reg) of bundle `bundle`, at scratchpad address
  // `address`. The line must be invalid (evict() it first). Its value is
  // undefined until fill() or a write.
  void allocate(uint32_t i, uint32_t slot, uint16_t reg, uint32_t address, uint64_t bundle);
  // Line `i` (valid) is needed by bundle `bundle` of its warp too.
  void claim(uint32_t i, uint64_t bundle) { lines_.at(i).bundle = bundle; }
  // An issued instruction will read or write line `i` (hold), or has (release).
  void hold(uint32_t i) { ++lines_.at(i).pending; }
  void release(uint32_t i);
  // The scratchpad's value of line `i`'s register arrives.
  void fill(uint32_t i);
  // Line `i` is written back (if dirty) and freed; returns whether it was dirty.
  bool evict(uint32_t i);
  // Drops every line of warp `slot` without writing back: the warp has
  // finished and its registers are dead.
  void drop_warp(uint32_t slot);

  // An operand read or a result write served by line `i` (the register's
  // line: find()).
  void read(uint32_t i) const;
  void write(uint32_t i);
  // The value version line `i` holds, and the last one written to its
  // register (for tests).
  uint64_t version(uint32_t i) const { return lines_.at(i).version; }
  uint64_t last_written(uint32_t slot, uint16_t reg) const { return last_write_[index(slot, reg)]; }

  uint32_t valid_lines() const { return valid_; }
  uint32_t dirty_lines() const;

 private:
  size_t index(uint32_t slot, uint16_t reg) const { return size_t{slot} * max_regs_ + reg; }

  uint32_t banks_, max_regs_;
  std::vector<Line> lines_;
  std::vector<int16_t> where_;         // [slot][reg]: its line, or kAbsent
  std::vector<uint64_t> last_write_;   // [slot][reg]: version of the last write (0: none since launch)
  std::unordered_map<uint32_t, uint64_t> scratchpad_;  // address -> version written back there
  uint64_t next_version_ = 0;
  uint32_t valid_ = 0;
};

}  // namespace smshare::expars
