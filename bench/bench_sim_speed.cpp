// Simulation speed: by default the 15-SM Fermi (fermi-gtx480) running the
// hotspot profile to completion. Prints simulated warp-instructions and
// simulated cycles per host second, by wall clock and by this process's CPU
// time (the machine may be shared; CPU time is the one-core figure).
// scripts/bench.sh runs it on the profile and on a generated trace.
// --progress draws the run's progress line on stderr (what it costs); --set
// key=value overrides a configuration key, as smshare run's (e.g.
// dram.scheduler=frfcfs); --mechanism M simulates a resource-sharing
// mechanism (default baseline), as smshare run's (e.g. expars);
// --host-threads N ticks the SMs on N host threads (one simulation per
// process: scripts/bench.sh runs 1, 2 and 4 and prints the efficiency).
//   usage: bench_sim_speed [config] [kernel] [--ctas N] [--trace DIR/kernelslist.g] [--progress]
//                          [--mechanism M] [--host-threads N] [--set key=value]...
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <spdlog/spdlog.h>
#include <systemc>

#include "hw/common/error.hpp"
#include "hw/top/simulation.hpp"

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  smshare::RunRequest req;
  req.config = "fermi-gtx480";
  req.kernel = "hotspot";
  req.trace.clear();
  int positional = 0;
  std::string host_threads = "1";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--ctas") && i + 1 < argc) req.resources.grid_ctas = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--trace") && i + 1 < argc) req.trace = argv[++i];
    else if (!std::strcmp(argv[i], "--progress")) req.progress = true;
    else if (!std::strcmp(argv[i], "--set") && i + 1 < argc) req.overrides.push_back(argv[++i]);
    else if (!std::strcmp(argv[i], "--mechanism") && i + 1 < argc) req.mechanism = argv[++i];
    else if (!std::strcmp(argv[i], "--host-threads") && i + 1 < argc) host_threads = argv[++i];
    else if (positional == 0 && ++positional) req.config = argv[i];
    else req.kernel = argv[i];
  }
  try {
    char* end = nullptr;
    const unsigned long n = std::strtoul(host_threads.c_str(), &end, 10);
    if (host_threads.empty() || *end != '\0' || n < 1 || n > 256)
      throw smshare::InputError("bench: --host-threads: '" + host_threads + "' is not a number of host threads " +
                                "(allowed: 1 to 256)");
    req.host_threads = static_cast<unsigned>(n);
    req.host_threads_pace = smshare::host_threads_pace_from_environment();
    req.run_ahead = smshare::run_ahead_from_environment();
    if (!req.trace.empty()) req.kernel.clear();
    const double cpu0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    nlohmann::json r = smshare::run_simulation(req);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = cpu_seconds() - cpu0;
    const double insts = r["warp_instructions"].get<double>();
    const double cycles = r["cycles"].get<double>();
    std::printf("bench: %s on %s (%u SMs), %s, %s\n", r["kernel"]["name"].get<std::string>().c_str(),
                r["config"]["name"].get<std::string>().c_str(), static_cast<unsigned>(r["per_sm"].size()),
                r["mechanism"].get<std::string>().c_str(), r["completed"].get<bool>() ? "completed" : "NOT completed");
    std::printf("  simulated: %.0f warp-instructions, %.0f cycles (IPC %.2f)\n", insts, cycles, r["ipc"].get<double>());
    std::printf("  host:      %.3f s wall, %.3f s CPU (including set-up and report)\n", wall, cpu);
    std::printf("  speed:     %.0f warp-inst/s wall, %.0f warp-inst/s CPU\n", insts / wall, insts / cpu);
    std::printf("  speed:     %.0f cycles/s wall, %.0f cycles/s CPU (GPU cycles; x%u SM-cycles)\n", cycles / wall,
                cycles / cpu, static_cast<unsigned>(r["per_sm"].size()));
    // The report's own figure: the simulation loop alone, wall clock.
    std::printf("  loop:      %.0f warp-inst/s wall on %u host thread(s), %.3f s (set-up and report: %.1f %% of the run)\n",
                r["sim_rate_warp_inst_per_s"].get<double>(), req.host_threads, r["sim_seconds"].get<double>(),
                100.0 * (wall - r["sim_seconds"].get<double>()) / wall);
    return 0;
  } catch (const smshare::InputError& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return 1;
  }
}
