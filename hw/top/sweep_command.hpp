// `smshare sweep`: expands a spec into runs, names each by the hash of
// everything that determines its result, runs the ones not done yet on a
// backend, and collects every report into one table (docs/sweeps.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "hw/sweep/sweep_backends.hpp"
#include "hw/top/simulation.hpp"

namespace smshare {

struct SweepOptions {
  std::string spec_file;
  std::string out_dir;             // empty: out/sweeps/<spec name>
  std::string backend = "local";   // local | slurm
  unsigned jobs = 0;               // local: runs at a time (0: the core count)
  bool force = false;              // run again even the runs that are done
  bool collect_only = false;       // run nothing: gather what has finished
  bool wait = true;                // slurm: wait for the job array, then collect
  SlurmOptions slurm;
  std::string build_id;            // identity of this build (part of every run's hash)
  bool terminal = false;           // stderr is a terminal: progress redrawn in place
};

// How `smshare run` reads its arguments: the sweep checks and identifies each
// run through the very parser that `sweep-run` will run it with.
using RunArgsParser = std::function<RunRequest(const std::vector<std::string>& run_args)>;

// Returns the exit status: 0 every run done, 1 a run failed (or input error).
int run_sweep(const SweepOptions& options, const RunArgsParser& parse);

}  // namespace smshare
