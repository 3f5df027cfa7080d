// smshare: the command-line front of the model. Every form is documented in
// docs/user-guide.md; `smshare help` prints the summary below.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <systemc>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "hw/common/error.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/sm/mechanism.hpp"
#include "hw/top/simulation.hpp"

namespace {

using namespace smshare;

const char* kUsage = R"(usage:
  smshare run --config C (--kernel K | --trace DIR/kernelslist.g) [--mechanism M] [--sharing P]
              [--scheduler lrr|gto|two-level|owf] [--set key=value ...] [--seed N]
              [--ctas N] [--threads-per-cta N] [--regs-per-thread N] [--smem-per-cta BYTES]
              [--report out.json] [--vcd out.vcd|out.fst [--vcd-sms 0,3] [--vcd-window FROM:TO]]
              [--log-level trace|debug|info|warn|error|off]
  smshare occupancy --config C --kernel K [--mechanism M] [--sharing P] [--json] [--set ...] [what-if flags]
  smshare area --config C --mechanism M [--json] [--set power.node=40nm|32nm]
  smshare hw-cost --config C --mechanism regshare|spmshare [--json]
  smshare list configs|kernels|mechanisms
  smshare help
C and K are names (smshare list configs|kernels) or paths to YAML files.
P (regshare, spmshare): shared fraction 0, 0.1, ..., 0.9 (Jatala's 1 - t; default 0.9).
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Args {
  std::string command;
  std::vector<std::string> positional;
  RunRequest req;
  std::string report_path;
  bool json = false;
  std::string log_level = "warn";
};

int64_t parse_count(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || v < 0)
    throw UsageError(flag + ": '" + value + "' is not a non-negative integer");
  return v;
}

Args parse(int argc, char** argv) {
  Args a;
  if (argc < 2) throw UsageError("no command given");
  a.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--config") a.req.config = value();
    else if (flag == "--kernel") a.req.kernel = value();
    else if (flag == "--trace") a.req.trace = value();
    else if (flag == "--mechanism") a.req.mechanism = value();
    else if (flag == "--scheduler") a.req.scheduler = value();
    else if (flag == "--sharing") a.req.sharing = value();
    else if (flag == "--set") a.req.overrides.push_back(value());
    else if (flag == "--seed") a.req.seed = static_cast<uint64_t>(parse_count(flag, value()));
    else if (flag == "--ctas") a.req.resources.grid_ctas = parse_count(flag, value());
    else if (flag == "--threads-per-cta") a.req.resources.threads_per_cta = parse_count(flag, value());
    else if (flag == "--regs-per-thread") a.req.resources.regs_per_thread = parse_count(flag, value());
    else if (flag == "--smem-per-cta") a.req.resources.smem_bytes_per_cta = parse_count(flag, value());
    else if (flag == "--report") a.report_path = value();
    else if (flag == "--vcd") a.req.vcd_path = value();
    else if (flag == "--vcd-sms") a.req.vcd_sms = parse_vcd_sms(value());
    else if (flag == "--vcd-window") a.req.vcd_window = parse_vcd_window(value());
    else if (flag == "--log-level") a.log_level = value();
    else if (flag == "--json") a.json = true;
    else if (!flag.empty() && flag[0] == '-') throw UsageError("unknown option " + flag);
    else a.positional.push_back(flag);
  }
  return a;
}

void set_log_level(const std::string& level) {
  auto l = spdlog::level::from_str(level);
  if (l == spdlog::level::off && level != "off")
    throw UsageError("--log-level: '" + level + "' is not one of trace, debug, info, warn, error, off");
  spdlog::set_level(l);
}

void write_json(const nlohmann::json& j, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw InputError("--report: cannot write " + path);
  out << j.dump(2) << "\n";
}

void print_summary(const nlohmann::json& r) {
  const auto& k = r["kernel"];
  std::printf("smshare run: %s on %s, mechanism %s, scheduler %s, seed %llu\n",
              k["name"].get<std::string>().c_str(), r["config"]["name"].get<std::string>().c_str(),
              r["mechanism"].get<std::string>().c_str(), r["scheduler"].get<std::string>().c_str(),
              static_cast<unsigned long long>(r["seed"].get<uint64_t>()));
  std::printf("  %-26s %llu\n", "cycles", static_cast<unsigned long long>(r["cycles"].get<uint64_t>()));
  std::printf("  %-26s %llu\n", "warp instructions",
              static_cast<unsigned long long>(r["warp_instructions"].get<uint64_t>()));
  std::printf("  %-26s %.3f (warp instructions / cycle, GPU)\n", "IPC", r["ipc"].get<double>());
  std::printf("  %-26s %u (limited by %s)\n", "resident CTAs/SM", r["resident_ctas_per_sm"].get<unsigned>(),
              r["occupancy"]["limited_by"].get<std::string>().c_str());
  std::printf("  %-26s %u\n", "resident warps/SM", r["resident_warps_per_sm"].get<unsigned>());
  std::printf("  %-26s %.1f %%\n", "register file utilization", 100 * r["rf_utilization"].get<double>());
  std::printf("  %-26s %.1f %%\n", "scratchpad utilization", 100 * r["spm_utilization"].get<double>());
  std::printf("  %-26s %llu / %llu / %llu (SM-cycles)\n", "issue / stall / idle",
              static_cast<unsigned long long>(r["issue_cycles"].get<uint64_t>()),
              static_cast<unsigned long long>(r["stall_cycles"].get<uint64_t>()),
              static_cast<unsigned long long>(r["idle_cycles"].get<uint64_t>()));
  std::printf("  %-26s %.2f s host, %.0f warp-inst/s, %.0f cycles/s\n", "simulation speed",
              r["sim_seconds"].get<double>(), r["sim_rate_warp_inst_per_s"].get<double>(),
              r["sim_rate_cycles_per_s"].get<double>());
  if (r.contains("deadlock")) std::printf("  DEADLOCK detected: %s\n", r["deadlock"].dump().c_str());
}

int list(const Args& a) {
  if (a.positional.size() != 1) throw UsageError("list takes one of: configs, kernels, mechanisms");
  const std::string& what = a.positional[0];
  std::vector<std::string> names;
  if (what == "configs") names = list_config_names("gpu");
  else if (what == "kernels") names = list_config_names("kernels");
  else if (what == "mechanisms") names = list_mechanisms();
  else throw UsageError("list: '" + what + "' is not one of configs, kernels, mechanisms");
  for (const auto& n : names) std::cout << n << "\n";
  return 0;
}

int run(const Args& a) {
  if (!a.positional.empty()) throw UsageError("run: unexpected argument '" + a.positional[0] + "'");
  nlohmann::json report = run_simulation(a.req);
  if (!a.report_path.empty()) write_json(report, a.report_path);
  if (a.json) std::cout << report.dump(2) << "\n";
  else print_summary(report);
  return report.contains("deadlock") ? 3 : 0;
}

int area(const Args& a) {
  nlohmann::json r = area_report_for(a.req);
  if (a.json) {
    std::cout << r.dump(2) << "\n";
    return 0;
  }
  std::printf("%s on %s (%u SMs), CACTI %s:\n", r["mechanism"].get<std::string>().c_str(),
              r["config"].get<std::string>().c_str(), r["num_sms"].get<unsigned>(),
              r["node"].get<std::string>().c_str());
  for (const auto& s : r["added_structures"])
    std::printf("  %-34s %10.5f mm2 per SM %10.5f mm2 GPU\n", s["name"].get<std::string>().c_str(),
                s["area_per_sm_mm2"].get<double>(), s["area_gpu_mm2"].get<double>());
  std::printf("  %-34s %10.5f mm2 (%.4f %% of a %.0f mm2 die)\n", "total added", r["total_mm2"].get<double>(),
              r["percent_of_die"].get<double>(), r["die_mm2"].get<double>());
  return 0;
}

int hw_cost(const Args& a) {
  if (!a.positional.empty()) throw UsageError("hw-cost: unexpected argument '" + a.positional[0] + "'");
  nlohmann::json r = hw_cost_report(a.req);
  if (a.json) {
    std::cout << r.dump(2) << "\n";
    return 0;
  }
  std::printf("%s on %s (%s):\n", r["mechanism"].get<std::string>().c_str(), r["config"].get<std::string>().c_str(),
              r["source"].get<std::string>().c_str());
  for (const auto& s : r["structures"])
    std::printf("  %-24s %8llu bits x %u per SM   (%s)\n", s["name"].get<std::string>().c_str(),
                static_cast<unsigned long long>(s["bits"].get<uint64_t>()), s["instances_per_sm"].get<unsigned>(),
                s["cacti_cfg"].get<std::string>().c_str());
  std::printf("  %-24s %8llu bits per SM, %llu bits for %u SMs; %s\n", "total",
              static_cast<unsigned long long>(r["bits_per_sm"].get<uint64_t>()),
              static_cast<unsigned long long>(r["bits_gpu"].get<uint64_t>()), r["num_sms"].get<unsigned>(),
              r["formula"].get<std::string>().c_str());
  return 0;
}

int occupancy(const Args& a) {
  nlohmann::json result = occupancy_report(a.req);
  if (a.json) {
    std::cout << result.dump(2) << "\n";
    return 0;
  }
  for (const auto& occ : result.contains("kernels") ? result["kernels"] : nlohmann::json::array({result})) {
    std::printf("%s on %s (%s): %u CTAs/SM, %u warps/SM, limited by %s\n", occ["kernel"].get<std::string>().c_str(),
                occ["config"].get<std::string>().c_str(), occ["mechanism"].get<std::string>().c_str(),
                occ["resident_ctas_per_sm"].get<unsigned>(), occ["resident_warps_per_sm"].get<unsigned>(),
                occ["limited_by"].get<std::string>().c_str());
  }
  return 0;
}

}  // namespace

// SystemC prints its banner before sc_main runs unless told not to; the CLI's
// stdout is for results (JSON with --json), so main() silences it first.
int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char** argv) {
  // Logs go to stderr: stdout carries results (tables, --json).
  spdlog::set_default_logger(spdlog::stderr_color_mt("smshare"));
  spdlog::set_pattern("[%l] %v");
  try {
    Args a = parse(argc, argv);
    set_log_level(a.log_level);
    if (a.command == "run") return run(a);
    if (a.command == "occupancy") return occupancy(a);
    if (a.command == "list") return list(a);
    if (a.command == "area") return area(a);
    if (a.command == "hw-cost") return hw_cost(a);
    if (a.command == "help" || a.command == "--help" || a.command == "-h") {
      std::cout << kUsage;
      return 0;
    }
    throw UsageError("unknown command '" + a.command + "'");
  } catch (const UsageError& e) {
    std::cerr << "smshare: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const InputError& e) {
    std::cerr << "smshare: error: " << e.what() << "\n";
    return 1;
  } catch (const sc_core::sc_report& e) {
    std::cerr << "smshare: simulation error: " << e.what() << "\n";
    return 4;
  } catch (const std::exception& e) {
    // Not an input the checks above knew to reject: say so instead of aborting.
    std::cerr << "smshare: internal error: " << e.what() << "\n";
    return 4;
  }
}
