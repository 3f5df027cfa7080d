// Memory-system microbenchmarks: the traces of tb/traces/memory/ (written by
// its make_traces.py) on one Fermi SM, every expectation derived by hand
// below from GPGPU-Sim's rules and smshare's (docs/microbenchmarks.md
// tabulates them). The SM pipeline is being changed in parallel, so no
// expectation here depends on its constants: a case is either a count
// (lines, bytes, activates, row hits, stall picoseconds) or a cycle
// difference against a reference run whose pipeline part is identical.
// Each run is its own process (run_in_child): SystemC elaborates once.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/run_in_child.hpp"

namespace smshare {
namespace {

const std::string kTraces = std::string(SMSHARE_SOURCE_DIR) + "/tb/traces/memory/";

// fermi-gtx480's memory system as of this writing, pinned so that a later
// change of the shipped config cannot move these derivations; no
// instruction cache (its fills would share the memory path with the data).
const std::vector<std::string> kMemory = {
    "gpu.num_sms=1", "gpu.core_clock_mhz=1400", "icache.size_bytes=0",
    "l1.size_bytes=16384", "l1.line_bytes=128", "l1.ways=4", "l1.hit_latency=35", "l1.sector_bytes=0",
    "l1.mshr_entries=0", "icnt.latency=20", "icnt.bytes_per_cycle=32", "l2.size_bytes=786432",
    "l2.line_bytes=128", "l2.ways=16", "l2.hit_latency=80", "l2.bytes_per_cycle=64", "l2.sector_bytes=0",
    "l2.mshr_entries=0", "dram.channels=6", "dram.banks=16", "dram.bandwidth_gbps=177.4",
    "dram.clock_mhz=924", "dram.row_bytes=2048", "dram.tCL=12", "dram.tRCD=12", "dram.tRP=12",
    "dram.tRAS=28", "dram.latency=0", "dram.queue_depth=0", "dram.scheduler=fcfs", "dram.interleave_bytes=256"};

nlohmann::json run(const std::string& trace, const std::vector<std::string>& extra = {}) {
  RunRequest req;
  req.config = "fermi-gtx480";
  req.trace = kTraces + trace + ".g";
  req.overrides = kMemory;
  req.overrides.insert(req.overrides.end(), extra.begin(), extra.end());
  return tb::run_in_child(req);
}

const std::vector<std::string> kSectored = {"l1.sector_bytes=32", "l2.sector_bytes=32"};

uint64_t u(const nlohmann::json& j) { return j.get<uint64_t>(); }
int64_t cycles(const nlohmann::json& r) { return static_cast<int64_t>(u(r["cycles"])); }
uint64_t l1(const nlohmann::json& r, const char* c) { return u(r["counters"]["l1"][c]); }
uint64_t bytes_down(const nlohmann::json& r) { return u(r["counters"]["memory"]["icnt"]["bytes_down"]); }
uint64_t dram_sum(const nlohmann::json& r, const char* c) {
  uint64_t n = 0;
  for (const auto& ch : r["counters"]["memory"]["dram_channels"]) n += u(ch[c]);
  return n;
}
const nlohmann::json& channel0(const nlohmann::json& r) { return r["counters"]["memory"]["dram_channels"][0]; }
const nlohmann::json& slice0(const nlohmann::json& r) { return r["counters"]["memory"]["l2_partitions"][0]; }

// ---------------------------------------------------------------- coalescing
//
// One warp loads 4, 8 or 16 B per lane. GPGPU-Sim (abstract_hardware_model.cc,
// warp_inst_t::memory_coalescing_arch; one part per warp with
// -gpgpu_shmem_warp_parts 1, as in the GTX480 and the tested configs) groups
// the lanes by 128 B segment (4-16 B per lane, L1 not sectored) and shrinks
// each segment to 64 or 32 B when only that half or quarter is touched
// (memory_coalescing_arch_reduce_and_send); every segment is one access the
// LDST unit handles in a cycle (shader.cc, ldst_unit::memory_cycle) and one
// L1 lookup, whose miss fills the whole 128 B line. With sectored caches
// (coalesce arch >= 40, or an L1 skipped by global loads) the segment is a
// 32 B sector. smshare: one L1 lookup per 128 B line, carrying the 32 B
// chunks its lanes touch; a miss moves the line (128 B) or, sectored, the
// touched sectors (32 B each). All the patterns below touch distinct lines
// per segment, so GPGPU-Sim's unsectored accesses are smshare's lines.
struct Pattern {
  const char* name;
  uint32_t lines;    // 128 B lines touched = GPGPU-Sim's accesses with 128 B segments
  uint32_t sectors;  // 32 B sectors touched = GPGPU-Sim's accesses with 32 B segments
};

const Pattern kPatterns[] = {
    {"one_lane", 1, 1},       // lane 0, one word
    {"coalesced4", 1, 4},     // 32 x 4 B = 128 B: one 128 B access
    {"coalesced8", 2, 8},     // 32 x 8 B = 256 B: two 128 B accesses
    {"coalesced16", 4, 16},   // 512 B: four
    {"stride2", 2, 8},        // a word every 8 B over 256 B: two 128 B accesses, all four chunks of each
    {"stride4", 4, 16},       // a word every 16 B over 512 B: four
    {"stride32", 32, 32},     // a word every 128 B: 32 accesses, each shrunk to 32 B
    {"same_address", 1, 1},   // one word for all lanes: one access, shrunk to 32 B
    {"misaligned4", 2, 5},    // 128 B from +4: 128 B (chunks 0-3) + 32 B (chunk 0 of the next line)
    {"scattered", 32, 32},    // one word in each of 32 lines, in no order: 32 accesses of 32 B
};

class Coalescing : public testing::TestWithParam<Pattern> {};

// Cold, lines: every touched line misses and moves 128 B from DRAM to the SM.
TEST_P(Coalescing, ColdLineFillsMove128BytesPerLine) {
  const Pattern p = GetParam();
  const auto r = run(std::string("cold_") + p.name);
  EXPECT_EQ(u(r["counters"]["global_transactions"]), p.lines);
  EXPECT_EQ(l1(r, "misses"), p.lines);
  EXPECT_EQ(l1(r, "hits"), 0u);
  EXPECT_EQ(bytes_down(r), 128u * p.lines);
  EXPECT_EQ(dram_sum(r, "read_bytes"), 128u * p.lines);
}

// Cold, sectors: still one lookup per line, but only the touched sectors
// move: GPGPU-Sim's sectored bytes, 32 B per touched sector.
TEST_P(Coalescing, ColdSectorFillsMove32BytesPerSector) {
  const Pattern p = GetParam();
  const auto r = run(std::string("cold_") + p.name, kSectored);
  EXPECT_EQ(l1(r, "misses"), p.lines);
  EXPECT_EQ(bytes_down(r), 32u * p.sectors);
  EXPECT_EQ(dram_sum(r, "read_bytes"), 32u * p.sectors);
}

// Warm: after a load that fills the 32 lines, the pattern hits the L1 in
// each of its lines. The LDST unit takes one line per cycle
// (sm.ldst_transactions_per_cycle = 1; GPGPU-Sim one access per cycle), each
// hit is ready l1.hit_latency later, so the pattern's last data comes
// (lines - 1) cycles after one line's: cycles(warm_p) - cycles(warm_one_lane)
// = lines - 1. (GPGPU-Sim with 128 B segments: accesses - 1, the same here.)
TEST_P(Coalescing, WarmHitsCostOneCyclePerExtraLine) {
  const Pattern p = GetParam();
  const auto r = run(std::string("warm_") + p.name);
  const auto ref = run("warm_one_lane");
  EXPECT_EQ(l1(r, "misses"), 32u);      // the warm-up load
  EXPECT_EQ(l1(r, "hits"), p.lines);    // the pattern
  EXPECT_EQ(cycles(r) - cycles(ref), static_cast<int64_t>(p.lines) - 1);
}

INSTANTIATE_TEST_SUITE_P(MemoryMicrobench, Coalescing, testing::ValuesIn(kPatterns),
                         [](const testing::TestParamInfo<Pattern>& i) { return std::string(i.param.name); });

// ---------------------------------------------------------------- L1 MSHRs
//
// l1_mshr's second kernel loads one word from each of 32 lines that sit in
// the L2 (its first kernel stored them), with 32 B sectors, into a cold L1:
// 32 misses, each an L2 hit whose round trip is the same for every line,
//   L = icnt.latency 20 + l2.hit_latency 80 + icnt.latency 20 + 32 B / 32 B per cycle = 121 cycles
// (requests are control packets; 32 B take one L2 port unit and one
// interconnect cycle, and lines leave one a cycle, so no port is shared).
// With M MSHRs, a miss finding all M held waits for the first fill (GPGPU-Sim:
// data_cache::rd_miss_base answers RESERVATION_FAIL while m_mshrs.full(), and
// ldst_unit::memory_cycle retries it; the fill frees the entry): line k
// leaves at s + floor(k / M) L + k mod M instead of s + k, so the last data
// comes floor(31 / M) L + (31 mod M) - 31 cycles later than with no limit.
int64_t l1_mshr_delay(int64_t m) {
  const int64_t L = 20 + 80 + 20 + 1;
  return (31 / m) * L + 31 % m - 31;
}

int64_t second_kernel_cycles(const nlohmann::json& r) { return static_cast<int64_t>(u(r["kernels"][1]["cycles"])); }

void expect_l1_mshr_delay(int m) {
  std::vector<std::string> extra = kSectored;
  const auto unlimited = run("l1_mshr", extra);
  extra.push_back("l1.mshr_entries=" + std::to_string(m));
  const auto limited = run("l1_mshr", extra);
  EXPECT_EQ(l1(limited, "misses"), 64u);  // 32 per kernel
  EXPECT_EQ(second_kernel_cycles(limited) - second_kernel_cycles(unlimited), l1_mshr_delay(m));
}

TEST(MemoryMicrobench, OneL1MshrSerializesTheMisses) { expect_l1_mshr_delay(1); }   // 31 x 120 = 3720
TEST(MemoryMicrobench, TwoL1MshrsDelayTheLastMissBy1785) { expect_l1_mshr_delay(2); }
TEST(MemoryMicrobench, FourL1MshrsDelayTheLastMissBy819) { expect_l1_mshr_delay(4); }

// ---------------------------------------------------------------- DRAM rows
//
// row_same loads 8 lines of one DRAM page of channel 0 (one row of one bank),
// row_alternate 8 lines of channel 0 alternating between two rows of one
// bank; each line misses L1 and L2 (128 B, not sectored). Times in ps from
// the cycle the first line leaves the SM (a multiple of the 714 ps period, so
// the rounding up to a cycle depends only on the sums below); the lines leave
// one a cycle and reach the L2 one a cycle, whose port takes 128 B in 2 cycles:
constexpr int64_t kPeriod = 714;               // round(1e6 / 1400 MHz)
constexpr int64_t kUp = 20 * kPeriod;          // control packet up the interconnect
constexpr int64_t kL2 = 80 * kPeriod;          // l2.hit_latency
constexpr int64_t kL2Port = 2 * kPeriod;       // 128 B at 64 B per cycle
constexpr int64_t kDown = 20 * kPeriod + 4 * kPeriod;  // latency + 128 B at 32 B per cycle
constexpr int64_t tRCD = 12987, tCL = 12987, tRP = 12987;  // round(12 / 924 MHz)
constexpr int64_t tRAS = 30303;                // round(28 / 924 MHz)
constexpr int64_t kBurst = 4329;               // 128 B at 177.4 / 6 GB/s
int64_t ceil_cycles(int64_t ps) { return (ps + kPeriod - 1) / kPeriod; }

// Line k reaches the channel at t0 + k x kL2Port, t0 = kUp + kL2 after it
// left (GPGPU-Sim dram.cc: the bank's row buffer; tRCD before a column
// command to a newly activated row, tRP to close one, tRAS from activate to
// precharge, tCL to the data, then the burst on the bus).
//   same row: activate at t0, every column command at t0 + tRCD (row hits
//     pipeline: 1428 ps apart arrivals, all before it), data from t0 + tRCD +
//     tCL, the bus moving one line per kBurst: the last off the bus at
//     t0 + tRCD + tCL + 8 kBurst.
//   alternating rows: each request after the first precharges at the
//     previous activate + tRAS and activates tRP later: activates 7 x
//     (tRAS + tRP) apart; the last off the bus at t0 + 7 (tRAS + tRP) + tRCD +
//     tCL + kBurst.
// Each then crosses the interconnect down (kDown); the load is done when its
// last line is back.
constexpr int64_t kT0 = kUp + kL2;
constexpr int64_t kSameRowDone = kT0 + tRCD + tCL + 8 * kBurst + kDown;                 // 149142 ps
constexpr int64_t kAlternateDone = kT0 + 7 * (tRAS + tRP) + tRCD + tCL + kBurst + kDown;  // 421869 ps

TEST(MemoryMicrobench, RowHitsVersusRowMissesUnderFcfs) {
  const auto same = run("row_same");
  const auto alternate = run("row_alternate");
  EXPECT_EQ(u(channel0(same)["activates"]), 1u);
  EXPECT_EQ(u(channel0(same)["row_hits"]), 7u);
  EXPECT_EQ(u(channel0(alternate)["activates"]), 8u);
  EXPECT_EQ(u(channel0(alternate)["row_hits"]), 0u);
  // 591 - 209 = 382 cycles: 7 x (40 - 4) DRAM cycles of row misses over row hits.
  EXPECT_EQ(cycles(alternate) - cycles(same), ceil_cycles(kAlternateDone) - ceil_cycles(kSameRowDone));
  EXPECT_EQ(ceil_cycles(kAlternateDone) - ceil_cycles(kSameRowDone), 382);
}

// ---------------------------------------------------------------- L2 MSHRs
//
// row_same with one L2 MSHR: a miss waits at the slice's input until the
// previous one's data is off the DRAM bus (GPGPU-Sim l2cache.cc,
// memory_sub_partition::cache_cycle keeps it in m_icnt_L2_queue on
// RESERVATION_FAIL), then pays l2.hit_latency again and, its row open, tCL
// and a burst: each line 74436 ps after the previous. The first is off the
// bus at t0 + tRCD + tCL + kBurst.
constexpr int64_t kPerLineWithOneMshr = kL2 + tCL + kBurst;                                 // 74436 ps
constexpr int64_t kFirstOffBus = kT0 + tRCD + tCL + kBurst;
constexpr int64_t kOneMshrDone = kFirstOffBus + 7 * kPerLineWithOneMshr + kDown;         // 639891 ps

TEST(MemoryMicrobench, OneL2MshrSerializesTheRowHits) {
  const auto unlimited = run("row_same");
  const auto limited = run("row_same", {"l2.mshr_entries=1"});
  // Waits at the input: line 1 reaches it at 2 x 714 (the port) and waits for
  // line 0's data (t0 + tRCD + tCL + kBurst from the start, t0 - kL2 at the
  // L2): 87423 - 1428 = 85995 ps; each later line reaches it 1428 ps after
  // the previous one left the input and waits 74436 - 1428 = 73008 ps.
  EXPECT_EQ(u(slice0(limited)["miss_stall_ps"]), 85995u + 6 * 73008u);
  EXPECT_EQ(u(channel0(limited)["row_hits"]), 7u);
  EXPECT_EQ(cycles(limited) - cycles(unlimited), ceil_cycles(kOneMshrDone) - ceil_cycles(kSameRowDone));
  EXPECT_EQ(ceil_cycles(kOneMshrDone) - ceil_cycles(kSameRowDone), 688);
}

// ---------------------------------------------------------------- DRAM queue
//
// row_alternate with a DRAM queue of depth 1 (GPGPU-Sim dram.cc, dram_t::full
// against -gpgpu_frfcfs_dram_sched_queue_size; l2cache.cc moves a request on
// only when !m_dram->full()): a request holds the slot until its bank takes
// it (its first command). Request 0 finds the bank closed and leaves at once;
// request 1 holds the slot until its precharge at t0 + tRAS; request 2 would
// arrive at t0 + 2 x 1428 and waits at the L2's input until then (30303 -
// 2856 = 27447 ps); each later one reaches the input 1428 ps after the one
// before left it and waits for that one's precharge, tRAS + tRP after the
// previous (43290 - 1428 = 41862 ps). Under FCFS on one bank the commands
// were already that far apart, so the data comes back when it did.
TEST(MemoryMicrobench, DramQueueBackPressureHoldsMissesAtTheL2) {
  const auto unlimited = run("row_alternate");
  const auto limited = run("row_alternate", {"dram.queue_depth=1"});
  EXPECT_EQ(u(slice0(limited)["miss_stall_ps"]), 27447u + 5 * 41862u);
  EXPECT_EQ(u(channel0(limited)["queue_full_ps"]), 0u);  // only write-backs wait at the channel
  EXPECT_EQ(u(channel0(limited)["activates"]), 8u);
  EXPECT_EQ(cycles(limited), cycles(unlimited));
}

}  // namespace
}  // namespace smshare
