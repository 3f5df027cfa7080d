#include "hw/common/waveform.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "hw/common/error.hpp"
#include "hw/common/text.hpp"
#include "hw/common/waveform_save_file.hpp"

extern char** environ;

namespace smshare {

namespace {

// FILE.vcd / FILE.fst with a non-empty FILE.
bool has_suffix(const std::string& path, const char* suffix) { return path.size() > 4 && ends_with(path, suffix); }

// The executable `program` in PATH, or "" (what a shell would run).
std::string find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

// Runs `argv` with its stdout sent to /dev/null (stdout carries the run's
// results); returns its exit status, or -1 if it could not run.
int run_quietly(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// VCD identifier codes: base 94 over the printable characters '!' .. '~'.
std::string vcd_id(size_t index) {
  std::string id;
  do {
    id += static_cast<char>('!' + index % 94);
    index /= 94;
  } while (index);
  return id;
}

// A registered probe: where its value lives, how it is declared, and the
// value last written (only a change is written again).
struct Probe {
  enum class Type : uint8_t { I32, U32, U64 };
  SavedSignal signal;
  const void* value = nullptr;
  Type type = Type::U32;
  uint64_t mask = 0;  // the low `bits` bits: a signed value in two's complement at its width
  uint64_t last = 0;
  std::string id;

  uint64_t read() const {
    switch (type) {
      case Type::I32: return static_cast<uint64_t>(static_cast<int64_t>(*static_cast<const int32_t*>(value))) & mask;
      case Type::U32: return *static_cast<const uint32_t*>(value) & mask;
      case Type::U64: return *static_cast<const uint64_t*>(value) & mask;
    }
    return 0;
  }
};

}  // namespace

struct Waveform::Impl {
  WaveformOptions options;
  std::string base;       // the --vcd path without its .vcd / .fst suffix
  std::string wave_path;  // FILE.vcd or FILE.fst
  std::string vcd_path;   // the VCD written: wave_path, or for FST a temporary beside it
  bool fst = false;
  std::string vcd2fst;    // FST only: the converter's path
  std::FILE* out = nullptr;
  std::vector<Probe> probes;
  std::vector<WaveEnum> enums;
  bool started = false;   // header and $dumpvars written
  bool closed = false;
  uint64_t first_written = 0, last_written = 0;

  uint64_t time_ps(uint64_t cycle) const { return cycle * options.cycle_ps; }
  void add(const std::string& path, const void* value, Probe::Type type, unsigned bits, bool is_signed,
           const WaveEnum* names);
  void write_header();
  void write_scope(const ScopeTree& scope);
  void write_value(const Probe& p, uint64_t v);
  void finish_file();
};

Waveform::Waveform(WaveformOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& w = *impl_;
  w.options = std::move(options);
  const std::string& path = w.options.path;
  if (path.empty()) throw InputError("--vcd: empty file name");
  if (w.options.cycle_ps == 0) throw std::logic_error("Waveform: cycle_ps must be positive");
  w.fst = has_suffix(path, ".fst");
  // Today's rule: a name without .vcd or .fst gets .vcd appended.
  w.base = w.fst || has_suffix(path, ".vcd") ? path.substr(0, path.size() - 4) : path;
  w.wave_path = w.fst ? path : w.base + ".vcd";
  w.vcd_path = w.fst ? path + ".tmp.vcd" : w.wave_path;
  if (w.fst) {
    w.vcd2fst = find_in_path("vcd2fst");
    if (w.vcd2fst.empty())
      throw InputError("--vcd " + path + ": writing FST needs vcd2fst, which is not in PATH; install Debian's "
                       "gtkwave package (apt-get install gtkwave) or write a VCD (--vcd " + w.base + ".vcd)");
  }
  // The save file is written after the run: a path that cannot take it must
  // fail now, not after hours of simulation.
  const std::string gtkw = w.base + ".gtkw";
  if (std::FILE* f = std::fopen(gtkw.c_str(), "a")) std::fclose(f);
  else throw InputError("--vcd " + path + ": cannot write the GTKWave save file " + gtkw);
  w.out = std::fopen(w.vcd_path.c_str(), "w");
  if (!w.out) throw InputError("--vcd: cannot write " + w.vcd_path);
  std::setvbuf(w.out, nullptr, _IOFBF, 1 << 20);
}

Waveform::~Waveform() {
  if (impl_->out) std::fclose(impl_->out);
  if (impl_->fst && !impl_->closed) std::remove(impl_->vcd_path.c_str());
}

void Waveform::Impl::add(const std::string& path, const void* value, Probe::Type type, unsigned bits,
                         bool is_signed, const WaveEnum* names) {
  if (started) throw std::logic_error("Waveform::add(" + path + "): probes must be added before the first sample");
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == path.size())
    throw std::logic_error("Waveform::add(" + path + "): the path must be scope.name");
  if (bits == 0 || bits > 64) throw std::logic_error("Waveform::add(" + path + "): width must be 1..64 bits");
  for (const Probe& p : probes)
    if (p.signal.scope + "." + p.signal.name == path)
      throw std::logic_error("Waveform::add(" + path + "): added twice");
  Probe p;
  p.signal.scope = path.substr(0, dot);
  p.signal.name = path.substr(dot + 1);
  p.signal.bits = bits;
  p.signal.is_signed = is_signed;
  p.value = value;
  p.type = type;
  p.mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  p.id = vcd_id(probes.size());
  if (names) {
    auto known = std::find_if(enums.begin(), enums.end(), [&](const WaveEnum& e) { return e.name == names->name; });
    if (known == enums.end()) enums.push_back(*names);
    else if (known->values != names->values)
      throw std::logic_error("Waveform::add(" + path + "): enum '" + names->name + "' has other values elsewhere");
    p.signal.enum_name = names->name;
  }
  probes.push_back(std::move(p));
}

void Waveform::add(const std::string& path, const int32_t& value, unsigned bits, const WaveEnum* names) {
  impl_->add(path, &value, Probe::Type::I32, bits, true, names);
}
void Waveform::add(const std::string& path, const uint32_t& value, unsigned bits, const WaveEnum* names) {
  impl_->add(path, &value, Probe::Type::U32, bits, false, names);
}
void Waveform::add(const std::string& path, const uint64_t& value, unsigned bits, const WaveEnum* names) {
  impl_->add(path, &value, Probe::Type::U64, bits, false, names);
}

bool Waveform::traces_sm(uint32_t sm) const {
  const auto& sms = impl_->options.sms;
  return sms.empty() || std::find(sms.begin(), sms.end(), sm) != sms.end();
}

uint64_t Waveform::first_cycle() const {
  return impl_->options.window ? impl_->options.window->first : 0;
}

uint64_t Waveform::last_cycle() const {
  return impl_->options.window ? impl_->options.window->second : std::numeric_limits<uint64_t>::max();
}

const std::string& Waveform::wave_path() const { return impl_->wave_path; }
std::string Waveform::save_file_path() const { return impl_->base + ".gtkw"; }

void Waveform::Impl::write_scope(const ScopeTree& scope) {
  std::fprintf(out, "$scope module %s $end\n", scope.name.c_str());
  for (size_t i : scope.signals) {
    const Probe& p = probes[i];
    // Signed probes are declared integer, so a reader without the save file
    // still knows they are signed; every probe is a vector with its range.
    std::fprintf(out, "$var %s %u %s %s", p.signal.is_signed ? "integer" : "wire", p.signal.bits, p.id.c_str(),
                 p.signal.name.c_str());
    if (p.signal.bits > 1) std::fprintf(out, " [%u:0]", p.signal.bits - 1);
    std::fputs(" $end\n", out);
  }
  for (const ScopeTree& child : scope.children) write_scope(child);
  std::fputs("$upscope $end\n", out);
}

void Waveform::Impl::write_header() {
  std::fputs("$version smshare waveform writer $end\n", out);
  std::fprintf(out, "$comment one core cycle is %llu ps: cycle c is at time c * %llu $end\n",
               static_cast<unsigned long long>(options.cycle_ps), static_cast<unsigned long long>(options.cycle_ps));
  std::fputs("$timescale 1 ps $end\n", out);
  std::vector<SavedSignal> signals;
  for (const Probe& p : probes) signals.push_back(p.signal);
  for (const ScopeTree& top : ScopeTree::build(signals).children) write_scope(top);
  std::fputs("$enddefinitions $end\n", out);
}

void Waveform::Impl::write_value(const Probe& p, uint64_t v) {
  char text[68];
  size_t n = 0;
  if (p.signal.bits == 1) {
    text[n++] = static_cast<char>('0' + (v & 1));
  } else {
    // Leading zeros dropped (VCD zero-extends); a negative value keeps its
    // leading one at full width.
    text[n++] = 'b';
    int top = 63;
    while (top > 0 && !((v >> top) & 1)) --top;
    for (int bit = top; bit >= 0; --bit) text[n++] = static_cast<char>('0' + ((v >> bit) & 1));
    text[n++] = ' ';
  }
  std::fwrite(text, 1, n, out);
  std::fputs(p.id.c_str(), out);
  std::fputc('\n', out);
}

void Waveform::sample(uint64_t cycle) {
  Impl& w = *impl_;
  if (w.closed || cycle < first_cycle() || cycle > last_cycle()) return;
  if (!w.started) {
    w.write_header();
    std::fprintf(w.out, "#%llu\n$dumpvars\n", static_cast<unsigned long long>(w.time_ps(cycle)));
    for (Probe& p : w.probes) w.write_value(p, p.last = p.read());
    std::fputs("$end\n", w.out);
    w.started = true;
    w.first_written = w.last_written = cycle;
    return;
  }
  if (cycle < w.last_written)
    throw std::logic_error("Waveform::sample(" + std::to_string(cycle) + "): cycles must not go back");
  bool stamped = false;
  for (Probe& p : w.probes) {
    const uint64_t v = p.read();
    if (v == p.last) continue;
    if (!stamped) std::fprintf(w.out, "#%llu\n", static_cast<unsigned long long>(w.time_ps(cycle)));
    stamped = true;
    w.write_value(p, p.last = v);
  }
  w.last_written = cycle;
}

void Waveform::Impl::finish_file() {
  const bool failed = std::ferror(out) != 0;
  const bool close_failed = std::fclose(out) != 0;
  out = nullptr;
  if (failed || close_failed) throw InputError("--vcd: writing " + vcd_path + " failed (disk full?)");
  if (!fst) return;
  const int status = run_quietly({vcd2fst, "-v", vcd_path, "-f", wave_path});
  if (status != 0)
    throw InputError("--vcd " + wave_path + ": " + vcd2fst + " failed (exit status " + std::to_string(status) +
                     ") converting " + vcd_path + ", which is kept");
  std::remove(vcd_path.c_str());
}

void Waveform::close(uint64_t end_cycle) {
  Impl& w = *impl_;
  if (w.closed) return;
  SaveFile save;
  if (w.started) {
    // The dump ends where the last written cycle ends: at the window's end,
    // or at the end of the run, so the last cycle is drawn a cycle wide.
    const uint64_t end = std::max(w.last_written, std::min(last_cycle(), end_cycle > 0 ? end_cycle - 1 : 0)) + 1;
    std::fprintf(w.out, "#%llu\n", static_cast<unsigned long long>(w.time_ps(end)));
    save.start_ps = w.time_ps(w.first_written);
    save.end_ps = w.time_ps(end);
  } else {
    w.write_header();
    save.start_ps = save.end_ps = w.time_ps(first_cycle());
    if (w.options.window)
      spdlog::warn("--vcd-window: the run ended at cycle {}, before the window starts at cycle {}; {} holds no values",
                   end_cycle, first_cycle(), w.wave_path);
  }
  w.closed = true;
  w.finish_file();
  save.wave_path = w.wave_path;
  save.gtkw_path = save_file_path();
  for (const Probe& p : w.probes) save.signals.push_back(p.signal);
  save.enums = w.enums;
  write_save_file(save);
}

}  // namespace smshare
