// The cached CACTI results of one technology node: cacti-params/<node>/results.json,
// written by scripts/cacti/cacti_cache.py (one entry per cfg, keyed by structure,
// with the cfg's sha256). A simulation reads this file and never runs CACTI.
// Plain C++, no SystemC.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace smshare {

// One CACTI run, as parsed from its output (units as CACTI prints them).
struct CactiEntry {
  std::string structure;       // key, also the cfg's file name without .cfg
  std::string cfg_sha256;
  double area_mm2 = 0;         // bounding box (height x width), data + tag arrays
  double read_energy_nj = 0;   // dynamic energy per CACTI access (one block)
  double write_energy_nj = 0;
  double search_energy_nj = 0; // CAM search per access; fully associative arrays only (else 0)
  double leakage_mw = 0;       // subthreshold + gate leakage of the array
  double access_time_ns = 0;
  double cycle_time_ns = 0;
  uint64_t capacity_bytes = 0; // what the cfg models (may be padded, see the cfg)
  uint32_t block_bytes = 0;    // CACTI's block (row output) width
  uint32_t access_bits = 0;    // bits one counted access of the structure moves
  uint64_t reference_bits = 0; // the structure's size in the papers' Fermi config

  uint64_t cfg_bits() const { return capacity_bytes * 8; }
  // CACTI accesses per counted access: a cfg with a block narrower than the
  // structure's access (to get enough rows for CACTI) needs several.
  uint32_t accesses_per_access() const;
};

// CACTI's wire models at the node (from the same runs): repeated global wires
// (delay-optimal) and a 1 mm low-swing wire.
struct CactiWires {
  double repeated_delay_ns_per_mm = 0;
  double repeated_energy_nj_per_mm = 0;
  double repeated_leakage_mw_per_mm = 0;
  double lowswing_delay_ns_1mm = 0;
  double lowswing_energy_nj_1mm = 0;
};

struct CactiResults {
  std::string node;   // "40nm"
  std::string file;   // where it was read from
  std::string cacti;  // CACTI version string
  CactiWires wire;
  std::map<std::string, CactiEntry> structures;

  // Throws InputError naming the file and listing the known structures.
  const CactiEntry& at(const std::string& structure) const;
  std::vector<std::string> names() const;
};

// <SMSHARE_SOURCE_DIR>/cacti-params, or $SMSHARE_CACTI_PARAMS when set.
std::string cacti_params_root();
// Nodes with a results.json under cacti_params_root(), sorted.
std::vector<std::string> known_cacti_nodes();
// cacti_params_root()/<node>/results.json; unknown node -> InputError listing the known ones.
std::string cacti_results_path(const std::string& node);

// Reads and validates a results file; every problem is an InputError
// "<file>: key 'structures.<name>.<field>': ...".
CactiResults load_cacti_results_file(const std::string& path);
// load_cacti_results_file(cacti_results_path(node)), read once per node and kept.
const CactiResults& cacti_results(const std::string& node);

}  // namespace smshare
