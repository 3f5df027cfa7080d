// Waveform probes: what a structure's module registers to be traced, and the
// writer that samples them once per simulated cycle into a VCD (or FST)
// file with one scope per module (gpu.sm3.bank_arbitrator.grants).
//
// Plain C++ (no SystemC), so every module, in hw/sm, hw/mem or a mechanism's
// folder, can register probes and unit tests can drive the writer directly.
// Probes are plain integer variables owned by the structure; nothing is
// written, and nothing costs anything, unless a run asked for a waveform.
//
// Beside the wave file FILE.vcd (or FILE.fst) close() writes FILE.gtkw, a
// GTKWave save file that opens zoomed to the traced interval, with the
// probes grouped per scope (per SM, per module) and each enum-valued probe
// shown through its translate filter FILE.<enum>.filter.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace smshare {

// Names of an enum-valued probe's values (stall reason, lock owner, ...):
// GTKWave shows the names through a translate filter the save file applies.
struct WaveEnum {
  std::string name;                                  // filter name, e.g. "stall_reason"
  std::vector<std::pair<int64_t, std::string>> values;
};

// What a run asked to trace.
struct WaveformOptions {
  std::string path;                                  // FILE.vcd or FILE.fst (no suffix: FILE.vcd)
  std::vector<uint32_t> sms;                         // SMs whose probes are traced; empty: all
  std::optional<std::pair<uint64_t, uint64_t>> window;  // [from, to] cycles, inclusive; empty: whole run
  uint64_t cycle_ps = 1;                             // core clock period: VCD time of cycle c is c * cycle_ps
};

class Waveform {
 public:
  // Opens the wave file (for FST, a temporary VCD beside it, and checks that
  // vcd2fst is installed): InputError naming --vcd when it cannot.
  explicit Waveform(WaveformOptions options);
  ~Waveform();
  Waveform(const Waveform&) = delete;
  Waveform& operator=(const Waveform&) = delete;

  // Registers a probe. `path` is the module's hierarchical name plus the
  // probe's (gpu.sm0.scheduler0.issued_warp); the part before the last dot
  // is the scope. `bits` is the VCD width; signed values are written in
  // two's complement at that width and shown as signed decimal. `names`
  // (copied) gives an enum-valued probe its translate filter.
  // Call before the first sample().
  void add(const std::string& path, const int32_t& value, unsigned bits = 32, const WaveEnum* names = nullptr);
  void add(const std::string& path, const uint32_t& value, unsigned bits = 32, const WaveEnum* names = nullptr);
  void add(const std::string& path, const uint64_t& value, unsigned bits = 64, const WaveEnum* names = nullptr);
  // Any other type would bind a temporary copy (a uint16_t to the uint32_t
  // overload) and trace that: keep the probe in one of the types above.
  template <typename T>
  void add(const std::string& path, const T& value, unsigned bits = 32, const WaveEnum* names = nullptr) = delete;

  // Is SM `sm` selected (--vcd-sms)? Modules of unselected SMs add nothing.
  bool traces_sm(uint32_t sm) const;
  // First and last cycle that will be written (the window, or 0..max).
  uint64_t first_cycle() const;
  uint64_t last_cycle() const;

  // Writes the values that changed in `cycle` (nothing outside the window);
  // the first sampled cycle of the window writes every value ($dumpvars).
  void sample(uint64_t cycle);
  // Finishes the file (FST: converts with vcd2fst) and writes the GTKWave
  // save file FILE.gtkw beside it. Called once, after the simulation;
  // `end_cycle` is the cycle after the last simulated one (the report's
  // cycles): the dump ends at the end of the window's last cycle or there.
  void close(uint64_t end_cycle);

  // The wave file (FILE.vcd or FILE.fst) and its save file (FILE.gtkw).
  const std::string& wave_path() const;
  std::string save_file_path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace smshare
