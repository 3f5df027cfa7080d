#include "hw/top/simulation.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>

#include "hw/common/error.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/params.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/frontend/profile_kernel.hpp"
#include "hw/power/power_model.hpp"
#include "hw/sm/mechanism.hpp"
#include "hw/top/gpu_module.hpp"
#include "hw/top/report.hpp"

namespace smshare {

struct PreparedRun {
  GpuSpec spec;
  std::vector<std::pair<std::string, std::string>> effective;
  std::unique_ptr<KernelSource> kernel;
  std::string kernel_origin;
  uint64_t seed = 0;
  std::string power_node;
};

namespace {

// Run settings that are not part of the GPU: how the front end reads the
// workload and which CACTI node prices the energy. Set with --set like GPU keys.
struct RunSettings {
  bool reorder_registers = false;
  std::string unknown_opcode = "error";
  std::string power_node = "40nm";
};

bool is_run_setting(const std::string& assignment) {
  return assignment.rfind("frontend.", 0) == 0 || assignment.rfind("power.", 0) == 0;
}

PreparedRun prepare_spec(const RunRequest& req, RunSettings& settings) {
  PreparedRun run;
  std::vector<std::string> gpu_overrides, run_overrides;
  for (const auto& o : req.overrides) (is_run_setting(o) ? run_overrides : gpu_overrides).push_back(o);
  if (!req.scheduler.empty()) {
    const std::vector<std::string> allowed = {"lrr", "gto", "two-level"};
    if (std::find(allowed.begin(), allowed.end(), req.scheduler) == allowed.end())
      throw InputError("--scheduler: '" + req.scheduler + "' is not one of: lrr, gto, two-level");
    gpu_overrides.push_back("sm.scheduler=" + req.scheduler);
  }
  run.spec = load_gpu_config(req.config, gpu_overrides, &run.effective);

  ParamTable table;
  table.add_bool("frontend.reorder_registers", &settings.reorder_registers,
                 "number registers by first use (Jatala Sec. IV-B), profiles only");
  table.add_choice("frontend.unknown_opcode", &settings.unknown_opcode, {"error", "alu"},
                   "what a trace opcode missing from the opcode table becomes");
  table.add_choice("power.node", &settings.power_node, {"40nm", "32nm"},
                   "technology node of the CACTI results that price energy and area");
  table.apply_overrides(run_overrides);
  for (auto& kv : table.effective()) run.effective.push_back(kv);
  run.power_node = settings.power_node;
  return run;
}

PreparedRun prepare(const RunRequest& req) {
  RunSettings fe;
  PreparedRun run = prepare_spec(req, fe);

  if (!req.trace.empty()) {
    throw InputError("--trace: trace replay is not part of this build yet");
  }
  KernelProfile profile = load_kernel_profile(req.kernel);
  if (req.seed) profile.seed = *req.seed;
  run.seed = profile.seed;
  run.kernel_origin = profile.file;
  FrontendOptions options;
  options.reorder_registers = fe.reorder_registers;
  run.kernel = make_profile_kernel(profile, req.resources, options);
  return run;
}

}  // namespace

nlohmann::json area_report_for(const RunRequest& req) {
  RunSettings settings;
  PreparedRun run = prepare_spec(req, settings);
  nlohmann::json area = area_report(run.spec, req.mechanism, run.power_node);
  area["config"] = run.spec.name;
  return area;
}

nlohmann::json occupancy_report(const RunRequest& req) {
  PreparedRun run = prepare(req);
  Mechanism m = make_mechanism(req.mechanism, run.spec.sm, run.kernel->resources(), run.kernel_origin);
  return occupancy_json(m.admission->occupancy(), run.spec, *run.kernel, req.mechanism);
}

nlohmann::json simulate(const GpuSpec& spec, KernelSource& kernel, const SimulateOptions& options) {
  const KernelResources& r = kernel.resources();
  spdlog::info("config {} ({} SMs), kernel {} ({} CTAs x {} threads, {} regs/thread, {} B smem), mechanism {}",
               spec.name, spec.num_sms, kernel.name(), r.grid_ctas, r.threads_per_cta, r.regs_per_thread,
               r.smem_bytes_per_cta, options.mechanism);
  for (const auto& [k, v] : options.effective) spdlog::debug("  {} = {}", k, v);

  GpuModule gpu("gpu", spec, kernel, options.mechanism, options.kernel_origin);
  sc_core::sc_trace_file* tf = nullptr;
  if (!options.vcd_path.empty()) {
    if (!std::ofstream(options.vcd_path)) throw InputError("--vcd: cannot write " + options.vcd_path);
    // SystemC announces the time unit as an Info report on stdout; stdout is for results.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    std::string base = options.vcd_path;
    if (base.size() > 4 && base.compare(base.size() - 4, 4, ".vcd") == 0) base.resize(base.size() - 4);
    tf = sc_core::sc_create_vcd_trace_file(base.c_str());
    if (!tf) throw InputError("--vcd: cannot create " + options.vcd_path);
    tf->set_time_unit(1, sc_core::SC_PS);
    gpu.trace(tf);
  }
  gpu.launch_kernel();

  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (tf) sc_core::sc_close_vcd_trace_file(tf);

  RunIdentity id{options.mechanism, spec.sm.scheduler, options.seed, options.kernel_origin, options.power_node};
  return simulation_report(gpu, kernel, id, options.effective, host_seconds);
}

nlohmann::json run_simulation(const RunRequest& req) {
  PreparedRun run = prepare(req);
  SimulateOptions options;
  options.mechanism = req.mechanism;
  options.kernel_origin = run.kernel_origin;
  options.seed = run.seed;
  options.vcd_path = req.vcd_path;
  options.power_node = run.power_node;
  options.effective = run.effective;
  return simulate(run.spec, *run.kernel, options);
}

nlohmann::json strip_host_fields(nlohmann::json report) {
  report.erase("host");
  report.erase("sim_seconds");
  report.erase("sim_rate_warp_inst_per_s");
  report.erase("sim_rate_cycles_per_s");
  return report;
}

}  // namespace smshare
