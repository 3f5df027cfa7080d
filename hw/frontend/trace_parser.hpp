// Parsing of Accel-Sim SASS trace text (kernel-N.traceg, tracer version 3 and
// later): the `-key = value` header and one instruction line. Hand-written
// scanning over a byte range (no iostreams, no regex): a trace has millions
// of lines. Every problem is an InputError "<file>:<line>: key '<field>': ...".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hw/common/instruction.hpp"
#include "hw/frontend/trace_opcodes.hpp"

namespace smshare {

// The `-key = value` lines at the top of a kernel trace.
struct TraceHeader {
  std::string kernel_name;          // -kernel name
  uint32_t kernel_id = 0;           // -kernel id
  uint32_t grid_dim[3] = {0, 0, 0};   // -grid dim = (x,y,z)
  uint32_t block_dim[3] = {0, 0, 0};  // -block dim = (x,y,z)
  uint32_t shmem_bytes = 0;         // -shmem (static + dynamic, per CTA)
  uint32_t nregs = 0;               // -nregs (per thread)
  uint32_t binary_version = 0;      // -binary version (compute capability x10)
  uint32_t tracer_version = 0;      // -accelsim tracer version
  bool line_numbers = false;        // -enable lineinfo
  uint64_t cuda_stream_id = 0;      // -cuda stream id
  uint64_t shmem_base_addr = 0;     // -shmem base_addr
  uint64_t local_base_addr = 0;     // -local mem base_addr
  std::string nvbit_version;        // -nvbit version

  uint64_t grid_ctas() const { return uint64_t(grid_dim[0]) * grid_dim[1] * grid_dim[2]; }
  uint64_t threads_per_cta() const { return uint64_t(block_dim[0]) * block_dim[1] * block_dim[2]; }
  uint32_t warps_per_cta() const { return static_cast<uint32_t>((threads_per_cta() + kWarpLanes - 1) / kWarpLanes); }
};

// Accumulates header lines; `finish` checks that the required keys were given.
class TraceHeaderParser {
 public:
  explicit TraceHeaderParser(std::string file) : file_(std::move(file)) {}
  // One line starting with '-' (without its newline).
  void add_line(std::string_view line, uint64_t line_no);
  // Validates and returns the header; `line_no` is where the header ended.
  TraceHeader finish(uint64_t line_no) const;

 private:
  std::string file_;
  TraceHeader h_;
  unsigned seen_ = 0;  // bit per required key
};

// What one instruction line decoded to, beyond the WarpInstruction.
struct LineExtras {
  bool unknown_opcode = false;  // the mnemonic was not in the table (fallback used)
  std::string_view mnemonic;    // points into the parsed line
  uint8_t dropped_regs = 0;     // registers beyond kMaxDstRegs / kMaxSrcRegs
  bool addresses = false;       // the line gave lane addresses (memory width > 0); without,
                                // WarpInstruction::addr is left as it was
};

// Parses instruction lines of one kernel trace. Immutable after construction,
// shared by every warp stream of the kernel.
class TraceLineParser {
 public:
  TraceLineParser(std::string file, const TraceHeader& header, const OpcodeTable& table, bool unknown_opcode_as_alu);

  // Decodes the line [begin, end) (no newline) into `out`. Throws InputError
  // naming file and `line_no` on any malformed field, an unsupported address
  // format, or an unknown opcode (unless unknown_opcode_as_alu).
  void parse(const char* begin, const char* end, uint64_t line_no, WarpInstruction& out, LineExtras& extras) const;

  const std::string& file() const { return file_; }

 private:
  std::string file_;
  const OpcodeTable* table_;
  bool line_numbers_;
  bool unknown_as_alu_;
};

// True if the first word of the line is one of the block keywords of the
// trace body (#BEGIN_TB, #END_TB, thread block, warp, insts, cluster ...).
bool is_trace_block_keyword(const char* begin, const char* end);

}  // namespace smshare
