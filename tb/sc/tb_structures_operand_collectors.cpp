// Testbench of gpu.smN.operand_collectors, driven through its plain object
// (OperandCollectors: allocate at issue, read through a route and the bank
// arbitrator, dispatch) without an SM. The order rules it checks are in
// hw/sm/operand_collectors.hpp: units are read in rotating order starting
// after the unit that started the last cycle with a grant, and dispatched
// in unit order (SP pool, SFU pool, MEM pool), not in issue order.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "common/structure_bench.hpp"
#include "hw/sm/operand_collectors_module.hpp"

namespace smshare::tb {
namespace {

constexpr uint64_t kCycle = 1000;  // ps

WarpInstruction inst(OpClass op, std::vector<uint16_t> srcs) {
  WarpInstruction i;
  i.op = op;
  for (uint16_t s : srcs) i.src[i.num_src++] = s;
  return i;
}

// Register r lives in register-file bank r % 16, reachable at once.
struct BankOfRegister : RegisterRoute {
  OperandRoute route(const WarpContext&, uint16_t reg, bool, uint64_t) override {
    return {false, static_cast<uint16_t>(reg % 16), 0};
  }
};

TEST(OperandCollectorsModule, ReadsRotateAndDispatchGoesInUnitOrder) {
  SmSpec spec;  // Fermi: units SP 0-5, SFU 6-13, MEM 14-15; 16 register banks
  OperandCollectors collectors(spec);
  BankArbitrator arbitrator(spec.register_banks, spec.scratchpad_banks);
  BankOfRegister route;
  OperandCollectorsModule dut("operand_collectors", collectors, 0);

  // Cycle 0 issues, in this order: a load (MEM unit 14, r4), an SFU op
  // (unit 6, r5), an ALU op A (unit 0, r6 and r22) and an ALU op B (unit 1,
  // r38); r6, r22 and r38 are all in bank 6. The bench runs the SM's stages
  // in its order: dispatch, read, issue.
  std::vector<std::pair<uint64_t, size_t>> dispatched;  // (cycle, unit)
  StructureBench bench("bench", dut, kCycle, 5, [&](uint64_t cycle) {
    arbitrator.begin_cycle(cycle);
    collectors.dispatch(cycle, [&](const OperandCollectors::CollectorUnit& c) {
      dispatched.emplace_back(cycle, static_cast<size_t>(&c - collectors.units().data()));
      return true;  // the execution unit takes it
    });
    collectors.read(cycle, route, arbitrator);
    if (cycle == 0) {
      const WarpContext warp{0, 0, 0, 0};
      for (const WarpInstruction& i : {inst(OpClass::GlobalLoad, {4}), inst(OpClass::Sfu, {5}),
                                       inst(OpClass::IntAlu, {6, 22}), inst(OpClass::IntAlu, {38})})
        ASSERT_TRUE(collectors.allocate(warp, i, cycle));
    }
  });
  sc_core::sc_start();

  // Cycle 1 starts reading at unit 0: r6 granted, r22 refused; unit 1's
  // r38 refused; unit 6's r5 and unit 14's r4 granted. Cycle 2 starts at
  // unit 1: r38 granted, then (wrapping) unit 0's r22 refused. Cycle 3
  // starts at unit 2 and wraps to unit 0: r22. Operands are there the cycle
  // after their read, so the SFU op and the load leave in cycle 2 in unit
  // order (SFU before MEM, though the load issued first), B in 3, A in 4 (a
  // fixed priority would have finished A first).
  const std::vector<std::pair<uint64_t, size_t>> expected = {{2, 6}, {2, 14}, {3, 1}, {4, 0}};
  EXPECT_EQ(dispatched, expected);
  const int64_t busy[] = {4, 4, 2, 1, 0, 0};
  for (uint64_t c = 0; c <= 5; ++c) EXPECT_EQ(bench.probe("busy_units", c), busy[c]) << "cycle " << c;
  EXPECT_EQ(counter(dut, "allocations"), 4u);
  EXPECT_EQ(arbitrator.register_file().conflicts(6), 3u);
}

}  // namespace
}  // namespace smshare::tb
