// Testbench of gpu.smN.scratchpad, driven through its plain object
// (Scratchpad::access, as the LDST unit dispatches an LDS) without an SM.
// The timing rules it checks are in hw/sm/scratchpad.hpp: a d-way bank
// conflict holds the banks d cycles (one wave per cycle) and the data is
// back sm.smem_latency after the last wave, at start + latency + d - 1.
#include <gtest/gtest.h>

#include <vector>

#include "common/scripted_kernel.hpp"
#include "common/structure_bench.hpp"
#include "hw/sm/scratchpad_module.hpp"

namespace smshare::tb {
namespace {

constexpr uint64_t kCycle = 1000;  // ps

// An LDS of all 32 lanes, lane i at word address base + i * stride bytes.
WarpInstruction lds(uint64_t base, uint64_t stride) { return tb::mem(OpClass::SharedLoad, /*reg=*/1, base, stride); }

TEST(ScratchpadModule, AFourWayConflictHoldsTheBanksFourCyclesAndReturnsAtLatencyPlusThree) {
  SmSpec spec;  // Fermi: 32 banks, latency 26
  ASSERT_EQ(spec.smem_latency, 26u);
  BankArbitrator arbitrator(spec.register_banks, spec.scratchpad_banks);
  Scratchpad scratchpad(spec, arbitrator);
  ScratchpadModule dut("scratchpad", scratchpad, 0);

  // Cycle 10: stride 16 B, so lanes 0, 8, 16, 24 all use bank 0 (words 0,
  // 32, 64, 96): degree 4. The next LDS (stride 4 B, conflict free) is
  // dispatched as soon as the LDST unit is free.
  // Each cycle the bench also notes whether bank 0 is claimed, as a
  // register access routed to it would find it (before the cycle's LDS).
  Scratchpad::Timing first{}, second{};
  uint64_t second_start = 0;
  std::vector<bool> bank0_taken;
  StructureBench bench("bench", dut, kCycle, 16, [&](uint64_t cycle) {
    arbitrator.begin_cycle(cycle);
    scratchpad.begin_cycle();
    if (cycle == 10) first = scratchpad.access(lds(0, 16), cycle);
    bank0_taken.push_back(arbitrator.taken(BankGroup::Scratchpad, 0, cycle));
    if (cycle > 10 && second_start == 0 && cycle >= first.unit_free) {
      second_start = cycle;
      second = scratchpad.access(lds(0, 4), cycle);
    }
  });
  sc_core::sc_start();

  EXPECT_EQ(first.unit_free, 14u);
  EXPECT_EQ(first.data_ready, 10u + 26 + 3);
  EXPECT_EQ(second_start, 14u);
  EXPECT_EQ(second.data_ready, 14u + 26);
  // Bank 0 is claimed for the four waves, 10..13: a register access routed there waits.
  for (uint64_t c = 0; c <= 14; ++c) EXPECT_EQ(bank0_taken[c], c >= 10 && c <= 13) << "cycle " << c;

  EXPECT_EQ(bench.probe("accesses_this_cycle", 9), 0);
  EXPECT_EQ(bench.probe("accesses_this_cycle", 10), 32);
  EXPECT_EQ(bench.probe("accesses_this_cycle", 11), 0);
  EXPECT_EQ(bench.probe("last_conflict_degree", 13), 4);
  EXPECT_EQ(bench.probe("accesses_this_cycle", 14), 32);
  EXPECT_EQ(bench.probe("last_conflict_degree", 14), 1);

  EXPECT_EQ(counter(dut, "accesses"), 64u);
  EXPECT_EQ(counter(dut, "conflict_cycles"), 3u);
}

}  // namespace
}  // namespace smshare::tb
