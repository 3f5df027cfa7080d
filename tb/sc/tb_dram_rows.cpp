// Row hits against row misses in one DRAM bank, under dram.scheduler fcfs
// and frfcfs: the microbenchmark tb/traces/dram_rows/ (one warp; lane 0
// loads one word from lines W, A, B, C of one bank of channel 4: W, A, C in
// one row, B in the next) on one Fermi SM (fermi-gtx480, gpu.num_sms=1).
// GPGPU-Sim's FR-FCFS: dram_sched.cc frfcfs_scheduler::schedule (per bank
// the oldest request to the open row, else the oldest) called by dram.cc
// dram_t::scheduler_frfcfs for a bank without a request.
//
// Derivation (core cycle 714 ps; DRAM 924 MHz: tRCD = tCL = tRP =
// round(12e6 / 924) = 12987 ps, tRAS = round(28e6 / 924) = 30303 ps; a
// 128 B line holds the channel's bus 4329 ps):
//  * The four independent loads issue in cycles 1..4 and their line
//    requests leave the SM in cycles 4, 5, 6, 7 (one per cycle through the
//    LDST unit; tb_sectors.cpp's one_lane shows cycle 4 for the first).
//  * Up the interconnect (20 cycles, a control packet): L2 at 24, 25, 26,
//    27. The L2 port moves 64 B a cycle, so each line read holds it 2
//    cycles: lookups start at 24, 26, 28, 30 and miss 80 cycles later:
//    W, A, B, C reach the channel (dram.latency 0) at cycles 104, 106, 108,
//    110 = 74256, 75684, 77112, 78540 ps.
//  * W opens the row: activate 74256, column 87243, data 100230..104559.
//  * FCFS (booking in arrival order):
//      A  row hit: column at max(75684, 87243) = 87243, data on the bus
//         after W's: 104559..108888
//      B  row miss: precharge at max(87243, 74256 + tRAS = 104559), activate
//         117546, column 130533, data 143520..147849
//      C  row miss again: precharge at max(130533, 117546 + tRAS = 147849),
//         activate 160836, column 173823, data 186810..191139
//    The data then crosses the interconnect (4 cycles on the partition's
//    port, 20 latency): + 24 x 714 = 17136 ps. The last, C, is back at
//    208275 ps, in cycle ceil(208275 / 714) = 292; the warp retires there
//    and the kernel takes 293 cycles. 3 activates, 1 row hit.
//  * FR-FCFS: the bank is free again at W's column (87243), when A, B and C
//    have all arrived: it takes A (the oldest row hit; data 104559..108888),
//    then C (the next row hit, passing B: column 87243, data
//    108888..113217), then B (precharge 104559, activate 117546, column
//    130533, data 143520..147849). The last, B, is back at 164985 ps, in
//    cycle 232: 233 cycles. 2 activates, 2 row hits, 1 reordered; A, B, C
//    waited in the queue 87243 - 75684, - 77112, - 78540 = 30393 ps.
#include <gtest/gtest.h>

#include <string>

#include "hw/top/simulation.hpp"
#include "tb/common/compact_gtx480.hpp"

namespace smshare {
namespace {

nlohmann::json run(const std::string& scheduler) {
  RunRequest req;
  req.config = "fermi-gtx480";
  req.trace = std::string(SMSHARE_SOURCE_DIR) + "/tb/traces/dram_rows/dram_rows.g";
  // The addresses and cycles are derived for 2 KB rows without the GTX480
  // instruction cache and memory limits.
  req.overrides = tb::compact_gtx480({"gpu.num_sms=1", "dram.scheduler=" + scheduler});
  return run_simulation(req);
}

const nlohmann::json& channel4(const nlohmann::json& r) { return r["counters"]["memory"]["dram_channels"][4]; }

TEST(DramRows, FcfsServesARowMissBetweenTwoHitsIn293Cycles) {
  const auto r = run("fcfs");
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 293u);
  const auto& ch = channel4(r);
  EXPECT_EQ(ch["reads"].get<uint64_t>(), 4u);
  EXPECT_EQ(ch["activates"].get<uint64_t>(), 3u);
  EXPECT_EQ(ch["row_hits"].get<uint64_t>(), 1u);
  EXPECT_FALSE(ch.contains("frfcfs"));  // its counters only with frfcfs
}

TEST(DramRows, FrfcfsServesTheRowHitFirstIn233Cycles) {
  const auto r = run("frfcfs");
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 233u);
  const auto& ch = channel4(r);
  EXPECT_EQ(ch["reads"].get<uint64_t>(), 4u);
  EXPECT_EQ(ch["activates"].get<uint64_t>(), 2u);
  EXPECT_EQ(ch["row_hits"].get<uint64_t>(), 2u);
  EXPECT_EQ(ch["frfcfs"]["reordered"].get<uint64_t>(), 1u);
  EXPECT_EQ(ch["frfcfs"]["queue_wait_ps"].get<uint64_t>(), 30393u);
  EXPECT_EQ(ch["frfcfs"]["max_queued"].get<uint64_t>(), 3u);
}

}  // namespace
}  // namespace smshare
