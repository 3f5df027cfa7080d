#include "hw/power/cacti_results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include <nlohmann/json.hpp>

#include "hw/common/error.hpp"

namespace smshare {

namespace fs = std::filesystem;

uint32_t CactiEntry::accesses_per_access() const {
  const uint32_t block_bits = block_bytes * 8;
  if (block_bits == 0 || access_bits <= block_bits) return 1;
  return (access_bits + block_bits - 1) / block_bits;
}


std::vector<std::string> CactiResults::names() const {
  std::vector<std::string> v;
  for (const auto& kv : structures) v.push_back(kv.first);
  return v;
}

const CactiEntry& CactiResults::at(const std::string& structure) const {
  auto it = structures.find(structure);
  if (it == structures.end())
    throw input_error(file, structure, "no CACTI result for this structure (known: " + join(names()) + ")");
  return it->second;
}

std::string cacti_params_root() {
  if (const char* env = std::getenv("SMSHARE_CACTI_PARAMS"); env && *env) return env;
  return std::string(SMSHARE_SOURCE_DIR) + "/cacti-params";
}

std::vector<std::string> known_cacti_nodes() {
  std::vector<std::string> nodes;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(cacti_params_root(), ec))
    if (d.is_directory() && fs::exists(d.path() / "results.json")) nodes.push_back(d.path().filename().string());
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::string cacti_results_path(const std::string& node) {
  const fs::path p = fs::path(cacti_params_root()) / node / "results.json";
  if (node.empty() || node.find('/') != std::string::npos || !fs::exists(p))
    throw input_error(cacti_params_root(), "node",
                      "'" + node + "' has no results.json (allowed: " + join(known_cacti_nodes()) + ")");
  return p.string();
}

namespace {

double number(const nlohmann::json& o, const std::string& file, const std::string& where, const char* key) {
  auto it = o.find(key);
  if (it == o.end()) throw input_error(file, where + "." + key, "missing");
  if (!it->is_number()) throw input_error(file, where + "." + key, "must be a number, got " + it->dump());
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0) throw input_error(file, where + "." + key, "must be finite and >= 0, got " + it->dump());
  return v;
}

}  // namespace

CactiResults load_cacti_results_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw input_error(path, "", "cannot open CACTI results (run scripts/cacti/cacti_cache.py refresh)");
  nlohmann::json doc;
  try {
    in >> doc;
  } catch (const nlohmann::json::exception& e) {
    throw input_error(path, "", std::string("not valid JSON: ") + e.what());
  }
  CactiResults r;
  r.file = path;
  if (!doc.is_object() || !doc.contains("structures") || !doc["structures"].is_object())
    throw input_error(path, "structures", "missing or not an object");
  r.node = doc.value("node", "");
  r.cacti = doc.value("cacti", "");
  if (doc.contains("wire") && doc["wire"].is_object() && !doc["wire"].empty()) {
    const auto& w = doc["wire"];
    r.wire.repeated_delay_ns_per_mm = number(w, path, "wire", "repeated_delay_ns_per_mm");
    r.wire.repeated_energy_nj_per_mm = number(w, path, "wire", "repeated_energy_nj_per_mm");
    r.wire.repeated_leakage_mw_per_mm = number(w, path, "wire", "repeated_leakage_mw_per_mm");
    r.wire.lowswing_delay_ns_1mm = number(w, path, "wire", "lowswing_delay_ns_1mm");
    r.wire.lowswing_energy_nj_1mm = number(w, path, "wire", "lowswing_energy_nj_1mm");
  }
  for (const auto& [name, o] : doc["structures"].items()) {
    const std::string where = "structures." + name;
    if (!o.is_object()) throw input_error(path, where, "must be an object");
    CactiEntry e;
    e.structure = name;
    e.cfg_sha256 = o.value("cfg_sha256", "");
    if (e.cfg_sha256.size() != 64) throw input_error(path, where + ".cfg_sha256", "missing or not a sha256");
    e.area_mm2 = number(o, path, where, "area_mm2");
    e.read_energy_nj = number(o, path, where, "read_energy_nj");
    e.write_energy_nj = number(o, path, where, "write_energy_nj");
    if (o.contains("search_energy_nj")) e.search_energy_nj = number(o, path, where, "search_energy_nj");
    e.leakage_mw = number(o, path, where, "leakage_mw");
    e.access_time_ns = number(o, path, where, "access_time_ns");
    e.cycle_time_ns = number(o, path, where, "cycle_time_ns");
    e.capacity_bytes = static_cast<uint64_t>(number(o, path, where, "capacity_bytes"));
    e.block_bytes = static_cast<uint32_t>(number(o, path, where, "block_bytes"));
    e.access_bits = static_cast<uint32_t>(number(o, path, where, "access_bits"));
    e.reference_bits = static_cast<uint64_t>(number(o, path, where, "reference_bits"));
    if (e.capacity_bytes == 0) throw input_error(path, where + ".capacity_bytes", "must be > 0");
    if (e.block_bytes == 0) throw input_error(path, where + ".block_bytes", "must be > 0");
    r.structures.emplace(name, e);
  }
  return r;
}

const CactiResults& cacti_results(const std::string& node) {
  static std::mutex mu;
  static std::map<std::string, CactiResults> loaded;
  std::lock_guard<std::mutex> lock(mu);
  const std::string path = cacti_results_path(node);
  auto it = loaded.find(path);
  if (it == loaded.end()) it = loaded.emplace(path, load_cacti_results_file(path)).first;
  return it->second;
}

}  // namespace smshare
