#include "hw/common/waveform_save_file.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "hw/common/error.hpp"

namespace smshare {

namespace {

// GTKWave's trace flags (the "@hex" lines; TR_* in GTKWave's analyzer.h).
constexpr unsigned kDecimal = 0x4;
constexpr unsigned kRightJustify = 0x20;
constexpr unsigned kBlank = 0x200;          // a row without a signal (comments, group ends)
constexpr unsigned kSigned = 0x400;         // signed decimal
constexpr unsigned kFileTranslated = 0x2000;
constexpr unsigned kGroupBegin = 0x800000;
constexpr unsigned kGroupEnd = 0x1000000;

// The window the save file asks for, and the panes left of the waves. The
// waves get what remains, less GTKWave's borders and scroll bar; measured
// under Xvfb (docs/waveforms.md): GTKWave 3.3 widens the signal tree to at
// least 276 pixels, and the borders take 24. The zoom fits the traced
// interval into 98 % of the waves' width, so its end is visible.
constexpr unsigned kWindowWidth = 1600, kWindowHeight = 900;
constexpr unsigned kTreeWidth = 276, kSignalsWidth = 320, kBorders = 24;
constexpr unsigned kWavePixels = (kWindowWidth - kTreeWidth - kSignalsWidth - kBorders) * 98 / 100;

std::string absolute(const std::string& path) { return std::filesystem::absolute(path).lexically_normal().string(); }

ScopeTree& child(ScopeTree& parent, const std::string& name) {
  for (ScopeTree& c : parent.children)
    if (c.name == name) return c;
  parent.children.push_back(ScopeTree{name, {}, {}});
  return parent.children.back();
}

unsigned flags(const SavedSignal& s) {
  return kRightJustify | (s.is_signed ? kSigned : kDecimal) | (s.enum_name.empty() ? 0 : kFileTranslated);
}

struct Writer {
  const SaveFile& file;
  std::ofstream& out;

  size_t filter_number(const std::string& enum_name) const {
    for (size_t i = 0; i < file.enums.size(); ++i)
      if (file.enums[i].name == enum_name) return i + 1;
    return 0;
  }

  void signals(const ScopeTree& scope) {
    for (size_t i : scope.signals) {
      const SavedSignal& s = file.signals[i];
      out << "@" << std::hex << flags(s) << std::dec << "\n";
      if (!s.enum_name.empty())
        out << "^" << filter_number(s.enum_name) << " " << absolute(filter_path(file.gtkw_path, s.enum_name)) << "\n";
      out << gtkwave_name(s) << "\n";
    }
  }

  // One group per scope below the top one (per SM, per module in it),
  // nested as the scopes are.
  void group(const ScopeTree& scope) {
    out << "@" << std::hex << (kGroupBegin | kBlank) << std::dec << "\n-" << scope.name << "\n";
    signals(scope);
    for (const ScopeTree& c : scope.children) group(c);
    out << "@" << std::hex << (kGroupEnd | kBlank) << std::dec << "\n-" << scope.name << "\n";
  }

  void tree_open(const ScopeTree& scope, const std::string& prefix) {
    const std::string path = prefix + scope.name + ".";
    out << "[treeopen] " << path << "\n";
    for (const ScopeTree& c : scope.children) tree_open(c, path);
  }
};

void write_filter(const std::string& path, const WaveEnum& e) {
  std::ofstream out(path);
  out << "# GTKWave translate filter for smshare's " << e.name << " values (written with the save file).\n";
  for (const auto& [value, name] : e.values) out << value << " " << name << "\n";
  if (!out) throw InputError("--vcd: cannot write " + path);
}

}  // namespace

ScopeTree ScopeTree::build(const std::vector<SavedSignal>& signals) {
  ScopeTree root;
  for (size_t i = 0; i < signals.size(); ++i) {
    ScopeTree* node = &root;
    const std::string& scope = signals[i].scope;
    for (size_t start = 0; start <= scope.size();) {
      size_t dot = scope.find('.', start);
      if (dot == std::string::npos) dot = scope.size();
      node = &child(*node, scope.substr(start, dot - start));
      start = dot + 1;
    }
    node->signals.push_back(i);
  }
  return root;
}

std::string gtkwave_name(const SavedSignal& s) {
  std::string name = s.scope + "." + s.name;
  if (s.bits > 1 && !s.is_signed) name += "[" + std::to_string(s.bits - 1) + ":0]";
  return name;
}

std::string filter_path(const std::string& gtkw_path, const std::string& enum_name) {
  std::string base = gtkw_path;
  if (base.size() > 5 && base.compare(base.size() - 5, 5, ".gtkw") == 0) base.resize(base.size() - 5);
  return base + "." + enum_name + ".filter";
}

double gtkwave_zoom(uint64_t span_ps, unsigned pixels) {
  return -std::log2(200.0 * static_cast<double>(span_ps) / pixels);
}

void write_save_file(const SaveFile& file) {
  for (const WaveEnum& e : file.enums) write_filter(filter_path(file.gtkw_path, e.name), e);
  std::ofstream out(file.gtkw_path);
  if (!out) throw InputError("--vcd: cannot write " + file.gtkw_path);
  out << "[*]\n[*] GTKWave save file written by smshare for " << file.wave_path << "\n"
      << "[*] Open with: gtkwave " << file.gtkw_path << "\n[*]\n";
  // Absolute paths, and [savefile]: GTKWave finds a moved pair of files by
  // the dump file's path relative to the save file's.
  out << "[dumpfile] \"" << absolute(file.wave_path) << "\"\n";
  out << "[savefile] \"" << absolute(file.gtkw_path) << "\"\n";
  out << "[timestart] " << file.start_ps << "\n";
  out << "[size] " << kWindowWidth << " " << kWindowHeight << "\n[pos] -1 -1\n";
  if (file.end_ps > file.start_ps) {
    // Zoom level, then the primary marker and GTKWave's 26 named markers (none).
    char zoom[32];
    std::snprintf(zoom, sizeof zoom, "%.6f", gtkwave_zoom(file.end_ps - file.start_ps, kWavePixels));
    out << "*" << zoom << " -1";
    for (int i = 0; i < 26; ++i) out << " -1";
    out << "\n";
  }
  const ScopeTree root = ScopeTree::build(file.signals);
  Writer w{file, out};
  for (const ScopeTree& top : root.children) w.tree_open(top, "");
  out << "[sst_width] " << kTreeWidth << "\n[signals_width] " << kSignalsWidth << "\n[sst_expanded] 1\n";
  for (const ScopeTree& top : root.children) {
    w.signals(top);
    for (const ScopeTree& c : top.children) w.group(c);
  }
  out << "[pattern_trace] 1\n[pattern_trace] 0\n";
  if (!out) throw InputError("--vcd: cannot write " + file.gtkw_path);
}

}  // namespace smshare
