#include "hw/sm/memory_access.hpp"

#include <algorithm>
#include <array>

namespace smshare {

namespace {

constexpr uint64_t kWordBytes = 4;  // scratchpad bank width

// Bytes one lane touches: a memory instruction with access_bytes = 0 still
// touches the byte at its address.
uint64_t lane_bytes(const WarpInstruction& inst) { return inst.access_bytes ? inst.access_bytes : 1; }

// Lane l's address is lane 0's + l * step for every lane (active or not).
// Lanes given as one run: its step decides. Otherwise differences are or-ed,
// not compared one by one, so the loop vectorizes (with plain SSE2) and has
// no branch.
bool unit_stride(const WarpInstruction& inst, uint64_t step) {
  if (inst.lanes_evenly_spaced) return inst.lane_address(1) - inst.lane_address(0) == step;
  uint64_t expected = inst.lane_address(0);
  uint64_t differ = 0;
  for (unsigned lane = 0; lane < kWarpLanes; ++lane, expected += step) differ |= inst.lane_address(lane) ^ expected;
  return differ == 0;
}

void add_touch(std::vector<LineAccess>& lines, uint64_t line, ChunkMask chunks) {
  // Most accesses are coalesced: the line is usually the one added last.
  if (!lines.empty() && lines.back().line == line) {
    lines.back().chunks |= chunks;
    return;
  }
  auto it = std::find_if(lines.begin(), lines.end(), [line](const LineAccess& a) { return a.line == line; });
  if (it != lines.end()) it->chunks |= chunks; else lines.push_back({line, chunks});
}

}  // namespace

// Lines are written as aligned byte addresses (line index x line_bytes).
namespace {

// The bytes [begin, end): add(line, chunks) for each line they overlap, in
// address order, with the chunks of it they touch.
template <class Add>
void for_each_line(uint64_t begin, uint64_t end, uint32_t line_bytes, Add&& add) {
  for (uint64_t line = begin / line_bytes * line_bytes; line < end; line += line_bytes) {
    // The bytes inside this line.
    const uint64_t from = std::max(begin, line);
    const uint64_t to = std::min(end, line + line_bytes);
    add(line, ChunkMask::range(static_cast<uint32_t>(from - line), static_cast<uint32_t>(to - from)));
  }
}

}  // namespace

void coalesce(const WarpInstruction& inst, uint32_t line_bytes, std::vector<LineAccess>& lines) {
  lines.clear();
  const uint64_t bytes = lane_bytes(inst);
  if (inst.active_mask == 0xFFFFFFFFu) {
    // The commonest access first: every lane, lane l at lane 0's + l * bytes.
    // The lanes then touch one run of bytes, in lane order, and a chunk is
    // touched by some lane exactly when it overlaps the run: the same lines
    // and chunks, in the same order, as lane by lane.
    const uint64_t begin = inst.lane_address(0);
    const uint64_t end = begin + uint64_t{kWarpLanes} * bytes;
    // Its lines are distinct and `lines` is empty: each is appended without
    // looking for it among the others.
    if (end > begin && unit_stride(inst, bytes)) {
      for_each_line(begin, end, line_bytes,
                    [&lines](uint64_t line, ChunkMask chunks) { lines.push_back({line, chunks}); });
      return;
    }
  }
  const auto touch = [&lines](uint64_t line, ChunkMask chunks) { add_touch(lines, line, chunks); };
  for (unsigned lane = 0; lane < kWarpLanes; ++lane)
    if (inst.active_mask >> lane & 1u) {
      const uint64_t a = inst.lane_address(lane);
      for_each_line(a, a + bytes, line_bytes, touch);
    }
}

// A lane touches every 4-byte word its access overlaps (an 8- or 16-byte
// access spans 2 or 4 banks). Bank of a word: word % banks.
namespace {

// Every one of 32 banks delivers one word (a full unit-stride warp of words).
constexpr SmemBankWords kEveryLaneBank = [] {
  SmemBankWords w{};
  for (uint32_t b = 0; b < kWarpLanes; ++b) w[b] = 1;
  return w;
}();

// Fast path for the common case: one word per lane, a power-of-two number
// of banks, and no two lanes on distinct words of one bank. Returns the
// counts, words[b] = 1 for every bank used and 0 for the others, when that
// holds (kEveryLaneBank, unwritten, when every one of 32 banks is used);
// nullptr (words partly written) when the general count below is needed.
const SmemBankWords* conflict_free_single_words(const WarpInstruction& inst, uint32_t banks, SmemBankWords& words) {
  // Read once: the stores into `words` could otherwise alias inst's fields.
  const uint64_t bytes = lane_bytes(inst);
  const uint32_t active = inst.active_mask;
  if (banks > 64 || (banks & (banks - 1)) != 0 || bytes > kWordBytes) return nullptr;
  // The commonest access first, in a loop without branches: every lane, one
  // aligned word each, lane i at word w0 + i (unit stride) touches kWarpLanes
  // consecutive banks, all distinct when there are at least that many.
  if (active == 0xFFFFFFFFu && bytes == kWordBytes && banks >= kWarpLanes && inst.lane_address(0) % kWordBytes == 0) {
    if (unit_stride(inst, kWordBytes)) {
      // Every bank, whatever w0: the shared table, not a copy (filling the
      // two runs below element by element was a third of this function,
      // and a copy of the table 28 host instructions).
      if (banks == kWarpLanes) return &kEveryLaneBank;
      // Banks w0, w0 + 1, ... mod banks: one run, or two when it wraps.
      const uint32_t b0 = static_cast<uint32_t>(inst.lane_address(0) / kWordBytes) & (banks - 1);
      const uint32_t to_end = std::min(kWarpLanes, banks - b0);
      words.fill(0);
      std::fill_n(words.begin() + b0, to_end, uint16_t{1});
      std::fill_n(words.begin(), kWarpLanes - to_end, uint16_t{1});
      return &words;
    }
  }
  words.fill(0);
  uint64_t used = 0;
  std::array<uint64_t, 64> word_of_bank;
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) {
    if (!(active >> lane & 1u)) continue;
    const uint64_t a = inst.lane_address(lane);
    if (a % kWordBytes + bytes > kWordBytes) return nullptr;  // straddles two words
    const uint64_t w = a / kWordBytes;
    const uint32_t b = static_cast<uint32_t>(w & (banks - 1));
    if (!(used >> b & 1u)) {
      used |= uint64_t{1} << b;
      word_of_bank[b] = w;
      words[b] = 1;
    } else if (word_of_bank[b] != w) {
      return nullptr;
    }
  }
  return &words;
}

// The general count of smem_bank_words. Out of line: its arrays on the
// stack would otherwise make every call, fast path included, set up a
// frame of several kilobytes.
[[gnu::noinline]] uint32_t count_bank_words(const WarpInstruction& inst, uint32_t banks, SmemBankWords& distinct) {
  distinct.fill(0);
  // Each word is compared only with the distinct words already seen in its
  // own bank (a chain per bank), so a conflict-free access is one pass over
  // the lanes.
  const uint32_t nbanks = std::min(banks, kMaxScratchpadBanks);
  std::array<int32_t, kMaxScratchpadBanks> head;
  head.fill(-1);
  // Up to 8 words per lane on the stack (any access of at most 29 bytes); rare
  // wider accesses fall back to the heap.
  constexpr size_t kStackWords = kWarpLanes * 8;
  std::array<uint64_t, kStackWords> stack_words;
  std::array<int32_t, kStackWords> stack_next;
  std::vector<uint64_t> heap_words;
  std::vector<int32_t> heap_next;
  const uint64_t bytes = lane_bytes(inst);
  const uint64_t max_words_per_lane = (bytes + kWordBytes - 1) / kWordBytes + 1;
  const bool on_stack = max_words_per_lane * kWarpLanes <= kStackWords;
  if (!on_stack) {
    heap_words.resize(max_words_per_lane * kWarpLanes);
    heap_next.resize(max_words_per_lane * kWarpLanes);
  }
  uint64_t* words = on_stack ? stack_words.data() : heap_words.data();
  int32_t* next = on_stack ? stack_next.data() : heap_next.data();

  int32_t n = 0;
  uint32_t degree = 0;
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) {
    if (!(inst.active_mask >> lane & 1u)) continue;
    const uint64_t a = inst.lane_address(lane);
    const uint64_t first = a / kWordBytes;
    const uint64_t last = (a + bytes - 1) / kWordBytes;
    for (uint64_t w = first; w <= last; ++w) {
      const uint32_t b = static_cast<uint32_t>(w % banks) % nbanks;
      bool seen = false;
      for (int32_t i = head[b]; i >= 0 && !seen; i = next[i]) seen = words[i] == w;
      if (seen) continue;  // same word: a broadcast, no extra cycle
      words[n] = w;
      next[n] = head[b];
      head[b] = n++;
      degree = std::max<uint32_t>(degree, ++distinct[b]);
    }
  }
  return degree;
}

}  // namespace

uint32_t smem_conflict_degree(const WarpInstruction& inst, uint32_t banks) {
  SmemBankWords words;
  return smem_bank_words(inst, banks, words);
}

uint32_t smem_bank_words(const WarpInstruction& inst, uint32_t banks, SmemBankWords& distinct) {
  const SmemBankUse use = smem_bank_use(inst, banks, distinct);
  if (use.words != &distinct) distinct = *use.words;
  return use.degree;
}

SmemBankUse smem_bank_use(const WarpInstruction& inst, uint32_t banks, SmemBankWords& scratch) {
  if (inst.active_mask == 0 || banks == 0) {
    scratch.fill(0);
    return {0, &scratch};
  }
  if (const SmemBankWords* words = conflict_free_single_words(inst, banks, scratch)) return {1, words};
  return {count_bank_words(inst, banks, scratch), &scratch};
}

}  // namespace smshare
