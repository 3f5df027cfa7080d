#include "hw/sm/memory_access.hpp"

#include <algorithm>
#include <array>

namespace smshare {

namespace {

constexpr uint64_t kWordBytes = 4;  // scratchpad bank width

// Bytes one lane touches: a memory instruction with access_bytes = 0 still
// touches the byte at its address.
uint64_t lane_bytes(const WarpInstruction& inst) { return inst.access_bytes ? inst.access_bytes : 1; }

void add_unique(std::vector<uint64_t>& lines, uint64_t line) {
  // Most accesses are coalesced: the line is usually the one added last.
  if (!lines.empty() && lines.back() == line) return;
  if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
}

}  // namespace

// Lines are written as aligned byte addresses (line index x line_bytes).
void coalesce(const WarpInstruction& inst, uint32_t line_bytes, std::vector<uint64_t>& lines) {
  lines.clear();
  const uint64_t bytes = lane_bytes(inst);
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) {
    if (!(inst.active_mask >> lane & 1u)) continue;
    const uint64_t first = inst.addr[lane] / line_bytes;
    const uint64_t last = (inst.addr[lane] + bytes - 1) / line_bytes;
    for (uint64_t line = first; line <= last; ++line) add_unique(lines, line * line_bytes);
  }
}

// A lane touches every 4-byte word its access overlaps (an 8- or 16-byte
// access spans 2 or 4 banks). Bank of a word: word % banks.
uint32_t smem_conflict_degree(const WarpInstruction& inst, uint32_t banks) {
  if (inst.active_mask == 0 || banks == 0) return 0;
  struct Word {
    uint64_t bank;
    uint64_t word;
  };
  // Up to 8 words per lane on the stack (any access of at most 29 bytes); rare
  // wider accesses fall back to the heap.
  constexpr size_t kStackWords = kWarpLanes * 8;
  std::array<Word, kStackWords> stack_words;
  std::vector<Word> heap_words;
  const uint64_t bytes = lane_bytes(inst);
  const uint64_t max_words_per_lane = (bytes + kWordBytes - 1) / kWordBytes + 1;
  const bool on_stack = max_words_per_lane * kWarpLanes <= kStackWords;
  if (!on_stack) heap_words.resize(max_words_per_lane * kWarpLanes);
  Word* words = on_stack ? stack_words.data() : heap_words.data();

  size_t n = 0;
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) {
    if (!(inst.active_mask >> lane & 1u)) continue;
    const uint64_t first = inst.addr[lane] / kWordBytes;
    const uint64_t last = (inst.addr[lane] + bytes - 1) / kWordBytes;
    for (uint64_t w = first; w <= last; ++w) words[n++] = Word{w % banks, w};
  }
  std::sort(words, words + n, [](const Word& a, const Word& b) {
    return a.bank != b.bank ? a.bank < b.bank : a.word < b.word;
  });

  // Distinct words per bank: count runs of distinct words within each bank.
  uint32_t degree = 0;
  uint32_t in_bank = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || words[i].bank != words[i - 1].bank)
      in_bank = 1;
    else if (words[i].word != words[i - 1].word)
      ++in_bank;
    degree = std::max(degree, in_bank);
  }
  return degree;
}

}  // namespace smshare
