// One simulation run, from inputs to the JSON report. SystemC elaborates one
// simulation per process, so a process calls run_simulation() once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/common/parallel_ticks.hpp"
#include "hw/common/waveform.hpp"
#include "hw/frontend/kernel.hpp"
#include "hw/sharing/registry.hpp"

namespace smshare {

struct RunRequest {
  std::string config = "fermi-gtx480";      // name under configs/gpu or a path
  std::string kernel;                       // name under configs/kernels or a path; empty: synthetic
  std::string trace;                        // Accel-Sim kernelslist.g (instead of kernel)
  std::string mechanism = kDefaultMechanism;
  std::string sharing;                      // --sharing P (shorthand for --set <family>.sharing=P); empty: not given
  std::string scheduler;                    // empty: the config's sm.scheduler
  std::vector<std::string> overrides;       // --set key=value (gpu, frontend, power and mechanism keys)
  ResourceOverrides resources;              // --ctas, --threads-per-cta, ...
  std::optional<uint64_t> seed;
  std::string vcd_path;                     // empty: no waveform (.vcd, or .fst for GTKWave's compressed format)
  std::vector<uint32_t> vcd_sms;            // --vcd-sms: SMs traced; empty: all
  std::optional<std::pair<uint64_t, uint64_t>> vcd_window;  // --vcd-window FROM:TO (cycles, inclusive)
  bool list_modules = false;                // --list-modules: print the module hierarchy instead of running
  bool progress = false;                    // a progress line on stderr while simulating (the CLI: stderr is
                                            // a terminal and no --quiet); never changes the report
  unsigned host_threads = 1;                // --host-threads: SMs ticked on this many host threads; never
                                            // changes the report (but its host.threads)
  PaceMode host_threads_pace = PaceMode::Measured;  // threads or one after another, per cycle with two
                                            // units due (host_threads_pace_from_environment)
  bool run_ahead = true;                    // SMs ticked ahead where the report cannot change; never
                                            // changes the report (run_ahead_from_environment)
};

struct GpuSpec;
class KernelSource;

// How to simulate a kernel that is already built (testbenches use this with
// scripted kernels; run_simulation() with profiles and traces).
struct SimulateOptions {
  MechanismChoice mechanism;                // name, --set <family>.*, --sharing (validated by the registry)
  std::string kernel_origin = "<kernel>";   // named in errors and in the report
  uint64_t seed = 0;
  WaveformOptions waveform;                 // path empty: no waveform (cycle_ps is set from the GPU)
  std::string power_node = "40nm";
  // Parameters echoed into the report; the mechanism's settings are added to them.
  std::vector<std::pair<std::string, std::string>> effective;
  bool progress = false;                    // RunRequest::progress
  unsigned host_threads = 1;                // RunRequest::host_threads
  PaceMode host_threads_pace = PaceMode::Measured;  // RunRequest::host_threads_pace
  bool run_ahead = true;                    // RunRequest::run_ahead
};

// SMSHARE_HOST_THREADS_ALWAYS=1 (0 or unset: no): with --host-threads, every
// cycle with SMs of two units due is ticked on the threads, however slow on
// this host (the tests of the threads' result, the bench's efficiency);
// otherwise a run ticks on the threads only while that is faster.
// `alternate`: the threads and one SM after another (with run-ahead's
// windows) take turns every 256 such cycles (the tests of the two mixed).
// Any other value is bad input (InputError naming the variable).
PaceMode host_threads_pace_from_environment();
// SMSHARE_RUN_AHEAD=0 (1 or unset: yes): every SM is ticked one cycle at a
// time, never several cycles ahead of the others (the
// tests that run-ahead leaves every report as it is; the bench's
// comparison). Any other value is bad input (InputError naming the variable).
bool run_ahead_from_environment();
nlohmann::json simulate(const GpuSpec& spec, KernelSource& kernel, const SimulateOptions& options);
// A stream of kernels run one after another (a trace's kernel list).
nlohmann::json simulate(const GpuSpec& spec, const std::vector<KernelSource*>& kernels,
                        const SimulateOptions& options);

// Runs the simulation and returns the report. Throws InputError on bad
// input; a detected deadlock is reported in the JSON ("deadlock").
nlohmann::json run_simulation(const RunRequest& request);

// The SystemC hierarchy of the run `request` describes (--list-modules), as
// describe_hierarchy() prints it: the run is prepared and checked as
// run_simulation() does and the GPU elaborated, but nothing is simulated.
std::string module_hierarchy(const RunRequest& request);

// Occupancy without simulating (for `smshare occupancy`).
nlohmann::json occupancy_report(const RunRequest& request);

// Area of the structures `request.mechanism` adds (for `smshare area`).
nlohmann::json area_report_for(const RunRequest& request);

// Storage the mechanism adds by its storage formula (e.g. Jatala Sec. V), per SM and for the GPU (for
// `smshare hw-cost`).
nlohmann::json hw_cost_report(const RunRequest& request);

// Everything that determines the result of the run `request` describes,
// without running it: every effective configuration key, the mechanism and
// its settings, the workload's file contents (SHA-256 of the profile, or of
// each kernel trace), what-if resources and seed. Paths are left out, so the
// same inputs at another place give the same identity. Checks the request
// as `run` does (throws InputError). A sweep names its runs by it.
nlohmann::json run_identity(const RunRequest& request);

// The report without host-dependent fields, for determinism checks.
nlohmann::json strip_host_fields(nlohmann::json report);

}  // namespace smshare
