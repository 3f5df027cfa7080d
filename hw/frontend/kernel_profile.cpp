#include "hw/frontend/kernel_profile.hpp"

#include "hw/common/yaml_file.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

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
constexpr size_t kMaxPhases = 256;
constexpr uint64_t kMaxInstructionsPerWarp = 1000000000;


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
    t.add_uint("instructions_per_warp", &p.instructions_per_warp, 1, kMaxInstructionsPerWarp,
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

void check_mix_sum(const std::array<double, kNumMixClasses>& mix, const std::string& file, const std::string& key) {
  double sum = 0;
  for (double m : mix) sum += m;
  if (std::fabs(sum - 1.0) > 1e-6) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", sum);
    throw input_error(file, key, std::string("fractions sum to ") + buf +
                                     "; int_alu + fp_alu + sfu + global_load + global_store + shared_load + "
                                     "shared_store must be 1 (within 1e-6)");
  }
}

// A list [a, b] of two numbers, parsed by `as`.
template <class T, class As>
std::pair<T, T> parse_pair(const YAML::Node& n, const std::string& file, const std::string& key, As as) {
  if (!n.IsSequence() || n.size() != 2) throw input_error(file, key, "expected a list [from, to] of two numbers");
  return {as(n[0]), as(n[1])};
}

double as_fraction(const YAML::Node& n, const std::string& file, const std::string& key) {
  const std::string text = n.IsScalar() ? n.Scalar() : "";
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0 && v <= 1))
    throw input_error(file, key, "value '" + text + "' is not a number in [0, 1]");
  return v;
}

// `phases`: each entry's scalar keys through a ParamTable whose keys carry the
// entry's index ("phases[2].mix.int_alu"), so errors and hints name it; the
// two ranges are lists and parsed by hand. Defaults come from the top level.
void parse_phases(const YAML::Node& list, const std::string& file, bool has_top_mix, KernelProfile& p) {
  if (!list.IsSequence() || list.size() == 0)
    throw input_error(file, "phases", "expected a non-empty list of phases");
  if (list.size() > kMaxPhases)
    throw input_error(file, "phases", std::to_string(list.size()) + " phases; at most " + std::to_string(kMaxPhases));
  const uint32_t regs = p.resources.regs_per_thread;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = "phases[" + std::to_string(i) + "]";
    if (!list[i].IsMap()) throw input_error(file, at, "expected a mapping of phase keys");
    YAML::Node node = YAML::Clone(list[i]);
    const YAML::Node& cnode = node;
    for (const char* required : {"name", "instructions"})
      if (!cnode[required]) throw input_error(file, at + "." + required, "is required");
    if (!cnode["mix"] && !has_top_mix)
      throw input_error(file, at + ".mix", "is required when the profile has no top-level mix");

    ProfilePhase ph;
    ph.mix = cnode["mix"] ? std::array<double, kNumMixClasses>{} : p.mix;
    ph.mean_dependence_distance = p.mean_dependence_distance;
    ph.hot_fraction = p.hot_fraction;
    ph.shared_stride_words = p.shared_stride_words;
    ph.last_register = regs - 1;
    // Without its own hot_count a phase takes the profile's, clamped to its range below.
    const bool hot_given = cnode["registers"] && cnode["registers"].IsMap() && cnode["registers"]["hot_count"];
    // A default Node counts as present: absence is an empty optional.
    auto take_list = [&](const char* group, const char* key) {
      std::optional<YAML::Node> value;
      if (cnode[group] && cnode[group].IsMap() && cnode[group][key]) {
        value = YAML::Clone(cnode[group][key]);
        node[group].remove(key);
      }
      return value;
    };
    const std::optional<YAML::Node> reg_range = take_list("registers", "range");
    const std::optional<YAML::Node> shared_range = take_list("shared", "range");

    ParamTable t;
    t.add_string(at + ".name", &ph.name, "the phase's name (unique in the profile)");
    t.add_uint(at + ".instructions", &ph.instructions, 1, 65536, "instructions of one execution of the phase");
    t.add_uint(at + ".repeat", &ph.repeat, 1, 1000000, "executions of the phase in a row");
    t.add_bool(at + ".barrier_after", &ph.barrier_after, "a CTA barrier after each execution");
    for (unsigned c = 0; c < kNumMixClasses; ++c)
      t.add_double(at + ".mix." + mix_key(static_cast<MixClass>(c)), &ph.mix[c], 0, 1, "fraction of its instructions");
    t.add_double(at + ".dependence.mean_distance", &ph.mean_dependence_distance, 1, 64,
                 "mean instructions between a value's producer and its consumer");
    t.add_uint(at + ".registers.hot_count", &ph.hot_registers, 1, 255, "registers in the phase's hot set");
    t.add_double(at + ".registers.hot_fraction", &ph.hot_fraction, 0, 1, "share of destinations in the hot set");
    t.add_uint(at + ".shared.stride_words", &ph.shared_stride_words, 1, 64, "lane-to-lane distance in 4-byte words");
    YAML::Node wrapped;
    wrapped["phases[" + std::to_string(i) + "]"] = node;
    t.apply_yaml(wrapped, file);

    if (reg_range) {
      const std::string key = at + ".registers.range";
      auto reg = [&](const YAML::Node& n) { return static_cast<uint32_t>(as_uint(n, file, key, 0, 254)); };
      std::tie(ph.first_register, ph.last_register) = parse_pair<uint32_t>(*reg_range, file, key, reg);
    }
    if (shared_range) {
      const std::string key = at + ".shared.range";
      auto frac = [&](const YAML::Node& n) { return as_fraction(n, file, key); };
      std::tie(ph.shared_from, ph.shared_to) = parse_pair<double>(*shared_range, file, key, frac);
    }
    const uint32_t range_size = ph.last_register >= ph.first_register ? ph.last_register - ph.first_register + 1 : 0;
    if (!hot_given) ph.hot_registers = std::max(1u, std::min(p.hot_registers, range_size));
    p.phases.push_back(std::move(ph));
  }
}

}  // namespace

KernelProfile load_kernel_profile(const std::string& name_or_path) {
  const std::string file = resolve_config_file("kernels", name_or_path);
  YAML::Node root = YAML::Clone(load_yaml_file(file));
  const YAML::Node& croot = root;  // const indexing never inserts keys
  if (!root.IsMap()) throw input_error(file, "", "the top level must be a mapping of keys to values");

  const bool phased = static_cast<bool>(croot["phases"]);
  for (const char* required : {"name", "bound", "grid_ctas", "threads_per_cta", "regs_per_thread", "paper"})
    if (!croot[required]) throw input_error(file, required, "is required");
  if (!phased) {
    for (const char* required : {"instructions_per_warp", "mix"})
      if (!croot[required]) throw input_error(file, required, "is required (or give the kernel as phases)");
  } else {
    for (const char* derived : {"instructions_per_warp", "barriers_per_instruction", "static_instructions"})
      if (croot[derived])
        throw input_error(file, derived,
                          "must not be given with phases (instructions_per_warp is the phases' sum; barriers are "
                          "a phase's barrier_after; a phase's code is its `instructions` long)");
  }

  KernelProfile p;
  p.file = file;
  Scalars s;
  ParamTable table;
  s.declare(table, p);

  // Values that are lists or free-form maps are taken out before the
  // scalar walk and parsed by hand.
  YAML::Node first_use, ctas, ipc, ranges, phases;  // a default Node counts as present: use the flags
  bool has_first_use = false, has_ctas = false, has_ipc = false, has_ranges = false;
  if (phased) {
    phases = croot["phases"];
    root.remove("phases");
  }
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
  if (phased) {
    // A top-level mix is the phases' default: it must be a mix itself, and
    // be said to be wrong where it is written, before the phases' overall
    // mix replaces it.
    if (croot["mix"]) check_mix_sum(p.mix, file, "mix");
    parse_phases(phases, file, croot["mix"] ? true : false, p);
    summarize_phases(p);
  }
  validate(p);
  return p;
}

void summarize_phases(KernelProfile& p) {
  if (p.phases.empty()) return;
  uint64_t total = 0;
  double body = 0;
  std::array<double, kNumMixClasses> weighted{};
  for (const ProfilePhase& ph : p.phases) {
    total += ph.dynamic_instructions();
    const double n = static_cast<double>(ph.instructions) * ph.repeat;
    body += n;
    for (unsigned c = 0; c < kNumMixClasses; ++c) weighted[c] += ph.mix[c] * n;
  }
  if (total > kMaxInstructionsPerWarp)
    throw input_error(p.file, "phases",
                      "the phases add up to " + std::to_string(total) +
                          " instructions per warp (instructions + barrier_after, times repeat); at most " +
                          std::to_string(kMaxInstructionsPerWarp));
  p.instructions_per_warp = static_cast<uint32_t>(total);
  for (unsigned c = 0; c < kNumMixClasses; ++c) p.mix[c] = weighted[c] / body;
  p.barriers_per_instruction = 0;
}

namespace {


void validate_phases(const KernelProfile& p) {
  const std::string& f = p.file;
  const uint32_t regs = p.resources.regs_per_thread;
  std::vector<bool> covered(regs, false);
  std::set<std::string> names;
  for (size_t i = 0; i < p.phases.size(); ++i) {
    const ProfilePhase& ph = p.phases[i];
    const std::string at = "phases[" + std::to_string(i) + "]";
    if (ph.name.empty()) throw input_error(f, at + ".name", "is required (a non-empty name)");
    if (ph.name.find('.') != std::string::npos)
      throw input_error(f, at + ".name", "'" + ph.name + "' contains '.'; phase names are report keys "
                                         "(mechanism_stats.phase_lock_waits.<name>): use letters, digits, '_' or '-'");
    if (!names.insert(ph.name).second) throw input_error(f, at + ".name", "'" + ph.name + "' names two phases");
    if (ph.instructions < 1 || ph.instructions > 65536)
      throw input_error(f, at + ".instructions", "must be in [1, 65536]");
    if (ph.repeat < 1) throw input_error(f, at + ".repeat", "must be at least 1");
    check_mix_sum(ph.mix, f, at + ".mix");
    if (ph.first_register > ph.last_register || ph.last_register >= regs)
      throw input_error(f, at + ".registers.range",
                        "[" + std::to_string(ph.first_register) + ", " + std::to_string(ph.last_register) +
                            "] is not a range [lo, hi] with lo <= hi < regs_per_thread (" + std::to_string(regs) + ")");
    const uint32_t size = ph.last_register - ph.first_register + 1;
    if (ph.hot_registers < 1 || ph.hot_registers > size)
      throw input_error(f, at + ".registers.hot_count",
                        "is " + std::to_string(ph.hot_registers) + "; must be in [1, " + std::to_string(size) +
                            "] (the registers in its range)");
    for (uint32_t r = ph.first_register; r <= ph.last_register; ++r) covered[r] = true;
    if (!(ph.shared_from >= 0 && ph.shared_from < ph.shared_to && ph.shared_to <= 1))
      throw input_error(f, at + ".shared.range", "must be [from, to] with 0 <= from < to <= 1");
    check_phase_scratchpad(ph, i, p.resources.smem_bytes_per_cta, f);
  }
  for (uint32_t r = 0; r < regs; ++r)
    if (!covered[r])
      throw input_error(f, "phases",
                        "register " + std::to_string(r) + " is in no phase's registers.range; the ranges must cover "
                        "every declared register [0, regs_per_thread - 1 = " + std::to_string(regs - 1) + "]");
}

}  // namespace

void check_phase_scratchpad(const ProfilePhase& ph, size_t index, uint32_t smem_bytes, const std::string& origin) {
  if (ph.uses_scratchpad() && phase_smem_words(ph, smem_bytes / 4) == 0)
    throw input_error(origin, "phases[" + std::to_string(index) + "].shared.range",
                      "holds no 4-byte word of the CTA's " + std::to_string(smem_bytes) +
                          " bytes of scratchpad, but the phase's mix has shared_load/shared_store");
}

uint32_t phase_smem_first_word(const ProfilePhase& ph, uint32_t smem_words) {
  return static_cast<uint32_t>(std::floor(ph.shared_from * smem_words));
}

uint32_t phase_smem_words(const ProfilePhase& ph, uint32_t smem_words) {
  const uint32_t first = phase_smem_first_word(ph, smem_words);
  const uint32_t end = static_cast<uint32_t>(std::floor(ph.shared_to * smem_words));
  const uint32_t words = end > first ? end - first : 0;
  return words >= kWarpLanes ? words / kWarpLanes * kWarpLanes : words;  // whole warps' rows: stride 1 never conflicts
}

bool KernelProfile::uses_scratchpad() const {
  if (phases.empty()) return mix_of(MixClass::SharedLoad) + mix_of(MixClass::SharedStore) > 0;
  return std::any_of(phases.begin(), phases.end(), [](const ProfilePhase& ph) { return ph.uses_scratchpad(); });
}

void validate(const KernelProfile& p) {
  const std::string& f = p.file;
  if (!p.phases.empty()) validate_phases(p);  // first: the overall mix is theirs
  check_mix_sum(p.mix, f, "mix");
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
  if (p.uses_scratchpad() && p.resources.smem_bytes_per_cta < 4)
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
