// The progress line of a long `smshare run` on a terminal: what the
// simulation has done (simulated cycles; warp instructions and their share
// of the run's total when the workload knows it; kernel k of n in a trace's
// stream), how fast (warp instructions per host second) and for how long,
// redrawn in place with '\r' at most four times a second.
//
// Plain C++: the GPU's clock offers it a sample every few hundred simulated
// cycles (GpuModule::observe_every), it reads the host clock and decides
// whether to redraw. The host clock is injected so tests control time. It
// only writes to its own stream (stderr): never to the report or stdout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

namespace smshare {

// What the simulation has done so far.
struct ProgressSample {
  uint64_t cycles = 0;             // simulated GPU cycles
  uint64_t warp_instructions = 0;  // issued so far, every kernel of the run
  // The run's total (every kernel's), when each kernel knows its own ahead
  // (KernelSource::total_warp_instructions).
  std::optional<uint64_t> total_warp_instructions;
  size_t kernel = 1;   // the kernel running, 1-based ...
  size_t kernels = 1;  // ... of the stream's kernels
};

class ProgressLine {
 public:
  // Host seconds on a steady (monotonic) clock.
  using HostClock = std::function<double()>;
  static double steady_seconds();
  // At most four redraws a second: readable, and costs the run nothing.
  static constexpr double kRedrawSeconds = 0.25;

  // Draws on `out`; elapsed time counts from construction.
  explicit ProgressLine(std::ostream& out, HostClock clock = &ProgressLine::steady_seconds);
  // A line still open (the run ended by an exception, not finish()) gets
  // its newline, so the error message starts a line of its own.
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Whether a redraw is due: kRedrawSeconds since the last one, or since
  // the start (so a run shorter than that draws nothing). One clock read.
  bool due();
  // Redraws the line with `s`, padded to cover a longer previous line.
  void draw(const ProgressSample& s);
  // The run is over: a drawn line is redrawn with the final counts and
  // ended with a newline; if none was drawn, nothing is written.
  void finish(const ProgressSample& s);

  // The line's text, without '\r' or newline, e.g.
  //   kernel 2/3 | 112k cycles | 1.23M/1.98M warp-inst (62.1%) | 1.02M warp-inst/s | 1.2 s, ~0.8 s left
  static std::string format(const ProgressSample& s, double elapsed_seconds);

 private:
  void write(const ProgressSample& s, double now, const char* end);

  std::ostream& out_;
  HostClock clock_;
  double start_;
  double last_draw_;
  size_t width_ = 0;  // of the line on screen; 0: nothing drawn, or the line was ended
};

}  // namespace smshare
