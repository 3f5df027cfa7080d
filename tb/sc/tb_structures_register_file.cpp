// Testbench of gpu.smN.register_file: the RegisterFile bank array of the
// SM's BankArbitrator, driven through the arbitrator (the only way accesses
// reach the banks) without an SM. Checks that the module shows each
// cycle's reads, writes and refusals of its banks, and counts them.
#include <gtest/gtest.h>

#include "common/structure_bench.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/sm/register_file_module.hpp"

namespace smshare::tb {
namespace {

constexpr uint64_t kCycle = 1000;  // ps

TEST(RegisterFileModule, ShowsEachCyclesReadsWritesAndConflicts) {
  SmSpec spec;  // Fermi: 16 register banks
  BankArbitrator arbitrator(spec.register_banks, spec.scratchpad_banks);
  RegisterFileModule dut("register_file", arbitrator.register_file(), 0);

  // Cycle 5: writebacks to banks 0 and 1, then reads of banks 2, 3 and 0;
  // the read of bank 0 is refused (the write has it) and asks again in 6.
  // Cycle 8: a read of one of the operand cache's banks, not a register bank.
  arbitrator.set_banks(BankGroup::OperandCache, 4);
  StructureBench bench("bench", dut, kCycle, 9, [&](uint64_t cycle) {
    arbitrator.begin_cycle(cycle);
    if (cycle == 5) {
      for (uint16_t bank : {0, 1}) EXPECT_TRUE(arbitrator.request(BankGroup::RegisterFile, bank, true, cycle));
      for (uint16_t bank : {2, 3}) EXPECT_TRUE(arbitrator.request(BankGroup::RegisterFile, bank, false, cycle));
      EXPECT_FALSE(arbitrator.request(BankGroup::RegisterFile, 0, false, cycle));
    }
    if (cycle == 6) {
      EXPECT_TRUE(arbitrator.request(BankGroup::RegisterFile, 0, false, cycle));
    }
    if (cycle == 8) {
      EXPECT_TRUE(arbitrator.request(BankGroup::OperandCache, 0, false, cycle));
    }
  });
  sc_core::sc_start();

  EXPECT_EQ(bench.probe("writes_this_cycle", 5), 2);
  EXPECT_EQ(bench.probe("reads_this_cycle", 5), 2);
  EXPECT_EQ(bench.probe("conflicts_this_cycle", 5), 1);
  EXPECT_EQ(bench.probe("writes_this_cycle", 6), 0);
  EXPECT_EQ(bench.probe("reads_this_cycle", 6), 1);
  EXPECT_EQ(bench.probe("conflicts_this_cycle", 6), 0);
  EXPECT_EQ(bench.probe("reads_this_cycle", 7), 0);
  EXPECT_EQ(bench.probe("reads_this_cycle", 8), 0);  // the operand cache's bank

  EXPECT_EQ(counter(dut, "reads"), 3u);
  EXPECT_EQ(counter(dut, "writes"), 2u);
  EXPECT_EQ(counter(dut, "conflicts"), 1u);
  EXPECT_EQ(arbitrator.register_file().reads(0), 1u);
}

}  // namespace
}  // namespace smshare::tb
