// Zorua's phase rule on a trace's stream (hw/frontend/trace_phases.hpp),
// with hand-derived live sets: a cut where the live registers change by at
// least 25 % (symmetric difference over union), at least 10 instructions
// after the last, not while the warp is diverged; always after a barrier.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../common/scripted_kernel.hpp"
#include "hw/frontend/trace_phases.hpp"

namespace smshare {
namespace {

using tb::alu;
using tb::barrier;

// Numbers each instruction's PC 16 bytes apart, as SASS does.
std::vector<WarpInstruction> at_pcs(std::vector<WarpInstruction> v) {
  for (size_t i = 0; i < v.size(); ++i) v[i].pc = 16 * i;
  return v;
}

std::vector<uint16_t> phases(uint16_t first, size_t n_first, uint16_t second, size_t n_second) {
  std::vector<uint16_t> p(n_first, first);
  p.insert(p.end(), n_second, second);
  return p;
}

// Ten instructions reading R1, R2, then ten reading R3, R4: live before the
// first ten is {1, 2, 3, 4} (R3, R4 are read later and never written), before
// the second ten {3, 4}: a change of 2 of 4 registers, 50 %.
std::vector<WarpInstruction> two_halves(size_t first_half) {
  std::vector<WarpInstruction> v;
  for (size_t i = 0; i < first_half; ++i) v.push_back(alu(5, {1, 2}));
  for (size_t i = 0; i < 10; ++i) v.push_back(alu(6, {3, 4}));
  return at_pcs(v);
}

TEST(TracePhases, CutWhereTheLiveSetChangesByAQuarter) {
  const TracePhases p(two_halves(10));
  EXPECT_EQ(p.stream_phases(), phases(0, 10, 1, 10));
  EXPECT_EQ(p.names(), (std::vector<std::string>{"phase0", "phase1"}));
}

TEST(TracePhases, AtLeastTenInstructionsApart) {
  // The change comes after 5 instructions: the cut waits until the 10th.
  const TracePhases p(two_halves(5));
  EXPECT_EQ(p.stream_phases(), phases(0, 10, 1, 5));
}

TEST(TracePhases, NotWhileDiverged) {
  std::vector<WarpInstruction> v = two_halves(10);
  v[10].active_mask = 0x0000ffffu;  // the first of the second half runs diverged
  const TracePhases p(v);
  EXPECT_EQ(p.stream_phases(), phases(0, 11, 1, 9));
}

TEST(TracePhases, ASmallerChangeIsNoCut) {
  // R1..R5 are only read: live {1..5} up to the read of R5 (instruction
  // 10), {1..4} after it: 1 of 5, 20 %.
  std::vector<WarpInstruction> v(10, alu(9, {1, 2, 3, 4}));
  v.push_back(alu(9, {5}));
  v.insert(v.end(), 10, alu(9, {1, 2, 3, 4}));
  const TracePhases p(at_pcs(v));
  EXPECT_EQ(p.names().size(), 1u);
  // R6 instead of R5 twice as often: {1..6} then {1..4}, 2 of 6: a cut.
  v[10] = alu(9, {5, 6});
  EXPECT_EQ(TracePhases(at_pcs(v)).stream_phases(), phases(0, 11, 1, 10));
}

TEST(TracePhases, ABarrierAlwaysEndsAPhase) {
  const TracePhases p(at_pcs({alu(1, {2}), barrier(), alu(1, {2})}));
  EXPECT_EQ(p.stream_phases(), (std::vector<uint16_t>{0, 0, 1}));
}

TEST(TracePhases, APcKeepsThePhaseOfItsFirstExecution) {
  // A loop body (PCs 0x10, 0x20) run twice, the second time after a
  // barrier: its PCs stay in phase 0. A PC the stream never ran takes the
  // phase of the nearest lower one.
  std::vector<WarpInstruction> v = {alu(1, {2}), alu(3, {1}), alu(4, {3}), barrier(), alu(1, {2}), alu(3, {1})};
  const uint64_t pcs[] = {0x00, 0x10, 0x20, 0x30, 0x10, 0x20};
  for (size_t i = 0; i < v.size(); ++i) v[i].pc = pcs[i];
  v.push_back(alu(5, {4}));
  v.back().pc = 0x40;
  const TracePhases p(v);
  EXPECT_EQ(p.stream_phases(), (std::vector<uint16_t>{0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(p.phase_of(0x10), 0u);
  EXPECT_EQ(p.phase_of(0x40), 1u);
  EXPECT_EQ(p.phase_of(0x48), 1u);  // never ran: its lower neighbour's
  EXPECT_EQ(TracePhases({}).names().size(), 1u);
}

}  // namespace
}  // namespace smshare
