#include "hw/sweep/sweep_store.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "hw/common/atomic_file.hpp"
#include "hw/common/error.hpp"

namespace smshare {

namespace fs = std::filesystem;

const char* to_string(RunStatus status) {
  switch (status) {
    case RunStatus::Ok: return "ok";
    case RunStatus::Deadlock: return "deadlock";
    case RunStatus::Failed: return "failed";
    case RunStatus::Pending: return "pending";
  }
  return "?";
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot be read: " + std::strerror(errno));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": not valid JSON: " + e.what());
  }
}

SweepStore::SweepStore(std::string out_dir) : out_dir_(std::move(out_dir)) {
  std::error_code ec;
  fs::create_directories(out_dir_ + "/runs", ec);
  if (ec) throw InputError("--out " + out_dir_ + ": cannot create the folder: " + ec.message());
}

bool SweepStore::done(const std::string& hash) const { return fs::exists(run_dir(hash) + "/report.json"); }

RunRecord SweepStore::record(const std::string& hash) const {
  RunRecord r;
  const std::string status_path = run_dir(hash) + "/status.json";
  if (fs::exists(status_path)) {
    const nlohmann::json s = read_json_file(status_path);
    r.exit_code = s.value("exit_code", -1);
    r.host_seconds = s.value("host_seconds", 0.0);
    r.backend = s.value("backend", "");
  }
  if (done(hash)) r.status = r.exit_code == 3 ? RunStatus::Deadlock : RunStatus::Ok;
  else if (r.exit_code) r.status = RunStatus::Failed;
  return r;
}

void SweepStore::prepare_run(const std::string& hash, const nlohmann::json& request) const {
  std::error_code ec;
  fs::create_directories(run_dir(hash), ec);
  if (ec) throw InputError(run_dir(hash) + ": cannot create the folder: " + ec.message());
  write_file_atomically(run_dir(hash) + "/request.json", request.dump(2) + "\n");
}

void SweepStore::forget(const std::string& hash) const {
  for (const char* f : {"/report.json", "/status.json", "/stderr.txt"}) fs::remove(run_dir(hash) + f);
}

void SweepStore::save_spec_copy(const std::string& spec_file) const {
  std::ifstream in(spec_file);
  std::stringstream text;
  text << in.rdbuf();
  write_file_atomically(out_dir_ + "/spec.yaml", text.str());
}

void finish_run(const std::string& run_dir, int exit_code, double host_seconds, const std::string& backend) {
  const bool result = is_result_exit(exit_code) && fs::exists(report_tmp_path(run_dir));
  const char* status = result ? (exit_code == 3 ? "deadlock" : "ok") : "failed";
  const nlohmann::json s = {
      {"status", status}, {"exit_code", exit_code}, {"host_seconds", host_seconds}, {"backend", backend}};
  write_file_atomically(run_dir + "/status.json", s.dump(2) + "\n");
  // The report is published last: its presence is what "done" means.
  std::error_code ec;
  if (result) fs::rename(report_tmp_path(run_dir), run_dir + "/report.json", ec);
  else fs::remove(report_tmp_path(run_dir), ec);
}

namespace {

void flatten_into(const nlohmann::json& j, const std::string& prefix,
                  std::vector<std::pair<std::string, nlohmann::json>>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten_into(v, prefix.empty() ? k : prefix + "." + k, out);
  } else if (!j.is_array() && !j.is_null()) {
    out.emplace_back(prefix, j);
  }
}

std::string csv_value(const nlohmann::json& v) {
  if (v.is_string()) return csv_field(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return v.dump();
}

}  // namespace

std::vector<std::pair<std::string, nlohmann::json>> flatten_scalars(const nlohmann::json& report) {
  std::vector<std::pair<std::string, nlohmann::json>> out;
  flatten_into(report, "", out);
  return out;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string q = "\"";
  for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

nlohmann::json SweepStore::write_results(const SweepSpec& spec, const std::vector<std::string>& hashes,
                               const std::string& build_id) const {
  // Axis columns first (an axis value wins over a report field of the same
  // name: the spec's text, e.g. "0.9", is what plots group by), then every
  // report field, sorted.
  std::vector<std::string> columns = {"sweep", "hash", "status", "exit_code"};
  columns.insert(columns.end(), spec.columns.begin(), spec.columns.end());
  const std::set<std::string> fixed(columns.begin(), columns.end());
  std::set<std::string> fields;
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < spec.runs.size(); ++i) {
    const RunRecord rec = record(hashes[i]);
    nlohmann::json row = {{"sweep", spec.name}, {"hash", hashes[i]}, {"status", to_string(rec.status)}};
    if (rec.exit_code) row["exit_code"] = *rec.exit_code;
    for (const auto& [c, v] : spec.runs[i].columns) row[c] = v;
    if (done(hashes[i]))
      for (auto& [k, v] : flatten_scalars(read_json_file(run_dir(hashes[i]) + "/report.json")))
        if (!fixed.count(k)) {
          fields.insert(k);
          row[k] = std::move(v);
        }
    rows.push_back(std::move(row));
  }
  columns.insert(columns.end(), fields.begin(), fields.end());

  std::string csv;
  for (size_t c = 0; c < columns.size(); ++c) csv += (c ? "," : "") + csv_field(columns[c]);
  csv += "\n";
  for (const auto& row : rows) {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c) csv += ",";
      if (row.contains(columns[c])) csv += csv_value(row[columns[c]]);
    }
    csv += "\n";
  }
  write_file_atomically(out_dir_ + "/results.csv", csv);
  const nlohmann::json results = {{"sweep", spec.name}, {"spec", spec.file},    {"build", build_id},
                                  {"columns", columns},  {"outputs", spec.outputs}, {"rows", rows}};
  write_file_atomically(out_dir_ + "/results.json", results.dump(1) + "\n");
  return rows;
}

}  // namespace smshare
