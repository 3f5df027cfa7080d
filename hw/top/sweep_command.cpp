#include "hw/top/sweep_command.hpp"

#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "hw/common/error.hpp"
#include "hw/common/sha256.hpp"
#include "hw/sweep/process.hpp"
#include "hw/sweep/sweep_progress.hpp"
#include "hw/sweep/sweep_spec.hpp"
#include "hw/sweep/sweep_store.hpp"

namespace smshare {

namespace fs = std::filesystem;

namespace {

// Hex digits of the run hash that name its folder: 64 bits, so a collision
// among a sweep's runs is out of reach for any grid that can be run.
constexpr size_t kHashDigits = 16;

struct Identified {
  std::vector<std::string> hashes;  // run i's hash
  std::vector<PendingRun> pending;  // runs not done, each once
};

Identified identify(const SweepSpec& spec, const SweepStore& store, const RunArgsParser& parse,
                    const SweepOptions& options) {
  Identified result;
  std::set<std::string> queued;
  for (size_t i = 0; i < spec.runs.size(); ++i) {
    const SweepRun& run = spec.runs[i];
    nlohmann::json identity;
    try {
      identity = run_identity(parse(run.run_args));
    } catch (const InputError& e) {
      throw InputError(spec.file + ": run " + std::to_string(i + 1) + " (" + run.describe() + "): " + e.what());
    }
    identity["smshare_build"] = options.build_id;
    const std::string hash = sha256_hex(identity.dump()).substr(0, kHashDigits);
    result.hashes.push_back(hash);
    if (!queued.insert(hash).second) continue;  // two rows, one run (e.g. equal settings)
    nlohmann::json columns = nlohmann::json::object();
    for (const auto& [c, v] : run.columns) columns[c] = v;
    store.prepare_run(hash, {{"run_args", run.run_args}, {"columns", columns}, {"identity", identity}});
    if (options.force && !options.collect_only) store.forget(hash);
    if (!store.done(hash)) result.pending.push_back({fs::absolute(store.run_dir(hash)).string(), run.describe()});
  }
  return result;
}

// One sweep at a time per output folder: two would run the same runs twice.
class FolderLock {
 public:
  explicit FolderLock(const std::string& dir) {
    const std::string path = dir + "/.sweep.lock";
    fd_ = open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ < 0 || flock(fd_, LOCK_EX | LOCK_NB) != 0)
      throw InputError("--out " + dir + ": another smshare sweep is running in this folder (" + path + ")");
  }
  ~FolderLock() { close(fd_); }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

std::string field_text(const nlohmann::json& row, const std::string& key) {
  if (!row.contains(key)) return "-";
  const auto& v = row[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", v.get<double>());
    return text;
  }
  return v.dump();
}

// The end-of-sweep table: the axes that vary, then the spec's outputs.
void print_table(const SweepSpec& spec, const nlohmann::json& rows) {
  std::vector<std::string> columns;
  for (const auto& c : spec.columns) {
    std::set<std::string> values;
    for (const auto& row : rows) values.insert(field_text(row, c));
    if (values.size() > 1) columns.push_back(c);
  }
  columns.push_back("status");
  columns.insert(columns.end(), spec.outputs.begin(), spec.outputs.end());
  std::vector<size_t> width;
  for (const auto& c : columns) {
    size_t w = c.size();
    for (const auto& row : rows) w = std::max(w, field_text(row, c).size());
    width.push_back(w);
  }
  const auto print_row = [&](const std::function<std::string(size_t)>& cell) {
    std::string line;
    for (size_t c = 0; c < columns.size(); ++c) {
      const std::string text = cell(c);
      line += text + std::string(width[c] - text.size() + 2, ' ');
    }
    std::cout << line.substr(0, line.find_last_not_of(' ') + 1) << "\n";
  };
  print_row([&](size_t c) { return columns[c]; });
  for (const auto& row : rows) print_row([&](size_t c) { return field_text(row, columns[c]); });
}

// Prints the outcome of the collected `rows` and returns the exit status.
int report_outcome(const SweepSpec& spec, const SweepStore& store, const nlohmann::json& rows, size_t already_done) {
  std::map<std::string, size_t> count;
  for (const auto& row : rows) ++count[row["status"].get<std::string>()];
  constexpr size_t kLongestTable = 60;
  if (rows.size() <= kLongestTable) print_table(spec, rows);
  for (const auto& row : rows)
    if (row["status"] == "failed")
      std::cout << "failed: " << row["hash"].get<std::string>() << " (exit " << field_text(row, "exit_code")
                << "): see " << store.run_dir(row["hash"]) << "/stderr.txt\n";
  std::cout << "sweep " << spec.name << ": " << rows.size() << " runs: " << count["ok"] << " ok";
  if (count["deadlock"]) std::cout << ", " << count["deadlock"] << " deadlocked";
  if (count["failed"]) std::cout << ", " << count["failed"] << " failed (tried again on the next invocation)";
  if (count["pending"]) std::cout << ", " << count["pending"] << " pending";
  std::cout << "; " << already_done << " were already done\n"
            << "results: " << store.out_dir() << "/results.csv (and results.json)\n";
  if (spec.plot) std::cout << "plots: python3 " SMSHARE_SOURCE_DIR "/scripts/plot_sweep.py " << store.out_dir() << "\n";
  return count["failed"] ? 1 : 0;
}

std::string next_submission_dir(const SweepStore& store) {
  for (unsigned n = 1;; ++n) {
    const std::string dir = store.out_dir() + "/slurm/" + std::to_string(n);
    if (!fs::exists(dir)) return dir;
  }
}

}  // namespace

int run_sweep(const SweepOptions& options, const RunArgsParser& parse) {
  const SweepSpec spec = load_sweep_spec(options.spec_file);
  const SweepStore store(options.out_dir.empty() ? "out/sweeps/" + spec.name : options.out_dir);
  std::optional<FolderLock> lock;
  if (!options.collect_only) lock.emplace(store.out_dir());
  const Identified runs = identify(spec, store, parse, options);
  store.save_spec_copy(spec.file);
  const size_t distinct_runs = std::set<std::string>(runs.hashes.begin(), runs.hashes.end()).size();
  const size_t already_done = distinct_runs - runs.pending.size();

  std::vector<PendingRun> to_run = runs.pending;
  if (!options.collect_only && !to_run.empty()) {
    // Runs queued by an earlier `--backend slurm` that is still in the queue.
    for (const auto& [job, dirs] : runs_in_active_slurm_jobs(store.out_dir())) {
      const size_t before = to_run.size();
      to_run.erase(std::remove_if(to_run.begin(), to_run.end(),
                                  [&queued = dirs](const PendingRun& r) {
                                    return std::find(queued.begin(), queued.end(), r.dir) != queued.end();
                                  }),
                   to_run.end());
      if (to_run.size() != before)
        std::cerr << "sweep " << spec.name << ": " << before - to_run.size() << " runs are queued or running in Slurm "
                  << "job " << job << ": not started again (--collect gathers them when it ends)\n";
    }
  }
  if (!options.collect_only && !to_run.empty()) {
    std::cerr << "sweep " << spec.name << ": " << spec.runs.size() << " runs, " << already_done
              << " already done, " << to_run.size() << " to run (" << options.backend << ") -> "
              << store.out_dir() << "\n";
    const std::string smshare = self_executable();
    if (options.backend == "local") {
      // By default as many runs at a time as their host threads fit the cores.
      const unsigned jobs =
          options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency() / spec.host_threads);
      run_local(to_run, smshare, jobs, spec.name, std::cerr, options.terminal);
    } else {
      const std::string submission = fs::absolute(next_submission_dir(store)).string();
      const std::string job = submit_slurm(to_run, smshare, spec.name, submission, options.slurm, spec.host_threads);
      std::cerr << "sweep " << spec.name << ": submitted Slurm job array " << job << " (" << to_run.size()
                << " tasks; files in " << submission << ")\n";
      if (!options.wait) {
        store.write_results(spec, runs.hashes, options.build_id);
        std::cout << "submitted job " << job << "; when it has run: smshare sweep " << spec.file << " --out "
                  << store.out_dir() << " --collect\n";
        return 0;
      }
      SweepProgress progress(std::cerr, options.terminal, spec.name, to_run.size());
      const auto t0 = std::chrono::steady_clock::now();
      const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
      std::set<std::string> seen;  // tasks whose outcome was shown
      const auto show_finished = [&] {
        for (const PendingRun& r : to_run)
          if (!seen.count(r.dir) && fs::exists(r.dir + "/status.json")) {
            seen.insert(r.dir);
            const nlohmann::json s = read_json_file(r.dir + "/status.json");
            progress.finished(s.value("status", "failed"), r.what, s.value("host_seconds", 0.0), elapsed(), 0);
          }
      };
      while (slurm_job_active(job)) {
        show_finished();
        progress.tick(elapsed(), 0);
        std::this_thread::sleep_for(std::chrono::seconds(2));
      }
      show_finished();
      progress.close(elapsed());
    }
  }
  return report_outcome(spec, store, store.write_results(spec, runs.hashes, options.build_id), already_done);
}

}  // namespace smshare
