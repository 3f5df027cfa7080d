// LDST address arithmetic: coalescing into lines, scratchpad bank conflicts.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "hw/sm/memory_access.hpp"

namespace smshare {
namespace {

using Lines = std::vector<uint64_t>;

// All 32 lanes active, lane i at base + i * stride, `bytes` each.
WarpInstruction strided(uint64_t base, uint64_t stride, uint8_t bytes, OpClass op = OpClass::GlobalLoad) {
  WarpInstruction inst;
  inst.op = op;
  inst.access_bytes = bytes;
  inst.active_mask = 0xFFFFFFFFu;
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) inst.addr[lane] = base + lane * stride;
  return inst;
}

std::vector<LineAccess> accesses_of(const WarpInstruction& inst, uint32_t line_bytes = 128) {
  std::vector<LineAccess> lines{{0xDEAD, ChunkMask::line(128)}};  // stale contents must be replaced
  coalesce(inst, line_bytes, lines);
  return lines;
}

Lines lines_of(const WarpInstruction& inst, uint32_t line_bytes = 128) {
  Lines lines;
  for (const LineAccess& a : accesses_of(inst, line_bytes)) lines.push_back(a.line);
  return lines;
}

TEST(Coalescing, UnitStrideRunsGiveWhatTheLanesGiveOneByOne) {
  // coalesce() takes a full warp at unit stride as one run of bytes; the
  // same lanes with lane 31 split off into its own instruction (which the
  // run's shortcut does not see) must add up to the same lines and chunks.
  for (uint32_t line_bytes : {32u, 64u, 128u}) {
    for (uint8_t bytes : {1, 2, 4, 8, 16}) {
      for (uint64_t base : {0x1000ull, 0x1004ull, 0x103Cull, 0x1071ull, 0x10FFull}) {
        const WarpInstruction whole = strided(base, bytes, bytes);
        WarpInstruction first31 = whole, last = whole;
        first31.active_mask = 0x7FFFFFFFu;
        last.active_mask = 0x80000000u;
        std::vector<LineAccess> expected = accesses_of(first31, line_bytes);
        for (const LineAccess& a : accesses_of(last, line_bytes)) {
          auto it = std::find_if(expected.begin(), expected.end(), [&](const LineAccess& e) { return e.line == a.line; });
          if (it == expected.end()) expected.push_back(a); else it->chunks |= a.chunks;
        }
        EXPECT_EQ(accesses_of(whole, line_bytes), expected)
            << "line " << line_bytes << " bytes " << int{bytes} << " base " << base;
      }
    }
  }
}

TEST(Coalescing, LanesSaidToBeEvenlySpacedGiveWhatTheLanesGive) {
  // A reader that gives the lanes as one run writes only its first two
  // (set_evenly_spaced_lanes): the unit-stride test then reads two lanes.
  // The lines and bank words must be those of the same lanes given one by
  // one, at unit stride or not, whatever the other 30 entries hold.
  for (uint64_t stride : {uint64_t{0}, uint64_t{1}, uint64_t{4}, uint64_t{8}, uint64_t{16}, uint64_t{128}, ~uint64_t{3}}) {
    for (uint8_t bytes : {1, 4, 8, 16}) {
      for (uint64_t base : {0x1000ull, 0x1004ull, 0x1071ull}) {
        for (OpClass op : {OpClass::GlobalLoad, OpClass::SharedLoad}) {
          const WarpInstruction plain = strided(base, stride, bytes, op);
          WarpInstruction run = plain;
          run.addr.fill(0xBAD0);
          run.set_evenly_spaced_lanes(base, stride);
          EXPECT_EQ(accesses_of(run), accesses_of(plain)) << "stride " << stride << " bytes " << int{bytes};
          for (uint32_t banks : {16u, 32u, 64u}) {
            SmemBankWords a, b;
            EXPECT_EQ(smem_bank_words(run, banks, a), smem_bank_words(plain, banks, b)) << "banks " << banks;
            EXPECT_EQ(a, b) << "stride " << stride << " bytes " << int{bytes} << " banks " << banks;
          }
        }
      }
    }
  }
}

TEST(Coalescing, UnitStrideWordsAreOneLine) {
  EXPECT_EQ(lines_of(strided(0x1000, 4, 4)), (Lines{0x1000}));
}

TEST(Coalescing, MisalignedUnitStrideTouchesTwoLines) {
  EXPECT_EQ(lines_of(strided(0x1040, 4, 4)), (Lines{0x1000, 0x1080}));
}

TEST(Coalescing, StridedAccessesCountLines) {
  // 8-byte stride: 256 bytes = 2 lines.
  EXPECT_EQ(lines_of(strided(0x2000, 8, 4)), (Lines{0x2000, 0x2080}));
  // 32-byte stride: 1024 bytes = 8 lines.
  EXPECT_EQ(lines_of(strided(0x2000, 32, 4)).size(), 8u);
  // 128-byte stride: one line per lane, in lane order.
  const Lines l = lines_of(strided(0x2000, 128, 4));
  ASSERT_EQ(l.size(), 32u);
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) EXPECT_EQ(l[lane], 0x2000u + 128u * lane);
  // 16-byte vector accesses, unit stride: 512 bytes = 4 lines.
  EXPECT_EQ(lines_of(strided(0x2000, 16, 16)).size(), 4u);
  // 32-byte lines (an L2 sector size): unit-stride words = 4 lines.
  EXPECT_EQ(lines_of(strided(0x2000, 4, 4), 32), (Lines{0x2000, 0x2020, 0x2040, 0x2060}));
}

TEST(Coalescing, RandomAddressesAreDistinctLinesInFirstTouchOrder) {
  WarpInstruction inst = strided(0, 0, 4);
  inst.active_mask = 0x0000003Fu | (1u << 31);  // lanes 0-5 and 31
  inst.addr[0] = 0x5008;
  inst.addr[1] = 0x0100;
  inst.addr[2] = 0x507C;    // same line as lane 0
  inst.addr[3] = 0x2080;
  inst.addr[4] = 0x0104;    // same line as lane 1
  inst.addr[5] = 0x5000;    // same line as lane 0
  inst.addr[6] = 0x9000;    // inactive: ignored
  inst.addr[31] = 0x0000;
  EXPECT_EQ(lines_of(inst), (Lines{0x5000, 0x0100, 0x2080, 0x0000}));
}

TEST(Coalescing, AStraddlingLaneTouchesBothLines) {
  WarpInstruction inst = strided(0, 0, 4);
  inst.active_mask = 0x3u;
  inst.addr[0] = 0x107E;  // bytes 0x107E..0x1081
  inst.addr[1] = 0x1000;
  EXPECT_EQ(lines_of(inst), (Lines{0x1000, 0x1080}));

  inst.access_bytes = 8;
  inst.active_mask = 0x1u;
  inst.addr[0] = 0x17C;   // bytes 0x17C..0x183
  EXPECT_EQ(lines_of(inst), (Lines{0x100, 0x180}));
  inst.addr[0] = 0x178;   // bytes 0x178..0x17F: ends exactly at the boundary
  EXPECT_EQ(lines_of(inst), (Lines{0x100}));
}

// The chunk masks GPGPU-Sim's memory_coalescing_arch computes (`chunks`:
// which 32-byte pieces of each 128-byte segment the lanes touch).
TEST(Coalescing, EachLineCarriesTheChunksItsLanesTouch) {
  const auto bits = [](const LineAccess& a) { return a.chunks.bits(); };
  // Unit-stride words: all four chunks of one line.
  auto a = accesses_of(strided(0x1000, 4, 4));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(bits(a[0]), 0xFu);
  // 128-byte stride: one word per line, in chunk 0 (chunk 2 from offset 0x48).
  a = accesses_of(strided(0x2000, 128, 4));
  ASSERT_EQ(a.size(), 32u);
  for (const LineAccess& x : a) EXPECT_EQ(bits(x), 0x1u) << std::hex << x.line;
  EXPECT_EQ(bits(accesses_of(strided(0x2048, 128, 4))[0]), 0x4u);
  // 32-byte stride: 4 lanes per line, one word in each chunk.
  a = accesses_of(strided(0x2000, 32, 4));
  ASSERT_EQ(a.size(), 8u);
  for (const LineAccess& x : a) EXPECT_EQ(bits(x), 0xFu);
  // 64-byte stride: chunks 0 and 2 of each line, not contiguous.
  a = accesses_of(strided(0x2000, 64, 4));
  ASSERT_EQ(a.size(), 16u);
  for (const LineAccess& x : a) EXPECT_EQ(bits(x), 0x5u);
  // A lane straddling a chunk and a line boundary: its bytes in each.
  WarpInstruction inst = strided(0, 0, 8);
  inst.active_mask = 0x1u;
  inst.addr[0] = 0x17C;  // bytes 0x17C..0x183
  a = accesses_of(inst);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(bits(a[0]), 0x8u);  // chunk 3 of line 0x100
  EXPECT_EQ(bits(a[1]), 0x1u);  // chunk 0 of line 0x180
  inst.addr[0] = 0x11C;  // bytes 0x11C..0x123: chunks 0 and 1 of one line
  EXPECT_EQ(accesses_of(inst), (std::vector<LineAccess>{{0x100, ChunkMask::from_bits(0x3)}}));
}

TEST(Coalescing, NoActiveLaneIsNoLine) {
  WarpInstruction inst = strided(0x1000, 4, 4);
  inst.active_mask = 0;
  EXPECT_EQ(lines_of(inst), Lines{});
}

uint32_t degree(const WarpInstruction& inst, uint32_t banks = 32) { return smem_conflict_degree(inst, banks); }

TEST(SmemBankConflicts, StrideOneWordIsConflictFree) {
  EXPECT_EQ(degree(strided(0, 4, 4, OpClass::SharedLoad)), 1u);
  EXPECT_EQ(degree(strided(0x80, 4, 4, OpClass::SharedLoad)), 1u);  // any base
}

TEST(SmemBankConflicts, StrideTwoWordsIsTwoWay) {
  // Words 0, 2, ..., 62: even banks only, two words each.
  EXPECT_EQ(degree(strided(0, 8, 4, OpClass::SharedLoad)), 2u);
}

TEST(SmemBankConflicts, OddStrideIsConflictFree) {
  EXPECT_EQ(degree(strided(0, 12, 4, OpClass::SharedLoad)), 1u);
}

TEST(SmemBankConflicts, StrideThirtyTwoWordsIsThirtyTwoWay) {
  EXPECT_EQ(degree(strided(0, 128, 4, OpClass::SharedLoad)), 32u);
  EXPECT_EQ(degree(strided(0, 64, 4, OpClass::SharedLoad)), 16u);  // 16 words: banks 0 and 16
}

TEST(SmemBankConflicts, SameWordIsABroadcast) {
  EXPECT_EQ(degree(strided(0x40, 0, 4, OpClass::SharedLoad)), 1u);
  // Bytes of the same word are the same word too.
  WarpInstruction bytes = strided(0x40, 0, 1, OpClass::SharedLoad);
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) bytes.addr[lane] = 0x40 + lane % 4;
  EXPECT_EQ(degree(bytes), 1u);
  // All lanes read word 0 except lane 1, which reads word 32 (bank 0 too).
  WarpInstruction mixed = strided(0, 0, 4, OpClass::SharedLoad);
  mixed.addr[1] = 128;
  EXPECT_EQ(degree(mixed), 2u);
}

TEST(SmemBankConflicts, OnlyActiveLanesCount) {
  WarpInstruction inst = strided(0, 128, 4, OpClass::SharedLoad);  // all in bank 0
  inst.active_mask = 0x00000007u;
  EXPECT_EQ(degree(inst), 3u);
  inst.active_mask = 0;
  EXPECT_EQ(degree(inst), 0u);
}

TEST(SmemBankConflicts, WideAccessesAndFewerBanks) {
  // 8-byte accesses at unit stride: 64 words over 32 banks.
  EXPECT_EQ(degree(strided(0, 8, 8, OpClass::SharedLoad)), 2u);
  // 16 banks, unit-stride words: 32 words over 16 banks.
  EXPECT_EQ(degree(strided(0, 4, 4, OpClass::SharedLoad), 16), 2u);
}

TEST(SmemBankConflicts, WordsPerBankSayHowLongEachBankIsBusy) {
  SmemBankWords words;
  words.fill(7);  // stale contents must be replaced
  // Stride 64 B: words 0, 16, 32, ...: banks 0 and 16, 16 words each.
  EXPECT_EQ(smem_bank_words(strided(0, 64, 4, OpClass::SharedLoad), 32, words), 16u);
  for (uint32_t b = 0; b < kMaxScratchpadBanks; ++b) EXPECT_EQ(words[b], b == 0 || b == 16 ? 16u : 0u) << b;
  // Unit stride (the fast path): one word in every bank.
  EXPECT_EQ(smem_bank_words(strided(0, 4, 4, OpClass::SharedLoad), 32, words), 1u);
  for (uint32_t b = 0; b < kMaxScratchpadBanks; ++b) EXPECT_EQ(words[b], b < 32 ? 1u : 0u) << b;
  // Lanes 0-2 in bank 0 (words 0, 32, 64), lane 3 broadcasts word 0, the
  // rest inactive: bank 0 delivers 3 words, no other bank is used.
  WarpInstruction few = strided(0, 128, 4, OpClass::SharedLoad);
  few.addr[3] = 0;
  few.active_mask = 0xFu;
  EXPECT_EQ(smem_bank_words(few, 32, words), 3u);
  EXPECT_EQ(words[0], 3u);
  for (uint32_t b = 1; b < kMaxScratchpadBanks; ++b) EXPECT_EQ(words[b], 0u) << b;
}

TEST(SmemBankWords, UnitStrideMarksItsConsecutiveBanksAcrossTheWrap) {
  SmemBankWords words;
  // 64 banks, words 40 .. 71: banks 40 .. 63 and 0 .. 7, one word each.
  EXPECT_EQ(smem_bank_words(strided(40 * 4, 4, 4, OpClass::SharedLoad), 64, words), 1u);
  for (uint32_t b = 0; b < 64; ++b) EXPECT_EQ(words[b], b >= 40 || b < 8 ? 1u : 0u) << b;
  // A unit-stride run that wraps in the CTA's region (lane 16 back at word 0)
  // is not one run of words: lanes 0 and 16 share bank 16 mod 16 = 0 only
  // with 16 banks; with 32 it is still conflict-free.
  WarpInstruction wrapped = strided(16 * 4, 4, 4, OpClass::SharedLoad);
  for (unsigned lane = 16; lane < kWarpLanes; ++lane) wrapped.addr[lane] = (lane - 16) * 4;
  EXPECT_EQ(smem_bank_words(wrapped, 32, words), 1u);
  for (uint32_t b = 0; b < 32; ++b) EXPECT_EQ(words[b], 1u) << b;
  EXPECT_EQ(smem_bank_words(wrapped, 16, words), 2u);
  // The last lane off the run by one word: bank 31 unused, bank 0 twice.
  WarpInstruction broken = strided(0, 4, 4, OpClass::SharedLoad);
  broken.addr[31] = 32 * 4;
  EXPECT_EQ(smem_bank_words(broken, 32, words), 2u);
  EXPECT_EQ(words[0], 2u);
  EXPECT_EQ(words[31], 0u);
}

}  // namespace
}  // namespace smshare
