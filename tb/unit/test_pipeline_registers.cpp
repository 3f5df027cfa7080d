// The pieces of sm.pipeline_registers on their own: a pipeline register
// (oldest first, width), a pipeline's result cycles (GPGPU-Sim's occupied
// bits), a register bank granting once per operand-collector step, and the
// collectors stepping P times a cycle (rules in hw/sm/pipeline_register.hpp,
// bank_arbitrator.hpp and operand_collectors.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "hw/sm/bank_arbitrator.hpp"
#include "hw/sm/operand_collectors.hpp"
#include "hw/sm/pipeline_register.hpp"

namespace smshare {
namespace {

TEST(PipelineRegister, HoldsItsWidthAndHandsOnTheOldestFirst) {
  PipelineRegister<char> reg(2);
  EXPECT_TRUE(reg.empty());
  reg.move_in(7) = 'b';
  reg.move_in(3) = 'a';  // older, moved in later (GPGPU-Sim's get_ready picks the lowest uid)
  EXPECT_FALSE(reg.has_free());
  EXPECT_EQ(reg.oldest(), 'a');
  reg.pop_oldest();
  EXPECT_TRUE(reg.has_free());
  EXPECT_EQ(reg.oldest(), 'b');
  reg.move_in(9) = 'c';  // into the slot 'a' left
  EXPECT_EQ(reg.size(), 2u);
  EXPECT_EQ(reg.oldest(), 'b');
  reg.pop_oldest();
  EXPECT_EQ(reg.oldest(), 'c');
  reg.pop_oldest();
  EXPECT_TRUE(reg.empty());
}

TEST(PipelineRegister, TheOldestKeptAcrossMovesAndPopsIsTheSmallestAgeHeld) {
  // The register keeps its oldest slot between calls; a plain search over
  // what it holds must agree after every step (random ages, repeats too).
  PipelineRegister<uint64_t> reg(3);
  std::vector<uint64_t> held;
  std::mt19937 rng(11);
  for (int step = 0; step < 2000; ++step) {
    if (reg.has_free() && (reg.empty() || rng() % 2)) {
      const uint64_t age = rng() % 16;
      reg.move_in(age) = age;
      held.push_back(age);
    } else {
      const auto smallest = std::min_element(held.begin(), held.end());
      ASSERT_EQ(reg.oldest(), *smallest) << "step " << step;
      held.erase(smallest);
      reg.pop_oldest();
    }
    ASSERT_EQ(reg.size(), held.size());
  }
}

TEST(FifoPipelineRegister, HandsOnWhatAPipelineRegisterGivenIncreasingAgesDoes) {
  // Random moves in and pops across the ring's wrap, against the general
  // register with ages in the order of moving in (issue order).
  FifoPipelineRegister<uint64_t> fifo(3);
  PipelineRegister<uint64_t> reg(3);
  std::mt19937 rng(5);
  uint64_t next_age = 0, popped = 0;
  for (int step = 0; step < 2000; ++step) {
    ASSERT_EQ(fifo.has_free(), reg.has_free());
    if (fifo.has_free() && (fifo.empty() || rng() % 2)) {
      fifo.move_in() = next_age;
      reg.move_in(next_age) = next_age;
      ++next_age;
    } else {
      ASSERT_EQ(fifo.oldest(), reg.oldest()) << "step " << step;
      ASSERT_EQ(fifo.oldest(), popped++);
      fifo.pop_oldest();
      reg.pop_oldest();
    }
    ASSERT_EQ(fifo.size(), reg.size());
    ASSERT_EQ(fifo.empty(), reg.empty());
  }
  EXPECT_GT(popped, 500u);
}

TEST(ResultCycles, APipelineTakesNoInstructionLeavingWithAnother) {
  // An FFMA (latency 5) taken at 10 leaves at 15; an IADD3 (latency 4) taken
  // at 11 would too, so it waits a cycle (GPGPU-Sim: occupied.test(latency))
  // and leaves at 16.
  ResultCycles pipe;
  EXPECT_FALSE(pipe.taken(15));
  pipe.take(15);
  EXPECT_TRUE(pipe.taken(11 + 4));
  EXPECT_FALSE(pipe.taken(12 + 4));
  // A cycle kSpan later shares the ring's place but not the cycle.
  EXPECT_FALSE(pipe.taken(15 + ResultCycles::kSpan));
  pipe.take(15 + ResultCycles::kSpan);
  EXPECT_TRUE(pipe.taken(15 + ResultCycles::kSpan));
}

// A ring as long as the SM's longest latency needs (fermi-gtx480's SFU: 20
// cycles, so 32 places): every instruction in flight still has a place of its
// own, and one place serves cycles 32 apart.
TEST(ResultCycles, TheRingIsThePowerOfTwoAboveTheLongestLatency) {
  ResultCycles pipe(20);
  pipe.take(100);  // an SFU instruction taken at 80
  for (uint64_t leaves = 81; leaves <= 100 + 20; ++leaves) EXPECT_EQ(pipe.taken(leaves), leaves == 100) << leaves;
  pipe.take(120);  // taken at 100, while the first is in flight: places 100 % 32 and 120 % 32 differ
  EXPECT_TRUE(pipe.taken(100));
  EXPECT_TRUE(pipe.taken(120));
  EXPECT_FALSE(pipe.taken(132));  // 100's place, another cycle
  pipe.take(132);                 // after 100 has left
  EXPECT_TRUE(pipe.taken(132));
  EXPECT_FALSE(pipe.taken(100));
  // 31 is the longest a 32-place ring holds; a longer one takes 64 places.
  ResultCycles longer(32);
  longer.take(100);
  EXPECT_FALSE(longer.taken(132));
  longer.take(132);
  EXPECT_TRUE(longer.taken(100));
  EXPECT_THROW(ResultCycles(ResultCycles::kSpan), std::invalid_argument);
}

TEST(BankSteps, ABankGrantsOnceAStepAndTheCyclesWritesTakeStepZero) {
  BankArbitrator arb(16, 32, /*register_bank_ports=*/2);
  arb.begin_cycle(5);
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 3, false, 5, 0));
  EXPECT_FALSE(arb.request(BankGroup::RegisterFile, 3, false, 5, 0));  // one grant per step
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 3, false, 5, 1));
  EXPECT_FALSE(arb.request(BankGroup::RegisterFile, 3, false, 5, 1));  // both ports used
  // A write (the writeback stage, before the first step) takes step 0.
  arb.begin_cycle(6);
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 4, true, 6));
  EXPECT_FALSE(arb.request(BankGroup::RegisterFile, 4, false, 6, 0));
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 4, false, 6, 1));
  // An unused step 0 is not saved for step 1: still one grant there.
  arb.begin_cycle(7);
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 5, false, 7, 1));
  EXPECT_FALSE(arb.request(BankGroup::RegisterFile, 5, false, 7, 1));
  EXPECT_EQ(arb.register_file().conflicts(5), 1u);
}

struct BankOfRegister : RegisterRoute {  // register r in bank r % 16
  OperandRoute route(const WarpContext&, uint16_t reg, bool, uint64_t) override {
    return {false, static_cast<uint16_t>(reg % 16), 0};
  }
};

TEST(SteppedCollectors, AllocatedInAStepReadFromTheNextAndLeaveTheStepAfterTheLastRead) {
  SmSpec spec;
  spec.pipeline_registers = true;
  spec.register_bank_ports = 2;
  OperandCollectors oc(spec);
  BankArbitrator arb(spec.register_banks, spec.scratchpad_banks, spec.register_bank_ports);
  BankOfRegister route;
  ASSERT_EQ(oc.steps_per_cycle(), 2u);
  // r1 read twice: GPGPU-Sim queues every source operand, so both reads go
  // to bank 1, one per step (the compact timing reads it once).
  WarpInstruction inst;
  inst.num_dst = 1;
  inst.dst[0] = 9;
  inst.src = {1, 1, kNoReg, kNoReg};
  inst.num_src = 2;
  auto leaves = [&](uint64_t cycle, uint32_t step) {
    bool left = false;
    oc.dispatch(cycle, [&](const OperandCollectors::CollectorUnit&) { return left = true; }, step);
    return left;
  };
  arb.begin_cycle(10);
  ASSERT_TRUE(oc.allocate(WarpContext{}, inst, 10, 0));
  EXPECT_EQ(oc.units()[0].pending, 0b11);
  EXPECT_FALSE(leaves(10, 1));
  EXPECT_TRUE(oc.read(10, route, arb, 1).granted);  // first read of r1, step 1 of cycle 10
  arb.begin_cycle(11);
  EXPECT_FALSE(leaves(11, 0));
  EXPECT_TRUE(oc.read(11, route, arb, 0).granted);  // second, step 0 of cycle 11
  EXPECT_TRUE(leaves(11, 1));                        // dispatched in the next step
}

}  // namespace
}  // namespace smshare
