#include "hw/top/simulation.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <memory>

#include "hw/common/error.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/params.hpp"
#include "hw/common/progress.hpp"
#include "hw/common/sha256.hpp"
#include "hw/common/structure_module.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/frontend/profile_kernel.hpp"
#include "hw/frontend/trace_cache.hpp"
#include "hw/frontend/trace_kernel.hpp"
#include "hw/power/power_model.hpp"
#include "hw/power/structure_sizes.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/top/gpu_module.hpp"
#include "hw/top/report.hpp"

namespace smshare {

struct PreparedRun {
  GpuSpec spec;
  std::vector<std::pair<std::string, std::string>> effective;
  std::vector<std::unique_ptr<KernelSource>> kernels;  // run one after another
  std::string kernel_origin;
  uint64_t seed = 0;
  std::string power_node;
  MechanismChoice mechanism;            // validated: configure() accepts it
  std::optional<ConfiguredMechanism> configured;
};

namespace {

// Run settings that are not part of the GPU: how the front end reads the
// workload and which CACTI node prices the energy. Set with --set like GPU
// keys; a mechanism family's keys (--set <family>.*) go to the mechanism.
struct RunSettings {
  bool reorder_registers = false;
  bool reorder_registers_by_weight = false;
  bool constant_work = false;
  std::string unknown_opcode = "error";
  std::string power_node = "40nm";
  bool numbering_given = false;  // the run set frontend.reorder_registers or ..._by_weight
};

bool is_run_setting(const std::string& assignment) {
  return assignment.rfind("frontend.", 0) == 0 || assignment.rfind("power.", 0) == 0;
}

PreparedRun prepare_spec(const RunRequest& req, RunSettings& settings) {
  PreparedRun run;
  const MechanismRegistry& registry = mechanism_registry();
  std::vector<std::string> gpu_overrides, run_overrides;
  run.mechanism.name = req.mechanism;
  run.mechanism.sharing = req.sharing;
  for (const auto& o : req.overrides) {
    if (registry.is_mechanism_setting(o)) run.mechanism.settings.push_back(o);
    else (is_run_setting(o) ? run_overrides : gpu_overrides).push_back(o);
  }
  if (!req.scheduler.empty()) {
    const auto& allowed = scheduler_policy_names();
    if (std::find(allowed.begin(), allowed.end(), req.scheduler) == allowed.end())
      throw InputError("--scheduler: '" + req.scheduler + "' is not one of: " + join(allowed));
    gpu_overrides.push_back("sm.scheduler=" + req.scheduler);
  }
  run.spec = load_gpu_config(req.config, gpu_overrides, &run.effective);

  ParamTable table;
  table.add_bool("frontend.reorder_registers", &settings.reorder_registers,
                 "number registers by first use (Jatala Sec. IV-B), profiles only");
  table.add_bool("frontend.reorder_registers_by_weight", &settings.reorder_registers_by_weight,
                 "number registers by static reference count, most referenced lowest (EXPARS Sec. 3.2), "
                 "profiles only; not with frontend.reorder_registers");
  table.add_bool("frontend.constant_work", &settings.constant_work,
                 "keep the total threads (Zorua Sec. 5.2): with --threads-per-cta N, run ceil(own CTAs x own "
                 "threads / N) CTAs; not with --ctas");
  table.add_choice("frontend.unknown_opcode", &settings.unknown_opcode, {"error", "alu"},
                   "what a trace opcode missing from the opcode table becomes");
  table.add_choice("power.node", &settings.power_node, {"40nm", "32nm"},
                   "technology node of the CACTI results that price energy and area");
  table.apply_overrides(run_overrides);
  settings.numbering_given = std::any_of(run_overrides.begin(), run_overrides.end(), [](const std::string& o) {
    return o.rfind("frontend.reorder_registers=", 0) == 0 || o.rfind("frontend.reorder_registers_by_weight=", 0) == 0;
  });
  run.configured = registry.configure(run.mechanism);
  // A mechanism that numbers a profile's registers by weight (EXPARS) does so
  // unless the run chose a numbering. Resolved here so the report echoes the
  // numbering the run used, and a sweep's run identity (the effective
  // settings) tells the mechanism's default from an explicit `false`.
  if (!settings.numbering_given && req.trace.empty() && run.configured->descriptor().numbers_registers_by_weight)
    settings.reorder_registers_by_weight = true;
  for (auto& kv : table.effective()) run.effective.push_back(kv);
  run.power_node = settings.power_node;
  return run;
}

// `command` needs a simulated mechanism (run) or one with an occupancy
// calculator (occupancy): refused before any workload is read.
PreparedRun prepare(const RunRequest& req, const std::string& command) {
  RunSettings fe;
  PreparedRun run = prepare_spec(req, fe);
  if (command == "occupancy") run.configured->require_occupancy(command);
  else run.configured->require_simulated(command);

  if (fe.reorder_registers && fe.reorder_registers_by_weight)
    throw InputError("--set frontend.reorder_registers=true and frontend.reorder_registers_by_weight=true: "
                     "choose one register numbering (first use, or reference weight), not both");
  if (!req.trace.empty() && !req.kernel.empty())
    throw InputError("--kernel " + req.kernel + " and --trace " + req.trace + ": give one workload, not both");
  ResourceOverrides resources = req.resources;
  resources.constant_work = fe.constant_work;
  if (!req.trace.empty()) {
    if (fe.reorder_registers || fe.reorder_registers_by_weight)
      throw InputError(std::string("--set ") +
                       (fe.reorder_registers ? "frontend.reorder_registers" : "frontend.reorder_registers_by_weight") +
                       "=true: applies to kernel profiles, not to traces (a trace's registers are the compiler's)");
    TraceOptions options;
    options.unknown_opcode_as_alu = fe.unknown_opcode == "alu";
    run.kernels = load_trace_kernels(req.trace, resources, options);
    run.kernel_origin = req.trace;
    return run;
  }
  if (fe.unknown_opcode != "error")
    throw InputError("--set frontend.unknown_opcode: applies to traces (--trace), not to kernel profiles");
  if (run.spec.dram.swap_base < kGlobalLimit) {
    throw input_error(req.config, "dram.swap_base",
                      "must be at least " + hex(kGlobalLimit) +
                          ": kernel profiles place their global data below that address, and the swap region "
                          "must not overlap it");
  }
  KernelProfile profile = load_kernel_profile(req.kernel.empty() ? "synthetic" : req.kernel);
  if (req.seed) profile.seed = *req.seed;
  run.seed = profile.seed;
  run.kernel_origin = profile.file;
  FrontendOptions options;
  options.reorder_registers = fe.reorder_registers;
  options.reorder_registers_by_weight = fe.reorder_registers_by_weight;
  run.kernels.push_back(make_profile_kernel(profile, resources, options));
  return run;
}

}  // namespace

nlohmann::json area_report_for(const RunRequest& req) {
  RunSettings settings;
  PreparedRun run = prepare_spec(req, settings);
  nlohmann::json area = area_report(run.spec, req.mechanism, run.configured->hardware(run.spec), run.power_node);
  area["config"] = run.spec.name;
  return area;
}

nlohmann::json occupancy_report(const RunRequest& req) {
  PreparedRun run = prepare(req, "occupancy");
  const ConfiguredMechanism& mechanism = *run.configured;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& k : run.kernels) {
    nlohmann::json j = occupancy_json(mechanism.occupancy(run.spec.sm, k->resources(), run.kernel_origin), run.spec,
                                      *k, req.mechanism);
    mechanism.describe_occupancy(run.spec.sm, k->resources(), run.kernel_origin, j);
    all.push_back(j);
  }
  if (all.size() == 1) return all[0];
  return {{"config", run.spec.name}, {"trace", run.kernel_origin}, {"kernels", all}};
}

namespace {

// The waveform flags that need the GPU or each other to be checked.
void check_waveform_options(const WaveformOptions& w, const GpuSpec& spec) {
  if (w.path.empty()) {
    if (!w.sms.empty()) throw InputError("--vcd-sms: selects the SMs of a waveform; give --vcd FILE too");
    if (w.window) throw InputError("--vcd-window: selects the cycles of a waveform; give --vcd FILE too");
    return;
  }
  for (uint32_t sm : w.sms)
    if (sm >= spec.num_sms)
      throw InputError("--vcd-sms: SM " + std::to_string(sm) + " does not exist: " + spec.name + " has SMs 0.." +
                       std::to_string(spec.num_sms - 1) + " (gpu.num_sms = " + std::to_string(spec.num_sms) + ")");
}

// The progress line reads the host clock only every this many simulated
// cycles: a few hundred reads a second at hotspot's speed (~80k cycles/s),
// still more than its four redraws a second at 1k cycles/s.
constexpr uint64_t kProgressCheckCycles = 256;

ProgressSample progress_sample(const GpuModule& gpu, uint64_t cycles) {
  ProgressSample s;
  s.cycles = cycles;
  s.warp_instructions = gpu.total_warp_instructions();
  s.kernels = gpu.kernels().size();
  s.kernel = std::max<size_t>(gpu.kernels_launched(), 1);
  uint64_t total = 0;
  for (const auto& k : gpu.kernels()) {
    const std::optional<uint64_t> n = k.kernel->total_warp_instructions();
    if (!n) return s;  // one kernel unknown: the run's total is unknown
    total += *n;
  }
  s.total_warp_instructions = total;
  return s;
}

}  // namespace

nlohmann::json simulate(const GpuSpec& spec, KernelSource& kernel, const SimulateOptions& options) {
  return simulate(spec, std::vector<KernelSource*>{&kernel}, options);
}

nlohmann::json simulate(const GpuSpec& spec, const std::vector<KernelSource*>& kernels,
                        const SimulateOptions& options) {
  if (kernels.empty()) throw InputError(options.kernel_origin + ": no kernel to run");
  const ConfiguredMechanism mechanism = mechanism_registry().configure(options.mechanism);
  mechanism.require_simulated("run");
  std::vector<std::pair<std::string, std::string>> effective = options.effective;
  effective.insert(effective.end(), mechanism.effective().begin(), mechanism.effective().end());
  for (const KernelSource* k : kernels) {
    const KernelResources& r = k->resources();
    spdlog::info("config {} ({} SMs), kernel {} ({} CTAs x {} threads, {} regs/thread, {} B smem), mechanism {}",
                 spec.name, spec.num_sms, k->name(), r.grid_ctas, r.threads_per_cta, r.regs_per_thread,
                 r.smem_bytes_per_cta, mechanism.name());
  }
  for (const auto& [k, v] : effective) spdlog::debug("  {} = {}", k, v);

  check_waveform_options(options.waveform, spec);
  GpuModule gpu("gpu", spec, kernels, mechanism, options.kernel_origin, options.host_threads,
                options.host_threads_pace, options.run_ahead);
  std::unique_ptr<Waveform> wave;
  if (!options.waveform.path.empty()) {
    WaveformOptions w = options.waveform;
    w.cycle_ps = spec.core_period_ps();
    wave = std::make_unique<Waveform>(w);
    gpu.trace(*wave);
  }

  // The progress line only reads the GPU, from the GPU's own clock process:
  // nothing simulated sees it.
  std::optional<ProgressLine> progress;
  if (options.progress) {
    progress.emplace(std::cerr);
    gpu.observe_every(kProgressCheckCycles, [&progress, &gpu](uint64_t cycle) {
      if (progress->due()) progress->draw(progress_sample(gpu, cycle));
    });
  }

  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t end_cycle = gpu.end_cycle();
  if (progress) progress->finish(progress_sample(gpu, end_cycle));
  if (wave) wave->close(end_cycle);

  RunIdentity id{mechanism.name(), spec.sm.scheduler, options.seed, options.kernel_origin, options.power_node};
  nlohmann::json report = simulation_report(gpu, id, mechanism.hardware(spec), effective, host_seconds);
  report["host"]["threads"] = options.host_threads;
  report["host"]["cycles_with_several_units_due"] = gpu.parallel_pace().cycles();
  report["host"]["sm_ticks_run_ahead"] = gpu.sm_ticks_ahead();
  report["host"]["run_ahead_windows"] = gpu.run_ahead_windows();
  report["host"]["cycles_ticked_on_threads"] = gpu.parallel_pace().parallel_cycles();
  return report;
}

nlohmann::json run_simulation(const RunRequest& req) {
  PreparedRun run = prepare(req, "run");
  SimulateOptions options;
  options.mechanism = run.mechanism;
  options.kernel_origin = run.kernel_origin;
  options.seed = run.seed;
  options.waveform.path = req.vcd_path;
  options.waveform.sms = req.vcd_sms;
  options.waveform.window = req.vcd_window;
  options.power_node = run.power_node;
  options.effective = run.effective;
  options.progress = req.progress;
  options.host_threads = req.host_threads;
  options.host_threads_pace = req.host_threads_pace;
  options.run_ahead = req.run_ahead;
  std::vector<KernelSource*> kernels;
  for (const auto& k : run.kernels) kernels.push_back(k.get());
  return simulate(run.spec, kernels, options);
}

std::string module_hierarchy(const RunRequest& req) {
  PreparedRun run = prepare(req, "run");
  std::vector<KernelSource*> kernels;
  for (const auto& k : run.kernels) kernels.push_back(k.get());
  // Elaborates the GPU exactly as a run would (it rejects the same kernels),
  // and is destroyed without simulating.
  GpuModule gpu("gpu", run.spec, kernels, *run.configured, run.kernel_origin);
  return describe_hierarchy(gpu);
}

nlohmann::json hw_cost_report(const RunRequest& req) {
  RunSettings settings;
  PreparedRun run = prepare_spec(req, settings);
  const MechanismDescriptor& d = run.configured->descriptor();
  if (!d.storage_formula)
    throw InputError("hw-cost --mechanism: '" + req.mechanism + "' declares no storage formula (allowed: " +
                     join(mechanism_registry().names_with_storage_formula()) + ")");
  const StorageFormula formula = d.storage_formula(run.spec);
  const uint64_t W = run.spec.sm.max_warps, T = run.spec.sm.max_ctas, N = run.spec.num_sms;
  nlohmann::json structures = nlohmann::json::array();
  uint64_t per_sm = 0;
  for (const auto& s : run.configured->hardware(run.spec).structures) {
    structures.push_back({{"name", s.name}, {"cacti_cfg", "cacti-params/" + run.power_node + "/" + s.cfg + ".cfg"},
                          {"bits", s.bits}, {"instances_per_sm", s.per_sm}, {"source", s.paper}});
    per_sm += s.bits * s.per_sm;
  }
  return {{"config", run.spec.name},
          {"mechanism", req.mechanism},
          {"source", formula.source},
          {"formula", formula.formula},
          {"warps_per_sm", W},
          {"ctas_per_sm", T},
          {"num_sms", N},
          {"bits_per_sm", per_sm},
          {"bits_gpu", per_sm * N},
          {"comparators_per_sm", formula.comparators_per_sm},
          {"structures", structures}};
}

nlohmann::json run_identity(const RunRequest& req) {
  PreparedRun run = prepare(req, "run");
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& [k, v] : run.effective) settings[k] = v;
  nlohmann::json mechanism = {{"name", run.configured->name()}, {"settings", nlohmann::json::object()}};
  for (const auto& [k, v] : run.configured->effective()) mechanism["settings"][k] = v;
  nlohmann::json workload;
  if (!req.trace.empty()) {
    const TraceKernelList list = read_trace_kernel_list(req.trace);
    workload["trace_kernels_sha256"] = nlohmann::json::array();
    for (const auto& path : list.kernel_paths) workload["trace_kernels_sha256"].push_back(trace_file_sha256(path));
  } else {
    workload["profile_sha256"] = sha256_file_hex(run.kernel_origin);
  }
  const ResourceOverrides& r = req.resources;
  workload["resources"] = {{"grid_ctas", r.grid_ctas},
                           {"threads_per_cta", r.threads_per_cta},
                           {"regs_per_thread", r.regs_per_thread},
                           {"smem_bytes_per_cta", r.smem_bytes_per_cta}};
  workload["seed"] = run.seed;
  return {{"config", run.spec.name}, {"settings", settings}, {"mechanism", mechanism}, {"workload", workload}};
}

namespace {
// Environment variable `name`: one of `allowed`; unset or empty: `unset`.
std::string choice_from_environment(const char* name, std::initializer_list<const char*> allowed, const char* unset) {
  const char* value = std::getenv(name);
  if (!value || *value == '\0') return unset;
  std::string list;
  for (const char* a : allowed) {
    if (std::string(value) == a) return value;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  throw InputError(std::string("environment variable ") + name + ": '" + value + "' is not one of " + list);
}
}  // namespace

PaceMode host_threads_pace_from_environment() {
  const std::string v = choice_from_environment("SMSHARE_HOST_THREADS_ALWAYS", {"0", "1", "alternate"}, "0");
  return v == "1" ? PaceMode::AlwaysThreads : v == "alternate" ? PaceMode::Alternate : PaceMode::Measured;
}

bool run_ahead_from_environment() { return choice_from_environment("SMSHARE_RUN_AHEAD", {"0", "1"}, "1") == "1"; }

nlohmann::json strip_host_fields(nlohmann::json report) {
  report.erase("host");
  report.erase("sim_seconds");
  report.erase("sim_rate_warp_inst_per_s");
  report.erase("sim_rate_cycles_per_s");
  return report;
}

}  // namespace smshare
