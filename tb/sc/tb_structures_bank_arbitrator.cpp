// Testbench of gpu.smN.bank_arbitrator, driven through its plain object
// (BankArbitrator::request, as the SM's writeback and operand-read stages
// call it) without an SM. The grant rules it checks are in
// hw/sm/bank_arbitrator.hpp: one access per bank per cycle, first come first
// served within the cycle, a refused requester asks again next cycle, and
// the SM asks for its writes before its reads.
#include <gtest/gtest.h>

#include <vector>

#include "common/structure_bench.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/sm/bank_arbitrator_module.hpp"

namespace smshare::tb {
namespace {

constexpr uint64_t kCycle = 1000;  // ps

TEST(BankArbitratorModule, AWriteAndThreeReadsOfOneBankAreGrantedOnePerCycleWriteFirst) {
  SmSpec spec;  // Fermi: 16 register banks, 32 scratchpad banks
  BankArbitrator arbitrator(spec.register_banks, spec.scratchpad_banks);
  BankArbitratorModule dut("bank_arbitrator", arbitrator, 0);

  // From cycle 10 a result is written to bank 5 and three collector units
  // each want one operand from bank 5. Each cycle the bench asks as the SM
  // does: the write (writeback) first, then the reads that are still waiting.
  constexpr uint16_t kBank = 5;
  bool write_done = false;
  std::vector<uint64_t> read_granted(3, 0);  // 0: not yet
  StructureBench bench("bench", dut, kCycle, 16, [&](uint64_t cycle) {
    arbitrator.begin_cycle(cycle);
    if (cycle < 10) return;
    if (!write_done) write_done = arbitrator.request(BankGroup::RegisterFile, kBank, true, cycle);
    for (uint64_t& granted : read_granted)
      if (granted == 0 && arbitrator.request(BankGroup::RegisterFile, kBank, false, cycle)) granted = cycle;
  });
  sc_core::sc_start();

  // Cycle 10: the write; reads 0, 1, 2 refused. 11: read 0; 12: read 1; 13: read 2.
  EXPECT_TRUE(write_done);
  EXPECT_EQ(read_granted, (std::vector<uint64_t>{11, 12, 13}));
  const uint64_t grants[] = {1, 1, 1, 1, 0}, conflicts[] = {3, 2, 1, 0, 0};
  for (uint64_t c = 10; c <= 14; ++c) {
    EXPECT_EQ(bench.probe("grants_this_cycle", c), grants[c - 10]) << "cycle " << c;
    EXPECT_EQ(bench.probe("conflicts_this_cycle", c), conflicts[c - 10]) << "cycle " << c;
  }
  EXPECT_EQ(bench.probe("grants_this_cycle", 9), 0);

  EXPECT_EQ(counter(dut, "register_file_grants"), 4u);
  EXPECT_EQ(counter(dut, "register_file_conflicts"), 6u);
  EXPECT_EQ(counter(dut, "scratchpad_grants"), 0u);
  EXPECT_EQ(arbitrator.register_file().writes(kBank), 1u);
  EXPECT_EQ(arbitrator.register_file().reads(kBank), 3u);
}

TEST(BankArbitratorModule, ARegisterAccessToAClaimedScratchpadBankWaitsForTheClaimToEnd) {
  // A mechanism routing a register read to scratchpad bank 3 (EXPARS)
  // competes with an LDS that claimed bank 3 for cycles 4..6 (three waves).
  SmSpec spec;
  BankArbitrator arbitrator(spec.register_banks, spec.scratchpad_banks);
  BankArbitratorModule dut("bank_arbitrator", arbitrator, 0);
  std::vector<uint16_t> waves(spec.scratchpad_banks, 0);
  waves[3] = 3;
  uint64_t granted = 0;
  StructureBench bench("bench", dut, kCycle, 8, [&](uint64_t cycle) {
    arbitrator.begin_cycle(cycle);
    if (cycle == 4) arbitrator.claim(BankGroup::Scratchpad, 4, waves.data());
    if (cycle >= 4 && granted == 0 && arbitrator.request(BankGroup::Scratchpad, 3, false, cycle)) granted = cycle;
  });
  sc_core::sc_start();

  EXPECT_EQ(granted, 7u);
  for (uint64_t c = 4; c <= 6; ++c) EXPECT_EQ(bench.probe("conflicts_this_cycle", c), 1) << "cycle " << c;
  EXPECT_EQ(bench.probe("grants_this_cycle", 7), 1);
  EXPECT_EQ(counter(dut, "scratchpad_grants"), 1u);
  EXPECT_EQ(counter(dut, "scratchpad_conflicts"), 3u);
}

}  // namespace
}  // namespace smshare::tb
