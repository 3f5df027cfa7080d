#include "hw/frontend/trace_parser.hpp"

#include <cstring>

#include "hw/common/error.hpp"

namespace smshare {
namespace {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

struct HexTable {
  int8_t v[256];
  constexpr HexTable() : v() {
    for (int i = 0; i < 256; ++i) v[i] = -1;
    for (int i = 0; i < 10; ++i) v['0' + i] = static_cast<int8_t>(i);
    for (int i = 0; i < 6; ++i) v['a' + i] = v['A' + i] = static_cast<int8_t>(10 + i);
  }
};
constexpr HexTable kHex;
inline int hex_value(char c) { return kHex.v[static_cast<uint8_t>(c)]; }

std::string shown(std::string_view token) {
  if (token.size() > 40) return std::string(token.substr(0, 40)) + "...";
  return std::string(token);
}

// A cursor over one line that reads whitespace-separated fields and throws
// with the file, line number and field name on any problem.
class Fields {
 public:
  Fields(const char* b, const char* e, const std::string& file, uint64_t line_no)
      : p_(b), e_(e), file_(file), line_no_(line_no) {}

  [[noreturn]] void fail(const char* field, const std::string& problem) const {
    throw input_error(file_ + ":" + std::to_string(line_no_), field, problem);
  }

  // Fails quoting the whole token that starts at `s`.
  [[noreturn]] void bad(const char* field, const char* s, const std::string& problem) {
    const char* t = s;
    while (t != e_ && !is_space(*t)) ++t;
    fail(field, "'" + shown(std::string_view(s, static_cast<size_t>(t - s))) + "' " + problem);
  }

  bool at_end() {
    skip();
    return p_ == e_;
  }

  std::string_view token(const char* field) {
    skip();
    if (p_ == e_) fail(field, "line ends early (truncated line?): expected the " + std::string(field));
    const char* s = p_;
    while (p_ != e_ && !is_space(*p_)) ++p_;
    return std::string_view(s, static_cast<size_t>(p_ - s));
  }

  uint64_t dec(const char* field, uint64_t max) {
    skip();
    if (p_ == e_) token(field);  // throws "line ends early"
    const char* s = p_;
    uint64_t v = 0;
    for (; p_ != e_ && !is_space(*p_); ++p_) {
      const unsigned d = static_cast<unsigned>(*p_ - '0');
      if (d > 9) bad(field, s, "is not a decimal number");
      if (v > (max - d) / 10) bad(field, s, "is out of range (max " + std::to_string(max) + ")");
      v = v * 10 + d;
    }
    return v;
  }

  int64_t signed_dec(const char* field) {
    std::string_view t = token(field);
    bool neg = false;
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
      neg = t[0] == '-';
      t.remove_prefix(1);
    }
    if (t.empty()) fail(field, "missing number");
    uint64_t v = 0;
    for (char c : t) {
      if (c < '0' || c > '9') fail(field, "'" + shown(t) + "' is not a decimal number");
      if (v > (uint64_t(INT64_MAX) - static_cast<uint64_t>(c - '0')) / 10) fail(field, "'" + shown(t) + "' is out of range");
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  }

  // Hexadecimal with or without a 0x prefix, at most `max_digits` significant digits.
  uint64_t hex(const char* field, unsigned max_digits) {
    skip();
    if (p_ == e_) token(field);  // throws "line ends early"
    const char* s = p_;
    if (e_ - p_ > 2 && p_[0] == '0' && (p_[1] == 'x' || p_[1] == 'X')) p_ += 2;
    uint64_t v = 0;
    unsigned significant = 0;
    const char* digits = p_;
    for (; p_ != e_ && !is_space(*p_); ++p_) {
      const int h = hex_value(*p_);
      if (h < 0) bad(field, s, "is not a hexadecimal number");
      if (v != 0 || h != 0) ++significant;
      v = (v << 4) | static_cast<uint64_t>(h);
    }
    if (p_ == digits) bad(field, s, "is not a hexadecimal number");
    if (significant > max_digits) bad(field, s, "does not fit in " + std::to_string(max_digits * 4) + " bits");
    return v;
  }

  // A signed decimal or 0x-prefixed hexadecimal number, value ignored.
  void immediate() {
    std::string_view t = token("immediate");
    std::string_view d = t;
    bool is_hex = d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X');
    if (is_hex) d.remove_prefix(2);
    else if (!d.empty() && (d[0] == '-' || d[0] == '+')) d.remove_prefix(1);
    bool ok = !d.empty();
    for (char c : d) ok = ok && (is_hex ? hex_value(c) >= 0 : (c >= '0' && c <= '9'));
    if (!ok) fail("immediate", "'" + shown(t) + "' is not a number");
  }

  // "R<n>", n <= 255; R255 (RZ) becomes kNoReg.
  uint16_t reg(const char* field) {
    skip();
    if (p_ == e_) token(field);  // throws "line ends early"
    const char* s = p_;
    if (*p_ != 'R') bad(field, s, "is not a register (expected R<n>)");
    ++p_;
    unsigned v = 0, n = 0;
    for (; p_ != e_ && !is_space(*p_); ++p_, ++n) {
      const unsigned d = static_cast<unsigned>(*p_ - '0');
      if (d > 9 || n >= 3) bad(field, s, "is not a register (expected R<n>)");
      v = v * 10 + d;
    }
    if (n == 0) bad(field, s, "is not a register (expected R<n>)");
    if (v > 255) bad(field, s, "is not a register (R0..R255)");
    return v == 255 ? kNoReg : static_cast<uint16_t>(v);
  }

 private:
  void skip() {
    while (p_ != e_ && is_space(*p_)) ++p_;
  }
  const char* p_;
  const char* e_;
  const std::string& file_;
  uint64_t line_no_;
};

// Header keys that must be present.
enum : unsigned {
  kSeenGrid = 1,
  kSeenBlock = 2,
  kSeenShmem = 4,
  kSeenNregs = 8,
  kSeenBinary = 16,
  kSeenTracer = 32,
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (is_space(s.front()) || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (is_space(s.back()) || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

}  // namespace

// ---------------------------------------------------------------- header

void TraceHeaderParser::add_line(std::string_view line, uint64_t line_no) {
  const std::string where = file_ + ":" + std::to_string(line_no);
  size_t eq = line.find('=');
  if (line.empty() || line[0] != '-' || eq == std::string_view::npos)
    throw input_error(where, "", "malformed header line '" + shown(line) + "' (expected '-key = value')");
  // Normalise the key: words separated by single spaces.
  std::string key;
  for (char c : line.substr(1, eq - 1)) {
    if (is_space(c)) {
      if (!key.empty() && key.back() != ' ') key += ' ';
    } else {
      key += c;
    }
  }
  if (!key.empty() && key.back() == ' ') key.pop_back();
  const std::string_view value = trim(line.substr(eq + 1));
  const std::string value_str(value);

  auto number = [&](uint64_t max) -> uint64_t {
    uint64_t v = 0;
    if (value.empty()) throw input_error(where, key, "missing value");
    for (char c : value) {
      if (c < '0' || c > '9') throw input_error(where, key, "'" + shown(value) + "' is not a non-negative decimal number");
      v = v * 10 + static_cast<uint64_t>(c - '0');
      if (v > max) throw input_error(where, key, "'" + shown(value) + "' is out of range (max " + std::to_string(max) + ")");
    }
    return v;
  };
  auto hex = [&]() -> uint64_t {
    std::string_view d = value;
    if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) d.remove_prefix(2);
    while (d.size() > 1 && d[0] == '0') d.remove_prefix(1);
    if (d.empty() || d.size() > 16) throw input_error(where, key, "'" + shown(value) + "' is not a 64-bit hexadecimal number");
    uint64_t v = 0;
    for (char c : d) {
      int h = hex_value(c);
      if (h < 0) throw input_error(where, key, "'" + shown(value) + "' is not a hexadecimal number");
      v = (v << 4) | static_cast<uint64_t>(h);
    }
    return v;
  };
  auto dim3 = [&](uint32_t out[3]) {
    // "(x,y,z)"
    std::string_view v = value;
    if (v.size() < 7 || v.front() != '(' || v.back() != ')')
      throw input_error(where, key, "'" + shown(value) + "' is not of the form (x,y,z)");
    v = v.substr(1, v.size() - 2);
    for (int i = 0; i < 3; ++i) {
      size_t comma = v.find(',');
      std::string_view part = trim(i < 2 ? v.substr(0, comma) : v);
      if ((i < 2 && comma == std::string_view::npos) || (i == 2 && v.find(',') != std::string_view::npos) ||
          part.empty() || part.size() > 9)
        throw input_error(where, key, "'" + shown(value) + "' is not of the form (x,y,z)");
      uint32_t n = 0;
      for (char c : part) {
        if (c < '0' || c > '9') throw input_error(where, key, "'" + shown(value) + "' is not of the form (x,y,z)");
        n = n * 10 + static_cast<uint32_t>(c - '0');
      }
      if (n == 0) throw input_error(where, key, "dimensions must be at least 1, got " + shown(value));
      out[i] = n;
      if (i < 2) v.remove_prefix(comma + 1);
    }
  };

  if (key == "kernel name") {
    h_.kernel_name = value_str;
  } else if (key == "kernel id") {
    h_.kernel_id = static_cast<uint32_t>(number(UINT32_MAX));
  } else if (key == "grid dim") {
    dim3(h_.grid_dim);
    seen_ |= kSeenGrid;
  } else if (key == "block dim") {
    dim3(h_.block_dim);
    seen_ |= kSeenBlock;
  } else if (key == "shmem") {
    h_.shmem_bytes = static_cast<uint32_t>(number(UINT32_MAX));
    seen_ |= kSeenShmem;
  } else if (key == "nregs") {
    h_.nregs = static_cast<uint32_t>(number(kMaxArchRegs));
    seen_ |= kSeenNregs;
  } else if (key == "binary version") {
    h_.binary_version = static_cast<uint32_t>(number(UINT32_MAX));
    seen_ |= kSeenBinary;
  } else if (key == "accelsim tracer version") {
    h_.tracer_version = static_cast<uint32_t>(number(UINT32_MAX));
    seen_ |= kSeenTracer;
  } else if (key == "enable lineinfo") {
    h_.line_numbers = number(1) != 0;
  } else if (key == "cuda stream id") {
    h_.cuda_stream_id = number(UINT64_MAX / 10);
  } else if (key == "shmem base_addr") {
    h_.shmem_base_addr = hex();
  } else if (key == "local mem base_addr") {
    h_.local_base_addr = hex();
  } else if (key == "nvbit version") {
    h_.nvbit_version = value_str;
  }
  // Other keys (newer tracers add some) carry nothing the model uses.
}

TraceHeader TraceHeaderParser::finish(uint64_t line_no) const {
  const std::string where = file_ + ":" + std::to_string(line_no);
  struct Required {
    unsigned bit;
    const char* key;
  };
  const Required required[] = {{kSeenGrid, "grid dim"},     {kSeenBlock, "block dim"},
                               {kSeenShmem, "shmem"},       {kSeenNregs, "nregs"},
                               {kSeenBinary, "binary version"}, {kSeenTracer, "accelsim tracer version"}};
  for (const auto& r : required)
    if (!(seen_ & r.bit))
      throw input_error(where, r.key, std::string("header has no '-") + r.key + " = ...' line before the trace body");
  if (h_.tracer_version < 3)
    throw input_error(where, "accelsim tracer version",
                      "tracer version " + std::to_string(h_.tracer_version) +
                          " is not supported (instruction lines of version 3 and later only)");
  if (h_.threads_per_cta() > 1024 * 64)
    throw input_error(where, "block dim", "more than 65536 threads per CTA");
  TraceHeader h = h_;
  if (h.kernel_name.empty()) h.kernel_name = file_;
  return h;
}

// ---------------------------------------------------------------- lines

TraceLineParser::TraceLineParser(std::string file, const TraceHeader& header, const OpcodeTable& table,
                                 bool unknown_opcode_as_alu)
    : file_(std::move(file)),
      table_(&table),
      line_numbers_(header.line_numbers),
      unknown_as_alu_(unknown_opcode_as_alu) {}

void TraceLineParser::parse(const char* begin, const char* end, uint64_t line_no, WarpInstruction& out,
                            LineExtras& extras) const {
  Fields f(begin, end, file_, line_no);
  extras = LineExtras{};

  if (line_numbers_) f.dec("source line number", UINT32_MAX);
  out.pc = f.hex("PC", 16);
  out.phase = 0;  // traces have no phases (yet)
  if (out.pc >= kInstructionRegionBytes)
    f.fail("PC", "PC " + hex(out.pc) + " is beyond the " + hex(kInstructionRegionBytes) +
                     "-byte instruction region (PCs are offsets in the kernel's code)");
  out.active_mask = static_cast<uint32_t>(f.hex("active mask", 8));

  const uint64_t ndst = f.dec("destination count", 16);
  unsigned nd = 0;
  for (uint64_t i = 0; i < ndst; ++i) {
    uint16_t r = f.reg("destination register");
    if (r == kNoReg) continue;
    if (nd < kMaxDstRegs) out.dst[nd++] = r;
    else ++extras.dropped_regs;
  }
  for (unsigned i = nd; i < kMaxDstRegs; ++i) out.dst[i] = kNoReg;
  out.num_dst = static_cast<uint8_t>(nd);

  const std::string_view opcode = f.token("opcode");
  const std::string_view mnemonic = opcode_mnemonic(opcode);
  extras.mnemonic = mnemonic;
  if (auto cls = table_->lookup(mnemonic)) {
    out.op = *cls;
  } else if (unknown_as_alu_) {
    out.op = OpClass::IntAlu;
    extras.unknown_opcode = true;
  } else {
    f.fail("opcode", "unknown opcode '" + shown(opcode) + "' (mnemonic '" + shown(mnemonic) + "' is not in the " +
                         table_->name() + " table; --set frontend.unknown_opcode=alu runs it as an integer ALU op)");
  }

  const uint64_t nsrc = f.dec("source count", 16);
  unsigned ns = 0;
  for (uint64_t i = 0; i < nsrc; ++i) {
    uint16_t r = f.reg("source register");
    if (r == kNoReg) continue;
    if (ns < kMaxSrcRegs) out.src[ns++] = r;
    else ++extras.dropped_regs;
  }
  for (unsigned i = ns; i < kMaxSrcRegs; ++i) out.src[i] = kNoReg;
  out.num_src = static_cast<uint8_t>(ns);

  const uint64_t width = f.dec("memory width", 255);
  const bool memory_class = is_memory(out.op);
  if (width > 0) {
    const uint32_t mask = out.active_mask;
    const uint64_t format = f.dec("address format", 1u << 20);
    if (format == 0) {
      // One address per active lane.
      for (unsigned lane = 0; lane < kWarpLanes; ++lane)
        out.addr[lane] = (mask >> lane) & 1u ? f.hex("address", 16) : 0;
    } else if (format == 1) {
      // Base and stride: the k-th active lane reads base + k * stride.
      const uint64_t base = f.hex("base address", 16);
      const int64_t stride = f.signed_dec("stride");
      uint64_t a = base;
      for (unsigned lane = 0; lane < kWarpLanes; ++lane) {
        if ((mask >> lane) & 1u) {
          out.addr[lane] = a;
          a += static_cast<uint64_t>(stride);
        } else {
          out.addr[lane] = 0;
        }
      }
    } else if (format == 2) {
      // Base, then per further active lane its delta to the previous one.
      uint64_t a = f.hex("base address", 16);
      bool first = true;
      for (unsigned lane = 0; lane < kWarpLanes; ++lane) {
        if ((mask >> lane) & 1u) {
          if (!first) a += static_cast<uint64_t>(f.signed_dec("address delta"));
          first = false;
          out.addr[lane] = a;
        } else {
          out.addr[lane] = 0;
        }
      }
    } else {
      f.fail("address format", "unsupported address format " + std::to_string(format) +
                                   " (expected 0 = one address per active lane, 1 = base and stride, "
                                   "2 = base and deltas)");
    }
    out.access_bytes = memory_class ? static_cast<uint8_t>(width) : 0;
    extras.addresses = true;
  } else {
    if (memory_class)
      f.fail("memory width", "memory opcode '" + shown(opcode) + "' has memory width 0 (no addresses)");
    out.access_bytes = 0;
  }

  // Tracer version 5 ends the line with an immediate; the model has no use for it.
  if (!f.at_end()) f.immediate();
  if (!f.at_end()) f.fail("end of line", "unexpected text '" + shown(f.token("end of line")) + "' after the instruction");
}

bool is_trace_block_keyword(const char* b, const char* e) {
  while (b != e && is_space(*b)) ++b;
  if (b == e) return false;
  if (*b == '#') return true;
  const char* w = b;
  while (w != e && !is_space(*w) && *w != '=') ++w;
  const std::string_view word(b, static_cast<size_t>(w - b));
  return word == "warp" || word == "insts" || word == "thread" || word == "cluster";
}

}  // namespace smshare
