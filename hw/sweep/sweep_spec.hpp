// A sweep spec: the axes of a design-space experiment (configs, kernels or
// traces, mechanisms, schedulers, --set keys, what-if flags, seeds), their
// zips, exclusions and grids, expanded into the `smshare run` command lines
// of its runs. Plain C++: nothing here simulates; docs/sweeps.md is the
// reference of the YAML schema.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace smshare {

// One run of a sweep: the value of every axis column for it, and the
// arguments of the `smshare run` that performs it.
struct SweepRun {
  std::vector<std::pair<std::string, std::string>> columns;  // in SweepSpec::columns order; absent axes omitted
  std::vector<std::string> run_args;                         // "run", "--config", "kepler", ...
  std::string describe() const;                              // "kernel=hotspot mechanism=baseline"
};

struct SweepSpec {
  std::string file;         // as given: named by every error
  std::string name;         // `name:`, or the file's stem
  std::string description;
  std::vector<std::string> columns;  // axis columns in order of first appearance (plus "grid" with grids:)
  std::vector<SweepRun> runs;        // the expansion, last axis varying fastest
  std::vector<std::string> outputs;  // report fields for the end-of-sweep table
  // `host_threads:` (1 to kMaxHostThreads, default 1): every run ticks its
  // SMs on this many host threads (`--host-threads N` in its run_args when
  // above 1), and a Slurm task asks for as many CPUs. Not an axis: a report
  // is the same for every N, so N names no run (run identities leave it out).
  unsigned host_threads = 1;
  YAML::Node plot;                   // `plot:` as written: scripts/plot_sweep.py validates and draws it
};

// Reads, validates and expands a spec. Relative config, kernel and trace
// paths are resolved against the spec's folder (names stay names). Throws
// InputError naming the file and the key.
SweepSpec load_sweep_spec(const std::string& path);

// The axis names a spec may use besides bundle axes, for errors and docs.
const std::vector<std::string>& sweep_axis_names();

}  // namespace smshare
