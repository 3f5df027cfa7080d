// The GTKWave save file (.gtkw) and translate filters the waveform writer
// puts beside a wave file, so `gtkwave FILE.gtkw` opens ready to read.
// The format is GTKWave's own (what File > Write Save File produces);
// docs/waveforms.md says how each part was checked against GTKWave 3.3.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/common/waveform.hpp"

namespace smshare {

// One traced signal as the save file names it.
struct SavedSignal {
  std::string scope;      // gpu.sm0
  std::string name;       // issued_warp
  unsigned bits = 32;
  bool is_signed = false;
  std::string enum_name;  // translate filter (a WaveEnum's name); empty: none
};

// Signals arranged by scope (gpu > sm0 > bank_arbitrator), scopes and
// signals in the order they were first added: the VCD's $scope nesting and
// the save file's groups.
struct ScopeTree {
  std::string name;                // last component of the scope's path; "" for the root
  std::vector<size_t> signals;     // indices into the list the tree was built from
  std::vector<ScopeTree> children;
  static ScopeTree build(const std::vector<SavedSignal>& signals);
};

struct SaveFile {
  std::string wave_path;                // the .vcd or .fst it opens
  std::string gtkw_path;                // where it goes
  std::vector<SavedSignal> signals;     // in display order within each scope
  std::vector<WaveEnum> enums;          // one filter file per enum
  uint64_t start_ps = 0, end_ps = 0;    // the traced interval it opens zoomed to
};

// GTKWave's name of a traced signal: a vector declared `wire` carries its
// range (gpu.sm0.active_warps[31:0]); one declared `integer` (the signed
// probes) does not (gpu.sm0.issued_warp), in a VCD and in an FST alike.
std::string gtkwave_name(const SavedSignal& s);
// The translate filter file of enum `name` beside the save file.
std::string filter_path(const std::string& gtkw_path, const std::string& enum_name);
// GTKWave's zoom level that shows `span_ps` in `pixels`: GTKWave draws
// 2^-zoom / 200 time units per pixel (measured, docs/waveforms.md).
double gtkwave_zoom(uint64_t span_ps, unsigned pixels);

// Writes the save file and its filter files; throws InputError naming --vcd
// when a file cannot be written.
void write_save_file(const SaveFile& file);

}  // namespace smshare
