// The scratchpad on its own: conflict degree, unit and data timing, bank
// claims seen by the bank arbitrator (rules in hw/sm/scratchpad.hpp).
#include <gtest/gtest.h>

#include "hw/sm/scratchpad.hpp"
#include "tb/common/scripted_kernel.hpp"

namespace smshare {
namespace {

// All 32 lanes active, lane i at base + i * stride, 4 bytes each.
WarpInstruction lds(uint64_t base, uint64_t stride) { return tb::mem(OpClass::SharedLoad, /*reg=*/1, base, stride); }

struct ScratchpadTest : ::testing::Test {
  SmSpec spec;  // Fermi defaults: 32 banks, latency 26
  BankArbitrator arb{spec.register_banks, spec.scratchpad_banks};
  Scratchpad smem{spec, arb};
};

TEST_F(ScratchpadTest, FourWayConflictIsBusyFourCyclesAndReadyAtLatencyPlusThree) {
  // Stride 16 B: lane i reads word 4i, in bank 4i % 32: banks 0, 4, ..., 28
  // each deliver 4 distinct words.
  ASSERT_EQ(spec.smem_latency, 26u);
  const Scratchpad::Timing t = smem.access(lds(0, 16), 100);
  EXPECT_EQ(t.unit_free, 104u);
  EXPECT_EQ(t.data_ready, 100u + 26u + 3u);
  EXPECT_EQ(smem.accesses(), 32u);
  EXPECT_EQ(smem.conflict_cycles(), 3u);
  EXPECT_EQ(smem.probes().accesses_this_cycle, 32u);
  EXPECT_EQ(smem.probes().last_conflict_degree, 4u);
}

TEST_F(ScratchpadTest, ConflictFreeAccessIsBusyOneCycle) {
  const Scratchpad::Timing t = smem.access(lds(0, 4), 7);
  EXPECT_EQ(t.unit_free, 8u);
  EXPECT_EQ(t.data_ready, 7u + 26u);
  EXPECT_EQ(smem.conflict_cycles(), 0u);
}

TEST_F(ScratchpadTest, BroadcastClaimsOneBankForOneCycle) {
  smem.access(lds(0x40, 0), 50);  // every lane reads word 16, bank 16
  EXPECT_TRUE(arb.taken(BankGroup::Scratchpad, 16, 50));
  EXPECT_FALSE(arb.taken(BankGroup::Scratchpad, 16, 51));
  EXPECT_FALSE(arb.taken(BankGroup::Scratchpad, 0, 50));
  EXPECT_EQ(smem.probes().last_conflict_degree, 1u);
}

TEST_F(ScratchpadTest, ARegisterAccessRoutedToABankTheLdsUsesWaitsForIt) {
  // The 4-way access of cycle 100 holds banks 0, 4, ..., 28 for cycles
  // 100..103: a register read routed to scratchpad bank 4 is refused until
  // 104; bank 5, unused by the LDS, is free at once.
  smem.access(lds(0, 16), 100);
  for (uint64_t c = 100; c <= 103; ++c) EXPECT_FALSE(arb.request(BankGroup::Scratchpad, 4, false, c)) << c;
  EXPECT_TRUE(arb.request(BankGroup::Scratchpad, 4, false, 104));
  EXPECT_TRUE(arb.request(BankGroup::Scratchpad, 5, false, 100));
  EXPECT_EQ(arb.group(BankGroup::Scratchpad).conflicts(4), 4u);
}

TEST_F(ScratchpadTest, AnLdsWhoseBankARegisterWriteTookThisCycleStartsOneCycleLater) {
  // Writeback runs before dispatch: a register write granted scratchpad
  // bank 3 in cycle 50 keeps it, and the conflict-free LDS dispatched in 50
  // (it uses every bank) starts in 51.
  ASSERT_TRUE(arb.request(BankGroup::Scratchpad, 3, true, 50));
  const Scratchpad::Timing t = smem.access(lds(0, 4), 50);
  EXPECT_EQ(t.unit_free, 52u);
  EXPECT_EQ(t.data_ready, 51u + 26u);
  EXPECT_TRUE(arb.taken(BankGroup::Scratchpad, 0, 51));
  EXPECT_FALSE(arb.taken(BankGroup::Scratchpad, 0, 50));
}

TEST_F(ScratchpadTest, NoActiveLaneCostsOneCycleAndTheLatency) {
  WarpInstruction none = lds(0, 4);
  none.active_mask = 0;
  const Scratchpad::Timing t = smem.access(none, 10);
  EXPECT_EQ(t.unit_free, 11u);
  EXPECT_EQ(t.data_ready, 10u + 26u);
  EXPECT_EQ(smem.accesses(), 0u);
}

}  // namespace
}  // namespace smshare
