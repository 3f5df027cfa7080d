// Trace replay testbenches: Accel-Sim traces run through the same SM
// pipeline as profiles.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "hw/common/error.hpp"
#include "hw/top/simulation.hpp"
#include "tb/common/compact_gtx480.hpp"
#include "tb/common/temp_dir.hpp"

namespace smshare {
namespace {

const std::string kTraces = std::string(SMSHARE_SOURCE_DIR) + "/tb/traces/";

RunRequest trace_request(const std::string& list) {
  RunRequest req;
  req.config = "fermi-gtx480";
  req.trace = list;
  req.overrides = tb::compact_gtx480();
  return req;
}

// Instruction lines of a trace file: lines that start with a hex PC.
uint64_t count_instruction_lines(const std::string& path) {
  std::ifstream in(path);
  uint64_t n = 0;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) && line.find(' ') != std::string::npos)
      ++n;
  return n;
}

TEST(Trace, EveryAddressFormatTakesTheHandDerivedCycles) {
  // tb/traces/cycles: one warp, all three address formats on the scratchpad.
  //   0  fetch IMAD, STS                 1  issue IMAD (no operand): result at 2+4 = 6
  //   6  issue STS (waits for R1), fetch LDS, LDS
  //   7  read R1 for STS; issue LDS#1 (format 1: base 0, stride 4, no conflict)
  //   8  STS to LDST (format 0: lanes 0,4,..,124: conflict free); read R1 for LDS#1
  //   9  LDS#1 to LDST: R2 ready at 9 + smem_latency 26 = 35
  //  35  issue LDS#2 (format 2: deltas of 128 B: all 32 lanes in bank 0), fetch FFMA, EXIT
  //  37  LDS#2 to LDST: 32-way conflict: R3 ready at 37 + 26 + 31 = 94
  //  94  issue FFMA; 95 issue EXIT; 96 FFMA to the SP pipe: R4 at 96 + 5 = 101
  // The warp retires at 101: 102 cycles, 6 warp instructions (EXIT counts).
  RunRequest req = trace_request(kTraces + "cycles/kernelslist.g");
  req.overrides.push_back("gpu.num_sms=1");
  auto r = run_simulation(req);
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 102u);
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), 6u);
  EXPECT_EQ(r["counters"]["scratchpad"]["bank_conflict_cycles"].get<uint64_t>(), 31u);
  EXPECT_EQ(r["counters"]["scratchpad"]["lane_accesses"].get<uint64_t>(), 96u);
  EXPECT_EQ(r["op_mix"]["shared_load"].get<uint64_t>(), 2u);
  EXPECT_EQ(r["op_mix"]["exit"].get<uint64_t>(), 1u);
}

TEST(Trace, GeneratedTraceIssuesEveryInstructionLine) {
  const std::string dir = kTraces + "generated_small/";
  const uint64_t lines = count_instruction_lines(dir + "kernel-1.traceg");
  ASSERT_GT(lines, 1000u);
  auto r = run_simulation(trace_request(dir + "kernelslist.g"));
  EXPECT_TRUE(r["completed"].get<bool>());
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), lines);
  EXPECT_EQ(r["kernels"][0]["trace"]["instruction_lines"].get<uint64_t>(), lines);
}

TEST(Trace, HandwrittenTraceWithGlobalAccessesCompletes) {
  RunRequest req = trace_request(kTraces + "handwritten/kernelslist.g");
  req.overrides.push_back("gpu.num_sms=1");
  auto r = run_simulation(req);
  EXPECT_TRUE(r["completed"].get<bool>());
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), 20u);
  // Each warp's LDG touches 32 lines (128 B apart): 64 L1 misses in all.
  EXPECT_EQ(r["counters"]["l1"]["misses"].get<uint64_t>(), 64u);
  EXPECT_EQ(r["counters"]["barriers"].get<uint64_t>(), 2u);
  EXPECT_EQ(r["resident_ctas_per_sm"].get<unsigned>(), 1u);
  EXPECT_EQ(r["kernel"]["regs_per_thread"].get<unsigned>(), 8u);
  EXPECT_EQ(r["kernel"]["smem_bytes_per_cta"].get<unsigned>(), 1024u);
}

TEST(Trace, UnknownOpcodeFallbackIsCountedInTheReport) {
  namespace fs = std::filesystem;
  const TempDir tmp;
  const fs::path dir = tmp.path();
  std::ifstream src(kTraces + "cycles/kernel-1.traceg");
  std::string text((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
  const std::string from = "IMAD.MOV.U32";
  text.replace(text.find(from), from.size(), "NOTANOPCODE");
  std::ofstream(dir / "kernel-1.traceg") << text;
  std::ofstream(dir / "kernelslist.g") << "kernel-1.traceg\n";
  RunRequest req = trace_request((dir / "kernelslist.g").string());
  req.overrides = {"gpu.num_sms=1", "frontend.unknown_opcode=alu"};
  auto r = run_simulation(req);
  EXPECT_EQ(r["kernels"][0]["trace"]["unknown_opcodes"]["NOTANOPCODE"].get<uint64_t>(), 1u);
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), 6u);
}

TEST(Trace, UnknownOpcodeWithoutFallbackIsAnInputError) {
  namespace fs = std::filesystem;
  const TempDir tmp;
  const fs::path dir = tmp.path();
  std::ifstream src(kTraces + "cycles/kernel-1.traceg");
  std::string text((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
  text.replace(text.find("FFMA"), 4, "WHATISTHIS");
  std::ofstream(dir / "kernel-1.traceg") << text;
  std::ofstream(dir / "kernelslist.g") << "kernel-1.traceg\n";
  try {
    run_simulation(trace_request((dir / "kernelslist.g").string()));
    FAIL() << "an unknown opcode must be rejected";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("WHATISTHIS"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("kernel-1.traceg"), std::string::npos) << e.what();
  }
}

TEST(Trace, KernelListRunsKernelsOneAfterAnother) {
  // The same kernel listed twice: the second starts when the first has
  // drained, so the stream takes the sum of the two.
  namespace fs = std::filesystem;
  const TempDir tmp;
  const fs::path dir = tmp.path();
  fs::copy_file(kTraces + "cycles/kernel-1.traceg", dir / "kernel-1.traceg", fs::copy_options::overwrite_existing);
  std::ofstream(dir / "kernelslist.g") << "MemcpyHtoD,0x00007f0000010000,4096\nkernel-1.traceg\nkernel-1.traceg\n";
  RunRequest req = trace_request((dir / "kernelslist.g").string());
  req.overrides.push_back("gpu.num_sms=1");
  auto r = run_simulation(req);
  ASSERT_EQ(r["kernels"].size(), 2u);
  // Kernel 1 ends after cycle 101; kernel 2 is launched at cycle 102 and, as
  // a copy, takes the same 102 cycles.
  EXPECT_EQ(r["kernels"][0]["end_cycle"].get<uint64_t>(), 102u);
  EXPECT_EQ(r["kernels"][1]["start_cycle"].get<uint64_t>(), 102u);
  EXPECT_EQ(r["kernels"][1]["cycles"].get<uint64_t>(), 102u);
  EXPECT_EQ(r["cycles"].get<uint64_t>(), 204u);
  EXPECT_EQ(r["warp_instructions"].get<uint64_t>(), 12u);
  EXPECT_TRUE(r["completed"].get<bool>());
}

}  // namespace
}  // namespace smshare
