#include "hw/power/power_model.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "hw/common/error.hpp"

namespace smshare {

const std::vector<SmUnitStatic>& dhar_chen_table3() {
  static const std::vector<SmUnitStatic> t = {
      {"front_end", 0.06783, false},      {"register_file", 0.228586, true},
      {"simd", 0.038, false},             {"ldst", 0.911, false},
      {"undiff", 1.571, false},           {"l1d_shared_memory", 0.86, true},
      {"tex_const_cache", 0.86, false},   {"additional_wiring", 0.0385416, false},
  };
  return t;
}

std::vector<std::string> default_gated_units() { return {"front_end", "simd", "ldst", "undiff", "tex_const_cache"}; }

namespace {

// McPAT's technology parameters GPUWattch's functional-unit energies depend
// on: ITRS high-performance Vdd and the short-circuit coefficient
// sckt_co_eff (CACTI 7 tech_params/45nm.dat and 32nm.dat: Vdd 1.0 / 0.9 V,
// sckt_co_eff 1.1387 / 1.1111; McPAT's technology.cc carries the same). A
// node between two tables is interpolated linearly in feature size, as
// McPAT's init_tech_params does (40 nm: 8/13 of 45 nm, 5/13 of 32 nm).
struct McpatNode {
  double feature_nm, vdd, sckt_co_eff;
};

McpatNode mcpat_node(const std::string& node) {
  const McpatNode n45{45, 1.0, 1.1387}, n32{32, 0.9, 1.1111};
  if (node == "32nm") return n32;
  if (node == "40nm") {
    const double w45 = (40.0 - 32.0) / (45.0 - 32.0);
    return {40, w45 * n45.vdd + (1 - w45) * n32.vdd, w45 * n45.sckt_co_eff + (1 - w45) * n32.sckt_co_eff};
  }
  throw input_error("energy options", "node", "'" + node + "' has no pipeline energy model (allowed: 40nm, 32nm)");
}

// GPUWattch's per-access energy of a GPU functional unit (gpgpu-sim
// src/gpuwattch/logic.cc, FunctionalUnit, non-embedded branch):
//   per_access_energy = base x Vdd^2 x (F / 90 nm) x 2
// with base = 0.8 x 1.29 pJ / 1.3^2 (ALU), 3.9 x 14.91 pJ / 1.08^2 (FPU),
// 8 x 14.91 pJ / 1.08^2 (SFU, modelled as McPAT's MUL unit); runtime dynamic
// energy is multiplied by sckt_co_eff (FunctionalUnit::computeEnergy) and the
// access count by the XML scaling coefficient (gpgpu_sim_wrapper.cc,
// set_exec_unit_power: SP for the integer ALU, FPU, SFU in
// configs/GTX480/gpuwattch_gtx480.xml: 2.38, 0.64, 0.51).
double gpuwattch_fu_energy_j(double base_pj, double xml_coefficient, const McpatNode& n) {
  return base_pj * 1e-12 * n.vdd * n.vdd * (n.feature_nm / 90.0) * 2 * n.sckt_co_eff * xml_coefficient;
}

// The CACTI array a pipeline component is charged as; a cache without it
// (an older results.json, a test fixture) names the file and the cfg.
const CactiEntry& pipeline_array(const CactiResults& cacti, const std::string& name) {
  if (!cacti.structures.count(name))
    throw input_error(cacti.file, "structures." + name,
                      "missing: the pipeline's energy needs cacti-params/<node>/" + name +
                          ".cfg's results (run scripts/cacti/cacti_cache.py refresh)");
  return cacti.structures.at(name);
}

std::string pj(double joules) {
  std::ostringstream o;
  o << std::setprecision(4) << joules * 1e12 << " pJ";
  return o.str();
}

}  // namespace

double icnt_average_wire_mm() { return 2.0 / 3.0 * std::sqrt(kGtx480DieMm2); }

double cacti_access_j(const CactiEntry& e, double reads, double writes) {
  return (reads * e.read_energy_nj + writes * e.write_energy_nj) * 1e-9 * e.accesses_per_access();
}

std::vector<PipelineComponent> pipeline_energy_components(const GpuSpec& spec, const std::string& node) {
  return pipeline_energy_components(spec, node, cacti_results(node));
}

std::vector<PipelineComponent> pipeline_energy_components(const GpuSpec& spec, const std::string& node,
                                                          const CactiResults& cacti) {
  const McpatNode n = mcpat_node(node);
  const std::string gw = "GPUWattch FunctionalUnit (gpgpu-sim src/gpuwattch/logic.cc) x gpuwattch_gtx480.xml ";
  const double int_alu = gpuwattch_fu_energy_j(0.8 * 1.29 / (1.3 * 1.3), 2.38, n);
  const std::string in = "CACTI " + cacti.node + " ";
  const CactiEntry& ibuffer = pipeline_array(cacti, "instruction_buffer");
  const CactiEntry& ready = pipeline_array(cacti, "scheduler_readiness_table");
  const CactiEntry& scoreboard = pipeline_array(cacti, "scoreboard");
  const CactiEntry& collectors = pipeline_array(cacti, "operand_collector_storage");
  const CactiEntry& pending = pipeline_array(cacti, "coalescer_pending_requests");
  if (!(cacti.wire.repeated_energy_nj_per_mm > 0))
    throw input_error(cacti.file, "wire.repeated_energy_nj_per_mm",
                      "missing: the interconnect's flit energy needs CACTI's wire model");
  const uint32_t flit_bits = spec.icnt.bytes_per_cycle * 8;
  const double wire_bit_mm_j = cacti.wire.repeated_energy_nj_per_mm * 1e-9;
  std::ostringstream flit_source;
  flit_source << in << "repeated global wire (delay-optimal), " << pj(wire_bit_mm_j) << "/mm per bit x "
              << std::setprecision(4) << icnt_average_wire_mm() << " mm (2/3 of the side of a " << kGtx480DieMm2
              << " mm^2 die) x " << flit_bits << " bits (icnt.bytes_per_cycle x 8); routers not charged";
  using P = PipelineActivity;
  return {
      {"fetch_decode", "warp instruction decoded into the instruction buffer and read at issue",
       &P::warp_instructions, cacti_access_j(ibuffer, 1, 1),
       in + "instruction_buffer.cfg, one write + one read; decode logic and instruction cache not charged"},
      {"warp_scheduler", "cycle a warp scheduler runs (reads its warps' ready bits)", &P::scheduler_cycles,
       cacti_access_j(ready, 1, 0), in + "scheduler_readiness_table.cfg, one read; selection logic not charged"},
      {"scoreboard", "issue-time check of a warp instruction's registers", &P::warp_instructions,
       cacti_access_j(scoreboard, 1, 0), in + "scoreboard.cfg, one read (re-checks of a stalled warp not counted)"},
      {"scoreboard_update", "destination bit set at issue or cleared at writeback", &P::scoreboard_updates,
       cacti_access_j(scoreboard, 0, 1), in + "scoreboard.cfg, one write"},
      {"operand_collectors", "register operand read into a collector unit and read out at dispatch",
       &P::operand_reads, cacti_access_j(collectors, 1, 1),
       in + "operand_collector_storage.cfg, one write + one read"},
      {"sp_int_alu", "active thread of an integer ALU instruction", &P::int_alu_thread_ops, int_alu,
       gw + "SP coefficient 2.38"},
      {"sp_fpu", "active thread of a floating-point instruction", &P::fp_thread_ops,
       gpuwattch_fu_energy_j(3.9 * 14.91 / (1.08 * 1.08), 0.64, n), gw + "FPU coefficient 0.64"},
      {"sfu", "active thread of a special-function instruction", &P::sfu_thread_ops,
       gpuwattch_fu_energy_j(8 * 14.91 / (1.08 * 1.08), 0.51, n), gw + "SFU coefficient 0.51"},
      {"ldst_agu", "active thread of a memory instruction (one address add)", &P::memory_thread_ops, int_alu,
       "an adder per thread at the integer ALU's energy: " + gw + "SP coefficient 2.38"},
      {"ldst_coalescer", "coalesced global/local transaction (pending request table search)",
       &P::global_transactions, pending.search_energy_nj * 1e-9,
       in + "coalescer_pending_requests.cfg, one CAM search; entry allocation on a miss not charged"},
      {"interconnect", "flit sent or received by an SM", &P::icnt_flits,
       wire_bit_mm_j * icnt_average_wire_mm() * flit_bits, flit_source.str()},
  };
}

nlohmann::json energy_report(const GpuSpec& spec, const ActivityCounters& activity, const PipelineActivity& pipeline,
                             double seconds, const EnergyOptions& o) {
  return energy_report(spec, activity, pipeline, seconds, o, cacti_results(o.node));
}

nlohmann::json energy_report(const GpuSpec& spec, const ActivityCounters& activity, double seconds,
                             const EnergyOptions& o, const CactiResults& cacti) {
  return energy_report(spec, activity, PipelineActivity{}, seconds, o, cacti);
}

double scaled_area_mm2(const CactiEntry& e, uint64_t bits) {
  return e.area_mm2 * static_cast<double>(bits) / static_cast<double>(e.cfg_bits());
}

double scaled_leakage_w(const CactiEntry& e, uint64_t bits) {
  return e.leakage_mw * 1e-3 * static_cast<double>(bits) / static_cast<double>(e.cfg_bits());
}

nlohmann::json energy_report(const GpuSpec& spec, const ActivityCounters& activity, double seconds,
                             const std::string& node) {
  EnergyOptions o;
  o.node = node;
  return energy_report(spec, activity, seconds, o);
}

nlohmann::json energy_report(const GpuSpec& spec, const ActivityCounters& activity, double seconds,
                             const EnergyOptions& o) {
  return energy_report(spec, activity, seconds, o, cacti_results(o.node));
}

nlohmann::json energy_report(const GpuSpec& spec, const ActivityCounters& activity, const PipelineActivity& pipeline,
                             double seconds, const EnergyOptions& o, const CactiResults& cacti) {
  if (!(seconds >= 0) || !std::isfinite(seconds))
    throw input_error("energy_report", "simulated_seconds", "must be finite and >= 0");
  if (o.gated_sms > spec.num_sms)
    throw input_error("energy_report", "gated_sms",
                      std::to_string(o.gated_sms) + " > num_sms " + std::to_string(spec.num_sms));
  nlohmann::json structures = nlohmann::json::object();
  double dynamic_j = 0, leakage_j = 0, leakage_w_total = 0;
  for (const auto& [name, a] : activity) {
    nlohmann::json s;
    s["reads"] = a.reads;
    s["writes"] = a.writes;
    s["instances"] = a.instances;
    double e_read = 0, e_write = 0, leak_w = 0;
    if (name == "dram") {
      e_read = e_write = kDramEnergyPerLineJ;
      s["source"] = "GDDR5, 16 nJ per 128 B line (BMC Bioinformatics 19:421, Table 7; not CACTI); "
                    "background power not modelled";
    } else {
      if (!cacti.structures.count(name)) {
        std::string known = "dram";
        for (const auto& n : cacti.names()) known += ", " + n;
        throw input_error("activity counters", name, "no power model for this structure (known: " + known + ")");
      }
      const CactiEntry& e = cacti.at(name);
      const uint32_t k = e.accesses_per_access();
      e_read = cacti_access_j(e, 1, 0);
      e_write = cacti_access_j(e, 0, 1);
      uint64_t bits = structure_bits(spec, o.hardware, name);
      if (bits == 0) bits = e.reference_bits;  // structure of another mechanism: the papers' size
      leak_w = scaled_leakage_w(e, bits) * a.instances;
      s["source"] = "CACTI " + cacti.node + " (" + name + ".cfg)";
      s["bits_per_instance"] = bits;
      s["cacti_accesses_per_access"] = k;
    }
    const double dyn = e_read * static_cast<double>(a.reads) + e_write * static_cast<double>(a.writes);
    const double leak = leak_w * seconds;
    s["read_energy_per_access_j"] = e_read;
    s["write_energy_per_access_j"] = e_write;
    s["dynamic_j"] = dyn;
    s["leakage_w"] = leak_w;
    s["leakage_j"] = leak;
    s["total_j"] = dyn + leak;
    structures[name] = s;
    dynamic_j += dyn;
    leakage_j += leak;
    leakage_w_total += leak_w;
  }

  // Static power of the SM units CACTI does not model (Dhar & Chen Table III).
  const std::vector<std::string> gated = !o.gated_units.empty()          ? o.gated_units
                                         : !o.hardware.gated_units.empty() ? o.hardware.gated_units
                                                                           : default_gated_units();
  for (const auto& g : gated) {
    bool ok = false;
    for (const auto& u : dhar_chen_table3()) ok = ok || (u.unit == g && !u.cacti_modelled);
    if (!ok) {
      std::string allowed;
      for (const auto& u : dhar_chen_table3())
        if (!u.cacti_modelled && u.unit != "additional_wiring") allowed += (allowed.empty() ? "" : ", ") + u.unit;
      throw input_error("energy options", "gated_units", "'" + g + "' cannot be gated (allowed: " + allowed + ")");
    }
  }
  nlohmann::json units = nlohmann::json::object();
  double static_w = 0, saved_w = 0;
  const uint32_t active = spec.num_sms - o.gated_sms;
  for (const auto& u : dhar_chen_table3()) {
    nlohmann::json j;
    j["per_sm_w"] = u.watts;
    if (u.cacti_modelled) {
      j["counted"] = "no: CACTI leakage of the arrays is used instead";
    } else if (u.unit == "additional_wiring") {
      const uint32_t n = o.hardware.cross_sm_wiring_static ? spec.num_sms : 0;
      j["sms"] = n;
      j["w"] = u.watts * n;
      static_w += u.watts * n;
    } else {
      bool is_gated = false;
      for (const auto& g : gated) is_gated = is_gated || g == u.unit;
      const uint32_t n = is_gated ? active : spec.num_sms;
      j["sms"] = n;
      j["w"] = u.watts * n;
      static_w += u.watts * n;
      if (is_gated) saved_w += u.watts * o.gated_sms;
    }
    units[u.unit] = j;
  }
  if (!o.sm_unit_static) static_w = 0;

  nlohmann::json sm_static;
  sm_static["source"] = "Dhar & Chen Table III (GPUSimPow per-SM static power; register file and L1D/shared "
                        "memory lines replaced by CACTI leakage)";
  sm_static["included"] = o.sm_unit_static;
  sm_static["units"] = units;
  sm_static["num_sms"] = spec.num_sms;
  sm_static["gated_sms"] = o.gated_sms;
  sm_static["gated_units"] = gated;
  sm_static["static_w"] = static_w;
  sm_static["saved_by_gating_w"] = o.sm_unit_static ? saved_w : 0.0;
  sm_static["energy_j"] = static_w * seconds;

  // Dynamic energy of the pipeline's units, per event.
  nlohmann::json components = nlohmann::json::object();
  double pipeline_j = 0;
  for (const PipelineComponent& c : pipeline_energy_components(spec, o.node, cacti)) {
    const uint64_t n = pipeline.*c.events;
    const double e = c.energy_per_event_j * static_cast<double>(n);
    components[c.name] = {{"event", c.event},
                          {"events", n},
                          {"energy_per_event_j", c.energy_per_event_j},
                          {"dynamic_j", e},
                          {"source", c.source}};
    pipeline_j += e;
  }
  nlohmann::json pipeline_json;
  pipeline_json["components"] = components;
  pipeline_json["collector_dispatches"] = pipeline.collector_dispatches;
  pipeline_json["icnt_flit_bytes"] = spec.icnt.bytes_per_cycle;
  pipeline_json["icnt_wire_mm"] = icnt_average_wire_mm();
  pipeline_json["dynamic_j"] = pipeline_j;

  const double static_j = static_w * seconds;
  nlohmann::json energy;
  energy["node"] = cacti.node;
  energy["cacti"] = cacti.cacti;
  energy["cacti_results"] = cacti.file;
  energy["mechanism"] = o.mechanism;
  energy["simulated_seconds"] = seconds;
  energy["structures"] = structures;
  energy["sm_unit_static"] = sm_static;
  energy["pipeline"] = pipeline_json;
  energy["dynamic_j"] = dynamic_j;
  energy["leakage_j"] = leakage_j;
  energy["sm_unit_static_j"] = static_j;
  energy["pipeline_dynamic_j"] = pipeline_j;
  energy["total_j"] = dynamic_j + leakage_j + static_j + pipeline_j;

  nlohmann::json power;
  power["dynamic_w"] = seconds > 0 ? dynamic_j / seconds : 0.0;
  power["leakage_w"] = leakage_w_total;
  power["sm_unit_static_w"] = static_w;
  power["pipeline_dynamic_w"] = seconds > 0 ? pipeline_j / seconds : 0.0;
  power["average_w"] = (seconds > 0 ? (dynamic_j + pipeline_j) / seconds : 0.0) + leakage_w_total + static_w;
  return {{"energy", energy}, {"power", power}};
}

nlohmann::json area_report(const GpuSpec& spec, const std::string& mechanism, const AddedHardware& added,
                           const std::string& node) {
  return area_report(spec, mechanism, added, cacti_results(node));
}

static nlohmann::json sized_json(const SizedStructure& s, const CactiEntry& e, uint32_t gpu_instances) {
  const double one = scaled_area_mm2(e, s.bits);
  nlohmann::json j;
  j["name"] = s.name;
  j["cfg"] = s.cfg + ".cfg";
  j["source"] = "CACTI";
  j["from"] = s.paper;
  j["bits_per_instance"] = s.bits;
  j["instances_per_sm"] = s.per_sm;
  j["cfg_bits"] = e.cfg_bits();
  j["scaled"] = s.bits != e.cfg_bits();
  j["area_per_instance_mm2"] = one;
  j["area_per_sm_mm2"] = one * s.per_sm;
  j["area_gpu_mm2"] = one * gpu_instances;
  j["leakage_per_sm_w"] = scaled_leakage_w(e, s.bits) * s.per_sm;
  return j;
}

nlohmann::json area_report(const GpuSpec& spec, const std::string& mechanism, const AddedHardware& added,
                           const CactiResults& cacti) {
  nlohmann::json list = nlohmann::json::array();
  double per_sm = 0, cacti_gpu = 0, paper_gpu = 0;
  uint64_t bits_per_sm = 0;
  for (const auto& s : added.structures) {
    auto j = sized_json(s, cacti.at(s.cfg), s.per_sm * spec.num_sms);
    per_sm += j["area_per_sm_mm2"].get<double>();
    cacti_gpu += j["area_gpu_mm2"].get<double>();
    bits_per_sm += s.bits * s.per_sm;
    list.push_back(j);
  }
  for (const auto& c : added.paper_costs) {
    // Pairwise wiring exists only for complete pairs of SMs.
    const double gpu = c.pairwise ? c.area_mm2_per_sm * 2 * (spec.num_sms / 2) : c.area_mm2_per_sm * spec.num_sms;
    nlohmann::json j;
    j["name"] = c.name;
    j["source"] = "paper";
    j["from"] = c.paper;
    j["area_per_sm_mm2"] = c.area_mm2_per_sm;
    j["area_gpu_mm2"] = gpu;
    paper_gpu += gpu;
    list.push_back(j);
  }
  nlohmann::json base = nlohmann::json::array();
  double base_sm = 0;
  for (const auto& s : baseline_structures(spec)) {
    const uint32_t gpu_n = s.per_sm ? s.per_sm * spec.num_sms : spec.dram.channels;
    auto j = sized_json(s, cacti.at(s.cfg), gpu_n);
    if (s.per_sm == 0) j["instances_gpu"] = spec.dram.channels;
    base_sm += j["area_per_sm_mm2"].get<double>();
    base.push_back(j);
  }

  nlohmann::json r;
  r["mechanism"] = mechanism;
  r["node"] = cacti.node;
  r["cacti"] = cacti.cacti;
  r["cacti_results"] = cacti.file;
  r["num_sms"] = spec.num_sms;
  r["added_structures"] = list;
  r["added_bits_per_sm"] = bits_per_sm;
  r["added_bits_gpu"] = bits_per_sm * spec.num_sms;
  r["cacti_area_per_sm_mm2"] = per_sm;
  r["cacti_area_gpu_mm2"] = cacti_gpu;
  r["paper_area_gpu_mm2"] = paper_gpu;
  r["total_mm2"] = cacti_gpu + paper_gpu;
  r["die_mm2"] = kGtx480DieMm2;
  r["die_source"] = "GTX 480 (GF100, 40 nm) die, 529 mm^2";
  r["percent_of_die"] = 100.0 * (cacti_gpu + paper_gpu) / kGtx480DieMm2;
  r["baseline_structures"] = base;
  r["baseline_sm_storage_mm2"] = base_sm;
  r["note"] = "CACTI models storage arrays only; control logic (comparators, adders, queue control) is not "
              "included. Structures smaller than CACTI accepts are scaled per bit from a padded array "
              "(see each cfg). Per-node area; the die figure is the 40 nm GTX 480's.";
  return r;
}

}  // namespace smshare
