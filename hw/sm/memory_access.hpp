// Address arithmetic of the LDST unit: coalescing a warp's global access
// into line transactions, and scratchpad bank conflicts.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "hw/common/chunk_mask.hpp"
#include "hw/common/instruction.hpp"

namespace smshare {

// One line a warp's global access touches, and which 32-byte chunks of it.
struct LineAccess {
  uint64_t line;     // aligned byte address
  ChunkMask chunks;  // the chunks the active lanes' bytes overlap
  bool operator==(const LineAccess& o) const { return line == o.line && chunks == o.chunks; }
};

// Distinct `line_bytes`-aligned lines touched by the active lanes of `inst`
// (each lane touches inst.access_bytes bytes from inst.lane_address(lane); an access
// straddling a line boundary touches both lines), each with the chunks its
// lanes touch, as GPGPU-Sim's memory_coalescing_arch marks `chunks` per
// segment. Written into `lines` in first-touch lane order, no duplicates.
void coalesce(const WarpInstruction& inst, uint32_t line_bytes, std::vector<LineAccess>& lines);

// Cycles the scratchpad needs for `inst`: the largest number of distinct
// 4-byte words any one bank must deliver (1 = conflict-free; lanes reading
// the same word are a broadcast, not a conflict). 0 if no lane is active.
// Word w lives in bank w % banks; a lane wider than 4 bytes touches every
// word its access overlaps.
uint32_t smem_conflict_degree(const WarpInstruction& inst, uint32_t banks);

constexpr uint32_t kMaxScratchpadBanks = 64;  // sm.scratchpad_banks range
using SmemBankWords = std::array<uint16_t, kMaxScratchpadBanks>;

// The same count per bank: words[b] is the number of distinct words bank b
// must deliver for `inst` (so it is busy words[b] cycles), 0 for unused
// banks and for b >= banks. Returns their maximum, the conflict degree.
uint32_t smem_bank_words(const WarpInstruction& inst, uint32_t banks, SmemBankWords& words);

// smem_bank_words without the copy of the commonest answer (every one of 32
// banks delivers one word): `words` then points at a shared constant table,
// otherwise at `scratch`, which holds the counts. For a caller that keeps
// the counts only to read them (the scratchpad's claim in the arbitrator).
struct SmemBankUse {
  uint32_t degree;
  const SmemBankWords* words;
};
SmemBankUse smem_bank_use(const WarpInstruction& inst, uint32_t banks, SmemBankWords& scratch);

}  // namespace smshare
