// Accel-Sim SASS traces as a workload: a kernelslist.g and its kernel-N.traceg
// files (optionally .xz) become KernelSources whose warps stream their
// instructions straight from the file.
//
// The first time a kernel file is read, it is memory-mapped (an .xz file is
// first decompressed once into an unlinked temporary file), validated line
// by line and decoded into a compact binary stream with a per-warp index,
// which is written beside it (trace_cache.hpp; docs/traces.md). Later runs
// map that cache and never parse the text. A warp program reads its records
// from the mapping, so memory is bounded by the index (16 bytes per warp)
// and the pages the OS keeps cached (or, when the cache cannot be written,
// by the decoded stream, held in memory).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/frontend/kernel.hpp"
#include "hw/frontend/trace_cache.hpp"
#include "hw/frontend/trace_parser.hpp"
#include "hw/frontend/trace_phases.hpp"

namespace smshare {

struct TraceOptions {
  // --set frontend.unknown_opcode=alu: run opcodes missing from the table as
  // IntAlu and count them, instead of rejecting the trace.
  bool unknown_opcode_as_alu = false;
};

// One kernel-N.traceg[.xz].
class TraceKernel : public KernelSource {
 public:
  // Maps the file's decoded-trace cache, or reads the header, validates and
  // decodes the body and writes the cache. Throws InputError naming
  // "file:line" for anything malformed.
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
  const TraceStats& stats() const { return decoded_->stats(); }
  const std::string& path() const { return path_; }
  const OpcodeTable& opcode_table() const { return *table_; }
  // The cache file the instructions stream from ("" when they were decoded
  // in memory because it could not be written).
  const std::string& cache_path() const { return decoded_->cache_path(); }

 private:
  uint64_t count_streamed_instructions() const;
  // Zorua's phases from the first traced warp's stream (trace_phases.hpp):
  // resources_.phase_names and phases_, left empty for one phase, and
  // resources_.phase_needs (one per phase, one for a kernel of one phase).
  void derive_phases();

  std::string path_;
  TraceHeader header_;
  KernelResources resources_;
  const OpcodeTable* table_ = nullptr;
  // Its index: per file CTA (linear id, x fastest) its first warp, and
  // warps_per_cta warps per present CTA.
  std::shared_ptr<const DecodedTrace> decoded_;
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
