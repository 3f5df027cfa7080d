// The operand collectors on their own: allocation at issue, reading in
// rotating order through a route and the bank arbitrator, dispatch order
// (rules in hw/sm/operand_collectors.hpp).
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "hw/sm/operand_collectors.hpp"

namespace smshare {
namespace {

WarpInstruction alu(std::vector<uint16_t> srcs, OpClass op = OpClass::IntAlu) {
  WarpInstruction i;
  i.op = op;
  i.num_dst = 1;
  i.dst[0] = 100;
  for (uint16_t s : srcs) i.src[i.num_src++] = s;
  return i;
}

// Register r of any warp lives in register-file bank r % 16 (warp slot 0's
// baseline mapping); registers from `retry_from` up are not accessible
// before cycle `retry_until`; `extra` cycles on every access; registers
// from `cache_from` up are served by operand-cache bank r % 4.
struct TestRoute : RegisterRoute {
  uint16_t retry_from = 0xFFFF;
  uint64_t retry_until = 0;
  uint16_t extra = 0;
  uint16_t cache_from = 0xFFFF;
  OperandRoute route(const WarpContext&, uint16_t reg, bool, uint64_t cycle) override {
    if (reg >= retry_from && cycle < retry_until) return {true, 0, 0};
    if (reg >= cache_from) return {false, static_cast<uint16_t>(reg % 4), extra, BankGroup::OperandCache};
    return {false, static_cast<uint16_t>(reg % 16), extra};
  }
};

struct CollectorsTest : ::testing::Test {
  SmSpec spec;  // Fermi: 6 SP, 8 SFU, 2 MEM units; 16 register banks
  OperandCollectors oc{spec};
  BankArbitrator arb{spec.register_banks, spec.scratchpad_banks};
  TestRoute route;
  WarpContext warp{0, 0, 0, 0};

  // Runs the read stage of `cycle` (with the arbitrator's cycle started).
  OperandCollectors::ReadResult read(uint64_t cycle) {
    arb.begin_cycle(cycle);
    return oc.read(cycle, route, arb);
  }
  // Collects, in `cycle`, the indices of the units dispatch offers.
  std::vector<size_t> offered(uint64_t cycle, bool accept = false, uint64_t* next_ready = nullptr) {
    std::vector<size_t> v;
    const uint64_t next = oc.dispatch(cycle, [&](const OperandCollectors::CollectorUnit& c) {
      v.push_back(static_cast<size_t>(&c - oc.units().data()));
      return accept;
    });
    if (next_ready) *next_ready = next;
    return v;
  }
};

TEST_F(CollectorsTest, AllocationTakesTheLowestFreeUnitOfTheInstructionsType) {
  // Units are numbered SP 0-5, SFU 6-13, MEM 14-15.
  WarpInstruction ld;
  ld.op = OpClass::GlobalLoad;
  EXPECT_TRUE(oc.allocate(warp, ld, 0));
  EXPECT_TRUE(oc.allocate(warp, alu({1}, OpClass::Sfu), 0));
  EXPECT_TRUE(oc.allocate(warp, alu({1}), 0));
  EXPECT_TRUE(oc.allocate(warp, ld, 0));
  EXPECT_FALSE(oc.allocate(warp, ld, 0));  // both MEM units busy: the warp cannot issue
  EXPECT_TRUE(oc.busy(14) && oc.busy(15) && oc.busy(6) && oc.busy(0));
  EXPECT_FALSE(oc.busy(1) || oc.busy(7));
  EXPECT_EQ(oc.busy_units(), 4u);
}

TEST_F(CollectorsTest, ARegisterReadTwiceIsReadOnce) {
  ASSERT_TRUE(oc.allocate(warp, alu({3, 3, 5}), 0));
  EXPECT_EQ(oc.units()[0].pending, 0b101);  // r3 in its first slot, r5
}

TEST_F(CollectorsTest, EmptySlotsAreNotRead) {
  // An empty slot between registers, and registers in every slot
  // (register 0 and the largest index among them).
  ASSERT_TRUE(oc.allocate(warp, alu({7, kNoReg, 9}), 0));
  EXPECT_EQ(oc.units()[0].pending, 0b101);
  ASSERT_TRUE(oc.allocate(warp, alu({0, 0xFFFE, 2, 3}), 0));
  EXPECT_EQ(oc.units()[1].pending, 0b1111);
  ASSERT_TRUE(oc.allocate(warp, alu({kNoReg, kNoReg, kNoReg, 4}), 0));
  EXPECT_EQ(oc.units()[2].pending, 0b1000);
}

TEST_F(CollectorsTest, ReadsRotateTheStartingUnitAfterEachCycleWithAGrant) {
  // Issued in cycle 0: unit 0 reads r0 and r16, unit 1 reads r32, all in
  // bank 0. Cycle 1 starts at unit 0: r0 granted, r16 and r32 refused.
  // Cycle 2 starts at unit 1: r32 granted, r16 refused. Cycle 3 starts at
  // unit 2 and wraps to unit 0: r16. So unit 1 is ready at 3, unit 0 at 4
  // (a fixed priority would have finished unit 0 first).
  ASSERT_TRUE(oc.allocate(warp, alu({0, 16}), 0));
  ASSERT_TRUE(oc.allocate(warp, alu({32}), 0));
  EXPECT_TRUE(read(1).granted);
  EXPECT_EQ(oc.units()[0].pending, 0b10);
  EXPECT_EQ(oc.units()[1].pending, 0b1);
  EXPECT_TRUE(read(2).granted);
  EXPECT_EQ(oc.units()[1].pending, 0);
  EXPECT_EQ(oc.units()[1].ready_cycle, 3u);
  EXPECT_EQ(oc.units()[0].pending, 0b10);
  EXPECT_TRUE(read(3).granted);
  EXPECT_EQ(oc.units()[0].pending, 0);
  EXPECT_EQ(oc.units()[0].ready_cycle, 4u);
  EXPECT_EQ(arb.register_file().reads(0), 3u);
  EXPECT_EQ(arb.register_file().conflicts(0), 3u);
}

TEST_F(CollectorsTest, ACycleWithoutAGrantLeavesTheRotationWhereItWas) {
  // Unit 0 waits on a route retry for r20 in cycles 1 and 2: nothing is
  // granted, so cycle 3 still starts at unit 0 (had the order moved on each
  // cycle it would start at unit 2). In cycle 2 units 1 (nothing to read)
  // and 2 (r36, bank 4 like r20) are allocated: in cycle 3 unit 0 wins
  // bank 4 and unit 2 waits.
  route.retry_from = 20;
  route.retry_until = 3;
  ASSERT_TRUE(oc.allocate(warp, alu({20}), 0));
  for (uint64_t c = 1; c < 3; ++c) {
    const auto r = read(c);
    EXPECT_FALSE(r.granted);
    EXPECT_EQ(r.route_retries, 1u);
  }
  ASSERT_TRUE(oc.allocate(warp, alu({}), 2));
  ASSERT_TRUE(oc.allocate(warp, alu({36}), 2));
  EXPECT_TRUE(read(3).granted);
  EXPECT_EQ(oc.units()[0].pending, 0);
  EXPECT_EQ(oc.units()[2].pending, 0b1);
}

TEST_F(CollectorsTest, ExtraRouteCyclesDelayTheOperands) {
  route.extra = 2;
  ASSERT_TRUE(oc.allocate(warp, alu({1}), 0));
  read(1);
  EXPECT_EQ(oc.units()[0].ready_cycle, 1u + 1u + 2u);
}

TEST_F(CollectorsTest, ARouteToTheOperandCacheUsesItsBanks) {
  // r40 and r44 are in operand-cache bank 0, r0 in register bank 0: the
  // two groups are separate banks, the two cache reads conflict.
  arb.set_banks(BankGroup::OperandCache, 4);
  route.cache_from = 40;
  ASSERT_TRUE(oc.allocate(warp, alu({0, 40, 44}), 0));
  read(1);
  EXPECT_EQ(oc.units()[0].pending, 0b100);
  read(2);
  EXPECT_EQ(oc.units()[0].pending, 0);
  EXPECT_EQ(arb.group(BankGroup::OperandCache).reads(0), 2u);
  EXPECT_EQ(arb.register_file().reads(0), 1u);
}

TEST_F(CollectorsTest, DispatchOffersReadyUnitsInUnitOrderUntilTheirPoolRefusesAndFreesThoseThatLeave) {
  // SFU unit 6 and SP units 0 and 1 issued in cycle 0 with no operands to
  // read (ready at 1); SP unit 2 issued in cycle 1 (ready at 2).
  ASSERT_TRUE(oc.allocate(warp, alu({}, OpClass::Sfu), 0));
  ASSERT_TRUE(oc.allocate(warp, alu({}), 0));
  ASSERT_TRUE(oc.allocate(warp, alu({}), 0));
  ASSERT_TRUE(oc.allocate(warp, alu({}), 1));
  uint64_t next = 0;
  EXPECT_EQ(offered(0, false, &next), std::vector<size_t>{});
  EXPECT_EQ(next, 1u);  // the earliest unit with its operands on the way
  // A refusal closes the unit's pool for the step (SP unit 1 is not
  // offered), but the pool's units still waiting give the wake-up.
  EXPECT_EQ(offered(1, false, &next), (std::vector<size_t>{0, 6}));
  EXPECT_EQ(next, 2u);
  EXPECT_EQ(offered(2, true, &next), (std::vector<size_t>{0, 1, 2, 6}));
  EXPECT_EQ(next, OperandCollectors::kNever);
  EXPECT_EQ(oc.busy_units(), 0u);
  EXPECT_EQ(oc.probes().busy_units, 0u);
}

TEST_F(CollectorsTest, APoolThatTakesNoneIsPassedOverOnlyOnceNoUnitWaitsForItsOperands) {
  // SP unit 0 reads r1 in cycle 1 through 2 extra route cycles (ready at
  // 4); SP unit 1 and SFU unit 6 have nothing to read (ready at 1). The SP
  // pool takes none (its OC_EX register full): while unit 0 waits, its
  // ready time is still the wake-up, so the pool is offered; from cycle 4
  // it is passed over.
  route.extra = 2;
  ASSERT_TRUE(oc.allocate(warp, alu({1}), 0));
  ASSERT_TRUE(oc.allocate(warp, alu({}), 0));
  ASSERT_TRUE(oc.allocate(warp, alu({}, OpClass::Sfu), 0));
  read(1);
  std::vector<size_t> offered;
  const auto refuse = [&](const OperandCollectors::CollectorUnit& c) {
    offered.push_back(static_cast<size_t>(&c - oc.units().data()));
    return false;
  };
  const auto sp_full = [](ExecUnit u) { return u != ExecUnit::Sp; };
  EXPECT_EQ(oc.dispatch(2, refuse, sp_full, 0), 4u);
  EXPECT_EQ(offered, (std::vector<size_t>{1, 6}));
  offered.clear();
  EXPECT_EQ(oc.dispatch(4, refuse, sp_full, 0), OperandCollectors::kNever);
  EXPECT_EQ(offered, std::vector<size_t>{6});
}

TEST_F(CollectorsTest, EachUnitIsOfItsPoolsType) {
  // dispatch() tells the compiler so: its callers find an offered unit's
  // per-type state (OC_EX register, pipelines) from the pool it visits.
  ASSERT_EQ(oc.units().size(), spec.oc_units_sp + spec.oc_units_sfu + spec.oc_units_mem);
  for (uint32_t u = 0; u < oc.units().size(); ++u) {
    const ExecUnit expected = u < spec.oc_units_sp                       ? ExecUnit::Sp
                              : u < spec.oc_units_sp + spec.oc_units_sfu ? ExecUnit::Sfu
                                                                         : ExecUnit::Mem;
    EXPECT_EQ(oc.units()[u].unit, expected) << "unit " << u;
  }
}

TEST(ExecUnitOf, SfuToTheSfusMemoryToTheLdstUnitTheRestToTheSps) {
  for (unsigned k = 0; k < kNumOpClasses; ++k) {
    const auto op = static_cast<OpClass>(k);
    const ExecUnit expected = op == OpClass::Sfu ? ExecUnit::Sfu : is_memory(op) ? ExecUnit::Mem : ExecUnit::Sp;
    EXPECT_EQ(exec_unit_of(op), expected) << to_string(op);
  }
}

// The baseline's route as a route that must be asked (route() each time):
// what read() did for every route before it compiled the interleaved one
// into its loop.
struct AskedInterleavedRoute : RegisterRoute {
  uint32_t banks;
  explicit AskedInterleavedRoute(uint32_t b) : banks(b) {}
  OperandRoute route(const WarpContext& w, uint16_t reg, bool, uint64_t) override {
    return interleaved(w, reg, banks);
  }
};

// Two collectors and arbitrators, one read through the default route (its
// loop in read() knows the route), the other through the same mapping asked
// per operand; random instructions of random warps, with writes taking banks
// first in some cycles, `ports` ports a bank (read() has a loop of its own
// for one): every unit's pending set, and the ready cycle of every unit that
// has read its operands, agree after every step, and every bank's counts at
// the end.
void expect_interleaved_reads_as_asked(bool pipeline_registers, uint32_t ports) {
  SmSpec spec;
  spec.pipeline_registers = pipeline_registers;
  spec.register_bank_ports = ports;
  OperandCollectors fast(spec), asked(spec);
  BankArbitrator fast_arb(spec.register_banks, spec.scratchpad_banks, ports),
      asked_arb(spec.register_banks, spec.scratchpad_banks, ports);
  const std::unique_ptr<RegisterRoute> fast_route = make_default_route(spec.register_banks);
  AskedInterleavedRoute asked_route(spec.register_banks);
  std::mt19937 rng(5);
  for (uint64_t cycle = 1; cycle < 400; ++cycle) {
    fast_arb.begin_cycle(cycle);
    asked_arb.begin_cycle(cycle);
    for (uint32_t w = rng() % 3; w > 0; --w) {
      const auto bank = static_cast<uint16_t>(rng() % spec.register_banks);
      ASSERT_EQ(fast_arb.request(BankGroup::RegisterFile, bank, true, cycle),
                asked_arb.request(BankGroup::RegisterFile, bank, true, cycle));
    }
    for (uint32_t step = 0; step < fast.steps_per_cycle(); ++step) {
      const auto leave = [](const OperandCollectors::CollectorUnit&) { return true; };
      fast.dispatch(cycle, leave, step);
      asked.dispatch(cycle, leave, step);
      const auto a = fast.read(cycle, *fast_route, fast_arb, step);
      const auto b = asked.read(cycle, asked_route, asked_arb, step);
      ASSERT_EQ(a.granted, b.granted) << "cycle " << cycle;
      ASSERT_EQ(a.route_retries, 0u);
      ASSERT_EQ(b.route_retries, 0u);
      for (uint32_t n = rng() % 3; n > 0; --n) {
        WarpInstruction inst;
        inst.op = rng() % 4 ? OpClass::IntAlu : OpClass::Sfu;
        inst.num_src = static_cast<uint8_t>(rng() % (kMaxSrcRegs + 1));
        for (uint8_t i = 0; i < inst.num_src; ++i) inst.src[i] = rng() % 5 ? static_cast<uint16_t>(rng() % 64) : kNoReg;
        const WarpContext warp{static_cast<uint32_t>(rng() % 48), 0, 0, 0};
        ASSERT_EQ(fast.allocate(warp, inst, cycle, step), asked.allocate(warp, inst, cycle, step));
      }
      for (size_t u = 0; u < fast.units().size(); ++u) {
        ASSERT_EQ(fast.busy(u), asked.busy(u)) << "cycle " << cycle << " unit " << u;
        ASSERT_EQ(fast.units()[u].pending, asked.units()[u].pending) << "cycle " << cycle << " unit " << u;
        if (fast.busy(u) && fast.units()[u].pending == 0) {  // a ready time is kept from the last read on
          ASSERT_EQ(fast.units()[u].ready_cycle, asked.units()[u].ready_cycle) << "cycle " << cycle << " unit " << u;
        }
      }
    }
  }
  for (uint16_t b = 0; b < spec.register_banks; ++b) {
    EXPECT_EQ(fast_arb.register_file().reads(b), asked_arb.register_file().reads(b)) << "bank " << b;
    EXPECT_EQ(fast_arb.register_file().conflicts(b), asked_arb.register_file().conflicts(b)) << "bank " << b;
  }
  EXPECT_GT(fast_arb.register_file().total_reads(), 500u);
  EXPECT_GT(fast_arb.register_file().total_conflicts(), 0u);  // the banks were contended
}

TEST(CollectorsInterleavedRoute, ReadsAsTheSameRouteAskedPerOperand) { expect_interleaved_reads_as_asked(false, 2); }

TEST(CollectorsInterleavedRoute, ReadsAsTheSameRouteAskedPerOperandInPipelineRegisterSteps) {
  expect_interleaved_reads_as_asked(true, 2);
}

TEST(CollectorsInterleavedRoute, ReadsAsTheSameRouteAskedPerOperandFromSinglePortedBanks) {
  expect_interleaved_reads_as_asked(false, 1);
  expect_interleaved_reads_as_asked(true, 1);
}

}  // namespace
}  // namespace smshare
