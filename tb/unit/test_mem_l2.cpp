// L2 slice timing over a DRAM channel, and the port reservation they share.
// Round numbers: 1 ns core cycle, hit latency 10 cycles, 64 B/cycle port
// (a 128 B line holds it 2 cycles), 4 sets x 2 ways per slice; DRAM as in
// test_mem_dram.cpp (tRCD 12 ns, tCL 10 ns, 4 ns per line).
#include <gtest/gtest.h>

#include "tb/common/round_memory_specs.hpp"
#include "hw/mem/dram_channel.hpp"
#include "hw/mem/l2_slice.hpp"
#include "hw/mem/port_reservation.hpp"

namespace smshare {
namespace {

TEST(MemPortReservation, OccupancyIsWholeCycles) {
  PortReservation p(714, 32);  // Fermi icnt port: 32 B per 714 ps cycle
  EXPECT_EQ(p.occupancy_ps(128), 4u * 714);
  EXPECT_EQ(p.occupancy_ps(1), 714u);
  EXPECT_EQ(p.occupancy_ps(33), 2u * 714);
  EXPECT_EQ(p.occupancy_ps(0), 0u);
}

TEST(MemPortReservation, NextFreeTimeQueuesAndLeavesGaps) {
  PortReservation p(1000, 32);
  PortSlot s = p.reserve(500, 128);
  EXPECT_EQ(s.start, 500u);
  EXPECT_EQ(s.end, 4500u);
  s = p.reserve(0, 64);  // ready earlier, but the port is busy
  EXPECT_EQ(s.start, 4500u);
  EXPECT_EQ(s.end, 6500u);
  s = p.reserve(10000, 32);  // idle gap
  EXPECT_EQ(s.start, 10000u);
  EXPECT_EQ(s.end, 11000u);
  EXPECT_EQ(p.next_free_ps(), 11000u);
  EXPECT_EQ(p.busy_ps(), 7000u);
  EXPECT_EQ(p.bytes(), 224u);
}



struct Slice {
  DramChannelTiming dram{tb::round_dram_spec(), 128};
  L2Slice l2{tb::round_l2_spec(), 2, 1000, dram};
};

constexpr uint64_t kHit = 10000;
constexpr uint64_t kDramClosed = 12000 + 10000 + 4000;  // tRCD + tCL + line on the bus

TEST(L2Slice, GeometryIsPerPartition) {
  Slice s;
  EXPECT_EQ(s.l2.tags().sets(), 4u);
  EXPECT_EQ(s.l2.hit_latency_ps(), kHit);
}

TEST(L2Slice, ReadMissGoesToDramAfterTheLookup) {
  Slice s;
  EXPECT_EQ(s.l2.access(1000, 0, false), 1000 + kHit + kDramClosed);
  EXPECT_EQ(s.l2.counters().read_misses, 1u);
  EXPECT_EQ(s.dram.counters().reads, 1u);
}

TEST(L2Slice, ReadHitTakesHitLatency) {
  Slice s;
  s.l2.access(0, 0, false);
  EXPECT_EQ(s.l2.access(100000, 64, false), 100000 + kHit);  // same line
  EXPECT_EQ(s.l2.counters().read_hits, 1u);
  EXPECT_EQ(s.dram.counters().reads, 1u);
}

TEST(L2Slice, PortBandwidthSerializesAccesses) {
  Slice s;
  s.l2.access(0, 0, false);
  // Arrives while the first holds the port for 2 cycles: starts at 2 ns.
  EXPECT_EQ(s.l2.access(100000, 0, false), 100000 + kHit);
  EXPECT_EQ(s.l2.access(100000, 0, false), 102000 + kHit);
  EXPECT_EQ(s.l2.access(100000, 0, false), 104000 + kHit);
}

TEST(L2Slice, HitOnAFillInFlightWaitsForTheFill) {
  Slice s;
  const uint64_t fill = s.l2.access(0, 0, false);
  EXPECT_EQ(s.l2.access(1000, 0, false), fill);
  EXPECT_EQ(s.l2.counters().pending_hits, 1u);
  EXPECT_EQ(s.dram.counters().reads, 1u);  // merged: no second DRAM read
}

TEST(L2Slice, TwoFillsInFlightInOneSetKeepTheirOwnTimes) {
  Slice s;
  // Lines 0 and 8 (local 0 and 1024) share set 0, in two ways. The fill
  // record once was a table indexed by line number modulo the slice's 8
  // lines, where line 8's miss overwrote line 0's fill and the hit below
  // returned at its lookup (14 ns) instead of with the fill.
  const uint64_t fill0 = s.l2.access(0, 0, false);
  const uint64_t fill8 = s.l2.access(0, 1024, false);
  EXPECT_GT(fill8, fill0);
  EXPECT_EQ(s.l2.access(1000, 0, false), fill0);
  EXPECT_EQ(s.l2.access(1000, 1024, false), fill8);
  EXPECT_EQ(s.l2.counters().pending_hits, 2u);
}

TEST(L2Slice, ALineAllocatedOverAVictimDoesNotWaitForTheVictimsFill) {
  Slice s;
  const uint64_t fill0 = s.l2.access(0, 0, false);  // line 0 in flight until fill0
  s.l2.access(0, 512, true);                          // set 0 full (lines 0, 4)
  s.l2.access(0, 1024, true);                         // evicts line 0 (LRU)
  // Line 0 comes back by a write into the way of line 4 or 8: the sector is
  // valid at once, and a read of it does not wait for the old fill.
  const uint64_t written = s.l2.access(1000, 0, true);
  EXPECT_LT(written, fill0);
  EXPECT_EQ(s.l2.access(1000, 0, false), written + 2000);  // behind the write on the port
}

TEST(L2Slice, LruEvictionWithinASet) {
  Slice s;
  // Local 0, 512, 1024 share set 0 (lines 0, 4, 8).
  s.l2.access(0, 0, false);
  s.l2.access(0, 512, false);
  s.l2.access(200000, 0, false);      // hit, 0 most recent
  s.l2.access(200000, 1024, false);   // evicts 512
  EXPECT_EQ(s.l2.counters().read_misses, 3u);
  EXPECT_EQ(s.l2.access(400000, 0, false), 400000 + kHit);
  EXPECT_GT(s.l2.access(500000, 512, false), 500000 + kHit);  // was evicted: misses
  EXPECT_EQ(s.l2.counters().read_misses, 4u);
  EXPECT_EQ(s.l2.counters().writebacks, 0u);  // all clean
}

TEST(L2Slice, WriteAllocatesWithoutReadingDram) {
  Slice s;
  EXPECT_EQ(s.l2.access(0, 0, true), kHit);
  EXPECT_EQ(s.l2.counters().write_misses, 1u);
  EXPECT_EQ(s.dram.counters().reads + s.dram.counters().writes, 0u);
  EXPECT_EQ(s.l2.access(100000, 0, false), 100000 + kHit);  // written line now hits
  EXPECT_EQ(s.l2.access(200000, 0, true), 200000 + kHit);
  EXPECT_EQ(s.l2.counters().write_hits, 1u);
}

TEST(L2Slice, DirtyVictimIsWrittenBackWithoutDelayingTheRequester) {
  Slice s;
  s.l2.access(0, 0, true);    // dirty
  s.l2.access(0, 512, true);  // dirty
  // Miss to 1024 evicts dirty line 0: the demand read is booked first, so it
  // sees an idle channel; the write-back follows on the bus.
  const uint64_t t = 100000;
  EXPECT_EQ(s.l2.access(t, 1024, false), t + kHit + kDramClosed);
  EXPECT_EQ(s.l2.counters().writebacks, 1u);
  EXPECT_EQ(s.dram.counters().writes, 1u);
  EXPECT_EQ(s.dram.counters().reads, 1u);
  EXPECT_EQ(s.dram.queue_depth(t), 2u);
  // The write-back holds the bus after the read: the next read queues behind both.
  // (Local 128 is bank 0, row 0, open since the write-back of line 0.)
  EXPECT_EQ(s.l2.access(t, 128, false), t + kHit + kDramClosed + 2 * 4000);
}

// --- A sectored slice (l2.sector_bytes = 32): 32 B DRAM bursts of 1 ns.
struct SectoredSlice {
  static L2Spec spec() {
    L2Spec l = tb::round_l2_spec();
    l.sector_bytes = 32;
    return l;
  }
  DramChannelTiming dram{tb::round_dram_spec(), 128, 32};
  L2Slice l2{spec(), 2, 1000, dram};
};

ChunkMask chunks(uint32_t bits) { return ChunkMask::from_bits(bits); }

TEST(SectoredL2Slice, AMissReadsOnlyTheMissingSectorsFromDram) {
  SectoredSlice s;
  // Sector 0: 32 B hold the port 1 cycle; tRCD + tCL + one 1 ns burst.
  EXPECT_EQ(s.l2.access(0, 0, chunks(0x1), false), kHit + 12000 + 10000 + 1000);
  EXPECT_EQ(s.dram.counters().read_bytes, 32u);
  // Sectors 0 and 1 later: a sector miss for sector 1 alone, a row hit.
  EXPECT_EQ(s.l2.access(100000, 0, chunks(0x3), false), 100000 + kHit + 10000 + 1000);
  EXPECT_EQ(s.dram.counters().read_bytes, 64u);
  EXPECT_EQ(s.dram.counters().reads, 2u);
  EXPECT_EQ(s.l2.counters().read_misses, 2u);
  EXPECT_EQ(s.l2.counters().sector_misses, 1u);
  // Both valid now: a hit.
  EXPECT_EQ(s.l2.access(200000, 0, chunks(0x3), false), 200000 + kHit);
  // All four: sectors 2 and 3 in one request of two bursts.
  EXPECT_EQ(s.l2.access(300000, 0, chunks(0xF), false), 300000 + kHit + 10000 + 2000);
  EXPECT_EQ(s.dram.counters().read_bytes, 128u);
}

TEST(SectoredL2Slice, AReadOfASectorInFlightWaitsForItsFill) {
  SectoredSlice s;
  const uint64_t fill = s.l2.access(0, 0, chunks(0x4), false);
  EXPECT_EQ(s.l2.access(1000, 0, chunks(0x4), false), fill);
  EXPECT_EQ(s.l2.counters().pending_hits, 1u);
  // Another sector of the line is not covered by that fill.
  EXPECT_GT(s.l2.access(2000, 0, chunks(0x8), false), fill);
  EXPECT_EQ(s.l2.counters().sector_misses, 1u);
}

TEST(SectoredL2Slice, WritesValidateTheirSectorsAndWriteBackOnlyThose) {
  SectoredSlice s;
  EXPECT_EQ(s.l2.access(0, 0, chunks(0x2), true), kHit);  // write sector 1: no DRAM read
  EXPECT_EQ(s.dram.counters().reads, 0u);
  EXPECT_EQ(s.l2.access(100000, 0, chunks(0x2), false), 100000 + kHit);  // reads it back
  EXPECT_GT(s.l2.access(200000, 0, chunks(0x1), false), 200000 + kHit);  // sector 0 was never written
  // Evict line 0 (set 0 holds 0, 512, then 1024): one 32 B write-back.
  s.l2.access(300000, 512, chunks(0x1), false);
  s.l2.access(400000, 1024, chunks(0x1), false);
  EXPECT_EQ(s.l2.counters().writebacks, 1u);
  EXPECT_EQ(s.dram.counters().writes, 1u);
  EXPECT_EQ(s.dram.counters().bytes - s.dram.counters().read_bytes, 32u);
}

}  // namespace
}  // namespace smshare
