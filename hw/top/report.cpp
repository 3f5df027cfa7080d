#include "hw/top/report.hpp"

#include <algorithm>

#include "hw/common/activity.hpp"
#include "hw/frontend/trace_kernel.hpp"
#include "hw/power/power_model.hpp"
#include "hw/top/gpu_module.hpp"

namespace smshare {

using nlohmann::json;

json kernel_json(const KernelSource& kernel, const std::string& file) {
  const KernelResources& r = kernel.resources();
  return {{"name", kernel.name()},
          {"file", file},
          {"grid_ctas", r.grid_ctas},
          {"threads_per_cta", r.threads_per_cta},
          {"regs_per_thread", r.regs_per_thread},
          {"smem_bytes_per_cta", r.smem_bytes_per_cta}};
}

json occupancy_json(const Occupancy& occ, const GpuSpec& spec, const KernelSource& kernel,
                    const std::string& mechanism) {
  return {{"config", spec.name},
          {"kernel", kernel.name()},
          {"mechanism", mechanism},
          {"resident_ctas_per_sm", occ.ctas_per_sm},
          {"resident_warps_per_sm", occ.warps_per_sm},
          {"limited_by", to_string(occ.limited_by)},
          {"limits",
           {{"registers", occ.by_registers},
            {"scratchpad", occ.by_scratchpad},
            {"threads", occ.by_threads},
            {"cta_slots", occ.by_cta_slots},
            {"warp_slots", occ.by_warp_slots}}}};
}

namespace {

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

uint64_t flits(uint64_t bytes, uint32_t flit_bytes) { return (bytes + flit_bytes - 1) / flit_bytes; }

// The pipeline's events for its per-event dynamic energy (hw/power), from
// counters the SMs and the interconnect keep anyway.
PipelineActivity pipeline_activity(const SmStats& total, const Interconnect& icnt, const GpuSpec& spec) {
  auto ops = [&](OpClass op) { return total.op_counts[static_cast<int>(op)]; };
  auto lanes = [&](OpClass op) { return total.thread_op_counts[static_cast<int>(op)]; };
  PipelineActivity p;
  p.warp_instructions = total.warp_instructions;
  // Every scheduler looks at its warps in each cycle its SM has one.
  p.scheduler_cycles = total.active_cycles * spec.sm.num_schedulers;
  // A destination's scoreboard bit is set at issue and cleared when its
  // register bank write happens (SmCore::writeback).
  for (uint64_t w : total.rf_bank_writes) p.scoreboard_updates += 2 * w;
  // Barrier and exit act at issue and take no collector unit (instruction.hpp).
  p.collector_dispatches = total.warp_instructions - ops(OpClass::Barrier) - ops(OpClass::Exit);
  for (uint64_t r : total.rf_bank_reads) p.operand_reads += r;
  p.int_alu_thread_ops = lanes(OpClass::IntAlu);
  p.fp_thread_ops = lanes(OpClass::FpAlu);
  p.sfu_thread_ops = lanes(OpClass::Sfu);
  for (unsigned o = 0; o < kNumOpClasses; ++o)
    if (is_memory(static_cast<OpClass>(o))) p.memory_thread_ops += total.thread_op_counts[o];
  p.global_transactions = total.global_transactions;
  // A port moves icnt.bytes_per_cycle bytes a cycle: one flit (as GPGPU-Sim's
  // -icnt_flit_size). Totals per direction, rounded up once: the
  // interconnect keeps no per-packet count.
  const uint32_t flit_bytes = spec.icnt.bytes_per_cycle;
  p.icnt_flits = flits(icnt.bytes_up(), flit_bytes) + flits(icnt.bytes_down(), flit_bytes);
  return p;
}

}  // namespace

json simulation_report(const GpuModule& gpu, const RunIdentity& id, const AddedHardware& added,
                       const std::vector<std::pair<std::string, std::string>>& effective,
                       double host_seconds) {
  const GpuSpec& spec = gpu.spec();
  SmStats total;
  const uint64_t cycles = gpu.end_cycle();
  json per_sm = json::array();
  json deadlocks = json::array();
  ActivityCounters activity;
  std::vector<std::pair<std::string, uint64_t>> mechanism_counters;  // summed over SMs, in first-seen order
  // Register and scratchpad capacity over the SMs' active cycles, each SM's
  // its own (a cross-SM active SM holds its neighbour's too).
  double rf_capacity_cycles = 0, smem_capacity_cycles = 0;
  for (uint32_t i = 0; i < gpu.sms().size(); ++i) {
    const SmCore& sm = gpu.sms()[i]->core();
    const SmStats& s = sm.stats();
    const SmSpec& own = gpu.sm_configuration(i).spec.sm;
    rf_capacity_cycles += static_cast<double>(s.active_cycles) * own.registers;
    smem_capacity_cycles += static_cast<double>(s.active_cycles) * own.scratchpad_bytes;
    if (sm.deadlocked()) {
      json d = {{"sm", i}, {"cycle", s.last_cycle}};
      const std::string state = sm.mechanism().hooks ? sm.mechanism().hooks->describe() : std::string();
      if (!state.empty()) d["mechanism_state"] = state;
      deadlocks.push_back(d);
    }
    total.add(s);
    sm.collect(activity);
    std::vector<std::pair<std::string, uint64_t>> c;
    if (sm.mechanism().hooks) sm.mechanism().hooks->counters(c);
    for (const auto& counter : c) {
      auto it = std::find_if(mechanism_counters.begin(), mechanism_counters.end(),
                             [&](const auto& e) { return e.first == counter.first; });
      if (it == mechanism_counters.end()) mechanism_counters.push_back(counter);
      else it->second += counter.second;
    }
    per_sm.push_back({{"warp_instructions", s.warp_instructions},
                      {"active_cycles", s.active_cycles},
                      {"ctas_completed", s.ctas_completed},
                      {"max_resident_ctas", s.max_resident_ctas}});
  }
  // Everything collected so far is per SM (baseline arrays and the
  // mechanism's structures): the GPU has num_sms copies.
  for (auto& [key, a] : activity) a.instances *= spec.num_sms;
  gpu.memory().collect(activity);

  const auto& records = gpu.kernels();
  const KernelSource& kernel = *records.front().kernel;  // the top-level occupancy fields describe it
  const Occupancy& occ = records.front().occupancy;
  json kernels = json::array();
  bool completed = deadlocks.empty();
  for (const auto& rec : records) {
    json k = kernel_json(*rec.kernel, id.kernel_file);
    k["occupancy"] = occupancy_json(rec.occupancy, spec, *rec.kernel, id.mechanism);
    k["start_cycle"] = rec.start_cycle;
    k["end_cycle"] = rec.end_cycle;
    k["cycles"] = rec.end_cycle - rec.start_cycle;
    k["warp_instructions"] = rec.warp_instructions;
    k["ctas_completed"] = rec.ctas_completed;
    k["completed"] = rec.finished;
    if (const TraceStats* t = trace_stats(*rec.kernel)) {
      json unknown = json::object();
      for (const auto& [op, n] : t->unknown_opcodes) unknown[op] = n;
      k["trace"] = {{"instruction_lines", t->instruction_lines},
                    {"unknown_opcodes", unknown},
                    {"unknown_opcode_lines", t->unknown_opcode_lines()},
                    {"dropped_registers", t->dropped_registers},
                    {"early_exits", t->early_exits}};
    }
    completed = completed && rec.finished;
    kernels.push_back(k);
  }
  const double active = static_cast<double>(total.active_cycles);
  json stall_reasons;
  for (unsigned r = 1; r < kNumStallReasons; ++r)
    stall_reasons[to_string(static_cast<StallReason>(r))] = total.reason_cycles[r];
  json op_mix;
  for (unsigned o = 0; o < kNumOpClasses; ++o) op_mix[std::string(to_string(static_cast<OpClass>(o)))] = total.op_counts[o];
  json params;
  for (const auto& [k, v] : effective) params[k] = v;
  json activity_json;
  for (const auto& [k, a] : activity)
    activity_json[k] = {{"reads", a.reads}, {"writes", a.writes}, {"instances", a.instances}};

  json report;
  report["config"] = {{"name", spec.name}, {"params", params}};
  if (records.size() == 1) {
    report["kernel"] = kernel_json(kernel, id.kernel_file);
  } else {
    report["kernel"] = {{"name", id.kernel_file}, {"file", id.kernel_file}, {"count", records.size()}};
  }
  report["kernels"] = kernels;
  report["mechanism"] = id.mechanism;
  report["scheduler"] = id.scheduler;
  report["seed"] = id.seed;
  report["completed"] = completed;
  if (!deadlocks.empty()) report["deadlock"] = deadlocks;
  report["cycles"] = cycles;
  report["warp_instructions"] = total.warp_instructions;
  report["ipc"] = ratio(static_cast<double>(total.warp_instructions), static_cast<double>(cycles));
  // GPGPU-Sim's IPC: active threads' instructions per cycle (what the papers print).
  report["thread_instructions"] = total.thread_instructions;
  report["thread_ipc"] = ratio(static_cast<double>(total.thread_instructions), static_cast<double>(cycles));
  report["ctas_completed"] = total.ctas_completed;
  report["occupancy"] = occupancy_json(occ, spec, kernel, id.mechanism);
  report["resident_ctas_per_sm"] = total.max_resident_ctas;
  report["resident_warps_per_sm"] = total.max_resident_warps;
  report["avg_resident_ctas_per_sm"] = ratio(static_cast<double>(total.resident_cta_cycles), active);
  report["avg_resident_warps_per_sm"] = ratio(static_cast<double>(total.resident_warp_cycles), active);
  report["rf_utilization"] = ratio(static_cast<double>(total.rf_allocated_cycles), rf_capacity_cycles);
  report["spm_utilization"] =
      spec.sm.scratchpad_bytes ? ratio(static_cast<double>(total.smem_allocated_cycles), smem_capacity_cycles) : 0.0;
  report["active_cycles"] = total.active_cycles;
  report["issue_cycles"] = total.issue_cycles;
  report["stall_cycles"] = total.stall_cycles;
  report["idle_cycles"] = total.idle_cycles;
  report["empty_cycles"] = total.empty_cycles;
  report["stall_reasons"] = stall_reasons;
  report["op_mix"] = op_mix;
  report["counters"] = {
      {"register_file",
       {{"reads_per_bank", total.rf_bank_reads},
        {"writes_per_bank", total.rf_bank_writes},
        {"bank_conflicts", total.rf_bank_conflicts},
        {"route_retries", total.route_retries}}},
      {"scratchpad", {{"lane_accesses", total.smem_accesses}, {"bank_conflict_cycles", total.smem_conflict_cycles}}},
      {"l1",
       {{"hits", total.l1_hits},
        {"misses", total.l1_misses},
        {"fills", total.l1_fills},
        {"pending_hits", total.l1_pending_hits},
        {"sector_misses", total.l1_sector_misses}}},
      {"global_transactions", total.global_transactions},
      {"barriers", total.barriers},
      {"memory", gpu.memory().stats_json()}};
  // The MSHR stalls only when MSHRs are limited (the default report is as
  // before the key existed).
  if (spec.l1.mshr_entries) report["counters"]["l1"]["mshr_stall_cycles"] = total.l1_mshr_stall_cycles;
  // Only a run with an instruction cache has its counters: with the default
  // (none) the report is what it was before the key existed.
  if (spec.icache.size_bytes)
    report["counters"]["icache"] = {{"hits", total.icache_hits},
                                    {"misses", total.icache_misses},
                                    {"fills", total.icache_fills},
                                    {"pending_hits", total.icache_pending_hits}};
  report["activity"] = activity_json;
  json mech_stats = json::object();
  for (const auto& [name, v] : mechanism_counters) mech_stats[name] = v;
  report["mechanism_stats"] = mech_stats;
  EnergyOptions energy_options;
  energy_options.node = id.power_node;
  energy_options.mechanism = id.mechanism;
  energy_options.hardware = added;
  energy_options.gated_sms = added.gated_sms;
  const double simulated_seconds = static_cast<double>(cycles) * static_cast<double>(spec.core_period_ps()) * 1e-12;
  report["simulated_seconds"] = simulated_seconds;
  json energy = energy_report(spec, activity, pipeline_activity(total, gpu.memory().timing().icnt(), spec),
                              simulated_seconds, energy_options);
  report["energy"] = energy["energy"];
  report["power"] = energy["power"];
  report["per_sm"] = per_sm;
  const double rate = ratio(static_cast<double>(total.warp_instructions), host_seconds);
  report["sim_seconds"] = host_seconds;
  report["sim_rate_warp_inst_per_s"] = rate;
  report["sim_rate_cycles_per_s"] = ratio(static_cast<double>(cycles), host_seconds);
  report["host"] = {{"sim_seconds", host_seconds}, {"sim_rate_warp_inst_per_s", rate}};
  return report;
}

}  // namespace smshare
