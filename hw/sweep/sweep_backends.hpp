// Where a sweep's runs execute. Both backends run each run as
// `smshare sweep-run RUN_DIR` (the same build, the same code path), so a
// run's report does not depend on where it ran.
//   local: N processes at a time on this machine, with a progress display.
//   slurm: one Slurm job array (sbatch --array), one task per run.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace smshare {

struct PendingRun {
  std::string dir;   // the run's folder (absolute)
  std::string what;  // its axis values, for progress and errors
};

// Runs every pending run, `jobs` at a time; returns how many failed.
size_t run_local(const std::vector<PendingRun>& runs, const std::string& smshare, unsigned jobs,
                 const std::string& sweep_name, std::ostream& progress_out, bool terminal);

struct SlurmOptions {
  std::string partition, time, mem;  // passed to sbatch when given
  unsigned max_parallel = 0;         // --array=...%N; 0: Slurm's own limit
};

// Submits one job array and returns its job id; each task asks for
// `cpus_per_task` CPUs (the spec's host_threads). The submission's files
// (array.sh, tasks.txt, job_id and the tasks' slurm-*.out) go to
// `submission_dir`. Throws InputError if sbatch is missing or refuses.
std::string submit_slurm(const std::vector<PendingRun>& runs, const std::string& smshare,
                         const std::string& sweep_name, const std::string& submission_dir,
                         const SlurmOptions& options, unsigned cpus_per_task);

// True while `job_id` is queued or running (squeue lists it).
bool slurm_job_active(const std::string& job_id);

// The run folders of the output folder's Slurm submissions (<out>/slurm/*/)
// whose job is still queued or running, by job id: a sweep run again
// meanwhile must not start them a second time. Empty where Slurm's squeue
// is not installed (the submissions were made elsewhere).
std::vector<std::pair<std::string, std::vector<std::string>>> runs_in_active_slurm_jobs(const std::string& out_dir);

}  // namespace smshare
