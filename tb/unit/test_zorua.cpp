// Zorua (Vijaykumar et al. 2016) as plain state: the mapping tables
// (hw/sharing/zorua/mapping_table.hpp), the phase sets and swap layout, and
// one SM's coordinator (zorua_sm.hpp) driven event by event as the SM drives
// it, against a memory port that answers every swap access after a fixed
// latency. The SM here is small enough to count by hand: 4 physical warp
// slots, 8 physical register sets (1,024 registers), 4 KB of scratchpad (4
// sets); 6 logical warps and 3 logical CTAs of 2 warps.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "../common/input_error_of.hpp"
#include "../common/scripted_kernel.hpp"
#include "hw/common/error.hpp"
#include "hw/sharing/zorua/mapping_table.hpp"
#include "hw/sharing/zorua/zorua_sm.hpp"

namespace smshare::zorua {
namespace {

using tb::alu;

constexpr uint64_t kSwapLatency = 100;

struct FakePort final : MechanismMemoryPort {
  struct Access {
    uint64_t line;
    bool write;
    uint64_t cycle;
    uint64_t tag;
  };
  std::vector<Access> accesses;
  bool defer_reads = false;  // as under FR-FCFS: the memory system answers reads later
  SwapRegion swap_region() const override { return {1ull << 48, 1ull << 22}; }
  uint64_t access(uint64_t line, bool is_write, uint64_t cycle, uint64_t tag) override {
    accesses.push_back({line, is_write, cycle, tag});
    return defer_reads && !is_write ? kDeferred : cycle + kSwapLatency;
  }
  size_t reads() const {
    size_t n = 0;
    for (const Access& a : accesses) n += !a.write;
    return n;
  }
};

TEST(ZoruaMappingTable, MapsLowestFreeSetFirstAndCountsFreeAndSwapped) {
  MappingTable t(/*owners=*/2, /*sets_per_owner=*/3, /*physical_sets=*/2, /*swap_sets=*/1);
  EXPECT_EQ(t.free_sets(), 2u);
  ASSERT_TRUE(t.map_physical(1, 2));
  EXPECT_EQ(t.entry(1, 2), 0u);
  ASSERT_TRUE(t.map_physical(0, 0));
  EXPECT_EQ(t.entry(0, 0), 1u);
  EXPECT_FALSE(t.map_physical(0, 1));  // none free
  ASSERT_TRUE(t.map_swap(0, 1));
  EXPECT_TRUE(t.in_swap(0, 1));
  EXPECT_FALSE(t.map_swap(1, 0));  // swap full
  EXPECT_EQ(t.swapped_sets(), 1u);
  t.unmap(1, 2);
  EXPECT_EQ(t.free_sets(), 1u);
  ASSERT_TRUE(t.map_physical(1, 0));
  EXPECT_EQ(t.entry(1, 0), 0u);  // the freed set, lowest again
  t.unmap(0, 1);
  EXPECT_EQ(t.swapped_sets(), 0u);
  EXPECT_EQ(t.lookup(0, 0), 1u);
  EXPECT_EQ(t.lookups(), 1u);
  EXPECT_EQ(t.swap_mappings(), 1u);
  EXPECT_THROW(t.map_physical(0, 0), std::logic_error);  // mapped twice
  EXPECT_THROW(t.entry(2, 0), std::logic_error);         // no such owner
}

// Two phases: R0-R7 with the first 2 KB of scratchpad, then R8-R11 with none.
KernelResources two_phase_kernel(uint32_t grid = 3) {
  KernelResources k;
  k.grid_ctas = grid;
  k.threads_per_cta = 64;
  k.regs_per_thread = 12;
  k.smem_bytes_per_cta = 2048;
  k.phase_names = {"load", "compute"};
  PhaseNeed load, compute;
  for (int r = 0; r < 8; ++r) load.registers.set(r);
  load.smem = {{0, 2048}};
  for (int r = 8; r < 12; ++r) compute.registers.set(r);
  k.phase_needs = {load, compute};
  return k;
}

TEST(ZoruaPhases, PhaseNeedsBecomeRegisterSetsOfFourAndScratchpadSetsOfOneKilobyte) {
  KernelResources k = two_phase_kernel();
  k.phase_needs[0].smem = {{100, 1025}};  // bytes 100..1024 touch sets 0 and 1
  const std::vector<PhaseSets> p = phase_sets(k, "k.yaml");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].registers.to_ulong(), 0b11u);
  EXPECT_EQ(p[0].smem.to_ulong(), 0b11u);
  EXPECT_EQ(p[1].registers.to_ulong(), 0b100u);
  EXPECT_TRUE(p[1].smem.none());
  // Without needs, every phase holds the whole allocation.
  k.phase_needs.clear();
  const std::vector<PhaseSets> all = phase_sets(k, "k.yaml");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].registers.to_ulong(), 0b111u);
  EXPECT_EQ(all[1].smem.to_ulong(), 0b11u);
  k = two_phase_kernel();
  k.phase_needs[0].smem = {{0, 4096}};
  const std::string err = tb::input_error_of([&] { phase_sets(k, "k.yaml"); });
  EXPECT_NE(err.find("k.yaml"), std::string::npos) << err;
  EXPECT_NE(err.find("smem_bytes_per_cta"), std::string::npos) << err;
}

TEST(ZoruaPhases, SwapLayoutKeepsRegistersScratchpadAndWarpStateApart) {
  SwapLayout l;
  l.base = 1000 * 128;
  l.reg_sets_per_warp = 3;
  l.smem_sets_per_cta = 2;
  l.logical_warps = 6;
  l.logical_ctas = 3;
  EXPECT_EQ(l.register_line(0, 0), l.base);
  EXPECT_EQ(l.register_line(1, 0), l.base + 12 * 128);  // 12 registers a warp
  const uint64_t smem = l.base + 6 * 12 * 128;
  EXPECT_EQ(l.smem_line(0, 0), smem);
  EXPECT_EQ(l.smem_line(1, 130), smem + 2048 + 128);
  EXPECT_EQ(l.warp_state_line(0), smem + 3 * 2048);
  EXPECT_EQ(l.needed_bytes(), 6 * 12 * 128 + 3 * 2048 + 6 * 128u);
}

// One CTA of 3 warps, R0-R15: 4 register sets a warp, 12 for the CTA.
KernelResources three_warps_of_four_sets() {
  KernelResources k;
  k.grid_ctas = 1;
  k.threads_per_cta = 96;
  k.regs_per_thread = 16;
  return k;
}

SmSpec small_sm() {
  SmSpec sm;
  sm.max_warps = 4;
  sm.max_ctas = 2;
  sm.max_threads = 128;
  sm.registers = 8 * kRegsPerSet * 32;  // 8 sets
  sm.scratchpad_bytes = 4096;           // 4 sets
  return sm;
}

Settings small_settings(uint32_t o_default = 0) {
  Settings s;
  s.logical_warps = 6;
  s.logical_ctas = 3;
  s.o_default_percent = o_default;
  return s;
}

WarpInstruction in_phase(WarpInstruction i, uint16_t phase) {
  i.phase = phase;
  return i;
}

struct Coordinator {
  SmSpec sm = small_sm();
  ZoruaSm z;
  FakePort port;
  explicit Coordinator(Settings s = small_settings(), KernelResources k = two_phase_kernel())
      : z(sm, k, "k.yaml", s) {
    z.bind_memory(port);
  }
  void start_cta(uint32_t cta, uint64_t first_age) {
    CtaAllocation a;
    ASSERT_TRUE(z.admit(cta, a));
    for (uint32_t w = 0; w < 2; ++w) z.warp_started({cta * 2 + w, cta, w, first_age + w});
  }
  WarpContext warp(uint32_t slot) const { return {slot, slot / 2, slot % 2, slot}; }
};

TEST(ZoruaCoordinator, WarpsTakeTheirPhasesSetsAndWaitInTheQueueOfWhatTheyLack) {
  // o_thresh 25 %: the virtual space is 10 register sets and 5 scratchpad
  // sets; 2 register sets may be in swap.
  Coordinator c(small_settings(25));
  // CTA 0 and 1: 4 warps x 2 register sets = all 8; 2 CTAs x 2 KB = all 4 scratchpad sets.
  c.start_cta(0, 0);
  c.start_cta(1, 2);
  EXPECT_EQ(c.z.schedulable_warps(), 4u);
  EXPECT_EQ(c.z.register_table().free_sets(), 0u);
  EXPECT_EQ(c.z.scratchpad_table().free_sets(), 0u);
  EXPECT_EQ(c.z.warp_slot_table().free_sets(), 0u);
  EXPECT_EQ(c.z.registers_allocated(), 8u * 4 * 32);
  // CTA 2 would bring the demand to 12 register sets: more than 10, not admitted.
  CtaAllocation a;
  EXPECT_FALSE(c.z.admit(2, a));

  // Warps 0 and 1 reach their compute phase: each frees its 2 load sets
  // (nothing in flight) and takes 1 (R8-R11); CTA 0's scratchpad is free.
  EXPECT_TRUE(c.z.may_issue(c.warp(0), in_phase(alu(8, {9}), 1), 10));
  EXPECT_TRUE(c.z.may_issue(c.warp(1), in_phase(alu(8, {9}), 1), 10));
  EXPECT_EQ(c.z.register_table().free_sets(), 2u);
  EXPECT_EQ(c.z.scratchpad_table().free_sets(), 2u);
  // Demand 2 + 4 + 4 = 10: CTA 2 starts, but finds no physical warp slot.
  c.start_cta(2, 4);
  EXPECT_EQ(c.z.thread_queue_length(), 2u);
  EXPECT_EQ(c.z.schedulable_warps(), 4u);
  EXPECT_EQ(c.z.check_invariants(), "");

  // Warp 0 waits at a barrier: warp 4 takes its slot (warp 0's state goes
  // to swap), CTA 2's 2 scratchpad sets and the 2 free register sets.
  WarpInstruction bar = in_phase(tb::barrier(), 1);
  ASSERT_TRUE(c.z.may_issue(c.warp(0), bar, 11));
  c.z.issued(c.warp(0), bar);
  EXPECT_EQ(c.z.schedulable_warps(), 4u);
  EXPECT_EQ(c.z.warp_slot_table().swapped_sets(), 1u);
  ASSERT_EQ(c.port.accesses.size(), 1u);
  EXPECT_TRUE(c.port.accesses[0].write);
  EXPECT_EQ(c.z.register_table().free_sets(), 0u);
  EXPECT_EQ(c.z.thread_queue_length(), 2u);  // warp 5, and warp 0 at its barrier

  // Warp 1 at the barrier too: warp 5 takes its slot; no register set is
  // free and no younger warp holds one, so its 2 go to swap (within 25 %).
  ASSERT_TRUE(c.z.may_issue(c.warp(1), bar, 12));
  c.z.issued(c.warp(1), bar);
  EXPECT_EQ(c.z.schedulable_warps(), 4u);
  EXPECT_EQ(c.z.register_table().swapped_sets(), 2u);
  EXPECT_EQ(c.z.check_invariants(), "");

  // Warp 5 reads R1 (set 0, in swap): one line from swap before it issues.
  EXPECT_FALSE(c.z.may_issue(c.warp(5), alu(2, {1}), 13));
  EXPECT_EQ(c.port.reads(), 1u);
  EXPECT_TRUE(c.z.may_issue(c.warp(5), alu(2, {1}), 13 + kSwapLatency));

  // CTA 0's barrier opens: warp 0 needs a slot; every holder is schedulable.
  EXPECT_FALSE(c.z.may_issue(c.warp(0), in_phase(alu(10, {8}), 1), 14));
  // CTA 1 ends in cycle 200: warp 0 gets a slot and reads its state back
  // (warp 1 does when it is next shown to the gate); warp 5's swapped sets
  // move to 2 of the 4 freed register sets (4 lines each).
  c.z.begin_cycle(200);
  c.z.warp_finished(c.warp(2));
  c.z.warp_finished(c.warp(3));
  a.cta_slot = 1;
  c.z.release(a);
  EXPECT_EQ(c.z.register_table().swapped_sets(), 0u);
  EXPECT_EQ(c.port.reads(), 1u + 1 + 8);
  EXPECT_FALSE(c.z.may_issue(c.warp(0), in_phase(alu(10, {8}), 1), 200 + kSwapLatency - 1));
  EXPECT_TRUE(c.z.may_issue(c.warp(0), in_phase(alu(10, {8}), 1), 200 + kSwapLatency));
  EXPECT_EQ(c.z.check_invariants(), "");
  std::vector<std::pair<std::string, uint64_t>> counters;
  c.z.counters(counters);
  auto value = [&](const char* name) {
    for (const auto& [k, v] : counters)
      if (k == name) return v;
    ADD_FAILURE() << name;
    return uint64_t{0};
  };
  EXPECT_EQ(value("ctas_held_back"), 1u);
  EXPECT_EQ(value("warp_state_saves"), 2u);
  EXPECT_EQ(value("warp_state_restores"), 1u);
  EXPECT_EQ(value("register_sets_swapped_in"), 2u);
  EXPECT_EQ(value("phase_changes"), 2u);
}

TEST(ZoruaCoordinator, AnOlderWarpTakesTheRegisterSetsOfAYoungerWarpThatWaitsTheirContentsGoingToSwap) {
  // One CTA of 3 warps, R0-R15 (4 sets each), 8 physical sets, no swap
  // allowed: warps 0 and 1 hold all 8 sets, warp 2 waits.
  const KernelResources k = three_warps_of_four_sets();
  Settings s = small_settings(0);
  s.forward_progress = false;
  Coordinator c(s, k);
  CtaAllocation a;
  ASSERT_TRUE(c.z.admit(0, a));
  for (uint32_t w = 0; w < 3; ++w) c.z.warp_started({w, 0, w, w});
  EXPECT_EQ(c.z.schedulable_warps(), 2u);
  // Warp 1 (younger than 0) waits at a barrier: nothing for warp 2 (older
  // warps are not preempted)...
  ASSERT_TRUE(c.z.may_issue(c.warp(1), tb::barrier(), 1));
  c.z.issued(c.warp(1), tb::barrier());
  EXPECT_EQ(c.z.schedulable_warps(), 1u);
  EXPECT_TRUE(c.port.accesses.empty());
  // ... nor when warp 0 waits at it too: no warp younger than warp 2 holds
  // a set; it waits (and without the forward-progress rule, deadlocks).
  ASSERT_TRUE(c.z.may_issue(c.warp(0), tb::barrier(), 2));
  c.z.issued(c.warp(0), tb::barrier());
  EXPECT_EQ(c.z.schedulable_warps(), 0u);

  // The same CTA with warp 2 the oldest (ages 2, 1, 0): warp 2 preempts the
  // youngest waiting warp's sets, written to swap (16 lines), and when that
  // warp holds them again it reads them back.
  Coordinator d(s, k);
  ASSERT_TRUE(d.z.admit(0, a));
  for (uint32_t w = 0; w < 3; ++w) d.z.warp_started({w, 0, w, 2 - w});
  // Warp 2 (age 0) started last: warps 0 and 1 hold the sets.
  EXPECT_EQ(d.z.schedulable_warps(), 2u);
  ASSERT_TRUE(d.z.may_issue({0, 0, 0, 2}, tb::barrier(), 1));
  d.z.issued({0, 0, 0, 2}, tb::barrier());
  EXPECT_EQ(d.z.schedulable_warps(), 2u);  // warp 2 took warp 0's sets
  ASSERT_EQ(d.port.accesses.size(), 16u);  // 4 sets of 4 registers, a line each
  for (const auto& x : d.port.accesses) EXPECT_TRUE(x.write);
  EXPECT_EQ(d.z.check_invariants(), "");
  // Warp 0's barrier opens: it needs its 4 sets back; none is free and no
  // warp younger than it waits: it waits. Warp 2 ends in cycle 50: warp 0
  // takes its sets and reads their 16 lines back before it issues.
  EXPECT_FALSE(d.z.may_issue({0, 0, 0, 2}, alu(1, {2}), 3));
  d.z.begin_cycle(50);
  d.z.warp_finished({2, 0, 2, 0});
  EXPECT_EQ(d.port.reads(), 16u);
  EXPECT_FALSE(d.z.may_issue({0, 0, 0, 2}, alu(1, {2}), 50 + kSwapLatency - 1));
  EXPECT_TRUE(d.z.may_issue({0, 0, 0, 2}, alu(1, {2}), 50 + kSwapLatency));
  std::vector<std::pair<std::string, uint64_t>> counters;
  d.z.counters(counters);
  for (const auto& [name, v] : counters) {
    if (name == "register_sets_spilled") {
      EXPECT_EQ(v, 4u);
    }
  }
}

TEST(ZoruaCoordinator, ASwappedRegisterIsReadFromSwapBeforeIssueAndWrittenThereWhenItsResultIs) {
  // o_default 50 %: up to 4 of the 8 register sets may be in swap. A kernel whose one CTA needs more register sets than exist: 3 warps x
  // 4 sets (R0-R15), 8 physical: the third warp's sets go to swap within
  // the 50 % threshold.
  const KernelResources k = three_warps_of_four_sets();
  Coordinator d(small_settings(50), k);
  CtaAllocation b;
  ASSERT_TRUE(d.z.admit(0, b));
  for (uint32_t w = 0; w < 3; ++w) d.z.warp_started({w, 0, w, w});
  EXPECT_EQ(d.z.schedulable_warps(), 3u);
  EXPECT_EQ(d.z.register_table().swapped_sets(), 4u);
  const WarpContext w2{2, 0, 2, 2};
  EXPECT_FALSE(d.z.may_issue(w2, alu(5, {3, 4}), 20));  // R3 and R4: lines in swap
  EXPECT_EQ(d.port.reads(), 2u);
  EXPECT_FALSE(d.z.may_issue(w2, alu(5, {3, 4}), 20 + kSwapLatency - 1));
  ASSERT_TRUE(d.z.may_issue(w2, alu(5, {3, 4}), 20 + kSwapLatency));
  EXPECT_EQ(d.port.reads(), 2u);  // not read again
  d.z.issued(w2, alu(5, {3, 4}));
  d.z.operands_read(w2, alu(5, {3, 4}));
  d.z.register_written(w2, 5);
  ASSERT_EQ(d.port.accesses.size(), 3u);
  EXPECT_TRUE(d.port.accesses[2].write);
  EXPECT_EQ(d.port.accesses[2].line, d.port.swap_region().base + 2 * 16 * 128 + 5 * 128);
  // Every access pays the mapping table's 2 cycles; an access outside the
  // phase's sets is a model error.
  EXPECT_EQ(d.z.route(w2, 3).extra_cycles, 2u);
  EXPECT_THROW(d.z.route(w2, 40), std::logic_error);
  // Warp 0 ends: warp 2's 4 swapped sets move to the 4 it frees, each
  // set's 4 lines read from swap.
  d.z.warp_finished({0, 0, 0, 0});
  EXPECT_EQ(d.z.register_table().swapped_sets(), 0u);
  EXPECT_EQ(d.port.reads(), 2u + 16);
  EXPECT_EQ(d.z.check_invariants(), "");
}

TEST(ZoruaCoordinator, WithoutForwardProgressAWarpThatCanNeverFitDeadlocksAndIsDescribed) {
  // 3 warps x 4 sets with no swap allowed (o_default 0): warp 2 waits for
  // sets that warps 0 and 1 hold until they end.
  const KernelResources k = three_warps_of_four_sets();
  Settings s = small_settings(0);
  s.forward_progress = false;
  s.o_thresh_step_percent = 0;
  Coordinator c(s, k);
  CtaAllocation a;
  ASSERT_TRUE(c.z.admit(0, a));
  for (uint32_t w = 0; w < 3; ++w) c.z.warp_started({w, 0, w, w});
  c.z.at_wake(0, IssueActivity{});  // the kernel's first tick starts the epochs
  EXPECT_EQ(c.z.schedulable_warps(), 2u);
  EXPECT_EQ(c.z.register_queue_length() + c.z.thread_queue_length(), 1u);
  // Both at a barrier: nothing can issue, the threshold stays at 0 (no step): stuck.
  for (uint32_t w = 0; w < 2; ++w) {
    ASSERT_TRUE(c.z.may_issue({w, 0, w, w}, tb::barrier(), 1));
    c.z.issued({w, 0, w, w}, tb::barrier());
  }
  // The kernel's first tick starts the epochs; the first epoch had warps
  // that could issue, the second none: stuck.
  IssueActivity act;
  act.idle_cycles = 2000;
  c.z.at_wake(2048, act);
  EXPECT_EQ(c.z.next_wake(), 4096u);
  act.idle_cycles = 4000;
  c.z.at_wake(4096, act);
  EXPECT_EQ(c.z.next_wake(), MechanismHooks::kNever);  // epochs no longer wake the SM: it finds the deadlock
  const std::string d = c.z.describe();
  EXPECT_NE(d.find("2 warps at a barrier"), std::string::npos) << d;
  EXPECT_NE(d.find("w2 (CTA slot 0, phase 0)"), std::string::npos) << d;

  // With the forward-progress rule the oldest CTA's warp 2 takes swap sets
  // beyond the threshold once no warp can issue.
  Settings f = small_settings(0);
  Coordinator e(f, k);
  ASSERT_TRUE(e.z.admit(0, a));
  for (uint32_t w = 0; w < 3; ++w) e.z.warp_started({w, 0, w, w});
  for (uint32_t w = 0; w < 2; ++w) {
    ASSERT_TRUE(e.z.may_issue({w, 0, w, w}, tb::barrier(), 1));
    e.z.issued({w, 0, w, w}, tb::barrier());
  }
  EXPECT_EQ(e.z.schedulable_warps(), 1u);
  EXPECT_EQ(e.z.register_table().swapped_sets(), 4u);
}

// A CTA of three warps of four register sets each, the youngest's in swap
// (o = 50 %), under a memory that answers swap reads later (FR-FCFS).
// One CTA at a time, in warp slots 0 to 2.
struct DeferredSwap : Coordinator {
  DeferredSwap() : Coordinator(small_settings(50), three_warps_of_four_sets()) { port.defer_reads = true; }
  bool start_three_warps(uint32_t cta, uint64_t first_age) {
    if (!z.admit(cta, allocation)) return false;
    for (uint32_t w = 0; w < 3; ++w) z.warp_started({w, cta, w, first_age + w});
    return true;
  }
  void end_three_warps(uint32_t cta, uint64_t first_age) {
    for (uint32_t w = 0; w < 3; ++w) z.warp_finished({w, cta, w, first_age + w});
    z.release(allocation);
  }
  uint64_t last_tag() const { return port.accesses.back().tag; }
  CtaAllocation allocation;
};

TEST(ZoruaCoordinator, ADeferredSwapReadWaitsForItsAnswerAndOneForAnEndedWarpIsDropped) {
  DeferredSwap c;
  ASSERT_TRUE(c.start_three_warps(0, 0));
  const WarpContext w2{2, 0, 2, 2};  // its 4 sets in swap
  EXPECT_FALSE(c.z.may_issue(w2, alu(5, {3}), 10));
  EXPECT_FALSE(c.z.may_issue(w2, alu(5, {3}), 500));  // not answered: no time makes it pass
  c.z.memory_response(c.last_tag(), 520);
  EXPECT_FALSE(c.z.may_issue(w2, alu(5, {3}), 519));
  EXPECT_TRUE(c.z.may_issue(w2, alu(5, {3}), 520));
  // Warp 2 reads R4 from swap and ends before the answer (its last
  // instruction drained elsewhere): the answer is dropped, not counted
  // against the warp that takes the slot next.
  c.z.issued(w2, alu(5, {3}));
  c.z.operands_read(w2, alu(5, {3}));
  c.z.register_written(w2, 5);
  EXPECT_FALSE(c.z.may_issue(w2, alu(6, {4}), 530));
  const uint64_t r4 = c.last_tag();
  c.z.warp_finished(w2);
  EXPECT_NO_THROW(c.z.memory_response(r4, 600));
  EXPECT_EQ(c.z.check_invariants(), "");
}

// FR-FCFS may answer a read of the slot's next warp before one of the warp
// that ended: each answer reaches the warp that sent it.
TEST(ZoruaCoordinator, AnAnswerForAnEndedWarpDoesNotStandInForOneOfTheSlotsNextWarp) {
  DeferredSwap c;
  ASSERT_TRUE(c.start_three_warps(0, 0));
  const WarpContext old{2, 0, 2, 2};  // its 4 sets in swap
  EXPECT_FALSE(c.z.may_issue(old, alu(5, {3}), 10));
  const uint64_t old_tag = c.last_tag();
  c.end_three_warps(0, 0);

  ASSERT_TRUE(c.start_three_warps(1, 10));
  const WarpContext next{2, 1, 2, 12};  // the youngest again: its sets in swap
  const size_t reads_before = c.port.reads();
  EXPECT_FALSE(c.z.may_issue(next, alu(5, {3}), 650));
  ASSERT_EQ(c.port.reads(), reads_before + 1);
  const uint64_t next_tag = c.last_tag();
  EXPECT_NE(next_tag, old_tag);

  c.z.memory_response(next_tag, 700);
  EXPECT_TRUE(c.z.may_issue(next, alu(5, {3}), 700));
  c.z.memory_response(old_tag, 900);  // dropped: its warp has ended
  EXPECT_TRUE(c.z.may_issue(next, alu(5, {3}), 700));
  EXPECT_EQ(c.z.check_invariants(), "");
}

TEST(ZoruaCoordinator, AlgorithmOneMovesTheThresholdByTheEpochsIdleAndMemoryCycles) {
  Settings s = small_settings(10);
  s.epoch_cycles = 1000;
  s.c_delta_thresh = 50;
  s.o_thresh_step_percent = 5;
  Coordinator c(s);
  c.start_cta(0, 0);
  c.z.at_wake(0, IssueActivity{});  // the kernel's first tick starts the epochs
  c.z.at_wake(1, IssueActivity{});  // the SM asks the gate again the cycle after a warp became schedulable
  EXPECT_EQ(c.z.next_wake(), 1000u);
  IssueActivity a;
  a.idle_cycles = 300;
  a.memory_wait_cycles = 200;  // idle - mem = 100 > 50: raise
  c.z.at_wake(1000, a);
  EXPECT_EQ(c.z.o_thresh_percent(), 15u);
  a.idle_cycles = 300 + 100;
  a.memory_wait_cycles = 200 + 140;  // this epoch: idle 100, mem 140: within 50, no change
  c.z.at_wake(2000, a);
  EXPECT_EQ(c.z.o_thresh_percent(), 15u);
  a.memory_wait_cycles += 400;  // idle 0, mem 400: lower
  c.z.at_wake(3000, a);
  EXPECT_EQ(c.z.o_thresh_percent(), 10u);
  EXPECT_EQ(c.z.next_wake(), 4000u);
  // It rises no further than the threshold that allows every table's whole
  // swap space: here the register table's, 6 warps x 3 sets = 18 of 8
  // physical sets (225 %).
  for (uint64_t epoch = 4; epoch < 100; ++epoch) {
    a.idle_cycles += 1000;
    c.z.at_wake(epoch * 1000, a);
  }
  EXPECT_EQ(c.z.o_thresh_percent(), 225u);
}

}  // namespace
}  // namespace smshare::zorua
