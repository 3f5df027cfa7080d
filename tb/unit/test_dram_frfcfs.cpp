// FR-FCFS in a DRAM channel (dram.scheduler: frfcfs), with the round numbers
// of test_mem_dram.cpp: 1 ns DRAM cycles, tCL 10, tRCD 12, tRP 14, tRAS 30,
// one 128 B line on the bus every 4 ns. Local 0, 128 and 256 are bank 0,
// row 0; local 7168 is bank 0, row 1. Each case derives its times by hand
// from GPGPU-Sim's rule (dram_sched.cc, frfcfs_scheduler::schedule: per bank
// the oldest request to the open row, else the oldest; dram.cc,
// dram_t::scheduler_frfcfs asks a bank only when it has no request, i.e.
// after its previous request's column command) and smshare's bank timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "tb/common/round_memory_specs.hpp"
#include "hw/mem/dram_channel.hpp"
#include "hw/mem/l2_slice.hpp"
#include "hw/mem/memory_timing.hpp"

namespace smshare {
namespace {

constexpr uint64_t kNs = 1000;
constexpr uint64_t kRowA = 128, kRowB = 7168, kRowC = 256;  // A and C in row 0, B in row 1 of bank 0

DramSpec frfcfs_spec(uint32_t depth = 0) {
  DramSpec d = tb::round_dram_spec();
  d.scheduler = DramScheduler::Frfcfs;
  d.queue_depth = depth;
  return d;
}

// Takes every decision; returns token -> done time.
std::map<uint64_t, uint64_t> drain(DramChannelTiming& ch) {
  std::map<uint64_t, uint64_t> done;
  while (ch.next_decision_ps() != FrfcfsQueue::kNone) {
    const DramChannelTiming::Served s = ch.decide();
    done[s.token] = s.done_ps;
  }
  return done;
}

// Row 0 of bank 0 open since W (activate at 0, column at 12 ns); then A
// (row 0), B (row 1), C (row 0) reach the channel together at 100 ns.
TEST(DramFrfcfs, FcfsServesInArrivalOrderWithTwoRowSwitches) {
  DramChannelTiming ch(tb::round_dram_spec(), 128);
  ch.access(0, 0, false);
  // A: row hit, column at 100, data 110..114.
  EXPECT_EQ(ch.access(100 * kNs, kRowA, false), 114 * kNs);
  // B: precharge at 100 (tRAS long past), activate 114, column 126, data 136..140.
  EXPECT_EQ(ch.access(100 * kNs, kRowB, false), 140 * kNs);
  // C: row 1 is open now: precharge at max(126, 114 + tRAS 30) = 144,
  // activate 158, column 170, data 180..184.
  EXPECT_EQ(ch.access(100 * kNs, kRowC, false), 184 * kNs);
  EXPECT_EQ(ch.counters().activates, 3u);  // W's, then two row switches
}

TEST(DramFrfcfs, RowHitOvertakesAnOlderRowMissWithOneRowSwitch) {
  DramChannelTiming ch(frfcfs_spec(), 128);
  ch.enqueue(0, 0, false, 128, 0);  // W
  ch.enqueue(100 * kNs, kRowA, false, 128, 1);
  ch.enqueue(100 * kNs, kRowB, false, 128, 2);
  ch.enqueue(100 * kNs, kRowC, false, 128, 3);
  const std::vector<uint64_t> order_expected = {0, 1, 3, 2};
  std::vector<uint64_t> order;
  std::map<uint64_t, uint64_t> done;
  while (ch.next_decision_ps() != FrfcfsQueue::kNone) {
    const DramChannelTiming::Served s = ch.decide();
    order.push_back(s.token);
    done[s.token] = s.done_ps;
  }
  EXPECT_EQ(order, order_expected);
  EXPECT_EQ(done[0], 26 * kNs);   // activate 0, column 12, data 22..26
  EXPECT_EQ(done[1], 114 * kNs);  // A: the oldest row hit, column at 100, data 110..114
  EXPECT_EQ(done[3], 118 * kNs);  // C: the next row hit, column at 100, data after A's: 114..118
  EXPECT_EQ(done[2], 140 * kNs);  // B: precharge 100, activate 114, column 126, data 136..140
  EXPECT_EQ(ch.counters().activates, 2u);  // W's and one row switch
  EXPECT_EQ(ch.counters().row_hits, 2u);
  EXPECT_EQ(ch.counters().reordered, 1u);  // C passed B
}

TEST(DramFrfcfs, ABankDecidesOnlyAmongRequestsThatHaveArrived) {
  DramChannelTiming ch(frfcfs_spec(), 128);
  ch.enqueue(0, 0, false, 128, 0);              // W: row 0 open, bank free from 12 ns
  ch.enqueue(100 * kNs, kRowB, false, 128, 2);  // B arrives first...
  ch.enqueue(101 * kNs, kRowA, false, 128, 1);  // ... A, a row hit, 1 ns later
  std::map<uint64_t, uint64_t> done = drain(ch);
  // At 100 only B is there: precharge 100, activate 114, column 126, data 136..140.
  EXPECT_EQ(done[2], 140 * kNs);
  // A, now a row miss: precharge at max(126, 114 + 30) = 144, activate 158,
  // column 170, data 180..184.
  EXPECT_EQ(done[1], 184 * kNs);
  EXPECT_EQ(ch.counters().reordered, 0u);
}

TEST(DramFrfcfs, ARequestItsBankTakesBeforeTheKnownNextDecisionDecidesNext) {
  // The channel keeps its next decision until the queue changes: a request
  // whose bank takes it sooner than any other bank takes one is the next.
  DramChannelTiming ch(frfcfs_spec(), 128);
  ch.enqueue(0, 0, false, 128, 0);  // W: activate 0, column 12
  ASSERT_EQ(ch.decide().token, 0u);
  ch.enqueue(0, kRowA, false, 128, 1);  // A: bank 0 takes it when free, at its column time
  EXPECT_EQ(ch.next_decision_ps(), 12 * kNs);
  constexpr uint64_t kBank1 = 1024;  // page 1: bank 1, row 0
  ch.enqueue(5 * kNs, kBank1, false, 128, 2);  // D: bank 1 is free, it takes D on arrival
  EXPECT_EQ(ch.next_decision_ps(), 5 * kNs);
  EXPECT_EQ(ch.decide().token, 2u);
  EXPECT_EQ(ch.next_decision_ps(), 12 * kNs);
  EXPECT_EQ(ch.decide().token, 1u);
}

TEST(DramFrfcfs, AFullQueueKeepsLaterRequestsAtItsDoor) {
  // Depth 1 (gpgpu_frfcfs_dram_sched_queue_size 1): the bank only ever sees
  // the oldest request, so the order is arrival order.
  DramChannelTiming ch(frfcfs_spec(1), 128);
  for (uint64_t token : {0, 1, 2, 3})
    ch.enqueue(0, token == 0 ? 0 : token == 1 ? kRowA : token == 2 ? kRowB : kRowC, false, 128, token);
  std::map<uint64_t, uint64_t> done = drain(ch);
  EXPECT_EQ(done[0], 26 * kNs);  // W: activate 0, column 12
  // A enters when W is taken (0), is taken at 12 (bank free): column 12,
  // data 22, behind W on the bus: 26..30.
  EXPECT_EQ(done[1], 30 * kNs);
  // B enters at 12, taken at 12: precharge at max(12, 0 + 30) = 30,
  // activate 44, column 56, data 66..70.
  EXPECT_EQ(done[2], 70 * kNs);
  // C enters at 12, taken at 56 (B's column): precharge at max(56, 44 + 30)
  // = 74, activate 88, column 100, data 110..114.
  EXPECT_EQ(done[3], 114 * kNs);
  // Time at the door: A 0, B 12, C 12 ns.
  EXPECT_EQ(ch.frfcfs_queue().door_wait_ps(), 24 * kNs);
  EXPECT_EQ(ch.frfcfs_queue().max_queued(), 1u);
  EXPECT_EQ(ch.counters().reordered, 0u);
}

TEST(DramFrfcfs, WithoutContentionItServesLikeFcfs) {
  // One request at a time: the same times as the booking path.
  DramChannelTiming fcfs(tb::round_dram_spec(), 128);
  DramChannelTiming fr(frfcfs_spec(), 128);
  const uint64_t addrs[] = {0, 128, 7168, 1024, 256, 7168 + 128};
  uint64_t t = 0;
  for (uint64_t a : addrs) {
    t += 200 * kNs;
    const uint64_t expected = fcfs.access(t, a, false);
    fr.enqueue(t, a, false, 128, a);
    EXPECT_EQ(drain(fr)[a], expected) << a;
  }
}

// An L2 slice (test_mem_l2.cpp's round numbers: 10 ns lookup, a 128 B
// line holds the port 2 ns) with one MSHR over an FR-FCFS channel.
TEST(L2SliceFrfcfs, AMissFindingTheMshrUndecidedIsHeldWithEverythingBehindIt) {
  DramChannelTiming dram(frfcfs_spec(), 128);
  L2Spec spec = tb::round_l2_spec();
  spec.mshr_entries = 1;
  L2Slice l2(spec, 2, 1000, dram);
  std::vector<uint32_t> waits;
  // A (local 0) misses at 0: port 0..2, lookup done at 10 ns, queued under fill 7.
  EXPECT_EQ(l2.access_queued(0, 0, ChunkMask::line(128), false, 7, waits, 100), 10 * kNs);
  EXPECT_EQ(waits, std::vector<uint32_t>{7});
  // B (local 128) misses at 1 ns: the only MSHR is A's, whose release is undecided: held.
  waits.clear();
  EXPECT_EQ(l2.access_queued(1 * kNs, 128, ChunkMask::line(128), false, 8, waits, 101), L2Slice::kHeld);
  // C reads A's line at 2 ns: behind B at the input, held too (a hit).
  EXPECT_EQ(l2.access_queued(2 * kNs, 0, ChunkMask::line(128), false, 9, waits, 102), L2Slice::kHeld);
  // The channel takes A at 10 ns (bank closed): activate 10, column 22, data 32..36.
  DramChannelTiming::Served a = dram.decide();
  EXPECT_EQ(a.token, 7u);
  EXPECT_EQ(a.done_ps, 36 * kNs);
  l2.fill_returned(7, a.done_ps);
  std::vector<L2Slice::Drained> drained;
  l2.drain_input(drained);
  ASSERT_EQ(drained.size(), 2u);
  // B reached the tags at 2 ns (the port was A's until then) and waited for
  // the MSHR until 36: port 36..38, lookup done 46, queued under fill 8.
  EXPECT_EQ(drained[0].response, 101u);
  EXPECT_EQ(drained[0].ready_ps, 46 * kNs);
  EXPECT_EQ(drained[0].waits, std::vector<uint32_t>{8});
  EXPECT_EQ(l2.counters().miss_stall_ps, 34 * kNs);
  // C: port 38..40, a hit whose fill was back at 36: ready at its lookup, 48.
  EXPECT_EQ(drained[1].response, 102u);
  EXPECT_EQ(drained[1].ready_ps, 48 * kNs);
  EXPECT_TRUE(drained[1].waits.empty());
  // B is a row hit in the row A opened: column at 46, data 56..60.
  DramChannelTiming::Served b = dram.decide();
  EXPECT_EQ(b.token, 8u);
  EXPECT_EQ(b.done_ps, 60 * kNs);
}

// The whole memory path (Fermi defaults): an L2 miss is deferred, and its
// completion comes from advance() at the time the booking path gives.
MemRequest read(uint32_t sm, uint64_t addr, uint64_t t, uint64_t token) {
  MemRequest r;
  r.sm = sm;
  r.addr = addr;
  r.bytes = 128;
  r.now_ps = t;
  r.issue_ps = t;
  r.token = token;
  return r;
}

TEST(MemoryTimingFrfcfs, AnL2MissIsDeferredAndCompletesAtTheBookedTime) {
  GpuSpec fcfs_spec;
  MemoryTiming fcfs(fcfs_spec);
  uint64_t expected = 0;
  ASSERT_EQ(fcfs.access(read(0, 0, 0, 0), expected), MemStatus::ok);

  GpuSpec spec;
  spec.dram.scheduler = DramScheduler::Frfcfs;
  MemoryTiming m(spec);
  uint64_t done = 0;
  ASSERT_EQ(m.access(read(2, 0, 0, 77), done), MemStatus::ok);
  EXPECT_EQ(done, MemoryTiming::kDeferred);
  // A hit on the line while its fill is undecided waits for it too.
  ASSERT_EQ(m.access(read(3, 0, 10 * 714, 78), done), MemStatus::ok);
  EXPECT_EQ(done, MemoryTiming::kDeferred);
  EXPECT_EQ(m.l2(0).counters().pending_hits, 1u);
  // (20 up + 80 in the L2) cycles of 714 ps: nothing is decided before it reaches the channel.
  EXPECT_EQ(m.decision_lead_ps(), 100u * 714);
  std::vector<MemCompletion> out;
  m.advance(m.decision_lead_ps(), out);
  EXPECT_TRUE(out.empty());
  m.advance(m.decision_lead_ps() + 1, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].sm, 2u);
  EXPECT_EQ(out[0].token, 77u);
  EXPECT_EQ(out[0].done_ps, expected);
  EXPECT_EQ(out[1].sm, 3u);
  EXPECT_EQ(out[1].token, 78u);
  // The same fill; its data leaves the partition's port behind SM 2's (4 cycles of 32 B).
  EXPECT_EQ(out[1].done_ps, expected + 4 * 714);
  EXPECT_EQ(m.deferred_in_flight(), 0u);
  // A later hit is answered at once.
  ASSERT_EQ(m.access(read(3, 0, 1000000, 79), done), MemStatus::ok);
  EXPECT_EQ(done - 1000000, (20 + 80 + 20 + 4) * 714u);
}

// MemoryTiming keeps the earliest channel decision instead of polling every
// channel each cycle; over a random stream of reads and writes (misses,
// write-backs, misses held for want of an MSHR and drained later) it must
// always be what a fresh poll of the channels gives.
uint64_t polled_next_decision(const MemoryTiming& m) {
  uint64_t next = MemoryTiming::kDeferred;
  for (uint32_t c = 0; c < m.partitions(); ++c) next = std::min(next, m.dram(c).next_decision_ps());
  return next;
}

TEST(MemoryTimingFrfcfs, TheKeptNextDecisionIsAlwaysWhatAPollGives) {
  GpuSpec spec;
  spec.dram.scheduler = DramScheduler::Frfcfs;
  spec.l2.size_bytes = 6 * 4 * 16 * 128;  // 4 sets of 16 ways per slice: many misses and write-backs
  spec.l2.mshr_entries = 1;               // and misses held at the slices' inputs, drained by a decision
  MemoryTiming m(spec);
  const uint64_t period = spec.core_period_ps();
  std::mt19937 rng(13);
  std::vector<MemCompletion> out;
  uint64_t cycle = 0, deferred = 0;
  for (uint64_t token = 0; token < 20000; ++token) {
    cycle += rng() % 3;
    m.advance(cycle * period + m.decision_lead_ps(), out);
    ASSERT_EQ(m.next_decision_ps(), polled_next_decision(m)) << "after advance, request " << token;
    ASSERT_GE(m.next_decision_ps(), cycle * period + m.decision_lead_ps());
    MemRequest r = read(rng() % spec.num_sms, (rng() % 2048) * 128, cycle * period, token);
    r.is_write = rng() % 4 == 0;
    uint64_t done = 0;
    ASSERT_EQ(m.access(r, done), MemStatus::ok);
    if (done == MemoryTiming::kDeferred && !r.is_write) ++deferred;
    ASSERT_EQ(m.next_decision_ps(), polled_next_decision(m)) << "after request " << token;
  }
  m.advance(MemoryTiming::kDeferred, out);
  EXPECT_EQ(m.next_decision_ps(), MemoryTiming::kDeferred);
  EXPECT_EQ(polled_next_decision(m), MemoryTiming::kDeferred);
  EXPECT_GT(deferred, 1000u);
  EXPECT_EQ(out.size(), deferred);  // every deferred read answered
  EXPECT_GT(m.l2(0).counters().writebacks, 0u);
  EXPECT_EQ(m.deferred_in_flight(), 0u);
}

// The clock ticks an SM ahead of the others, with a read of its own
// undecided, up to next_decision_ps_for(sm) (GpuModule::tick_window): no
// decision before it may answer one of the SM's reads, whatever the other
// SMs book meanwhile. Over a random stream (misses, pending hits, write-backs,
// misses held at an input for want of an MSHR), each SM's bound, taken after
// its own request and now and then later, must not exceed the time of any
// decision that answers one of its reads until its next request.
// With and without a bounded DRAM queue (requests waiting at its door).
class NoDecisionBeforeAnSmsBound : public ::testing::TestWithParam<uint32_t> {};

TEST_P(NoDecisionBeforeAnSmsBound, AnswersItsReads) {
  GpuSpec spec;
  spec.dram.scheduler = DramScheduler::Frfcfs;
  spec.dram.queue_depth = GetParam();
  spec.l2.size_bytes = 6 * 4 * 16 * 128;
  spec.l2.mshr_entries = 1;
  MemoryTiming m(spec);
  const uint64_t period = spec.core_period_ps();
  std::mt19937 rng(29);
  std::vector<uint64_t> bound(spec.num_sms, MemoryTiming::kDeferred);
  std::vector<MemCompletion> out;
  uint64_t cycle = 0, answered = 0;
  for (uint64_t token = 0; token < 20000; ++token) {
    cycle += rng() % 3;
    // The decisions due before this cycle's requests, one decision time at a time.
    while (m.next_decision_ps() < cycle * period + m.decision_lead_ps()) {
      const uint64_t t = m.next_decision_ps();
      out.clear();
      m.advance(t + 1, out);
      for (const MemCompletion& c : out) {
        ASSERT_GE(t, bound[c.sm]) << "SM " << c.sm << "'s read " << c.token << " answered before its bound";
        ++answered;
      }
      const uint32_t sm = rng() % spec.num_sms;  // a bound taken later holds too
      bound[sm] = m.next_decision_ps_for(sm);
    }
    MemRequest r = read(rng() % spec.num_sms, (rng() % 2048) * 128, cycle * period, token);
    r.is_write = rng() % 4 == 0;
    uint64_t done = 0;
    ASSERT_EQ(m.access(r, done), MemStatus::ok);
    bound[r.sm] = m.next_decision_ps_for(r.sm);
    if (done == MemoryTiming::kDeferred && !r.is_write) {
      ASSERT_NE(bound[r.sm], MemoryTiming::kDeferred);
    }
  }
  m.advance(MemoryTiming::kDeferred, out);
  for (uint32_t sm = 0; sm < spec.num_sms; ++sm) EXPECT_EQ(m.next_decision_ps_for(sm), MemoryTiming::kDeferred);
  EXPECT_GT(answered, 1000u);
}

INSTANTIATE_TEST_SUITE_P(MemoryTimingFrfcfs, NoDecisionBeforeAnSmsBound, ::testing::Values(0u, 2u));

}  // namespace
}  // namespace smshare
