// The output folder of a sweep: one folder per run, named by the run's
// content hash, and the collected table. A run is done when its report.json
// exists; it is written last and atomically (rename), so a sweep killed at
// any moment leaves either a complete run or none. docs/sweeps.md describes
// every file.
//
//   <out>/spec.yaml                  the spec as last run
//   <out>/runs/<hash>/request.json   {"run_args": [...], "columns": {...}, "identity": {...}}
//   <out>/runs/<hash>/report.json    the run's report (exists <=> the run is done)
//   <out>/runs/<hash>/stderr.txt     what the run printed on stderr
//   <out>/runs/<hash>/status.json    {"status", "exit_code", "host_seconds", "backend"}
//   <out>/results.csv, results.json  one row per run of the spec
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/sweep/sweep_spec.hpp"

namespace smshare {

// ok: a report (exit 0); deadlock: a report saying so (exit 3); failed: no
// report, an exit code (tried again on the next invocation); pending: not
// run yet, or still running (a Slurm task).
enum class RunStatus { Ok, Deadlock, Failed, Pending };
const char* to_string(RunStatus status);

// Exit codes of `smshare run` whose report is a result.
inline bool is_result_exit(int exit_code) { return exit_code == 0 || exit_code == 3; }

struct RunRecord {
  RunStatus status = RunStatus::Pending;
  std::optional<int> exit_code;
  std::optional<double> host_seconds;
  std::string backend;
};

class SweepStore {
 public:
  explicit SweepStore(std::string out_dir);

  const std::string& out_dir() const { return out_dir_; }
  std::string run_dir(const std::string& hash) const { return out_dir_ + "/runs/" + hash; }
  bool done(const std::string& hash) const;
  RunRecord record(const std::string& hash) const;

  // Creates the run's folder and (re)writes its request.json.
  void prepare_run(const std::string& hash, const nlohmann::json& request) const;
  // --force: the run's outcome is dropped, so it runs again.
  void forget(const std::string& hash) const;
  void save_spec_copy(const std::string& spec_file) const;

  // results.csv and results.json for the spec's runs (`hashes[i]` is run
  // i's); returns their rows, as results.json holds them.
  nlohmann::json write_results(const SweepSpec& spec, const std::vector<std::string>& hashes,
                     const std::string& build_id) const;

 private:
  std::string out_dir_;
};

// What a backend does with one run folder (`smshare sweep-run DIR`): the
// report goes to report_tmp_path(); finish_run() records the outcome and,
// for a result, publishes the report.
inline std::string report_tmp_path(const std::string& run_dir) { return run_dir + "/report.json.tmp"; }
void finish_run(const std::string& run_dir, int exit_code, double host_seconds, const std::string& backend);

// A report flattened to its scalar fields ("counters.l1.misses" -> 123);
// lists are left out.
std::vector<std::pair<std::string, nlohmann::json>> flatten_scalars(const nlohmann::json& report);

// One CSV field, quoted when it must be (RFC 4180).
std::string csv_field(const std::string& text);

// Reads a JSON file; throws InputError naming it.
nlohmann::json read_json_file(const std::string& path);

}  // namespace smshare
