// Kernel lists, indexing and warp streaming of Accel-Sim traces.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "hw/common/error.hpp"
#include "hw/frontend/trace_kernel.hpp"
#include "tb/common/temp_dir.hpp"

namespace smshare {
namespace {

const std::string kTraces = std::string(SMSHARE_SOURCE_DIR) + "/tb/traces";

std::vector<WarpInstruction> drain(WarpProgram& w) {
  std::vector<WarpInstruction> out;
  WarpInstruction i;
  while (w.next(i)) out.push_back(i);
  return out;
}

uint64_t count_instruction_lines(const std::string& path) {
  // Lines that start with a hex digit inside a warp are instruction lines in
  // generated traces (no line numbers).
  std::ifstream in(path);
  std::string line;
  uint64_t n = 0;
  bool body = false;
  while (std::getline(in, line)) {
    if (line.rfind("#BEGIN_TB", 0) == 0) body = true;
    if (!body || line.empty()) continue;
    if (isxdigit(static_cast<unsigned char>(line[0])) && line.rfind("cluster", 0) != 0) ++n;
  }
  return n;
}

const char* kSmallHeader =
    "-kernel name = tiny\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-shmem = 256\n"
    "-nregs = 12\n-binary version = 70\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n"
    "#traces format = [line_num] PC mask ...\n\n";

// A well-formed two-CTA trace; `mutate` replaces one substring to break it.
std::string tiny_body() {
  return "#BEGIN_TB\n"
         "thread block = 0,0,0\n"
         "warp = 0\n"
         "insts = 3\n"
         "0000 ffffffff 1 R1 IADD3 2 R2 R3 0 0\n"
         "0010 ffffffff 1 R4 LDG.E 1 R1 4 1 0x1000 4 0\n"
         "0020 ffffffff 0 EXIT 0 0 0\n"
         "warp = 1\n"
         "insts = 2\n"
         "0000 ffffffff 1 R1 IADD3 2 R2 R3 0 0\n"
         "0020 ffffffff 0 EXIT 0 0 0\n"
         "#END_TB\n"
         "\n"
         "#BEGIN_TB\n"
         "thread block = 1,0,0\n"
         "warp = 0\n"
         "insts = 1\n"
         "0020 ffffffff 0 EXIT 0 0 0\n"
         "warp = 1\n"
         "insts = 1\n"
         "0020 ffffffff 0 EXIT 0 0 0\n"
         "#END_TB\n";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  if (at == std::string::npos) throw std::logic_error("test bug: '" + from + "' not in trace");
  return s.replace(at, from.size(), to);
}

// Loads `body` as a kernel and returns the InputError message ("" if none).
std::string load_error(const TempDir& dir, const std::string& body, const TraceOptions& opt = {}) {
  std::string p = dir.write("kernel-1.traceg", kSmallHeader + body);
  try {
    TraceKernel k(p, ResourceOverrides{}, opt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// kSmallHeader has 12 lines, so the body's first line is line 13.
constexpr int kBody = 13;
std::string at(int body_line) { return "kernel-1.traceg:" + std::to_string(kBody + body_line - 1) + ": "; }

void expect_load_error(const std::string& body, int body_line, const std::string& words) {
  TempDir dir;
  std::string m = load_error(dir, body);
  ASSERT_FALSE(m.empty()) << "accepted";
  EXPECT_NE(m.find(at(body_line)), std::string::npos) << "expected " << at(body_line) << " in: " << m;
  EXPECT_NE(m.find(words), std::string::npos) << m;
}

// ------------------------------------------------------------ hand-written

TEST(TraceKernel, HandwrittenTraceResourcesAndStreams) {
  auto kernels = load_trace_kernels(kTraces + "/handwritten/kernelslist.g", {}, {});
  ASSERT_EQ(kernels.size(), 1u);
  KernelSource& k = *kernels[0];
  EXPECT_EQ(k.name(), "_Z12every_formatPfS_");
  EXPECT_EQ(k.resources().grid_ctas, 1u);
  EXPECT_EQ(k.resources().threads_per_cta, 64u);
  EXPECT_EQ(k.resources().warps_per_cta(), 2u);
  EXPECT_EQ(k.resources().regs_per_thread, 8u);
  EXPECT_EQ(k.resources().smem_bytes_per_cta, 1024u);
  const TraceStats* s = trace_stats(k);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->instruction_lines, 20u);
  EXPECT_EQ(s->ctas_in_file, 1u);
  EXPECT_EQ(s->warps_in_file, 2u);
  EXPECT_TRUE(s->unknown_opcodes.empty());
  EXPECT_EQ(s->per_class[size_t(OpClass::GlobalLoad)], 2u);
  EXPECT_EQ(s->per_class[size_t(OpClass::Barrier)], 2u);
  EXPECT_EQ(s->per_class[size_t(OpClass::Exit)], 2u);

  // Warp 1 first: any order works.
  auto w1 = drain(*k.warp_program(0, 1));
  auto w0 = drain(*k.warp_program(0, 0));
  ASSERT_EQ(w0.size(), 10u);
  ASSERT_EQ(w1.size(), 10u);
  const OpClass expected[] = {OpClass::IntAlu,      OpClass::IntAlu,     OpClass::GlobalLoad, OpClass::GlobalStore,
                              OpClass::SharedStore, OpClass::Barrier,    OpClass::SharedLoad, OpClass::FpAlu,
                              OpClass::Sfu,         OpClass::Exit};
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(w0[i].op, expected[i]) << i;
    EXPECT_EQ(w1[i].op, expected[i]) << i;
    EXPECT_EQ(w0[i].pc, 0x10u * i) << i;
  }
  // Zorua's phases (trace_phases.hpp): the barrier (instruction 5) ends the
  // first; the live sets of the eight others never differ enough 10 apart.
  EXPECT_EQ(k.resources().phase_names, (std::vector<std::string>{"phase0", "phase1"}));
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(w0[i].phase, i <= 5 ? 0 : 1) << i;
    EXPECT_EQ(w1[i].phase, i <= 5 ? 0 : 1) << i;
  }
  // Format 0: lane i at 0x7f0000010000 + 128 i (warp 1: 0x7f0000011000 + 128 i).
  for (unsigned lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(w0[2].lane_address(lane), 0x7f0000010000u + 128u * lane);
    EXPECT_EQ(w1[2].lane_address(lane), 0x7f0000011000u + 128u * lane);
  }
  EXPECT_EQ(w0[2].access_bytes, 4);
  EXPECT_EQ(w0[2].dst[0], 4);
  EXPECT_EQ(w0[2].src[0], 2);
  // Format 1 with half masks: warp 0 lanes 0-15, warp 1 lanes 16-31.
  EXPECT_EQ(w0[3].active_mask, 0x0000ffffu);
  EXPECT_EQ(w1[3].active_mask, 0xffff0000u);
  for (unsigned k2 = 0; k2 < 16; ++k2) {
    EXPECT_EQ(w0[3].lane_address(k2), 0x7f0000020000u + 4u * k2);
    EXPECT_EQ(w1[3].lane_address(16 + k2), 0x7f0000020040u + 4u * k2);
  }
  EXPECT_EQ(w0[3].num_src, 2);
  EXPECT_EQ(w0[3].num_dst, 0);
  for (unsigned lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(w0[4].lane_address(lane), 4u * lane);
    EXPECT_EQ(w1[4].lane_address(lane), 0x80u + 4u * lane);
  }
  // Format 2: warp 0 lanes 0-3 = 0x100, 0x104, 0xfc, 0x200;
  //           warp 1 lanes 28-31 = 0x180, 0x17c, 0x184, 0x190.
  EXPECT_EQ(w0[6].active_lanes(), 4u);
  EXPECT_EQ(w0[6].lane_address(0), 0x100u);
  EXPECT_EQ(w0[6].lane_address(1), 0x104u);
  EXPECT_EQ(w0[6].lane_address(2), 0xfcu);
  EXPECT_EQ(w0[6].lane_address(3), 0x200u);
  EXPECT_EQ(w1[6].lane_address(28), 0x180u);
  EXPECT_EQ(w1[6].lane_address(29), 0x17cu);
  EXPECT_EQ(w1[6].lane_address(30), 0x184u);
  EXPECT_EQ(w1[6].lane_address(31), 0x190u);
  // FFMA R6 <- R5 R5 RZ: the zero register is no operand.
  EXPECT_EQ(w0[7].num_src, 2);
  EXPECT_EQ(w0[7].src[2], kNoReg);

  // Streams are independent: a second stream of the same warp starts over.
  auto again = k.warp_program(0, 0);
  WarpInstruction i;
  ASSERT_TRUE(again->next(i));
  EXPECT_EQ(i.pc, 0u);
  EXPECT_THROW(k.warp_program(1, 0), std::out_of_range);
  EXPECT_THROW(k.warp_program(0, 2), std::out_of_range);
}

TEST(TraceKernel, KernelListMemcpysAndPaths) {
  TraceKernelList list = read_trace_kernel_list(kTraces + "/handwritten/kernelslist.g");
  ASSERT_EQ(list.memcpys.size(), 1u);
  EXPECT_EQ(list.memcpys[0].kind, "MemcpyHtoD");
  EXPECT_EQ(list.memcpys[0].address, 0x7f0000010000u);
  EXPECT_EQ(list.memcpys[0].bytes, 8192u);
  ASSERT_EQ(list.kernel_paths.size(), 1u);
  EXPECT_EQ(list.kernel_paths[0], kTraces + "/handwritten/kernel-1.traceg");
}

TEST(TraceKernel, KernelListDirectoryMeansItsKernelslist) {
  TraceKernelList list = read_trace_kernel_list(kTraces + "/handwritten");
  ASSERT_EQ(list.kernel_paths.size(), 1u);
  EXPECT_EQ(list.kernel_paths[0], kTraces + "/handwritten/kernel-1.traceg");
  EXPECT_EQ(load_trace_kernels(kTraces + "/handwritten/", {}, {}).size(), 1u);
}

TEST(TraceKernel, KernelListErrors) {
  TempDir dir;
  auto err = [&](const std::string& text) {
    std::string p = dir.write("kernelslist.g", text);
    try {
      read_trace_kernel_list(p);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string m = err("MemcpyHtoD,0x10,4\nkernel-1.trace\n");
  EXPECT_NE(m.find("kernelslist.g:2: "), std::string::npos) << m;
  EXPECT_NE(m.find("post-traces-processing"), std::string::npos) << m;
  m = err("MemcpyHtoD,zz,4\nkernel-1.traceg\n");
  EXPECT_NE(m.find("kernelslist.g:1: "), std::string::npos) << m;
  m = err("\nhello world\n");
  EXPECT_NE(m.find("kernelslist.g:2: 'hello world' is neither"), std::string::npos) << m;
  m = err("MemcpyHtoD,0x10,4\n");
  EXPECT_NE(m.find("names no kernel trace"), std::string::npos) << m;
  try {
    load_trace_kernels(dir.path() + "/nonexistent.g", {}, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nonexistent.g: cannot open"), std::string::npos) << e.what();
  }
  dir.write("kernelslist.g", "kernel-9.traceg\n");
  try {
    load_trace_kernels(dir.path() + "/kernelslist.g", {}, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel-9.traceg: cannot open trace file"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------ structure

TEST(TraceKernel, TinyTraceIndexesBothCtas) {
  TempDir dir;
  std::string p = dir.write("kernel-1.traceg", kSmallHeader + tiny_body());
  TraceKernel k(p, {}, {});
  EXPECT_EQ(k.stats().instruction_lines, 7u);
  EXPECT_EQ(k.stats().ctas_in_file, 2u);
  EXPECT_EQ(drain(*k.warp_program(1, 1)).size(), 1u);
  auto w = drain(*k.warp_program(0, 0));
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[1].op, OpClass::GlobalLoad);
  EXPECT_EQ(w[1].lane_address(31), 0x1000u + 31 * 4);
  EXPECT_EQ(drain(*k.warp_program(0, 1)).size(), 2u);
  EXPECT_EQ(k.total_warp_instructions(), std::optional<uint64_t>(7));
}

// What the grid streams, warp by warp (warp_program's replay included).
uint64_t streamed_instructions(KernelSource& k) {
  uint64_t n = 0;
  for (uint32_t c = 0; c < k.resources().grid_ctas; ++c)
    for (uint32_t w = 0; w < k.resources().warps_per_cta(); ++w) n += drain(*k.warp_program(c, w)).size();
  return n;
}

TEST(TraceKernel, MissingCtaAndWarpStreamNothing) {
  TempDir dir;
  // CTA 1 absent (the tracer omits empty CTAs); warp 1 of CTA 0 absent.
  std::string body = tiny_body();
  body = body.substr(0, body.find("warp = 1")) + "#END_TB\n";
  std::string p = dir.write("kernel-1.traceg", kSmallHeader + body);
  TraceKernel k(p, {}, {});
  EXPECT_EQ(k.stats().ctas_in_file, 1u);
  EXPECT_EQ(drain(*k.warp_program(0, 0)).size(), 3u);
  EXPECT_EQ(drain(*k.warp_program(0, 1)).size(), 0u);
  EXPECT_EQ(drain(*k.warp_program(1, 0)).size(), 0u);
  EXPECT_EQ(k.total_warp_instructions(), std::optional<uint64_t>(3));
}

TEST(TraceKernel, OverridesChangeResourcesAndReplayCyclically) {
  TempDir dir;
  std::string p = dir.write("kernel-1.traceg", kSmallHeader + tiny_body());
  ResourceOverrides o;
  o.regs_per_thread = 40;
  o.smem_bytes_per_cta = 8192;
  o.grid_ctas = 5;
  o.threads_per_cta = 128;
  TraceKernel k(p, o, {});
  EXPECT_EQ(k.resources().regs_per_thread, 40u);
  EXPECT_EQ(k.resources().smem_bytes_per_cta, 8192u);
  EXPECT_EQ(k.resources().grid_ctas, 5u);
  EXPECT_EQ(k.resources().warps_per_cta(), 4u);
  EXPECT_EQ(k.header().nregs, 12u);  // the file's own values stay visible
  // CTA 4 replays file CTA 0; warp 2 replays warp 0.
  EXPECT_EQ(drain(*k.warp_program(4, 2)).size(), 3u);
  EXPECT_EQ(drain(*k.warp_program(3, 3)).size(), 1u);
  // File CTA 0 (warps of 3 and 2 lines) plays CTAs 0, 2, 4 with 4 warps each;
  // file CTA 1 (1 and 1) plays CTAs 1 and 3.
  EXPECT_EQ(k.total_warp_instructions(), std::optional<uint64_t>(3 * (3 + 2 + 3 + 2) + 2 * 4));
  EXPECT_EQ(*k.total_warp_instructions(), streamed_instructions(k));
  ResourceOverrides fewer;  // fewer threads and CTAs than the file holds
  fewer.grid_ctas = 1;
  fewer.threads_per_cta = 32;
  TraceKernel first(p, fewer, {});
  EXPECT_EQ(first.total_warp_instructions(), std::optional<uint64_t>(3));

  TraceKernel plain(p, {}, {});
  EXPECT_EQ(plain.resources().regs_per_thread, 12u);
  EXPECT_EQ(plain.resources().smem_bytes_per_cta, 256u);
  EXPECT_EQ(plain.resources().grid_ctas, 2u);
}

TEST(TraceKernel, UnknownOpcodeErrorOrCounted) {
  TempDir dir;
  std::string body = replace(tiny_body(), "0000 ffffffff 1 R1 IADD3 2 R2 R3 0 0\n0010",
                             "0000 ffffffff 1 R1 WIBBLE.X 2 R2 R3 0 0\n0010");
  body = replace(body, "thread block = 1,0,0\nwarp = 0\ninsts = 1\n0020 ffffffff 0 EXIT",
                 "thread block = 1,0,0\nwarp = 0\ninsts = 1\n0020 ffffffff 0 WOBBLE");
  std::string m = load_error(dir, body);
  EXPECT_NE(m.find(at(5) + "key 'opcode': unknown opcode 'WIBBLE.X'"), std::string::npos) << m;

  TraceOptions fallback;
  fallback.unknown_opcode_as_alu = true;
  std::string p = dir.write("kernel-1.traceg", kSmallHeader + body);
  TraceKernel k(p, {}, fallback);
  EXPECT_EQ(k.stats().unknown_opcodes.size(), 2u);
  EXPECT_EQ(k.stats().unknown_opcodes.at("WIBBLE"), 1u);
  EXPECT_EQ(k.stats().unknown_opcodes.at("WOBBLE"), 1u);
  EXPECT_EQ(k.stats().unknown_opcode_lines(), 2u);
  auto w = drain(*k.warp_program(0, 0));
  EXPECT_EQ(w[0].op, OpClass::IntAlu);
}

TEST(TraceKernel, WrongInstsCount) {
  // Declares 3, has 2: found at the 'warp = 1' line (body line 8).
  expect_load_error(replace(tiny_body(), "insts = 3", "insts = 4"), 8,
                    "key 'insts': warp 0 of thread block 0,0,0 declares insts = 4 (line 16) but has 3 instruction lines");
  // Declares 1, has 2: the extra line is named.
  expect_load_error(replace(tiny_body(), "insts = 2", "insts = 1"), 11, "declares insts = 1 (line 21) but has more");
  // Too few at the end of the block.
  expect_load_error(replace(tiny_body(), "insts = 2", "insts = 3"), 12, "but has 2 instruction lines");
}

TEST(TraceKernel, MissingEndTb) {
  std::string body = tiny_body();
  body = body.substr(0, body.rfind("#END_TB"));  // file ends inside CTA 1
  expect_load_error(body, 22, "key '#END_TB': file ends inside the thread block opened at line 26");
  // Missing #END_TB before the next block.
  expect_load_error(replace(tiny_body(), "#END_TB\n\n#BEGIN_TB", "\n#BEGIN_TB"), 13,
                    "#BEGIN_TB before the #END_TB of the thread block opened at line 13");
}

TEST(TraceKernel, MalformedInstructionLinesNameFileAndLine) {
  expect_load_error(replace(tiny_body(), "0010 ffffffff 1 R4 LDG.E 1 R1 4 1 0x1000 4 0",
                            "0010 ffffffff 1 R4 LDG.E 1 R1 4 3 0x1000 4 0"),
                    6, "key 'address format': unsupported address format 3");
  expect_load_error(replace(tiny_body(), "0010 ffffffff 1 R4 LDG.E 1 R1 4 1 0x1000 4 0",
                            "0010 fffXffff 1 R4 LDG.E 1 R1 4 1 0x1000 4 0"),
                    6, "key 'active mask': 'fffXffff' is not a hexadecimal number");
  expect_load_error(replace(tiny_body(), "0010 ffffffff 1 R4 LDG.E 1 R1 4 1 0x1000 4 0",
                            "0010 ffffffff 1 R4 LDG.E 1 R1 4 1"),
                    6, "line ends early");
  expect_load_error(replace(tiny_body(), "0010 ffffffff 1 R4 LDG.E 1 R1 4 1 0x1000 4 0",
                            "0010 ffffffff 1 R4 LDG.E 1 R1 4 1 0xZZ 4 0"),
                    6, "key 'base address'");
}

TEST(TraceKernel, StructureErrors) {
  expect_load_error(replace(tiny_body(), "thread block = 1,0,0", "thread block = 2,0,0"), 15,
                    "thread block 2,0,0 is outside the grid (2,1,1)");
  expect_load_error(replace(tiny_body(), "thread block = 1,0,0", "thread block = 0,0,0"), 15,
                    "thread block 0,0,0 appears twice");
  expect_load_error(replace(tiny_body(), "warp = 1\ninsts = 2", "warp = 2\ninsts = 2"), 8,
                    "warp 2 does not exist: the block dim gives 2 warps per CTA");
  expect_load_error(replace(tiny_body(), "warp = 1\ninsts = 2", "warp = 0\ninsts = 2"), 8, "warp 0 of thread block 0,0,0 appears twice");
  expect_load_error(replace(tiny_body(), "insts = 3\n", ""), 4, "instruction line before the 'insts = n' line of warp 0");
  expect_load_error(replace(tiny_body(), "thread block = 0,0,0\n", ""), 2, "'warp' line before the 'thread block");
  expect_load_error("0000 ffffffff 0 EXIT 0 0 0\n" + tiny_body(), 1, "outside a #BEGIN_TB ... #END_TB block");
  expect_load_error(replace(tiny_body(), "insts = 3", "insts = x"), 4, "is not 'insts = n'");
  TempDir dir;
  std::string m = load_error(dir, "");
  EXPECT_NE(m.find("the trace has no thread blocks"), std::string::npos) << m;
}

TEST(TraceKernel, EarlyExitIsControlAndTheLastExitEndsTheWarp) {
  TempDir dir;
  // Lanes 16-31 return early; lanes 0-15 go on and exit at the end.
  std::string body = replace(tiny_body(), "0000 ffffffff 1 R1 IADD3 2 R2 R3 0 0\n0010",
                             "0008 ffff0000 0 EXIT 0 0 0\n0000 0000ffff 1 R1 IADD3 2 R2 R3 0 0\n0010");
  body = replace(body, "insts = 3", "insts = 4");
  std::string p = dir.write("kernel-1.traceg", kSmallHeader + body);
  TraceKernel k(p, {}, {});
  EXPECT_EQ(k.stats().early_exits, 1u);
  EXPECT_EQ(k.stats().per_class[size_t(OpClass::Exit)], 5u);  // 4 final + 1 early
  auto w = drain(*k.warp_program(0, 0));
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[0].op, OpClass::Control);
  EXPECT_EQ(w[0].active_mask, 0xffff0000u);
  EXPECT_EQ(w[3].op, OpClass::Exit);
}

TEST(TraceKernel, LineNumbersAndBlankLinesAndCrlf) {
  TempDir dir;
  std::string header = replace(kSmallHeader, "-enable lineinfo = 0", "-enable lineinfo = 1");
  std::string body =
      "#BEGIN_TB\r\nthread block = 0,0,0\r\ncluster id = 0,0,0\r\nwarp = 0\r\ninsts = 2\r\n"
      "17 0000 ffffffff 1 R1 IADD3 2 R2 R3 0 0\r\n\r\n18 0010 ffffffff 0 EXIT 0 0 0\r\n#END_TB\r\n";
  std::string p = dir.write("kernel-1.traceg", header + body);
  TraceKernel k(p, {}, {});
  auto w = drain(*k.warp_program(0, 0));
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[1].op, OpClass::Exit);
  EXPECT_EQ(w[1].pc, 0x10u);
}

// ------------------------------------------------------------ generated

TEST(TraceKernel, GeneratedTraceStreamsEveryInstructionLine) {
  const std::string dir = kTraces + "/generated_small";
  const uint64_t lines = count_instruction_lines(dir + "/kernel-1.traceg");
  ASSERT_GT(lines, 3000u);
  auto kernels = load_trace_kernels(dir + "/kernelslist.g", {}, {});
  ASSERT_EQ(kernels.size(), 1u);
  KernelSource& k = *kernels[0];
  EXPECT_EQ(trace_stats(k)->instruction_lines, lines);
  uint64_t streamed = 0, exits = 0, memory = 0;
  // Admission order need not be grid order.
  for (uint32_t c = k.resources().grid_ctas; c-- > 0;) {
    for (uint32_t w = 0; w < k.resources().warps_per_cta(); ++w) {
      for (const auto& i : drain(*k.warp_program(c, w))) {
        ++streamed;
        exits += i.op == OpClass::Exit;
        memory += is_memory(i.op);
        if (is_memory(i.op)) {
          EXPECT_EQ(i.access_bytes, 4);
          EXPECT_EQ(i.lane_address(1), i.lane_address(0) + 4);  // coalesced
        }
      }
    }
  }
  EXPECT_EQ(streamed, lines);
  EXPECT_EQ(k.total_warp_instructions(), std::optional<uint64_t>(lines));
  EXPECT_EQ(exits, uint64_t(k.resources().grid_ctas) * k.resources().warps_per_cta());
  // 249 mixed instructions per warp: 25 LDG + 13 STG + 6 LDS + 6 STS (largest-remainder rounding).
  EXPECT_EQ(memory, 50u * 16);
  EXPECT_EQ(k.resources().regs_per_thread, 36u);
  EXPECT_EQ(k.resources().smem_bytes_per_cta, 3072u);
}

bool have_program(const char* cmd) { return std::system(cmd) == 0; }

TEST(TraceKernel, GeneratorIsDeterministic) {
  if (!have_program("python3 --version >/dev/null 2>&1")) GTEST_SKIP() << "python3 not installed";
  TempDir dir;
  std::string cmd = "python3 " + kTraces + "/gen_trace.py --small --out " + dir.path() + " >/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream a(dir.path() + "/kernel-1.traceg"), b(kTraces + "/generated_small/kernel-1.traceg");
  std::stringstream sa, sb;
  sa << a.rdbuf();
  sb << b.rdbuf();
  EXPECT_TRUE(sa.str() == sb.str()) << "tb/traces/generated_small is stale: regenerate it with gen_trace.py --small";
}

TEST(TraceKernel, XzRoundTrip) {
  if (!have_program("xz --version >/dev/null 2>&1")) GTEST_SKIP() << "xz (xz-utils) not installed";
  TempDir dir;
  std::string src = kTraces + "/generated_small/kernel-1.traceg";
  ASSERT_EQ(std::system(("xz -1 -c '" + src + "' > '" + dir.path() + "/kernel-1.traceg.xz'").c_str()), 0);
  dir.write("kernelslist.g", "MemcpyHtoD,0x0,16\nkernel-1.traceg.xz\n");
  auto xz = load_trace_kernels(dir.path() + "/kernelslist.g", {}, {});
  auto plain = load_trace_kernels(kTraces + "/generated_small/kernelslist.g", {}, {});
  ASSERT_EQ(xz.size(), 1u);
  EXPECT_EQ(trace_stats(*xz[0])->instruction_lines, trace_stats(*plain[0])->instruction_lines);
  for (uint32_t c = 0; c < plain[0]->resources().grid_ctas; ++c) {
    for (uint32_t w = 0; w < plain[0]->resources().warps_per_cta(); ++w) {
      auto a = drain(*xz[0]->warp_program(c, w));
      auto b = drain(*plain[0]->warp_program(c, w));
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i].pc, b[i].pc);
        ASSERT_EQ(a[i].op, b[i].op);
        ASSERT_EQ(a[i].active_mask, b[i].active_mask);
        if (is_memory(a[i].op)) {
          for (unsigned lane = 0; lane < kWarpLanes; ++lane) ASSERT_EQ(a[i].lane_address(lane), b[i].lane_address(lane));
        }
      }
    }
  }
}

TEST(TraceKernel, XzErrors) {
  if (!have_program("xz --version >/dev/null 2>&1")) GTEST_SKIP() << "xz (xz-utils) not installed";
  TempDir dir;
  std::string p = dir.write("kernel-1.traceg.xz", "this is not xz data\n");
  try {
    TraceKernel k(p, {}, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel-1.traceg.xz: xz -dc failed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("xz says:"), std::string::npos) << e.what();
  }
  // Errors inside a decompressed trace name the .xz file and the line.
  std::string text = kSmallHeader + replace(tiny_body(), "insts = 3", "insts = 4");
  dir.write("bad.traceg", text);
  ASSERT_EQ(std::system(("xz -z '" + dir.path() + "/bad.traceg'").c_str()), 0);
  try {
    TraceKernel k(dir.path() + "/bad.traceg.xz", {}, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.traceg.xz:" + std::to_string(kBody + 7) + ": key 'insts'"),
              std::string::npos)
        << e.what();
  }
}

TEST(TraceKernel, XzMissingProgramIsAClearError) {
  TempDir dir;
  std::string p = dir.write("kernel-1.traceg.xz", "x");
  const char* old = std::getenv("PATH");
  std::string saved = old ? old : "";
  setenv("PATH", dir.path().c_str(), 1);
  std::string msg;
  try {
    TraceKernel k(p, {}, {});
  } catch (const InputError& e) {
    msg = e.what();
  }
  setenv("PATH", saved.c_str(), 1);
  EXPECT_NE(msg.find("needs the 'xz' program"), std::string::npos) << msg;
  EXPECT_NE(msg.find("xz-utils"), std::string::npos) << msg;
}

}  // namespace
}  // namespace smshare
