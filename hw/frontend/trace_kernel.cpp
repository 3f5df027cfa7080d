#include "hw/frontend/trace_kernel.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "hw/common/error.hpp"
#include "hw/common/file_mapping.hpp"
#include "hw/common/text.hpp"

namespace smshare {

// ---------------------------------------------------------------- the file

// The text of a trace file mapped, or of the decompressed content of an .xz
// trace (kept in an already-unlinked temporary file).
class TraceText {
 public:
  static std::shared_ptr<const FileMapping> open(const std::string& path) {
    const bool xz = path.size() > 3 && path.compare(path.size() - 3, 3, ".xz") == 0;
    int fd = xz ? decompress_xz(path) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw input_error(path, "", std::string("cannot open trace file: ") + std::strerror(errno));
    auto mapping = FileMapping::map(fd);
    const int e = errno;
    ::close(fd);
    if (!mapping) throw input_error(path, "", std::string("cannot map trace file: ") + std::strerror(e));
    return mapping;
  }

 private:
  static bool have_program(const char* name) {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t colon = dirs.find(':', start);
      std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (dir.empty()) dir = ".";
      if (access((dir + "/" + name).c_str(), X_OK) == 0) return true;
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    return false;
  }

  static std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  }

  // Decompresses `path` with `xz -dc` into an unlinked temporary file and
  // returns its descriptor.
  static int decompress_xz(const std::string& path) {
    if (::access(path.c_str(), R_OK) != 0)
      throw input_error(path, "", std::string("cannot open trace file: ") + std::strerror(errno));
    if (!have_program("xz"))
      throw input_error(path, "",
                        "reading an .xz trace needs the 'xz' program, which is not installed "
                        "(Debian/Ubuntu: apt-get install xz-utils), or decompress it yourself with unxz");
    const char* tmpdir = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/smshare-trace-XXXXXX";
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    int fd = mkstemp(name.data());
    if (fd < 0)
      throw input_error(path, "", "cannot create a temporary file in " + tmpl + ": " + std::strerror(errno));
    unlink(name.data());  // the mapping keeps the content alive; nothing to clean up later
    // xz's own complaint goes to a second temporary file and into our message.
    std::string err_name = tmpl;
    std::vector<char> err_buf(err_name.begin(), err_name.end());
    err_buf.push_back('\0');
    int err_fd = mkstemp(err_buf.data());
    std::string redirect;
    if (err_fd >= 0) {
      err_name = err_buf.data();
      redirect = " 2>" + shell_quote(err_name);
    }
    auto xz_message = [&]() {
      std::string msg;
      if (err_fd < 0) return msg;
      char text[512];
      ssize_t n = pread(err_fd, text, sizeof(text) - 1, 0);
      if (n > 0) msg.assign(text, static_cast<size_t>(n));
      while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
      return msg.empty() ? msg : " (xz says: " + msg + ")";
    };
    struct ErrFileCleanup {
      int fd;
      std::string name;
      ~ErrFileCleanup() {
        if (fd >= 0) {
          ::close(fd);
          unlink(name.c_str());
        }
      }
    } err_cleanup{err_fd, err_name};
    FILE* pipe = popen(("xz -dc -- " + shell_quote(path) + redirect).c_str(), "r");
    if (!pipe) {
      int e = errno;
      ::close(fd);
      throw input_error(path, "", std::string("cannot run xz: ") + std::strerror(e));
    }
    std::vector<char> buf(1 << 20);
    bool write_failed = false;
    for (;;) {
      size_t n = fread(buf.data(), 1, buf.size(), pipe);
      if (n == 0) break;
      for (size_t done = 0; done < n && !write_failed;) {
        ssize_t w = ::write(fd, buf.data() + done, n - done);
        if (w < 0) {
          if (errno == EINTR) continue;
          write_failed = true;
        } else {
          done += static_cast<size_t>(w);
        }
      }
      if (write_failed) break;
    }
    int status = pclose(pipe);
    if (write_failed) {
      int e = errno;
      ::close(fd);
      throw input_error(path, "", "cannot write the decompressed trace to " + tmpl + ": " + std::strerror(e));
    }
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ::close(fd);
      throw input_error(path, "",
                        "xz -dc failed (exit status " +
                            std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                            "): not a valid .xz file, or truncated" + xz_message());
    }
    return fd;
  }
};

namespace {

inline bool is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Iterates over the lines of [p, end), numbering them from `line_no`.
struct LineCursor {
  const char* p;
  const char* end;
  uint64_t line_no;  // number of the line `p` points at

  // Sets [b, e) to the next line (without newline); false at end of file.
  bool next(const char*& b, const char*& e, uint64_t& no) {
    if (p >= end) return false;
    b = p;
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    e = nl ? nl : end;
    p = nl ? nl + 1 : end;
    no = line_no++;
    return true;
  }
};

std::string_view trimmed(const char* b, const char* e) {
  while (b != e && is_blank_char(*b)) ++b;
  while (e != b && is_blank_char(e[-1])) --e;
  return std::string_view(b, static_cast<size_t>(e - b));
}

std::string shown(std::string_view s) {
  return s.size() > 60 ? std::string(s.substr(0, 60)) + "..." : std::string(s);
}

// "key = n" → n; "key = a,b,c" → {a,b,c}. Whitespace around '=' and ',' is free.
bool parse_numbers_after_eq(std::string_view line, uint64_t* out, int count) {
  size_t eq = line.find('=');
  if (eq == std::string_view::npos) return false;
  std::string_view v = line.substr(eq + 1);
  for (int i = 0; i < count; ++i) {
    while (!v.empty() && is_blank_char(v.front())) v.remove_prefix(1);
    if (v.empty() || v.front() < '0' || v.front() > '9') return false;
    uint64_t n = 0;
    size_t k = 0;
    while (k < v.size() && v[k] >= '0' && v[k] <= '9') {
      if (n > (UINT32_MAX - static_cast<uint64_t>(v[k] - '0')) / 10) return false;
      n = n * 10 + static_cast<uint64_t>(v[k] - '0');
      ++k;
    }
    out[i] = n;
    v.remove_prefix(k);
    while (!v.empty() && is_blank_char(v.front())) v.remove_prefix(1);
    if (i + 1 < count) {
      if (v.empty() || v.front() != ',') return false;
      v.remove_prefix(1);
    }
  }
  return v.empty();
}

std::string first_word(std::string_view line) {
  size_t k = 0;
  while (k < line.size() && !is_blank_char(line[k]) && line[k] != '=') ++k;
  return std::string(line.substr(0, k));
}

// One warp's instruction stream, read record by record from the decoded trace.
class TraceWarpProgram : public WarpProgram {
 public:
  // `phases`: the kernel's (null when it has one phase: every instruction's
  // phase is 0).
  TraceWarpProgram(std::shared_ptr<const DecodedTrace> trace, const DecodedTrace::Warp& warp,
                   std::shared_ptr<const TracePhases> phases)
      : trace_(std::move(trace)),
        phases_(std::move(phases)),
        phase_of_(phases_.get()),
        next_(trace_->stream_begin() + warp.offset),
        remaining_(warp.count) {}

  bool next(WarpInstruction& out) override {
    if (remaining_ == 0) return false;
    --remaining_;
    trace_->read(next_, out, phase_of_);
    return true;
  }

 private:
  std::shared_ptr<const DecodedTrace> trace_;
  std::shared_ptr<const TracePhases> phases_;  // keeps phase_of_'s table alive
  PhaseLookup phase_of_;
  const char* next_;
  uint32_t remaining_;
};

class EmptyWarpProgram : public WarpProgram {
 public:
  bool next(WarpInstruction&) override { return false; }
};

// The '-key = value' lines and '#' comments at the top of a kernel file, up
// to the first #BEGIN_TB (or the first line that is neither).
struct HeaderScan {
  TraceHeader header;
  const char* body;    // first byte of the body (`end` if the file has none)
  uint64_t body_line;  // its line number
};
HeaderScan scan_header(const char* begin, const char* end, const std::string& path) {
  TraceHeaderParser hp(path);
  LineCursor cur{begin, end, 1};
  const char* body = end;
  uint64_t body_line = cur.line_no;
  const char* b;
  const char* e;
  uint64_t no;
  for (;;) {
    const char* before = cur.p;
    const uint64_t before_line = cur.line_no;
    if (!cur.next(b, e, no)) {
      body_line = cur.line_no;
      break;
    }
    std::string_view line = trimmed(b, e);
    if (line.empty()) continue;
    if (line[0] == '-') {
      hp.add_line(line, no);
      continue;
    }
    if (line[0] == '#' && !starts_with(line, "#BEGIN_TB") && !starts_with(line, "#END_TB")) continue;
    body = before;
    body_line = before_line;
    break;
  }
  return {hp.finish(body_line), body, body_line};
}

// The index holds an entry per CTA of the grid; a grid far beyond what a
// trace file can hold is a malformed header, not a reason to exhaust memory.
void check_grid_size(const TraceHeader& header, const std::string& path) {
  constexpr uint64_t kMaxGridCtas = 1ull << 24;
  if (header.grid_ctas() > kMaxGridCtas)
    throw input_error(path, "grid dim",
                      std::to_string(header.grid_ctas()) + " CTAs; at most " + std::to_string(kMaxGridCtas) +
                          " (2^24) are supported");
}

void decode_body(const std::string& path, const FileMapping& file, const TraceHeader& header,
                 const TraceLineParser& parser, const char* body, uint64_t body_line, DecodedTrace::Contents& out);

// Parses and validates the whole text of a kernel file into its decoded
// form and has `cache` write it (or keep it in memory).
std::shared_ptr<const DecodedTrace> decode_text(const std::string& path, const TraceCacheFile& cache,
                                                const TraceOptions& options) {
  const auto file = TraceText::open(path);
  const TraceFileStamp stamp = cache.trace_stamp();
  const HeaderScan scan = scan_header(file->data(), file->end(), path);
  const OpcodeTable& table = opcode_table_for(scan.header.binary_version, path + ":" + std::to_string(scan.body_line));
  const TraceLineParser parser(path, scan.header, table, options.unknown_opcode_as_alu);
  check_grid_size(scan.header, path);
  DecodedTrace::Contents contents;
  contents.header_text.assign(file->data(), static_cast<size_t>(scan.body - file->data()));
  decode_body(path, *file, scan.header, parser, scan.body, scan.body_line, contents);
  return cache.store(std::move(contents), stamp);
}

// Validates the body line by line and decodes it into `out`: the records of
// each warp in file order, the index and the counts.
void decode_body(const std::string& path, const FileMapping& file, const TraceHeader& header,
                 const TraceLineParser& parser, const char* body, uint64_t body_line, DecodedTrace::Contents& out) {
  const uint32_t warps_per_cta = header.warps_per_cta();
  std::vector<uint32_t>& ctas = out.cta_first_warp;
  std::vector<DecodedTrace::Warp>& warps = out.warps;
  TraceStats& stats = out.stats;
  ctas.assign(header.grid_ctas(), DecodedTrace::kAbsentCta);
  // About one byte of records and addresses for every three of text.
  out.stream.reserve(static_cast<size_t>(file.end() - body) / 3);

  LineCursor cur{body, file.end(), body_line};
  auto where = [&](uint64_t line) { return path + ":" + std::to_string(line); };

  bool in_tb = false;
  uint64_t tb_line = 0;        // line of the open #BEGIN_TB
  int64_t cta = -1;            // linear id of the open block, once 'thread block' was read
  uint64_t tb_xyz[3] = {0, 0, 0};
  int64_t warp = -1;           // current warp section
  bool have_insts = false;     // current warp's 'insts = n' seen
  uint64_t insts_line = 0;
  uint32_t declared = 0, seen = 0;
  std::vector<uint8_t> warp_seen;

  auto block_name = [&]() {
    return "thread block " + std::to_string(tb_xyz[0]) + "," + std::to_string(tb_xyz[1]) + "," +
           std::to_string(tb_xyz[2]);
  };
  // Checks the current warp section got exactly `insts` lines.
  auto close_warp = [&](uint64_t line) {
    if (warp >= 0 && have_insts && seen != declared)
      throw input_error(where(line), "insts",
                        "warp " + std::to_string(warp) + " of " + block_name() + " declares insts = " +
                            std::to_string(declared) + " (line " + std::to_string(insts_line) + ") but has " +
                            std::to_string(seen) + " instruction lines");
    if (warp >= 0 && !have_insts)
      throw input_error(where(line), "insts",
                        "warp " + std::to_string(warp) + " of " + block_name() + " has no 'insts = n' line");
    warp = -1;
    have_insts = false;
  };

  WarpInstruction inst;
  LineExtras extras;
  const char* b;
  const char* e;
  uint64_t no;
  while (cur.next(b, e, no)) {
    // Instruction lines first: they are nearly all of the file.
    if (in_tb && have_insts && seen < declared) {
      const char* q = b;
      while (q != e && is_blank_char(*q)) ++q;
      if (q == e) continue;
      if (!is_trace_block_keyword(q, e)) {
        if (seen == 0) {
          DecodedTrace::Warp& w = warps[ctas[static_cast<size_t>(cta)] + static_cast<uint32_t>(warp)];
          w.offset = out.stream.size();
          w.count = declared;
        }
        parser.parse(b, e, no, inst, extras);
        ++seen;
        ++stats.instruction_lines;
        ++stats.per_class[static_cast<size_t>(inst.op)];
        stats.dropped_registers += extras.dropped_regs;
        if (extras.unknown_opcode) ++stats.unknown_opcodes[std::string(extras.mnemonic)];
        if (inst.op == OpClass::Exit && seen < declared) {
          // An EXIT before the warp's last line retires only its active
          // threads (a bounds-check return); the warp goes on, so it is
          // streamed as control flow.
          ++stats.early_exits;
          inst.op = OpClass::Control;
        }
        append_trace_record(out.stream, inst, extras.addresses);
        continue;
      }
      // A keyword before the declared count was reached: close_warp reports it.
      std::string_view kw = trimmed(q, e);
      if (kw[0] == '#' && !starts_with(kw, "#BEGIN_TB") && !starts_with(kw, "#END_TB"))
        throw input_error(where(no), "insts",
                          "comment line among the instruction lines of warp " + std::to_string(warp));
    }

    std::string_view line = trimmed(b, e);
    if (line.empty()) continue;

    if (starts_with(line, "#BEGIN_TB")) {
      if (in_tb)
        throw input_error(where(no), "#BEGIN_TB",
                          "#BEGIN_TB before the #END_TB of the thread block opened at line " + std::to_string(tb_line));
      in_tb = true;
      tb_line = no;
      cta = -1;
      warp = -1;
      have_insts = false;
      continue;
    }
    if (starts_with(line, "#END_TB")) {
      if (!in_tb) throw input_error(where(no), "#END_TB", "#END_TB without a matching #BEGIN_TB");
      close_warp(no);
      if (cta < 0) throw input_error(where(no), "thread block", "thread block opened at line " + std::to_string(tb_line) + " has no 'thread block = x,y,z' line");
      in_tb = false;
      continue;
    }
    if (line[0] == '#') continue;  // comment
    if (!in_tb) {
      if (line[0] == '-') throw input_error(where(no), "", "header line '" + shown(line) + "' after the trace body began");
      throw input_error(where(no), "", "'" + shown(line) + "' outside a #BEGIN_TB ... #END_TB block");
    }

    const std::string word = first_word(line);
    if (word == "thread") {
      if (cta >= 0) throw input_error(where(no), "thread block", "second 'thread block' line in one block");
      if (!starts_with(line, "thread block") || !parse_numbers_after_eq(line, tb_xyz, 3))
        throw input_error(where(no), "thread block", "'" + shown(line) + "' is not 'thread block = x,y,z'");
      for (int i = 0; i < 3; ++i)
        if (tb_xyz[i] >= header.grid_dim[i])
          throw input_error(where(no), "thread block",
                            block_name() + " is outside the grid (" + std::to_string(header.grid_dim[0]) + "," +
                                std::to_string(header.grid_dim[1]) + "," + std::to_string(header.grid_dim[2]) + ")");
      cta = static_cast<int64_t>((tb_xyz[2] * header.grid_dim[1] + tb_xyz[1]) * header.grid_dim[0] + tb_xyz[0]);
      uint32_t& first_warp = ctas[static_cast<size_t>(cta)];
      if (first_warp != DecodedTrace::kAbsentCta)
        throw input_error(where(no), "thread block", block_name() + " appears twice in the trace");
      first_warp = static_cast<uint32_t>(warps.size());
      warps.resize(warps.size() + warps_per_cta);
      warp_seen.assign(warps_per_cta, 0);
      ++stats.ctas_in_file;
      continue;
    }
    if (word == "cluster") continue;  // cluster id / cta / rank (Hopper tracers): unused
    if (word == "warp") {
      close_warp(no);
      if (cta < 0) throw input_error(where(no), "warp", "'warp' line before the 'thread block = x,y,z' line");
      uint64_t w = 0;
      if (!parse_numbers_after_eq(line, &w, 1))
        throw input_error(where(no), "warp", "'" + shown(line) + "' is not 'warp = n'");
      if (w >= warps_per_cta)
        throw input_error(where(no), "warp",
                          "warp " + std::to_string(w) + " does not exist: the block dim gives " +
                              std::to_string(warps_per_cta) + " warps per CTA");
      if (warp_seen[w]) throw input_error(where(no), "warp", "warp " + std::to_string(w) + " of " + block_name() + " appears twice");
      warp_seen[w] = 1;
      warp = static_cast<int64_t>(w);
      ++stats.warps_in_file;
      continue;
    }
    if (word == "insts") {
      if (warp < 0) throw input_error(where(no), "insts", "'insts' line before a 'warp = n' line");
      if (have_insts) throw input_error(where(no), "insts", "second 'insts' line for warp " + std::to_string(warp));
      uint64_t n = 0;
      if (!parse_numbers_after_eq(line, &n, 1))
        throw input_error(where(no), "insts", "'" + shown(line) + "' is not 'insts = n'");
      have_insts = true;
      insts_line = no;
      declared = static_cast<uint32_t>(n);
      seen = 0;
      continue;
    }
    // An instruction line where none is expected.
    if (warp < 0) throw input_error(where(no), "", "instruction line '" + shown(line) + "' before a 'warp = n' line");
    if (!have_insts) throw input_error(where(no), "insts", "instruction line before the 'insts = n' line of warp " + std::to_string(warp));
    throw input_error(where(no), "insts",
                      "warp " + std::to_string(warp) + " of " + block_name() + " declares insts = " +
                          std::to_string(declared) + " (line " + std::to_string(insts_line) +
                          ") but has more instruction lines");
  }
  if (in_tb)
    throw input_error(where(cur.line_no), "#END_TB",
                      "file ends inside the thread block opened at line " + std::to_string(tb_line) +
                          " (missing #END_TB; truncated file?)");
  if (stats.ctas_in_file == 0) throw input_error(where(cur.line_no), "#BEGIN_TB", "the trace has no thread blocks");
}

}  // namespace

// ---------------------------------------------------------------- kernel

TraceKernel::TraceKernel(const std::string& path, const ResourceOverrides& overrides, const TraceOptions& options)
    : path_(path) {
  const TraceCacheFile cache(path, trace_decoder_key(options.unknown_opcode_as_alu));
  std::string why_not_cached;  // a missing, stale or damaged cache is rebuilt
  decoded_ = cache.load(&why_not_cached);
  if (!decoded_) {
    spdlog::info("{}: parsing the trace text (its decoded-trace cache {} is {})", path, cache.path(), why_not_cached);
    decoded_ = decode_text(path, cache, options);
  }

  // The header as the text gave it (a valid cache holds its bytes).
  const std::string& text = decoded_->header_text();
  const HeaderScan scan = scan_header(text.data(), text.data() + text.size(), path);
  header_ = scan.header;
  table_ = &opcode_table_for(header_.binary_version, path + ":" + std::to_string(scan.body_line));

  resources_.grid_ctas = static_cast<uint32_t>(header_.grid_ctas());
  resources_.threads_per_cta = static_cast<uint32_t>(header_.threads_per_cta());
  resources_.regs_per_thread = header_.nregs;
  resources_.smem_bytes_per_cta = header_.shmem_bytes;
  if (overrides.grid_ctas >= 0) resources_.grid_ctas = static_cast<uint32_t>(overrides.grid_ctas);
  if (overrides.threads_per_cta >= 0) resources_.threads_per_cta = static_cast<uint32_t>(overrides.threads_per_cta);
  if (overrides.regs_per_thread >= 0) resources_.regs_per_thread = static_cast<uint32_t>(overrides.regs_per_thread);
  if (overrides.smem_bytes_per_cta >= 0)
    resources_.smem_bytes_per_cta = static_cast<uint32_t>(overrides.smem_bytes_per_cta);
  if (overrides.constant_work) {
    KernelResources own;
    own.grid_ctas = static_cast<uint32_t>(header_.grid_ctas());
    own.threads_per_cta = static_cast<uint32_t>(header_.threads_per_cta());
    resources_.grid_ctas = constant_work_grid(own, overrides, path);
  }

  total_warp_instructions_ = count_streamed_instructions();
  derive_phases();
}

TraceKernel::~TraceKernel() = default;

void TraceKernel::derive_phases() {
  // From the first warp the file traces (trace_phases.hpp); a kernel of one
  // phase is a kernel without phases (and one phase need). A file that traces
  // no instruction has one phase that holds no register.
  std::vector<WarpInstruction> stream;
  const auto& warps = decoded_->warps();
  const auto first = std::find_if(warps.begin(), warps.end(), [](const DecodedTrace::Warp& w) { return w.count > 0; });
  if (first != warps.end()) {
    TraceWarpProgram program(decoded_, *first, nullptr);
    stream.reserve(first->count);
    WarpInstruction inst;
    while (program.next(inst)) stream.push_back(inst);
  }
  auto phases = std::make_shared<const TracePhases>(stream);
  // Registers at or above regs_per_thread (a --regs-per-thread override below
  // the trace's own) lie outside the allocation a phase need is a part of.
  std::bitset<kMaxArchRegs> allocated;
  for (uint32_t r = 0; r < std::min<uint32_t>(resources_.regs_per_thread, kMaxArchRegs); ++r) allocated.set(r);
  for (const auto& registers : phases->registers()) {
    PhaseNeed need;
    need.registers = registers & allocated;
    // A trace's shared addresses are per thread and data dependent: no
    // cheap bound on a phase's part, so every phase holds the allocation.
    if (resources_.smem_bytes_per_cta > 0) need.smem = {{0, resources_.smem_bytes_per_cta}};
    resources_.phase_needs.push_back(std::move(need));
  }
  if (phases->names().size() < 2) return;
  resources_.phase_names = phases->names();
  phases_ = std::move(phases);
}

uint64_t TraceKernel::count_streamed_instructions() const {
  // As warp_program() streams them: grid CTA c replays file CTA c mod the
  // file's CTAs, and warp w of a CTA the file's warp w mod its warps per CTA.
  const auto& ctas = decoded_->cta_first_warp();
  const uint64_t file_ctas = ctas.size(), grid = resources_.grid_ctas;
  const uint32_t file_warps = header_.warps_per_cta(), warps = resources_.warps_per_cta();
  if (file_ctas == 0 || file_warps == 0) return 0;
  uint64_t total = 0;
  for (uint64_t c = 0; c < file_ctas; ++c) {
    if (ctas[c] == DecodedTrace::kAbsentCta) continue;
    uint64_t per_cta = 0;
    for (uint32_t w = 0; w < warps; ++w) per_cta += decoded_->warps()[ctas[c] + w % file_warps].count;
    const uint64_t replays = grid / file_ctas + (c < grid % file_ctas ? 1 : 0);
    total += per_cta * replays;
  }
  return total;
}

std::unique_ptr<WarpProgram> TraceKernel::warp_program(uint32_t cta_id, uint32_t warp_in_cta) {
  if (cta_id >= resources_.grid_ctas || warp_in_cta >= resources_.warps_per_cta())
    throw std::out_of_range("TraceKernel::warp_program: CTA " + std::to_string(cta_id) + " warp " +
                            std::to_string(warp_in_cta) + " is outside the kernel");
  const auto& ctas = decoded_->cta_first_warp();
  const uint32_t first_warp = ctas[cta_id % ctas.size()];
  if (first_warp == DecodedTrace::kAbsentCta) return std::make_unique<EmptyWarpProgram>();
  const DecodedTrace::Warp& w = decoded_->warps()[first_warp + warp_in_cta % header_.warps_per_cta()];
  if (w.count == 0) return std::make_unique<EmptyWarpProgram>();
  return std::make_unique<TraceWarpProgram>(decoded_, w, phases_);
}

// ---------------------------------------------------------------- kernel list

TraceKernelList read_trace_kernel_list(const std::string& path) {
  // A trace directory stands for its kernelslist.g.
  struct stat st {};
  const bool is_dir = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  const std::string kernelslist_path = is_dir ? (path.back() == '/' ? path : path + "/") + "kernelslist.g" : path;
  std::ifstream in(kernelslist_path);
  if (!in) throw input_error(kernelslist_path, "", std::string("cannot open kernel list: ") + std::strerror(errno));
  std::string dir;
  size_t slash = kernelslist_path.rfind('/');
  if (slash != std::string::npos) dir = kernelslist_path.substr(0, slash + 1);

  TraceKernelList list;
  std::string raw;
  uint64_t no = 0;
  while (std::getline(in, raw)) {
    ++no;
    const std::string where = kernelslist_path + ":" + std::to_string(no);
    std::string_view line = trimmed(raw.data(), raw.data() + raw.size());
    if (line.empty() || line[0] == '#') continue;
    if (starts_with(line, "Memcpy")) {
      // MemcpyHtoD,0x00007f1234000000,4096
      TraceMemcpy m;
      size_t c1 = line.find(','), c2 = c1 == std::string_view::npos ? c1 : line.find(',', c1 + 1);
      bool ok = c1 != std::string_view::npos && c2 != std::string_view::npos;
      if (ok) {
        m.kind = std::string(line.substr(0, c1));
        std::string a(trimmed(line.data() + c1 + 1, line.data() + c2));
        std::string n(trimmed(line.data() + c2 + 1, line.data() + line.size()));
        char* end = nullptr;
        errno = 0;
        m.address = std::strtoull(a.c_str(), &end, 16);
        ok = !a.empty() && *end == '\0' && errno == 0;
        end = nullptr;
        m.bytes = std::strtoull(n.c_str(), &end, 10);
        ok = ok && !n.empty() && *end == '\0' && errno == 0 && n[0] != '-';
      }
      if (!ok) throw input_error(where, "", "'" + shown(line) + "' is not 'MemcpyHtoD,<hex address>,<bytes>'");
      list.memcpys.push_back(m);
      continue;
    }
    if (ends_with(line, ".traceg") || ends_with(line, ".traceg.xz")) {
      std::string p(line);
      list.kernel_paths.push_back(p[0] == '/' ? p : dir + p);
      continue;
    }
    if (ends_with(line, ".trace") || ends_with(line, ".trace.xz"))
      throw input_error(where, "",
                        "'" + shown(line) + "' is a raw tracer output; run Accel-Sim's post-traces-processing on "
                        "the kernelslist to make kernel-N.traceg files and kernelslist.g");
    throw input_error(where, "",
                      "'" + shown(line) + "' is neither a Memcpy line nor a kernel trace (kernel-N.traceg or .traceg.xz)");
  }
  if (list.kernel_paths.empty()) throw input_error(kernelslist_path, "", "the kernel list names no kernel trace");
  return list;
}

std::vector<std::unique_ptr<KernelSource>> load_trace_kernels(const std::string& kernelslist_path,
                                                              const ResourceOverrides& overrides,
                                                              const TraceOptions& options) {
  TraceKernelList list = read_trace_kernel_list(kernelslist_path);
  std::vector<std::unique_ptr<KernelSource>> kernels;
  for (const auto& p : list.kernel_paths) kernels.push_back(std::make_unique<TraceKernel>(p, overrides, options));
  return kernels;
}

}  // namespace smshare
