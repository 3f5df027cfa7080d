// Memory-system limits: the MSHR file, the L1's and the L2 slice's MSHR
// limits (a miss finding every MSHR held waits for the first to return) and
// the fixed DRAM latency term. The expected times are derived in the
// comments from the rules in hw/common/slot_pool.hpp, hw/sm/l1_data_cache.hpp,
// hw/mem/l2_slice.hpp and hw/mem/dram_channel.hpp.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "../common/fixed_latency_memory.hpp"
#include "../common/scripted_kernel.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/slot_pool.hpp"
#include "hw/frontend/cta_dispatcher.hpp"
#include "hw/mem/dram_channel.hpp"
#include "hw/mem/l2_slice.hpp"
#include "hw/mem/memory_timing.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sm/l1_data_cache.hpp"
#include "hw/sm/sm_core.hpp"
#include "tb/common/round_memory_specs.hpp"
#include "tb/common/compact_gtx480.hpp"

namespace smshare {
namespace {

TEST(SlotPool, UnlimitedNeverWaits) {
  SlotPool f;
  EXPECT_FALSE(f.limited());
  f.hold(0, 1000);
  f.hold(0, 1000);
  EXPECT_EQ(f.free_at(5), 5u);
  EXPECT_EQ(f.held(5), 0u);
}

TEST(SlotPool, TheExtraMissWaitsForTheFirstRelease) {
  SlotPool f(2);
  EXPECT_EQ(f.free_at(0), 0u);
  f.hold(0, 300);
  EXPECT_EQ(f.free_at(1), 1u);
  f.hold(1, 200);  // returns before the first
  EXPECT_EQ(f.held(2), 2u);
  EXPECT_EQ(f.free_at(2), 200u);  // the earliest release, not the oldest miss
  f.hold(200, 500);
  EXPECT_EQ(f.free_at(201), 300u);
  EXPECT_EQ(f.held(300), 1u);  // released at its return time
}

TEST(SlotPool, ReleasesInAnyOrderAsAMultisetOfTimes) {
  // The pool keeps its release times in a ring in increasing order: holds
  // and decisions in random order, far more than its first ring of 16
  // (it grows) and wrapping around it, against a sorted list.
  SlotPool f(40);
  std::multiset<uint64_t> held;
  uint32_t undecided = 0;
  uint64_t seed = 99;
  auto next = [&seed](uint32_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>((seed >> 33) % n);
  };
  uint64_t now = 0;
  for (int step = 0; step < 20000; ++step) {
    now += next(3);
    held.erase(held.begin(), held.upper_bound(now));
    const uint64_t want = held.size() + undecided < 40 ? now : held.empty() ? SlotPool::kUndecided : *held.begin();
    ASSERT_EQ(f.free_at(now), want) << "step " << step;
    if (want != now) continue;
    const uint32_t op = next(4);
    if (op == 0) {
      f.hold_undecided();
      ++undecided;
    } else if (op == 1 && undecided) {
      const uint64_t release = now + next(200);
      f.decide(release);
      --undecided;
      held.insert(release);
    } else {
      const uint64_t release = now + 1 + next(200);
      f.hold(now, release);
      held.insert(release);
    }
    ASSERT_EQ(f.held(now), held.size() + undecided) << "step " << step;
  }
}

// --- L1: a miss that finds every MSHR held is not accepted.
constexpr uint64_t kLine = 0x10000000;

TEST(L1Mshr, HitsAndPendingHitsNeedNoMshr) {
  CacheSpec spec;
  spec.mshr_entries = 1;
  L1DataCache l1(spec);
  const ChunkMask line = ChunkMask::line(128);
  ASSERT_EQ(l1.accept_cycle(kLine, line, 0), 0u);
  l1.load(kLine, line, 0);
  l1.fill_in_flight(kLine, 150, 0);
  EXPECT_EQ(l1.accept_cycle(kLine, line, 1), 1u);          // merges with the fill in flight
  EXPECT_EQ(l1.accept_cycle(kLine + 128, line, 1), 150u);  // a second miss waits for it
  EXPECT_EQ(l1.accept_cycle(kLine + 128, line, 150), 150u);
}

TEST(L1Mshr, LoadIfAcceptedLoadsOnlyWhatIsAccepted) {
  CacheSpec spec;
  spec.mshr_entries = 1;
  L1DataCache l1(spec);
  const ChunkMask line = ChunkMask::line(128);
  L1DataCache::Lookup lookup{};
  ASSERT_EQ(l1.load_if_accepted(kLine, line, 0, lookup, nullptr), 0u);
  EXPECT_FALSE(lookup.hit);
  l1.fill_in_flight(kLine, 150, 0);
  EXPECT_EQ(l1.load_if_accepted(kLine, line, 1, lookup, nullptr), 1u);  // merges with the fill in flight
  EXPECT_TRUE(lookup.hit);
  EXPECT_EQ(lookup.ready, 150u);
  // A second miss waits for the MSHR and is not looked up meanwhile.
  EXPECT_EQ(l1.load_if_accepted(kLine + 128, line, 1, lookup, nullptr), 150u);
  EXPECT_EQ(l1.misses(), 1u);
  EXPECT_EQ(l1.load_if_accepted(kLine + 128, line, 150, lookup, nullptr), 150u);
  EXPECT_FALSE(lookup.hit);
  EXPECT_EQ(l1.misses(), 2u);
  EXPECT_EQ(l1.hits(), 1u);
}

// One warp, three independent loads of three lines (32 lanes x 4 B: one
// 128 B line each), on one SM whose memory returns every line 200 cycles
// after it leaves.
struct SmWithMshrs {
  static constexpr uint64_t kLatency = 200;
  explicit SmWithMshrs(const char* mshr_entries)
      : spec(load_gpu_config("fermi-gtx480", tb::compact_gtx480({"gpu.num_sms=1", mshr_entries}))) {
    core.begin_kernel(kernel, mechanism_registry().configure({}).make(spec.sm, kernel.resources(), "test"),
                      dispatcher);
    EXPECT_TRUE(core.launch_one_cta());
    uint64_t cycle = 0;
    for (int guard = 0; cycle != SmCore::kNever && guard < 100000; ++guard) cycle = core.tick(cycle);
    EXPECT_EQ(cycle, SmCore::kNever);
  }
  GpuSpec spec;
  tb::FixedLatencyMemory memory{kLatency};
  SmCore core{0, spec, memory};
  CtaDispatcher dispatcher{1};
  tb::ScriptedKernel kernel{"three loads", tb::single_warp_grid(), [](uint32_t, uint32_t) {
                              return std::vector<WarpInstruction>{
                                  tb::mem(OpClass::GlobalLoad, 1, kLine, 4),
                                  tb::mem(OpClass::GlobalLoad, 2, kLine + 128, 4),
                                  tb::mem(OpClass::GlobalLoad, 3, kLine + 256, 4)};
                            }};
};

TEST(L1Mshr, TheThirdMissWithTwoMshrsLeavesWhenTheFirstFillReturns) {
  const SmWithMshrs free("l1.mshr_entries=0");
  const SmWithMshrs two("l1.mshr_entries=2");
  ASSERT_EQ(free.memory.requests.size(), 3u);
  ASSERT_EQ(two.memory.requests.size(), 3u);
  // Unlimited: the three misses leave back to back, well within the first's
  // 200 cycles (so the limit below has something to hold back).
  const uint64_t first = free.memory.requests[0].cycle;
  ASSERT_LT(free.memory.requests[2].cycle, first + SmWithMshrs::kLatency);
  // Two MSHRs: the first two leave as before; the third finds both held and
  // the LDST unit stalls until the first fill returns, at first + 200,
  // which is when the third miss leaves.
  EXPECT_EQ(two.memory.requests[0].cycle, first);
  EXPECT_EQ(two.memory.requests[1].cycle, free.memory.requests[1].cycle);
  EXPECT_EQ(two.memory.requests[2].cycle, first + SmWithMshrs::kLatency);
  EXPECT_EQ(two.core.stats().l1_mshr_stall_cycles,
            first + SmWithMshrs::kLatency - free.memory.requests[2].cycle);
  EXPECT_EQ(free.core.stats().l1_mshr_stall_cycles, 0u);
  // The warp finishes that much later: its last load returns 200 cycles
  // after it left.
  EXPECT_EQ(two.core.stats().last_cycle - free.core.stats().last_cycle,
            two.memory.requests[2].cycle - free.memory.requests[2].cycle);
}

// --- L2 slice (round numbers of test_mem_l2.cpp: 1 ns cycle, hit latency
// 10 cycles, a 128 B line holds the 64 B/cycle port 2 cycles; DRAM tRCD
// 12 ns, tCL 10 ns, 4 ns per line on the bus). Local lines 0 and 128 share
// a DRAM page (bank and row).
constexpr uint64_t kHit = 10000;
constexpr uint64_t kDramClosed = 12000 + 10000 + 4000;  // tRCD + tCL + line on the bus
constexpr uint64_t kDramRowHit = 10000 + 4000;          // tCL + line on the bus

L2Spec l2_with_mshrs(uint32_t entries) {
  L2Spec spec = tb::round_l2_spec();
  spec.mshr_entries = entries;
  return spec;
}

struct SliceWithMshrs {
  explicit SliceWithMshrs(uint32_t entries) : l2(l2_with_mshrs(entries), 2, 1000, dram) {}
  DramChannelTiming dram{tb::round_dram_spec(), 128};
  L2Slice l2;
};

TEST(L2Mshr, AMissFindingTheMshrHeldWaitsAtTheHeadOfTheInput) {
  SliceWithMshrs s(1);
  // A: port [1000, 3000), lookup done 11000, DRAM closed bank: back at
  // 11000 + 26000 = 37000; it holds the only MSHR until then.
  EXPECT_EQ(s.l2.access(1000, 0, false), 37000u);
  // B (another line, same page) reaches the tags at 3000 and waits there
  // for A's MSHR until 37000: port [37000, 39000), lookup done 47000, a row
  // hit: 47000 + 14000 = 61000.
  EXPECT_EQ(s.l2.access(1000, 128, false), 37000 + kHit + kDramRowHit);
  // C, a hit on A's line arriving at 2000, is behind B in the input: port
  // from 39000, ready at 49000 (A's fill is back by then).
  EXPECT_EQ(s.l2.access(2000, 0, false), 39000 + kHit);
  EXPECT_EQ(s.l2.counters().miss_stall_ps, 37000u - 3000);
}

TEST(L2Mshr, UnlimitedMshrsLetTheMissesOverlap) {
  SliceWithMshrs s(0);
  EXPECT_EQ(s.l2.access(1000, 0, false), 37000u);
  // B: port [3000, 5000), lookup 13000; the bank's column command waits for
  // A's (at 23000), then tCL to 33000, and the bus until A's line is off it
  // (37000): 41000.
  EXPECT_EQ(s.l2.access(1000, 128, false), 41000u);
  // C: port [5000, 7000), a pending hit on A's fill: 37000.
  EXPECT_EQ(s.l2.access(2000, 0, false), 37000u);
  EXPECT_EQ(s.l2.counters().miss_stall_ps, 0u);
}

TEST(L2Mshr, WritesTakeNoMshr) {
  SliceWithMshrs s(1);
  s.l2.access(1000, 0, false);                                 // holds the MSHR until 37000
  EXPECT_EQ(s.l2.access(1000, 128, true), 3000 + kHit);        // write ack at the lookup
  EXPECT_EQ(s.l2.counters().miss_stall_ps, 0u);
}

// --- dram.queue_depth. Local 0 and 7296 are rows 0 and 1 of one bank;
// local 1280 is row 0 of another, idle bank.
constexpr uint64_t kRow1SameBank = 7296;
constexpr uint64_t kOtherBank = 1280;

DramSpec dram_with_queue(uint32_t depth) {
  DramSpec d = tb::round_dram_spec();
  d.queue_depth = depth;
  return d;
}

TEST(DramQueue, ARequestWaitsInTheQueueUntilItsBankTakesIt) {
  DramChannelTiming ch(dram_with_queue(1), 128);
  // A opens row 0 at once (activate at 0): it leaves the queue at arrival.
  EXPECT_EQ(ch.access(0, 0, false), kDramClosed);
  EXPECT_EQ(ch.accept_at(0), 0u);
  // B, a row conflict, is taken at its precharge: tRAS after A's activate,
  // 30000. It holds the only entry until then.
  ch.access(0, kRow1SameBank, false);
  EXPECT_EQ(ch.accept_at(1000), 30000u);
  // C (a write-back, say: nobody asked accept_at) waits at the door.
  ch.access(1000, kOtherBank, true);
  EXPECT_EQ(ch.counters().queue_full_ps, 29000u);
}

TEST(DramQueue, AFullQueueHoldsTheL2InputAndTheHitsBehindIt) {
  // L2 in front (port 2 cycles per line, hit latency 10 cycles):
  //  A (local 0) at 0: port [0, 2000), sent at 10000, activate at once.
  //  B (local 7296) at 0: port [2000, 4000), sent at 12000; its precharge
  //    waits for tRAS to 40000 and it holds the queue's only entry till then.
  //  C (local 1280) at 0 reaches the tags at 4000 but would reach the full
  //    queue at 14000: it waits at the input until it can be sent at 40000,
  //    port [30000, 32000).
  //  D, a read of A's line at 0, queues behind C: port [32000, 34000),
  //    ready at 42000 (A's fill, back at 36000, is already there).
  // With an unlimited queue D would start at 6000 and wait for A's fill: 36000.
  DramChannelTiming dram(dram_with_queue(1), 128);
  L2Slice l2(tb::round_l2_spec(), 2, 1000, dram);
  EXPECT_EQ(l2.access(0, 0, false), 10000 + kDramClosed);
  l2.access(0, kRow1SameBank, false);
  l2.access(0, kOtherBank, false);
  EXPECT_EQ(l2.access(0, 0, false), 32000 + kHit);
  EXPECT_EQ(l2.counters().miss_stall_ps, 30000u - 4000);
  EXPECT_EQ(dram.counters().queue_full_ps, 0u);  // the L2 waited, not the channel

  DramChannelTiming free_dram(dram_with_queue(0), 128);
  L2Slice free_l2(tb::round_l2_spec(), 2, 1000, free_dram);
  free_l2.access(0, 0, false);
  free_l2.access(0, kRow1SameBank, false);
  free_l2.access(0, kOtherBank, false);
  EXPECT_EQ(free_l2.access(0, 0, false), 10000 + kDramClosed);
}

// --- dram.latency: the request reaches the channel that much later.
TEST(DramLatency, AddsAFixedTermBeforeTheChannel) {
  DramChannelTiming plain(tb::round_dram_spec(), 128);
  DramChannelTiming delayed(tb::round_dram_spec(), 128, 0, /*latency_ps=*/5000);
  EXPECT_EQ(plain.access(1000, 0, false), 1000 + kDramClosed);
  EXPECT_EQ(delayed.access(1000, 0, false), 1000 + 5000 + kDramClosed);
  // A row hit behind it: its column command at 6000 + 5000 is after the
  // first's (at 18000), so it follows at 18000 + tCL, after the first line
  // leaves the bus (32000): 36000.
  EXPECT_EQ(delayed.access(6000, 128, false), 36000u);
}

TEST(DramLatency, IsReadInCoreCycles) {
  const GpuSpec spec = load_gpu_config("fermi-gtx480", {"dram.latency=100"});
  EXPECT_EQ(spec.dram.latency, 100u);
  MemoryTiming timing(spec);
  EXPECT_EQ(timing.dram(0).latency_ps(), 100 * spec.core_period_ps());
}

}  // namespace
}  // namespace smshare
