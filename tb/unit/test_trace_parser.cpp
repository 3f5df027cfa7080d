// Header and instruction-line parsing of Accel-Sim traces.
#include <gtest/gtest.h>

#include <string>

#include "hw/common/error.hpp"
#include "hw/frontend/trace_parser.hpp"

namespace smshare {
namespace {

TraceHeader volta_header(bool lineinfo = false) {
  TraceHeader h;
  h.binary_version = 70;
  h.tracer_version = 5;
  h.line_numbers = lineinfo;
  return h;
}

struct Parsed {
  WarpInstruction inst;
  LineExtras extras;
};

Parsed parse(const std::string& line, bool unknown_as_alu = false, bool lineinfo = false) {
  TraceLineParser p("k.traceg", volta_header(lineinfo), opcode_table_for(70), unknown_as_alu);
  Parsed r;
  p.parse(line.data(), line.data() + line.size(), 42, r.inst, r.extras);
  return r;
}

// The error message of parsing `line`, or "" if it parsed.
std::string parse_error(const std::string& line, bool lineinfo = false) {
  try {
    parse(line, false, lineinfo);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& line, const std::string& key, const std::string& words) {
  std::string msg = parse_error(line);
  ASSERT_FALSE(msg.empty()) << "accepted: " << line;
  EXPECT_EQ(msg.rfind("k.traceg:42: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("key '" + key + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find(words), std::string::npos) << msg;
}

// ------------------------------------------------------------------ header

TraceHeader header_of(const std::string& text) {
  TraceHeaderParser hp("k.traceg");
  uint64_t no = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl - start);
    ++no;
    if (!line.empty()) hp.add_line(line, no);
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  return hp.finish(no + 1);
}

const char* kHeader =
    "-kernel name = _Z6vecAddPfS_S_i\n"
    "-kernel id = 3\n"
    "-grid dim = (80,2,1)\n"
    "-block dim = (256,1,1)\n"
    "-shmem = 3072\n"
    "-nregs = 36\n"
    "-binary version = 75\n"
    "-cuda stream id = 94107374513760\n"
    "-shmem base_addr = 0x00007f2b3e000000\n"
    "-local mem base_addr = 0x00007f2b3c000000\n"
    "-nvbit version = 1.5.5\n"
    "-accelsim tracer version = 5\n"
    "-enable lineinfo = 1\n";

TEST(TraceParser, HeaderFields) {
  TraceHeader h = header_of(kHeader);
  EXPECT_EQ(h.kernel_name, "_Z6vecAddPfS_S_i");
  EXPECT_EQ(h.kernel_id, 3u);
  EXPECT_EQ(h.grid_dim[0], 80u);
  EXPECT_EQ(h.grid_dim[1], 2u);
  EXPECT_EQ(h.grid_dim[2], 1u);
  EXPECT_EQ(h.grid_ctas(), 160u);
  EXPECT_EQ(h.threads_per_cta(), 256u);
  EXPECT_EQ(h.warps_per_cta(), 8u);
  EXPECT_EQ(h.shmem_bytes, 3072u);
  EXPECT_EQ(h.nregs, 36u);
  EXPECT_EQ(h.binary_version, 75u);
  EXPECT_EQ(h.tracer_version, 5u);
  EXPECT_TRUE(h.line_numbers);
  EXPECT_EQ(h.cuda_stream_id, 94107374513760u);
  EXPECT_EQ(h.shmem_base_addr, 0x00007f2b3e000000u);
  EXPECT_EQ(h.local_base_addr, 0x00007f2b3c000000u);
  EXPECT_EQ(h.nvbit_version, "1.5.5");
}

TEST(TraceParser, HeaderToleratesSpacingAndUnknownKeys) {
  TraceHeader h = header_of(
      "-grid dim = ( 2, 3 ,4 )\n-block dim=(33,1,1)\n-shmem = 0\n-nregs = 8\n-binary version = 70\n"
      "-accelsim tracer version = 3\n-some future key = whatever\n");
  EXPECT_EQ(h.grid_ctas(), 24u);
  EXPECT_EQ(h.warps_per_cta(), 2u);  // 33 threads: a partial second warp
  EXPECT_FALSE(h.line_numbers);
  EXPECT_EQ(h.kernel_name, "k.traceg");  // no -kernel name: the file name
}

std::string header_error(const std::string& text) {
  try {
    header_of(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceParser, HeaderErrors) {
  const std::string ok_rest = "-shmem = 0\n-nregs = 8\n-binary version = 70\n-accelsim tracer version = 5\n";
  std::string m = header_error("-grid dim = (2,x,1)\n-block dim = (32,1,1)\n" + ok_rest);
  EXPECT_NE(m.find("k.traceg:1: key 'grid dim'"), std::string::npos) << m;
  m = header_error("-grid dim = (2,1)\n-block dim = (32,1,1)\n" + ok_rest);
  EXPECT_NE(m.find("(x,y,z)"), std::string::npos) << m;
  m = header_error("-grid dim = (0,1,1)\n-block dim = (32,1,1)\n" + ok_rest);
  EXPECT_NE(m.find("at least 1"), std::string::npos) << m;
  m = header_error("-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = -4\n-nregs = 8\n");
  EXPECT_NE(m.find("k.traceg:3: key 'shmem'"), std::string::npos) << m;
  m = header_error("-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 300\n");
  EXPECT_NE(m.find("key 'nregs'"), std::string::npos) << m;
  m = header_error("-grid dim = (1,1,1)\n-shmem = 0\n-nregs = 8\n-binary version = 70\n-accelsim tracer version = 5\n");
  EXPECT_NE(m.find("key 'block dim'"), std::string::npos) << m;
  EXPECT_NE(m.find("no '-block dim"), std::string::npos) << m;
  m = header_error("-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 8\n-binary version = 70\n"
                   "-accelsim tracer version = 2\n");
  EXPECT_NE(m.find("tracer version 2 is not supported"), std::string::npos) << m;
  m = header_error("-grid dim (1,1,1)\n");
  EXPECT_NE(m.find("k.traceg:1: malformed header line"), std::string::npos) << m;
}

// ------------------------------------------------------------------ lines

TEST(TraceParser, AluLine) {
  Parsed r = parse("01a0 ffffffff 1 R7 FFMA 3 R1 R2 R3 0 0 ");
  EXPECT_EQ(r.inst.op, OpClass::FpAlu);
  EXPECT_EQ(r.inst.pc, 0x1a0u);
  EXPECT_EQ(r.inst.active_mask, 0xffffffffu);
  EXPECT_EQ(r.inst.num_dst, 1);
  EXPECT_EQ(r.inst.dst[0], 7);
  EXPECT_EQ(r.inst.dst[1], kNoReg);
  EXPECT_EQ(r.inst.num_src, 3);
  EXPECT_EQ(r.inst.src[0], 1);
  EXPECT_EQ(r.inst.src[1], 2);
  EXPECT_EQ(r.inst.src[2], 3);
  EXPECT_EQ(r.inst.src[3], kNoReg);
  EXPECT_EQ(r.inst.access_bytes, 0);
  EXPECT_EQ(r.extras.mnemonic, "FFMA");
  EXPECT_FALSE(r.extras.unknown_opcode);
}

TEST(TraceParser, ZeroRegisterCreatesNoOperand) {
  Parsed r = parse("0010 0000ffff 1 R255 IADD3 3 R255 R4 R255 0");  // no immediate (tracer < 5)
  EXPECT_EQ(r.inst.op, OpClass::IntAlu);
  EXPECT_EQ(r.inst.active_mask, 0xffffu);
  EXPECT_EQ(r.inst.num_dst, 0);
  EXPECT_EQ(r.inst.dst[0], kNoReg);
  EXPECT_EQ(r.inst.num_src, 1);
  EXPECT_EQ(r.inst.src[0], 4);
  EXPECT_EQ(r.inst.src[1], kNoReg);
}

TEST(TraceParser, ExtraOperandsAreDroppedAndCounted) {
  Parsed r = parse("0010 ffffffff 3 R1 R2 R3 HMMA 5 R4 R5 R6 R7 R8 0 0");
  EXPECT_EQ(r.inst.num_dst, 2);
  EXPECT_EQ(r.inst.num_src, 4);
  EXPECT_EQ(r.extras.dropped_regs, 2);
}

TEST(TraceParser, LineNumberPrefix) {
  Parsed r = parse("117 0040 ffffffff 0 EXIT 0 0 0", false, true);
  EXPECT_EQ(r.inst.op, OpClass::Exit);
  EXPECT_EQ(r.inst.pc, 0x40u);
}

TEST(TraceParser, AddressFormat0OneAddressPerActiveLane) {
  // Lanes 1, 4 and 31 active.
  Parsed r = parse("0100 80000012 1 R4 LDG.E.64.SYS 1 R2 8 0 0x00007f0000001000 0x7f0000002008 7f0000000040 0 ");
  EXPECT_EQ(r.inst.op, OpClass::GlobalLoad);
  EXPECT_EQ(r.inst.access_bytes, 8);
  EXPECT_EQ(r.inst.active_lanes(), 3u);
  EXPECT_EQ(r.inst.lane_address(1), 0x7f0000001000u);
  EXPECT_EQ(r.inst.lane_address(4), 0x7f0000002008u);
  EXPECT_EQ(r.inst.lane_address(31), 0x7f0000000040u);
}

TEST(TraceParser, AddressFormat1BaseAndStride) {
  // Lanes 8..15 active: lane 8 + k has base + 4k.
  Parsed r = parse("0100 0000ff00 0 STG.E.SYS 2 R2 R4 4 1 0x7f0000020000 4 0 ");
  EXPECT_EQ(r.inst.op, OpClass::GlobalStore);
  EXPECT_EQ(r.inst.access_bytes, 4);
  for (unsigned k = 0; k < 8; ++k) EXPECT_EQ(r.inst.lane_address(8 + k), 0x7f0000020000u + 4 * k) << k;
  // Negative stride.
  r = parse("0100 00000007 1 R1 LDS 1 R2 4 1 0x100 -16 0");
  EXPECT_EQ(r.inst.op, OpClass::SharedLoad);
  EXPECT_EQ(r.inst.lane_address(0), 0x100u);
  EXPECT_EQ(r.inst.lane_address(1), 0xf0u);
  EXPECT_EQ(r.inst.lane_address(2), 0xe0u);
}

TEST(TraceParser, AddressFormat2BaseAndDeltas) {
  // Lanes 0, 2, 3, 9: 0x1000, +4 → 0x1004, -0x200 → 0xe04, +0x1000 → 0x1e04.
  Parsed r = parse("0100 0000020d 0 STS 2 R2 R4 4 2 0x1000 4 -512 4096 0 ");
  EXPECT_EQ(r.inst.op, OpClass::SharedStore);
  EXPECT_EQ(r.inst.lane_address(0), 0x1000u);
  EXPECT_EQ(r.inst.lane_address(2), 0x1004u);
  EXPECT_EQ(r.inst.lane_address(3), 0xe04u);
  EXPECT_EQ(r.inst.lane_address(9), 0x1e04u);
  // One active lane: base only.
  r = parse("0100 00010000 1 R3 LDL 1 R1 16 2 0xfffc 0");
  EXPECT_EQ(r.inst.op, OpClass::LocalLoad);
  EXPECT_EQ(r.inst.access_bytes, 16);
  EXPECT_EQ(r.inst.lane_address(16), 0xfffcu);
}

TEST(TraceParser, UnknownOpcodeErrorOrFallback) {
  expect_error("0100 ffffffff 1 R1 FOOBAR.X 1 R2 0 0", "opcode", "unknown opcode 'FOOBAR.X'");
  expect_error("0100 ffffffff 1 R1 FOOBAR.X 1 R2 0 0", "opcode", "frontend.unknown_opcode=alu");
  Parsed r = parse("0100 ffffffff 1 R1 FOOBAR.X 1 R2 0 0", true);
  EXPECT_EQ(r.inst.op, OpClass::IntAlu);
  EXPECT_TRUE(r.extras.unknown_opcode);
  EXPECT_EQ(r.extras.mnemonic, "FOOBAR");
  EXPECT_EQ(r.inst.num_dst, 1);
  EXPECT_EQ(r.inst.num_src, 1);
}

TEST(TraceParser, MalformedLines) {
  expect_error("01g0 ffffffff 0 EXIT 0 0 0", "PC", "'01g0' is not a hexadecimal number");
  expect_error("0100 fffffffff 0 EXIT 0 0 0", "active mask", "does not fit in 32 bits");
  expect_error("0100 ffffzfff 0 EXIT 0 0 0", "active mask", "not a hexadecimal number");
  expect_error("0100 ffffffff x EXIT 0 0 0", "destination count", "not a decimal number");
  expect_error("0100 ffffffff 1 P0 ISETP 0 0 0", "destination register", "'P0' is not a register");
  expect_error("0100 ffffffff 1 R256 MOV 0 0 0", "destination register", "R0..R255");
  expect_error("0100 ffffffff 0 MOV 1 UR4 0 0", "source register", "'UR4' is not a register");
  expect_error("0100 ffffffff 1 R1 LDG.E 1 R2 4 3 0x1000 4 0", "address format",
               "unsupported address format 3");
  expect_error("0100 ffffffff 1 R1 LDG.E 1 R2 4 1 0x1000", "stride", "line ends early");
  expect_error("0100 00000003 1 R1 LDG.E 1 R2 4 0 0x1000", "address", "line ends early");
  expect_error("0100 00000007 1 R1 LDG.E 1 R2 4 2 0x1000 4", "address delta", "line ends early");
  expect_error("0100 00000003 1 R1 LDG.E 1 R2 4 0 0x1000 0xq", "address", "not a hexadecimal number");
  expect_error("0100 00000003 1 R1 LDG.E 1 R2 4 2 0x1000 4x", "address delta", "not a decimal number");
  expect_error("0100 ffffffff 1 R1 FFMA 3 R2 R3", "source register", "line ends early");
  expect_error("0100 ffffffff 1 R1", "opcode", "line ends early");
  expect_error("0100", "active mask", "line ends early");
  expect_error("0100 ffffffff 1 R1 LDG.E 1 R2 0 0", "memory width", "memory opcode 'LDG.E' has memory width 0");
  expect_error("0100 ffffffff 1 R1 LDG.E 1 R2 256 1 0x0 4 0", "memory width", "out of range");
  expect_error("0100 ffffffff 0 EXIT 0 0 0 0", "end of line", "unexpected text '0'");
  expect_error("0100 ffffffff 0 EXIT 0 0 zz", "immediate", "'zz' is not a number");
  // A PC is an offset in the kernel's code, inside the 4 GiB instruction region.
  expect_error("100000000 ffffffff 0 EXIT 0 0 0", "PC", "beyond the 0x100000000-byte instruction region");
}

TEST(TraceParser, LineNumberIsRequiredWhenEnabled) {
  std::string m = parse_error("0100 ffffffff 0 EXIT 0 0 0", true);
  // "0100" is read as the source line, then "ffffffff" as the PC and "0" as the mask...
  EXPECT_NE(m.find("k.traceg:42"), std::string::npos) << m;
}

TEST(TraceParser, BlockKeywords) {
  auto kw = [](const std::string& s) { return is_trace_block_keyword(s.data(), s.data() + s.size()); };
  EXPECT_TRUE(kw("#BEGIN_TB"));
  EXPECT_TRUE(kw("warp = 3"));
  EXPECT_TRUE(kw("insts = 3"));
  EXPECT_TRUE(kw("thread block = 0,0,0"));
  EXPECT_TRUE(kw("cluster rank = 0"));
  EXPECT_FALSE(kw("cafe ffffffff 0 EXIT 0 0 0"));
  EXPECT_FALSE(kw("0100 ffffffff 0 EXIT 0 0 0"));
  EXPECT_FALSE(kw("   "));
}

}  // namespace
}  // namespace smshare
