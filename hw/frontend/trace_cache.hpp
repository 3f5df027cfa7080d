// The decoded form of one Accel-Sim kernel trace file, cached beside it
// (docs/traces.md, "Decoded-trace cache"), so that only the first run pays
// for parsing the text.
//
// A cache file is a header and a payload:
//  - header: magic, format version, the trace file's size, modification time
//    and SHA-256 (its stamp), the SHA-256 of everything else that decides how
//    a line decodes (the decoder key), the sizes of the sections and a
//    checksum of the payload;
//  - payload: the trace's header text (re-read by the header parser), its
//    TraceStats, the CTA and warp index, and the instruction stream: per
//    instruction line one fixed 32-byte record (its WarpInstruction's bytes
//    up to the lane addresses), followed by its lane addresses when the line
//    has any.
// The file is written to a temporary name and renamed into place
// (hw/common/atomic_file.hpp), so a reader sees a whole cache or none. A
// cache whose stamp, decoder key, version, sizes or checksum do not match is
// rebuilt, never used.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hw/common/instruction.hpp"

namespace smshare {

class PhaseLookup;

// Counts over the whole kernel file, gathered when it is decoded.
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

// Bump whenever what a line decodes to, or the layout below, changes: a
// cache of another version is rebuilt. (The opcode tables and the decoding
// options are part of the decoder key and need no bump.)
constexpr uint32_t kTraceCacheVersion = 3;

// Appends one decoded instruction line to an instruction stream.
// `has_addresses`: the line carried lane addresses (LineExtras::addresses);
// without them the reader leaves WarpInstruction::addr as it was, as the
// text parser does.
void append_trace_record(std::string& stream, const WarpInstruction& inst, bool has_addresses);

// The instruction stream and index of a trace, from a cache file (mapped) or
// built in memory.
class DecodedTrace {
 public:
  static constexpr uint32_t kAbsentCta = UINT32_MAX;
  struct Warp {
    uint64_t offset = 0;  // byte offset of its first record in the stream
    uint32_t count = 0;   // instruction lines
  };

  // What the builder hands over to be written (encode) or what a cache holds.
  struct Contents {
    std::string header_text;  // the trace's bytes before its body
    TraceStats stats;
    std::vector<uint32_t> cta_first_warp;  // per grid CTA: index into warps, or kAbsentCta
    std::vector<Warp> warps;
    std::string stream;  // the records (only while building; a loaded image points into its storage)
  };

  const std::string& header_text() const { return contents_.header_text; }
  const TraceStats& stats() const { return contents_.stats; }
  const std::vector<uint32_t>& cta_first_warp() const { return contents_.cta_first_warp; }
  const std::vector<Warp>& warps() const { return contents_.warps; }
  const char* stream_begin() const { return stream_; }
  const char* stream_end() const { return stream_end_; }
  // The cache file it came from ("" when decoded in memory only).
  const std::string& cache_path() const { return cache_path_; }

  // Decodes the record at `cursor` (within the stream) into `out`, its
  // phase by `phase_of`, and moves `cursor` past the record and its
  // addresses. Throws InputError naming the cache if the record runs past
  // the stream's end or has no valid address form (a cache damaged beyond
  // its checksum). The other fields are copied as the cache holds them,
  // unchecked: a check of the op and register counts here moved read() out
  // of the warp program's next() (+31 M host instructions on the bench
  // trace), and only a file crafted to pass the checksum could hold
  // others than the parser wrote.
  void read(const char*& cursor, WarpInstruction& out, const PhaseLookup& phase_of) const;

 private:
  friend class TraceCacheFile;
  DecodedTrace() = default;
  Contents contents_;
  std::shared_ptr<const void> storage_;  // keeps the mapping or the bytes alive
  const char* stream_ = nullptr;
  const char* stream_end_ = nullptr;
  std::string cache_path_;
};

// The trace file's identity as the cache keys it.
struct TraceFileStamp {
  uint64_t size = 0;
  int64_t mtime_ns = 0;

  bool operator==(const TraceFileStamp& o) const { return size == o.size && mtime_ns == o.mtime_ns; }
};

// Reading and writing the cache file of one trace file.
class TraceCacheFile {
 public:
  // `decoder_key`: trace_decoder_key() of the options the trace is read with.
  TraceCacheFile(std::string trace_path, std::string decoder_key);

  // Where the cache lives: "<trace>.smcache" beside the trace, or, when the
  // environment variable SMSHARE_TRACE_CACHE_DIR names a folder, in that
  // folder under the trace's name and a hash of its absolute path.
  const std::string& path() const { return cache_path_; }

  // The cache if it exists and is valid for the trace as it is now: stamp
  // (size and modification time) equal, or, when only the time differs or
  // was recorded too close to the trace's last write to be trusted, the
  // trace's SHA-256 equal (the stamp is then refreshed). Null otherwise,
  // with the reason in `why` (absent, stale, other version, corrupt).
  std::shared_ptr<const DecodedTrace> load(std::string* why) const;

  // Writes `contents` (built from the trace whose stamp at the start of the
  // build was `stamp`) atomically, with the SHA-256 of the trace's bytes,
  // and returns it as a DecodedTrace. If the cache cannot be written, says
  // so once per process on stderr and returns the contents decoded in
  // memory. Writes nothing if the trace changed during the build.
  std::shared_ptr<const DecodedTrace> store(DecodedTrace::Contents contents, const TraceFileStamp& stamp) const;

  // The stamp of the trace file now; throws InputError if it cannot be read.
  TraceFileStamp trace_stamp() const;

 private:
  std::string trace_path_;
  std::string decoder_key_;
  std::string cache_path_;
};

// The SHA-256 of a trace file's bytes (a sweep names its runs by it,
// hw/top/simulation.hpp run_identity). Taken from the trace's decoded-trace
// cache when the cache is whole and its stamp vouches for the trace as it is
// now, the rule by which load() skips hashing; the cache's decoder key does
// not matter. Otherwise hashed from the file (about 0.6 s for the 87.5 MB
// bench trace) and the hash remembered for the rest of the process while
// the file keeps its size and modification time, so a sweep's plan hashes a
// trace once however many runs name it. A time too close to the file's last
// write to vouch for its content (the cache's rule) is not remembered.
// Throws InputError naming the file if it cannot be read.
std::string trace_file_sha256(const std::string& trace_path);

// SHA-256 over what decides how a line decodes besides the trace's bytes:
// the cache version, the register and PC limits, every opcode table and
// whether unknown opcodes run as IntAlu.
std::string trace_decoder_key(bool unknown_opcode_as_alu);

}  // namespace smshare
