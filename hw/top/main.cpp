// smshare: the command-line front of the model, on CLI11. Every form is
// documented in docs/user-guide.md; `smshare help` prints the summary below
// and `smshare COMMAND --help` the flags of one command.
//
// Exit status: 0 ok, 1 bad input (InputError: a name, a range, a file), 2
// usage (the command line's form: an unknown command or flag, a missing or
// malformed value; the usage is printed), 3 deadlock, 4 simulation or
// internal error.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <systemc>
#include <unistd.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "hw/common/error.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/host_threads.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sweep/sweep_store.hpp"
#include "hw/top/simulation.hpp"
#include "hw/top/sweep_command.hpp"

#ifndef SMSHARE_VERSION
#error "SMSHARE_VERSION is defined by CMakeLists.txt from project(VERSION)"
#endif

// SHA-256 of the sources that determine results, generated at build time
// (scripts/build_id.cmake): part of every sweep run's hash.
extern const char* const kSmshareBuildId;

namespace {

using namespace smshare;

// ---------------------------------------------------------------- the forms

// One line (or a few) per command, as `smshare help` prints them and as the
// usage line of `smshare COMMAND --help`.
struct CommandForm {
  const char* name;
  const char* synopsis;
  const char* description;
};

const CommandForm kForms[] = {
    {"run",
     "smshare run --config C (--kernel K | --trace DIR/kernelslist.g) [--mechanism M] [--sharing P]\n"
     "            [--scheduler S] [--set key=value ...] [--seed N]\n"
     "            [--ctas N] [--threads-per-cta N] [--regs-per-thread N] [--smem-per-cta BYTES]\n"
     "            [--report out.json] [--json] [--log-level L] [--quiet]\n"
     "            [--vcd out.vcd [--vcd-sms LIST] [--vcd-window FROM:TO]] [--list-modules]",
     "Simulates a kernel (or a trace's kernels) on a GPU configuration and reports cycles, IPC, occupancy, "
     "activity, energy and area."},
    {"occupancy",
     "smshare occupancy --config C (--kernel K | --trace DIR/kernelslist.g) [--mechanism M] [--sharing P]\n"
     "                  [--set key=value ...] [--ctas N] [--threads-per-cta N] [--regs-per-thread N]\n"
     "                  [--smem-per-cta BYTES] [--json] [--log-level L]",
     "How many CTAs of a kernel fit on one SM and which resource limits them, without simulating."},
    {"area", "smshare area --config C [--mechanism M] [--set key=value ...] [--json] [--log-level L]",
     "Area of the storage a mechanism adds, from the cached CACTI results (--set power.node=40nm|32nm)."},
    {"hw-cost",
     "smshare hw-cost --config C --mechanism M [--set key=value ...] [--json] [--log-level L]",
     "Storage a mechanism adds by its paper's storage formula, per SM and for the GPU."},
    {"sweep",
     "smshare sweep SPEC [--out DIR] [--jobs N] [--force] [--collect] [--log-level L]\n"
     "              [--backend local|slurm [--partition P] [--time T] [--mem M] [--max-parallel N] [--no-wait]]",
     "Runs a design-space sweep (docs/sweeps.md): the spec's runs, each named by the hash of its inputs, the ones "
     "not done yet on this machine's cores or as a Slurm job array, collected into results.csv and results.json."},
    {"sweep-run", "smshare sweep-run RUN_DIR [--backend local|slurm]",
     "Runs one run of a sweep from its folder (what both sweep backends execute; see docs/sweeps.md)."},
    {"list", "smshare list configs|kernels|mechanisms",
     "Prints the GPU configurations or kernel profiles (one a line), or the mechanisms with their settings."},
    {"help", "smshare help [COMMAND]          (also --help, -h)",
     "Prints this summary, or the flags of one command."},
};

const std::vector<std::string> kLogLevels = {"trace", "debug", "info", "warn", "error", "off"};

const CommandForm* form_of(const std::string& command) {
  for (const auto& f : kForms)
    if (command == f.name) return &f;
  return nullptr;
}

std::string indented(const std::string& text, const std::string& indent) {
  std::string out = indent;
  for (char c : text) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out + "\n";
}

std::string summary() {
  std::string s = "usage:\n";
  for (const auto& f : kForms) s += indented(f.synopsis, "  ");
  return s + "  smshare --version\n"
             "C and K are names (smshare list configs|kernels) or paths to YAML files.\n"
             "M: a registered mechanism (smshare list mechanisms: which ones run simulates, their settings).\n"
             "P: shorthand for --set <family>.sharing=P, for mechanisms whose paper has a shared fraction.\n"
             "S: " + join(scheduler_policy_names(), "|") + ".  L: " + join(kLogLevels, "|") + " (default warn).\n"
             "`smshare COMMAND --help` lists the flags of one command.\n";
}

std::string usage_of(const std::string& command) {
  const CommandForm* f = form_of(command);
  if (!f) return summary();
  return "usage:\n" + indented(f->synopsis, "  ") + "`smshare " + command + " --help` describes each argument.\n";
}

// Help texts: the summary for `smshare --help`; for a command its synopsis,
// what it does and CLI11's table of its flags.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (app->get_parent() == nullptr) return summary();
    return CLI::Formatter::make_help(app, std::move(name), mode);
  }
  std::string make_usage(const CLI::App* app, std::string) const override {
    return "usage:\n" + indented(form_of(app->get_name())->synopsis, "  ");
  }
  std::string make_description(const CLI::App* app) const override {
    return app->get_description() + "\n\n";
  }
};

// --------------------------------------------------------- typed values

// A usage error the parser does not catch itself (a malformed value of a
// CLI-owned form, an unknown command): exit 2 with the usage of `command`.
struct UsageError : std::runtime_error {
  UsageError(const std::string& message, std::string command_name = "")
      : std::runtime_error(message), command(std::move(command_name)) {}
  std::string command;
};

bool parse_count(const std::string& text, uint64_t& out) {
  if (text.empty() || text[0] == '-') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (*end != '\0' || errno != 0 || v > static_cast<unsigned long long>(INT64_MAX)) return false;
  out = v;
  return true;
}

// CLI11 validators return "" or the problem; CLI11 prefixes the flag:
// "--ctas: 'abc' is not a non-negative integer".
const CLI::Validator kCount(
    [](const std::string& text) {
      uint64_t v;
      return parse_count(text, v) ? std::string() : "'" + text + "' is not a non-negative integer";
    },
    "", "count");

CLI::Validator one_of(std::vector<std::string> allowed) {
  return CLI::Validator(
      [allowed](const std::string& text) {
        for (const auto& a : allowed)
          if (text == a) return std::string();
        return "'" + text + "' is not one of " + join(allowed);
      },
      "", "one of");
}

// --vcd-sms 0,3 | all: the SM indices whose probes the waveform shows.
std::vector<uint32_t> parse_sm_list(const std::string& text) {
  const auto malformed = [&](const std::string& why) {
    return UsageError("--vcd-sms: '" + text + "' " + why + "; expected SM indices separated by commas (0,3) or all",
                      "run");
  };
  std::vector<uint32_t> sms;
  if (text == "all") return sms;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    uint64_t sm;
    if (!parse_count(item, sm) || sm > UINT32_MAX) throw malformed("has '" + item + "', not an SM index");
    if (std::find(sms.begin(), sms.end(), sm) != sms.end()) throw malformed("names SM " + item + " twice");
    sms.push_back(static_cast<uint32_t>(sm));
    if (comma == std::string::npos) return sms;
    start = comma + 1;
  }
}

// --vcd-window FROM:TO, in cycles, inclusive.
std::pair<uint64_t, uint64_t> parse_cycle_window(const std::string& text) {
  const std::string form = "; expected FROM:TO, two cycle numbers with FROM <= TO (e.g. 1000:5000)";
  const size_t colon = text.find(':');
  uint64_t from, to;
  if (colon == std::string::npos || !parse_count(text.substr(0, colon), from) ||
      !parse_count(text.substr(colon + 1), to))
    throw UsageError("--vcd-window: '" + text + "' is not a cycle window" + form, "run");
  if (from > to) throw UsageError("--vcd-window: '" + text + "' ends before it starts" + form, "run");
  return {from, to};
}

// ------------------------------------------------------------ the parser

// Everything the command line can say; each command reads its part.
struct Invocation {
  RunRequest req;
  std::string report_path;
  bool json = false;
  bool quiet = false;  // run: no progress line
  std::string log_level = "warn";
  std::string list_kind;
  std::string help_topic;
  // Checked and converted after parsing (parse_sm_list, parse_cycle_window,
  // parse_host_threads: the sweep spec's host_threads: reads by the same rule).
  std::string vcd_sms, vcd_window, host_threads;
  SweepOptions sweep;
  std::string run_dir;                // sweep-run RUN_DIR
  std::string run_backend = "local";  // sweep-run --backend
};

// Flags shared by several commands, defined once. Each add_* gives one
// command the flags of one group; a command has exactly the flags it uses.
void add_config(CLI::App& cmd, Invocation& in) {
  cmd.add_option("--config", in.req.config, "GPU configuration: a name (smshare list configs) or a YAML path")
      ->type_name("C")
      ->capture_default_str();
  cmd.add_option("--set", in.req.overrides,
                 "override one configuration key (repeatable, applied in order after the config file)")
      ->type_name("key=value")
      ->allow_extra_args(false);
}

void add_workload(CLI::App& cmd, Invocation& in) {
  cmd.add_option("--kernel", in.req.kernel, "kernel profile: a name (smshare list kernels) or a YAML path "
                                           "(default: synthetic)")
      ->type_name("K");
  cmd.add_option("--trace", in.req.trace, "Accel-Sim trace to replay instead of a profile (a directory stands "
                                         "for its kernelslist.g)")
      ->type_name("DIR/kernelslist.g");
  // Counts are checked here for their form only: the ranges depend on the
  // configuration and the model reports them (exit 1).
  cmd.add_option("--ctas", in.req.resources.grid_ctas, "grid size in CTAs (replaces the profile's)")
      ->check(kCount)
      ->type_name("N");
  cmd.add_option("--threads-per-cta", in.req.resources.threads_per_cta, "threads per CTA (what-if)")
      ->check(kCount)
      ->type_name("N");
  cmd.add_option("--regs-per-thread", in.req.resources.regs_per_thread, "registers per thread (what-if)")
      ->check(kCount)
      ->type_name("N");
  cmd.add_option("--smem-per-cta", in.req.resources.smem_bytes_per_cta, "scratchpad bytes per CTA (what-if)")
      ->check(kCount)
      ->type_name("BYTES");
}

void add_mechanism(CLI::App& cmd, Invocation& in, const std::string& what) {
  cmd.add_option("--mechanism", in.req.mechanism, what)->type_name("M")->capture_default_str();
}

void add_sharing(CLI::App& cmd, Invocation& in) {
  cmd.add_option("--sharing", in.req.sharing,
                 "shorthand for --set <family>.sharing=P (smshare list mechanisms shows which have it)")
      ->type_name("P");
}

void add_log_level(CLI::App& cmd, Invocation& in) {
  cmd.add_option("--log-level", in.log_level, "log level: " + join(kLogLevels, "|") + "; logs go to stderr")
      ->check(one_of(kLogLevels))
      ->type_name("L")
      ->capture_default_str();
}

void add_output(CLI::App& cmd, Invocation& in) {
  cmd.add_flag("--json", in.json, "print the JSON result on stdout instead of the table");
  add_log_level(cmd, in);
}

void add_sweep(CLI::App& sweep, Invocation& in) {
  SweepOptions& s = in.sweep;
  sweep.add_option("SPEC", s.spec_file, "the sweep spec (YAML; docs/sweeps.md)")->required()->type_name("SPEC");
  sweep.add_option("--out", s.out_dir, "output folder (default out/sweeps/<spec name>)")->type_name("DIR");
  sweep.add_option_function<uint64_t>(
           "--jobs", [&s](const uint64_t& n) { s.jobs = static_cast<unsigned>(n); },
           "local backend: runs at a time (default: the core count divided by the spec's host_threads)")
      ->check(kCount)
      ->type_name("N");
  sweep.add_flag("--force", s.force, "run again the runs that are done");
  sweep.add_flag("--collect", s.collect_only, "run nothing: collect the finished runs into results.csv/json");
  sweep.add_option("--backend", s.backend, "where the runs execute")
      ->check(one_of({"local", "slurm"}))
      ->type_name("local|slurm")
      ->capture_default_str();
  sweep.add_option("--partition", s.slurm.partition, "slurm: sbatch --partition")->type_name("P");
  sweep.add_option("--time", s.slurm.time, "slurm: sbatch --time (per run)")->type_name("T");
  sweep.add_option("--mem", s.slurm.mem, "slurm: sbatch --mem (per run)")->type_name("M");
  sweep.add_option_function<uint64_t>(
           "--max-parallel", [&s](const uint64_t& n) { s.slurm.max_parallel = static_cast<unsigned>(n); },
           "slurm: at most N runs at once (--array=...%N)")
      ->check(kCount)
      ->type_name("N");
  sweep.add_flag_function(
      "--no-wait", [&s](int64_t) { s.wait = false; }, "slurm: submit and return; collect later with --collect");
}

void add_run_only(CLI::App& run, Invocation& in) {
  run.add_option("--scheduler", in.req.scheduler,
                 "warp scheduler: " + join(scheduler_policy_names(), "|") + " (same as --set sm.scheduler=S)")
      ->type_name("S");
  run.add_option_function<uint64_t>(
         "--seed", [&in](const uint64_t& seed) { in.req.seed = seed; },
         "seed of the profile's instruction-stream generator (default: the profile's)")
      ->check(kCount)
      ->type_name("N");
  run.add_option("--report", in.report_path, "write the JSON report to FILE (its folder must exist)")
      ->type_name("FILE");
  auto* vcd = run.add_option("--vcd", in.req.vcd_path, "write a waveform (.vcd, or .fst)")->type_name("FILE");
  run.add_option("--vcd-sms", in.vcd_sms, "SMs whose probes the waveform shows: indices (0,3) or all (default)")
      ->type_name("LIST")
      ->needs(vcd);
  run.add_option("--vcd-window", in.vcd_window, "trace only cycles FROM to TO (inclusive)")
      ->type_name("FROM:TO")
      ->needs(vcd);
  run.add_option("--host-threads", in.host_threads,
                 "tick the SMs on N host threads (1 to " + std::to_string(kMaxHostThreads) +
                     ", default 1); the report is the same for every N (not --threads-per-cta)")
      ->type_name("N");
  run.add_flag("--list-modules", in.req.list_modules, "print the SystemC module hierarchy and exit");
  run.add_flag("--quiet", in.quiet,
               "no progress line (cycles, warp-instructions, rate) on stderr; it is drawn only when stderr is a "
               "terminal");
}

// The commands, their flags and the help; parse() fills `in`.
class CommandLine {
 public:
  explicit CommandLine(Invocation& in) : in_(in) {
    app_.formatter(std::make_shared<HelpFormatter>());
    app_.set_help_flag("-h,--help", "print the summary of every command");
    app_.set_version_flag("--version", std::string("smshare ") + SMSHARE_VERSION + " (build " +
                                           std::string(kSmshareBuildId).substr(0, 16) + ")\nSystemC " +
                                           sc_core::sc_release());
    // As the hand-written parser did: a repeated flag takes its last value.
    app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    // Unknown arguments are kept (the commands inherit this), not thrown, so
    // that check_leftovers() can say which command rejected which flag and
    // which commands take it.
    app_.allow_extras();
    app_.require_subcommand(0, 1);

    const std::string simulated = "resource-sharing mechanism (smshare list mechanisms)";
    CLI::App& run = command("run");
    add_config(run, in);
    add_workload(run, in);
    add_mechanism(run, in, simulated);
    add_sharing(run, in);
    add_run_only(run, in);
    add_output(run, in);

    CLI::App& occupancy = command("occupancy");
    add_config(occupancy, in);
    add_workload(occupancy, in);
    add_mechanism(occupancy, in, simulated);
    add_sharing(occupancy, in);
    add_output(occupancy, in);

    CLI::App& area = command("area");
    add_config(area, in);
    add_mechanism(area, in, "mechanism whose added storage to price (an unknown one: an error listing the known)");
    add_output(area, in);

    CLI::App& hw_cost = command("hw-cost");
    add_config(hw_cost, in);
    // Required: the default (baseline) adds no storage, so it has no formula.
    hw_cost.add_option("--mechanism", in.req.mechanism, "the mechanism whose storage formula to evaluate")
        ->required()
        ->type_name(join(mechanism_registry().names_with_storage_formula(), "|"));
    add_output(hw_cost, in);

    CLI::App& sweep = command("sweep");
    add_sweep(sweep, in);
    add_log_level(sweep, in);
    CLI::App& sweep_run = command("sweep-run");
    sweep_run.add_option("RUN_DIR", in.run_dir, "the run's folder (<out>/runs/<hash>)")->required()->type_name("RUN_DIR");
    sweep_run.add_option("--backend", in.run_backend, "recorded in the run's status.json")
        ->check(one_of({"local", "slurm"}))
        ->type_name("local|slurm");

    command("list")
        .add_option("KIND", in.list_kind, "what to list")
        ->type_name("configs|kernels|mechanisms")
        ->required();
    command("help").add_option("COMMAND", in.help_topic, "the command to describe")->type_name("COMMAND");
  }

  // The chosen command's name; throws CLI::ParseError or UsageError.
  std::string parse(int argc, char** argv) {
    if (argc < 2) throw UsageError("no command given");
    app_.parse(argc, argv);
    const CLI::App& cmd = chosen_command();
    if (cmd.get_name() == "run") {
      if (cmd.count("--vcd-sms")) in_.req.vcd_sms = parse_sm_list(in_.vcd_sms);
      if (cmd.count("--vcd-window")) in_.req.vcd_window = parse_cycle_window(in_.vcd_window);
      if (cmd.count("--host-threads")) {
        try {
          in_.req.host_threads = parse_host_threads(in_.host_threads, "--host-threads");
        } catch (const InputError& e) {
          throw UsageError(e.what(), "run");  // a malformed flag: exit 2 with the usage, as CLI11's own checks
        }
      }
      // Redrawn with '\r': only a terminal shows it as one line (a log file or pipe would collect every redraw).
      in_.req.progress = !in_.quiet && isatty(STDERR_FILENO);
    }
    if (cmd.get_name() == "sweep") check_sweep_flags(cmd);
    return cmd.get_name();
  }

  // Flags that apply to one backend, or exclude each other.
  void check_sweep_flags(const CLI::App& sweep) const {
    const bool slurm = in_.sweep.backend == "slurm";
    for (const char* flag : {"--partition", "--time", "--mem", "--max-parallel", "--no-wait"})
      if (!slurm && sweep.count(flag))
        throw UsageError(std::string("sweep: ") + flag + " applies to --backend slurm", "sweep");
    if (slurm && sweep.count("--jobs"))
      throw UsageError("sweep: --jobs applies to --backend local (Slurm: --max-parallel N)", "sweep");
    if (sweep.count("--jobs") && in_.sweep.jobs == 0) throw UsageError("sweep: --jobs must be at least 1", "sweep");
    if (in_.sweep.collect_only && (in_.sweep.force || !in_.sweep.wait || sweep.count("--jobs")))
      throw UsageError("sweep: --collect runs nothing: it takes no --force, --jobs or --no-wait", "sweep");
  }

  // The command CLI11 was parsing when it threw (for the usage shown).
  std::string current_command() const {
    const auto chosen = app_.get_subcommands();
    return chosen.empty() ? "" : chosen[0]->get_name();
  }

  // CLI11's texts, reworded where they would not say what to give.
  std::string describe(const CLI::ParseError& e) const {
    const std::string what = e.what();
    for (const CLI::App* cmd : app_.get_subcommands())
      for (const CLI::Option* opt : cmd->get_options()) {
        const std::string name = opt->get_name();
        // CLI11: "--config: 1 required C missing".
        if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && what.rfind(name + ":", 0) == 0)
          return name + " needs a value";
        // CLI11: "KIND is required".
        if (dynamic_cast<const CLI::RequiredError*>(&e) && what == name + " is required")
          return cmd->get_name() + ": " + name + " is required (" + opt->get_type_name() + ")";
      }
    return what;
  }

  int print_help_or_version(const CLI::Success& e) const { return app_.exit(e); }

  std::string help_of(const std::string& command_name) const {
    for (const CLI::App* cmd : app_.get_subcommands({}))
      if (cmd->get_name() == command_name) return cmd->help();
    throw UsageError("help: '" + command_name + "' is not a command; commands: " + command_names());
  }

 private:
  CLI::App& command(const std::string& name) {
    CLI::App& cmd = *app_.add_subcommand(name, form_of(name)->description);
    cmd.set_help_flag("-h,--help", "describe this command's arguments");
    return cmd;
  }

  std::string command_names() const {
    std::vector<std::string> names;
    for (const auto& f : kForms) names.push_back(f.name);
    return join(names);
  }

  // The one command given, once no argument is left over: an unknown
  // command, a flag the command does not take (naming the commands that
  // do) or a stray word is a UsageError. The usage printed with the error
  // lists the flags the command takes.
  const CLI::App& chosen_command() const {
    const auto chosen = app_.get_subcommands();
    const CLI::App* cmd = chosen.empty() ? nullptr : chosen[0];
    const auto before = app_.remaining();
    if (!cmd || !before.empty()) {
      const std::string first = before.empty() ? "" : before[0];
      if (!first.empty() && first[0] == '-')
        throw UsageError("unknown option " + first + " before the command (flags follow it: smshare COMMAND --flag)");
      throw UsageError("unknown command '" + first + "'; commands: " + command_names());
    }
    const auto stray = cmd->remaining();
    if (stray.empty()) return *cmd;
    const std::string name = cmd->get_name();
    const std::string& first = stray[0];
    if (first.empty() || first[0] != '-')
      throw UsageError(name + ": unexpected argument '" + first + "'", name);
    const std::string flag = first.substr(0, first.find('='));
    std::vector<std::string> takers;
    for (const CLI::App* other : app_.get_subcommands({}))
      if (other->get_option_no_throw(flag)) takers.push_back(other->get_name());
    if (takers.empty()) throw UsageError(name + ": unknown option " + flag, name);
    throw UsageError(name + " does not take " + flag + " (" + join(takers) +
                         (takers.size() == 1 ? " takes it)" : " take it)"),
                     name);
  }

  Invocation& in_;
  CLI::App app_{"smshare: a cycle-level SystemC model of a GPU SM with resource sharing", "smshare"};
};

// ----------------------------------------------------------- the commands

void set_log_level(const std::string& level) { spdlog::set_level(spdlog::level::from_str(level)); }

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

int list(const Invocation& in) {
  const std::string& what = in.list_kind;
  std::vector<std::string> names;
  if (what == "mechanisms") {
    std::cout << mechanism_registry().describe();
    return 0;
  }
  if (what == "configs") names = list_config_names("gpu");
  else if (what == "kernels") names = list_config_names("kernels");
  else throw UsageError("list: '" + what + "' is not one of configs, kernels, mechanisms", "list");
  for (const auto& n : names) std::cout << n << "\n";
  return 0;
}

int run(const Invocation& in) {
  if (in.req.list_modules) {  // the hierarchy, elaborated as the run would be; nothing simulated or written
    std::cout << module_hierarchy(in.req);
    return 0;
  }
  RunRequest req = in.req;
  req.host_threads_pace = host_threads_pace_from_environment();
  req.run_ahead = run_ahead_from_environment();
  nlohmann::json report = run_simulation(req);
  if (!in.report_path.empty()) write_json(report, in.report_path);
  if (in.json) std::cout << report.dump(2) << "\n";
  else print_summary(report);
  return report.contains("deadlock") ? 3 : 0;
}

int area(const Invocation& in) {
  nlohmann::json r = area_report_for(in.req);
  if (in.json) {
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

int hw_cost(const Invocation& in) {
  nlohmann::json r = hw_cost_report(in.req);
  if (in.json) {
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

// One field a mechanism adds to the occupancy: a value on its line, an
// object (cross-SM sharing's per-active-SM resources) as indented lines.
void print_occupancy_field(const std::string& key, const nlohmann::json& value, int indent) {
  if (!value.is_object()) {
    std::printf("%*s%s: %s\n", indent, "", key.c_str(), value.dump().c_str());
    return;
  }
  std::printf("%*s%s:\n", indent, "", key.c_str());
  for (const auto& [k, v] : value.items()) print_occupancy_field(k, v, indent + 2);
}

int occupancy(const Invocation& in) {
  nlohmann::json result = occupancy_report(in.req);
  if (in.json) {
    std::cout << result.dump(2) << "\n";
    return 0;
  }
  for (const auto& occ : result.contains("kernels") ? result["kernels"] : nlohmann::json::array({result})) {
    std::printf("%s on %s (%s): %u CTAs/SM, %u warps/SM, limited by %s\n", occ["kernel"].get<std::string>().c_str(),
                occ["config"].get<std::string>().c_str(), occ["mechanism"].get<std::string>().c_str(),
                occ["resident_ctas_per_sm"].get<unsigned>(), occ["resident_warps_per_sm"].get<unsigned>(),
                occ["limited_by"].get<std::string>().c_str());
    // What the mechanism added (Jatala's sharing fraction, EXPARS's CTA_RF, CTA_Mix, Start_Reg, ...).
    static const char* const kCommon[] = {"config", "kernel", "mechanism", "resident_ctas_per_sm",
                                          "resident_warps_per_sm", "limited_by", "limits"};
    for (const auto& [key, value] : occ.items())
      if (std::find(std::begin(kCommon), std::end(kCommon), key) == std::end(kCommon))
        print_occupancy_field(key, value, 2);
  }
  return 0;
}

// The request `smshare run ARGS...` would make: a sweep checks and names
// its runs by parsing them exactly as sweep-run will.
RunRequest parse_run_args(const std::vector<std::string>& run_args, Invocation& in) {
  std::vector<std::string> words = {"smshare"};
  words.insert(words.end(), run_args.begin(), run_args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  CommandLine cli(in);
  try {
    if (cli.parse(static_cast<int>(argv.size()), argv.data()) != "run")
      throw InputError("not a run: smshare " + join(run_args, " "));
  } catch (const CLI::ParseError& e) {
    throw InputError("smshare " + join(run_args, " ") + ": " + cli.describe(e));
  } catch (const UsageError& e) {
    throw InputError("smshare " + join(run_args, " ") + ": " + e.what());
  }
  return in.req;
}

int sweep(const Invocation& in) {
  SweepOptions options = in.sweep;
  options.build_id = kSmshareBuildId;
  options.terminal = isatty(STDERR_FILENO) != 0;
  return run_sweep(options, [](const std::vector<std::string>& run_args) {
    Invocation run_in;
    return parse_run_args(run_args, run_in);
  });
}

int guarded(const std::function<int()>& body);

// A run's folder is named by its inputs as the sweep saw them. If a config,
// a profile or the binary changed before the run started (a Slurm job
// waiting in the queue), its report would sit under a name that no longer
// describes it: refuse, so the next sweep plans the run anew.
void check_identity_unchanged(const RunRequest& req, const nlohmann::json& planned, const std::string& dir) {
  nlohmann::json now = run_identity(req);
  now["smshare_build"] = kSmshareBuildId;
  if (now == planned) return;
  std::vector<std::string> changed;
  for (const auto& [key, value] : now.items())
    if (!planned.contains(key) || planned[key] != value) changed.push_back(key);
  throw InputError(dir + "/request.json: the run's inputs changed since the sweep named it (" + join(changed) +
                   " differ); run the sweep again to plan it anew");
}

// One run of a sweep, from its folder: its stderr goes to stderr.txt, its
// summary table nowhere (the report is the result); finish_run() records the
// outcome whatever it is.
int sweep_run(const Invocation& in) {
  const std::string& dir = in.run_dir;
  const nlohmann::json request = read_json_file(dir + "/request.json");
  const std::string stderr_path = dir + "/stderr.txt";
  const int err = open(stderr_path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
  const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (err < 0 || null < 0) throw InputError(stderr_path + ": cannot be written: " + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(err, STDERR_FILENO);
  dup2(null, STDOUT_FILENO);
  close(err);
  close(null);

  const auto t0 = std::chrono::steady_clock::now();
  const int code = guarded([&] {
    Invocation run_in;
    run_in.req = parse_run_args(request.at("run_args").get<std::vector<std::string>>(), run_in);
    check_identity_unchanged(run_in.req, request.at("identity"), dir);
    run_in.report_path = report_tmp_path(dir);
    set_log_level(run_in.log_level);
    return run(run_in);
  });
  std::fflush(stderr);
  finish_run(dir, code, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
             in.run_backend);
  return code;
}

int dispatch(const std::string& command, const Invocation& in, const CommandLine& cli) {
  set_log_level(in.log_level);
  if (command == "run") return run(in);
  if (command == "occupancy") return occupancy(in);
  if (command == "area") return area(in);
  if (command == "hw-cost") return hw_cost(in);
  if (command == "list") return list(in);
  if (command == "sweep") return sweep(in);
  if (command == "sweep-run") return sweep_run(in);
  std::cout << (in.help_topic.empty() ? summary() : cli.help_of(in.help_topic));
  return 0;
}

// Runs `body`, turning what it throws into the exit status and a message on
// stderr (the table in this file's header).
int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << "smshare: " << e.what() << "\n" << usage_of(e.command);
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
  return guarded([&] {
    Invocation in;
    CommandLine cli(in);
    std::string command;
    try {
      command = cli.parse(argc, argv);
    } catch (const CLI::Success& e) {
      return cli.print_help_or_version(e);
    } catch (const CLI::ParseError& e) {
      throw UsageError(cli.describe(e), cli.current_command());
    }
    return dispatch(command, in, cli);
  });
}
