#include "hw/frontend/kernel_profile.hpp"

#include "hw/common/yaml_file.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "hw/common/error.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/params.hpp"

namespace smshare {

const char* mix_key(MixClass c) {
  static const char* const keys[kNumMixClasses] = {"int_alu",     "fp_alu",      "sfu",         "global_load",
                                                   "global_store", "shared_load", "shared_store"};
  return keys[static_cast<unsigned>(c)];
}

OpClass to_op_class(MixClass c) {
  static const OpClass ops[kNumMixClasses] = {OpClass::IntAlu,      OpClass::FpAlu,      OpClass::Sfu,
                                              OpClass::GlobalLoad,  OpClass::GlobalStore, OpClass::SharedLoad,
                                              OpClass::SharedStore};
  return ops[static_cast<unsigned>(c)];
}

namespace {

// GPU configurations the papers' printed occupancies refer to. A
// `paper.ctas_per_sm` or `paper.ipc` key must be one of these or a shipped configs/gpu name.
const std::vector<std::string> kPaperGpus = {"fermi-gtx480", "jatala-fermi"};
const std::vector<std::string> kRangeKeys = {"registers", "scratchpad", "threads"};


uint64_t as_uint(const YAML::Node& n, const std::string& file, const std::string& key, uint64_t lo,
                 uint64_t hi) {
  const std::string allowed = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!n.IsScalar()) throw input_error(file, key, "expected " + allowed);
  const std::string& text = n.Scalar();
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (text.empty() || text[0] == '-' || *end != '\0' || v < lo || v > hi)
    throw input_error(file, key, "value '" + text + "' is not " + allowed);
  return v;
}

// The scalar keys, declared once so the loader, the nearest-key hints and the
// docs agree. Keys whose value may be a list or a free-form map are declared
// as strings only so that misspellings of them get a hint; they are parsed
// by hand.
struct Scalars {
  std::string bound = "compute", global_pattern = "coalesced", limited_by, first_use = "ascending";
  std::string ctas_per_sm_placeholder, ipc_placeholder, ranges_placeholder;

  void declare(ParamTable& t, KernelProfile& p) {
    t.add_string("name", &p.name, "kernel name");
    t.add_string("description", &p.description, "where the numbers come from");
    t.add_choice("bound", &bound, {"compute", "memory"}, "what limits the kernel");
    t.add_uint("grid_ctas", &p.resources.grid_ctas, 1, (1u << 31) - 1, "CTAs in the grid");
    t.add_uint("threads_per_cta", &p.resources.threads_per_cta, 1, 2048, "threads per CTA");
    t.add_uint("regs_per_thread", &p.resources.regs_per_thread, 1, 255, "registers per thread");
    t.add_uint("smem_bytes_per_cta", &p.resources.smem_bytes_per_cta, 0, 1u << 20, "scratchpad bytes per CTA");
    t.add_uint("instructions_per_warp", &p.instructions_per_warp, 1, 1000000000,
               "dynamic instructions per warp, barriers included");
    t.add_uint("static_instructions", &p.static_instructions, 8, 65536, "length of the generated loop body");
    t.add_uint64("seed", &p.seed, 0, UINT64_MAX, "seed of the deterministic generator");
    for (unsigned c = 0; c < kNumMixClasses; ++c)
      t.add_double(std::string("mix.") + mix_key(static_cast<MixClass>(c)), &p.mix[c], 0, 1,
                   "fraction of non-barrier instructions");
    t.add_double("barriers_per_instruction", &p.barriers_per_instruction, 0, 0.5, "CTA barriers per instruction");
    t.add_double("dependence.mean_distance", &p.mean_dependence_distance, 1, 64,
                 "mean instructions between a value's producer and its consumer");
    t.add_uint("registers.hot_count", &p.hot_registers, 1, 255, "registers in the hot set");
    t.add_double("registers.hot_fraction", &p.hot_fraction, 0, 1, "share of destinations in the hot set");
    t.add_string("registers.first_use_order", &first_use,
                 "ascending | descending | shuffled, or a list of register indices");
    t.add_double("divergence.fraction", &p.divergent_fraction, 0, 1, "share of instructions in divergent code");
    t.add_uint("divergence.active_lanes", &p.divergent_active_lanes, 1, kWarpLanes,
               "active lanes of a divergent instruction");
    t.add_choice("global.pattern", &global_pattern, {"coalesced", "strided", "random"}, "global access pattern");
    t.add_uint("global.stride_bytes", &p.global_stride_bytes, 1, 1u << 20, "lane-to-lane distance (strided)");
    t.add_uint64("global.footprint_bytes", &p.global_footprint_bytes, 128, 1ull << 36,
                 "bytes of the region loads sweep; stores use an equal region above it");
    t.add_uint("global.access_bytes", &p.global_access_bytes, 1, 16, "bytes per lane: 1, 2, 4, 8 or 16");
    t.add_uint("shared.stride_words", &p.shared_stride_words, 1, 64, "lane-to-lane distance in 4-byte words");
    t.add_string("paper.source", &p.paper.source, "the paper table the resources come from");
    t.add_string("paper.kernel", &p.paper.kernel, "the kernel's name in the paper");
    t.add_choice("paper.limited_by", &limited_by, {"registers", "scratchpad", "threads", "cta_slots", "warp_slots"},
                 "the resource the paper says limits baseline occupancy");
    t.add_string("paper.ctas_per_sm", &ctas_per_sm_placeholder, "map: GPU config name -> printed CTAs/SM");
    t.add_string("paper.ipc", &ipc_placeholder, "map: GPU config name -> printed baseline IPC (thread insts/cycle)");
    t.add_string("paper.ranges", &ranges_placeholder, "map: registers|scratchpad|threads -> [lo, hi]");
  }
};

void parse_first_use(const YAML::Node& n, const std::string& file, Scalars& s, KernelProfile& p) {
  const std::string key = "registers.first_use_order";
  if (n.IsSequence()) {
    p.first_use = FirstUseOrder::Explicit;
    for (size_t i = 0; i < n.size(); ++i)
      p.first_use_list.push_back(static_cast<uint16_t>(as_uint(n[i], file, key + "[" + std::to_string(i) + "]", 0, 254)));
    return;
  }
  if (!n.IsScalar()) throw input_error(file, key, "expected ascending, descending, shuffled or a list of registers");
  s.first_use = n.Scalar();
  if (s.first_use == "ascending") p.first_use = FirstUseOrder::Ascending;
  else if (s.first_use == "descending") p.first_use = FirstUseOrder::Descending;
  else if (s.first_use == "shuffled") p.first_use = FirstUseOrder::Shuffled;
  else
    throw input_error(file, key, "value '" + s.first_use +
                                     "' is not one of: ascending, descending, shuffled (or a list of register indices)");
}

std::vector<std::string> known_paper_gpus() {
  std::vector<std::string> known = kPaperGpus;
  for (const auto& g : list_config_names("gpu"))
    if (std::find(known.begin(), known.end(), g) == known.end()) known.push_back(g);
  return known;
}

std::string paper_gpu_key(const YAML::Node& k, const std::string& file, const std::string& key,
                          const std::vector<std::string>& known) {
  const std::string gpu = k.as<std::string>();
  if (std::find(known.begin(), known.end(), gpu) == known.end())
    throw input_error(file, key + "." + gpu, "unknown GPU config (known: " + join(known) + ")");
  return gpu;
}

void parse_ctas_per_sm(const YAML::Node& n, const std::string& file, KernelProfile& p) {
  const std::string key = "paper.ctas_per_sm";
  if (!n.IsMap()) throw input_error(file, key, "expected a map from GPU config name to CTAs/SM");
  const auto known = known_paper_gpus();
  for (const auto& kv : n) {
    const std::string gpu = paper_gpu_key(kv.first, file, key, known);
    p.paper.ctas_per_sm[gpu] = static_cast<uint32_t>(as_uint(kv.second, file, key + "." + gpu, 1, 256));
  }
}

// The paper's printed baseline IPC (thread instructions per cycle, whole GPU,
// as GPGPU-Sim reports it): a positive, finite number per GPU config.
void parse_ipc(const YAML::Node& n, const std::string& file, KernelProfile& p) {
  const std::string key = "paper.ipc";
  if (!n.IsMap()) throw input_error(file, key, "expected a map from GPU config name to a positive IPC");
  const auto known = known_paper_gpus();
  for (const auto& kv : n) {
    const std::string gpu = paper_gpu_key(kv.first, file, key, known);
    const std::string k = key + "." + gpu;
    if (!kv.second.IsScalar()) throw input_error(file, k, "expected a positive number");
    const std::string& text = kv.second.Scalar();
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(v) || !(v > 0))
      throw input_error(file, k, "value '" + text + "' is not a positive number");
    p.paper.ipc[gpu] = v;
  }
}

void parse_ranges(const YAML::Node& n, const std::string& file, KernelProfile& p) {
  const std::string key = "paper.ranges";
  if (!n.IsMap()) throw input_error(file, key, "expected a map of registers|scratchpad|threads to [lo, hi]");
  for (const auto& kv : n) {
    const std::string what = kv.first.as<std::string>();
    const std::string k = key + "." + what;
    if (std::find(kRangeKeys.begin(), kRangeKeys.end(), what) == kRangeKeys.end())
      throw input_error(file, k, "unknown range (allowed: " + join(kRangeKeys) + ")");
    if (!kv.second.IsSequence() || kv.second.size() != 2)
      throw input_error(file, k, "expected a list [lo, hi] of two integers");
    KernelProfile::Range r;
    r.lo = static_cast<uint32_t>(as_uint(kv.second[0], file, k, 0, 1u << 20));
    r.hi = static_cast<uint32_t>(as_uint(kv.second[1], file, k, 0, 1u << 20));
    if (r.lo > r.hi) throw input_error(file, k, "lo must not exceed hi");
    p.paper.ranges[what] = r;
  }
}

}  // namespace

KernelProfile load_kernel_profile(const std::string& name_or_path) {
  const std::string file = resolve_config_file("kernels", name_or_path);
  YAML::Node root = YAML::Clone(load_yaml_file(file));
  const YAML::Node& croot = root;  // const indexing never inserts keys
  if (!root.IsMap()) throw input_error(file, "", "the top level must be a mapping of keys to values");

  for (const char* required : {"name", "bound", "grid_ctas", "threads_per_cta", "regs_per_thread",
                               "instructions_per_warp", "mix", "paper"})
    if (!croot[required]) throw input_error(file, required, "is required");

  KernelProfile p;
  p.file = file;
  Scalars s;
  ParamTable table;
  s.declare(table, p);

  // Values that are lists or free-form maps are taken out before the
  // scalar walk and parsed by hand.
  YAML::Node first_use, ctas, ipc, ranges;  // a default Node counts as present: use the flags
  bool has_first_use = false, has_ctas = false, has_ipc = false, has_ranges = false;
  if (croot["registers"] && croot["registers"].IsMap() && croot["registers"]["first_use_order"]) {
    first_use = croot["registers"]["first_use_order"];
    has_first_use = true;
    root["registers"].remove("first_use_order");
  }
  if (croot["paper"].IsMap()) {
    if (croot["paper"]["ctas_per_sm"]) {
      ctas = croot["paper"]["ctas_per_sm"];
      has_ctas = true;
      root["paper"].remove("ctas_per_sm");
    }
    if (croot["paper"]["ipc"]) {
      ipc = croot["paper"]["ipc"];
      has_ipc = true;
      root["paper"].remove("ipc");
    }
    if (croot["paper"]["ranges"]) {
      ranges = croot["paper"]["ranges"];
      has_ranges = true;
      root["paper"].remove("ranges");
    }
  }
  table.apply_yaml(root, file);
  if (p.paper.source.empty()) throw input_error(file, "paper.source", "is required (the table the numbers come from)");

  p.memory_bound = s.bound == "memory";
  p.global_pattern = s.global_pattern == "strided" ? GlobalPattern::Strided
                     : s.global_pattern == "random" ? GlobalPattern::Random
                                                    : GlobalPattern::Coalesced;
  p.paper.limited_by = s.limited_by;
  if (has_first_use) parse_first_use(first_use, file, s, p);
  if (has_ctas) parse_ctas_per_sm(ctas, file, p);
  if (has_ipc) parse_ipc(ipc, file, p);
  if (has_ranges) parse_ranges(ranges, file, p);
  validate(p);
  return p;
}

void validate(const KernelProfile& p) {
  const std::string& f = p.file;
  double sum = 0;
  for (double m : p.mix) sum += m;
  if (std::fabs(sum - 1.0) > 1e-6) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", sum);
    throw input_error(f, "mix", std::string("fractions sum to ") + buf +
                                    "; int_alu + fp_alu + sfu + global_load + global_store + shared_load + "
                                    "shared_store must be 1 (within 1e-6)");
  }
  const uint32_t regs = p.resources.regs_per_thread;
  if (p.hot_registers > regs)
    throw input_error(f, "registers.hot_count", "is " + std::to_string(p.hot_registers) +
                                                    "; must be in [1, regs_per_thread = " + std::to_string(regs) + "]");
  std::set<uint16_t> seen;
  for (uint16_t r : p.first_use_list) {
    if (r >= regs)
      throw input_error(f, "registers.first_use_order", "register " + std::to_string(r) +
                                                            " is not below regs_per_thread (" + std::to_string(regs) + ")");
    if (!seen.insert(r).second)
      throw input_error(f, "registers.first_use_order", "register " + std::to_string(r) + " is listed twice");
  }
  const double shared = p.mix_of(MixClass::SharedLoad) + p.mix_of(MixClass::SharedStore);
  if (shared > 0 && p.resources.smem_bytes_per_cta < 4)
    throw input_error(f, "mix.shared_load",
                      "shared_load/shared_store need smem_bytes_per_cta >= 4 (it is " +
                          std::to_string(p.resources.smem_bytes_per_cta) + ")");
  const uint32_t ab = p.global_access_bytes;
  if (ab & (ab - 1)) throw input_error(f, "global.access_bytes", "value '" + std::to_string(ab) + "' is not one of: 1, 2, 4, 8, 16");
  if (p.global_footprint_bytes < uint64_t{kWarpLanes} * ab)
    throw input_error(f, "global.footprint_bytes", "must hold at least one warp access (32 x access_bytes)");

  // Zorua's profiles are one point of the printed parameter range.
  auto check_range = [&](const char* what, uint32_t value, const char* key) {
    auto it = p.paper.ranges.find(what);
    if (it == p.paper.ranges.end()) return;
    if (value < it->second.lo || value > it->second.hi)
      throw input_error(f, key, "value " + std::to_string(value) + " lies outside paper.ranges." + what + " [" +
                                    std::to_string(it->second.lo) + ", " + std::to_string(it->second.hi) + "]");
  };
  check_range("registers", regs, "regs_per_thread");
  check_range("threads", p.resources.threads_per_cta, "threads_per_cta");
  check_range("scratchpad", p.resources.smem_bytes_per_cta, "smem_bytes_per_cta");
}

}  // namespace smshare
