// Accel-Sim SASS traces as a workload: a kernelslist.g and its kernel-N.traceg
// files (optionally .xz) become KernelSources whose warps stream their
// instructions straight from the file.
//
// Each kernel file is memory-mapped (an .xz file is first decompressed once
// into an unlinked temporary file) and indexed in one pass that also
// validates every line: the byte offset of each #BEGIN_TB, and per warp the
// offset, line number and count of its instruction lines. A warp program
// then decodes its lines on demand from the mapping, so memory is bounded by
// the index (16 bytes per warp) and the pages the OS keeps cached.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hw/frontend/kernel.hpp"
#include "hw/frontend/trace_parser.hpp"
#include "hw/frontend/trace_phases.hpp"

namespace smshare {

struct TraceOptions {
  // --set frontend.unknown_opcode=alu: run opcodes missing from the table as
  // IntAlu and count them, instead of rejecting the trace.
  bool unknown_opcode_as_alu = false;
};

// Counts over the whole kernel file, gathered when it is indexed.
struct TraceStats {
  uint64_t instruction_lines = 0;                  // instruction lines in the file
  std::array<uint64_t, kNumOpClasses> per_class{};  // instruction lines per OpClass (EXIT lines as Exit)
  std::map<std::string, uint64_t> unknown_opcodes;  // mnemonic → lines (fallback only)
  uint64_t dropped_registers = 0;  // operands beyond kMaxDstRegs/kMaxSrcRegs, ignored
  uint64_t early_exits = 0;        // EXIT lines before a warp's last line: streamed as Control
  uint32_t ctas_in_file = 0;       // #BEGIN_TB blocks (the tracer omits empty CTAs)
  uint32_t warps_in_file = 0;      // warp = ... sections

  uint64_t unknown_opcode_lines() const {
    uint64_t n = 0;
    for (const auto& kv : unknown_opcodes) n += kv.second;
    return n;
  }
};

class MappedTraceFile;  // the mapped kernel file (trace_kernel.cpp)

// One kernel-N.traceg[.xz].
class TraceKernel : public KernelSource {
 public:
  // Opens the file, reads the header, indexes and validates the body.
  // Throws InputError naming "file:line" for anything malformed.
  TraceKernel(const std::string& path, const ResourceOverrides& overrides, const TraceOptions& options);
  ~TraceKernel() override;

  const std::string& name() const override { return header_.kernel_name; }
  const KernelResources& resources() const override { return resources_; }
  // A warp's stream ends after its last line; an EXIT on that line is
  // OpClass::Exit, an EXIT on an earlier line (threads returning early, the
  // rest of the warp going on) is streamed as OpClass::Control.
  // CTA and warp beyond what the file holds (larger --ctas / --threads-per-cta
  // what-if overrides) replay the file's CTAs and warps cyclically. A CTA or
  // warp absent from the file streams nothing.
  std::unique_ptr<WarpProgram> warp_program(uint32_t cta_id, uint32_t warp_in_cta) override;
  // The instruction lines the grid streams: the file's, replayed as
  // warp_program() replays them under what-if overrides.
  std::optional<uint64_t> total_warp_instructions() const override { return total_warp_instructions_; }

  const TraceHeader& header() const { return header_; }
  const TraceStats& stats() const { return stats_; }
  const std::string& path() const { return path_; }
  const OpcodeTable& opcode_table() const { return *table_; }

 private:
  struct WarpIndex {
    uint64_t offset = 0;  // first byte of the warp's first instruction line
    uint32_t count = 0;   // instruction lines
    uint32_t line = 0;    // line number of the first instruction line
  };
  struct CtaIndex {
    uint64_t begin_offset = 0;     // the #BEGIN_TB line
    uint32_t first_warp = 0;       // into warps_
    bool present = false;
  };
  void build_index(const char* body, uint64_t body_line);
  uint64_t count_streamed_instructions() const;
  // Zorua's phases from the first traced warp's stream (trace_phases.hpp):
  // resources_.phase_names and phases_, left empty for one phase, and
  // resources_.phase_needs (one per phase, one for a kernel of one phase).
  void derive_phases();

  std::string path_;
  TraceHeader header_;
  KernelResources resources_;
  const OpcodeTable* table_ = nullptr;
  std::shared_ptr<const MappedTraceFile> file_;
  std::shared_ptr<const TraceLineParser> parser_;
  std::vector<CtaIndex> ctas_;    // by linear CTA id (x fastest)
  std::vector<WarpIndex> warps_;  // warps_per_cta per present CTA
  TraceStats stats_;
  uint64_t total_warp_instructions_ = 0;
  std::shared_ptr<const TracePhases> phases_;  // null: one phase
};

// A memcpy line of the kernel list (the model does not time them).
struct TraceMemcpy {
  std::string kind;  // "MemcpyHtoD", ...
  uint64_t address = 0;
  uint64_t bytes = 0;
};

// The parsed kernelslist.g: kernel trace paths (resolved against the list's
// directory) in launch order, and the memcpy lines. A directory given as
// the path stands for its kernelslist.g.
struct TraceKernelList {
  std::vector<std::string> kernel_paths;
  std::vector<TraceMemcpy> memcpys;
};
TraceKernelList read_trace_kernel_list(const std::string& kernelslist_path);

// Reads the list and opens (indexes) every kernel in it, in launch order.
std::vector<std::unique_ptr<KernelSource>> load_trace_kernels(const std::string& kernelslist_path,
                                                              const ResourceOverrides& overrides,
                                                              const TraceOptions& options);

// The trace counters of a kernel loaded by load_trace_kernels, or nullptr if
// `kernel` is not a trace.
inline const TraceStats* trace_stats(const KernelSource& kernel) {
  const auto* t = dynamic_cast<const TraceKernel*>(&kernel);
  return t ? &t->stats() : nullptr;
}

}  // namespace smshare
