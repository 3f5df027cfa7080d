// Energy and area model (hw/power) against hand-computed numbers from a tiny
// fixture CACTI cache, plus sums over the checked-in 40 nm cache.
#include <gtest/gtest.h>

#include <string>

#include "tb/common/input_error_of.hpp"
#include "tb/common/temp_dir.hpp"
#include "hw/common/error.hpp"
#include "hw/power/cacti_results.hpp"
#include "hw/power/power_model.hpp"
#include "hw/power/structure_sizes.hpp"
#include "hw/sharing/registry.hpp"

using namespace smshare;

namespace {

const char* kSha = "0000000000000000000000000000000000000000000000000000000000000000";

std::string entry(const std::string& name, double area, double rd, double wr, double leak_mw, int cap, int block,
                  int access_bits) {
  return "\"" + name + "\": {\"cfg_sha256\": \"" + kSha + "\", \"area_mm2\": " + std::to_string(area) +
         ", \"read_energy_nj\": " + std::to_string(rd) + ", \"write_energy_nj\": " + std::to_string(wr) +
         ", \"leakage_mw\": " + std::to_string(leak_mw) +
         ", \"access_time_ns\": 0.5, \"cycle_time_ns\": 0.4, \"capacity_bytes\": " + std::to_string(cap) +
         ", \"block_bytes\": " + std::to_string(block) + ", \"access_bits\": " + std::to_string(access_bits) +
         ", \"reference_bits\": " + std::to_string(cap * 8) + "}";
}

// The pipeline's arrays (pipeline_energy_components) and CACTI's wire model.
// The collector storage's 64 B block makes one 1024-bit operand two CACTI
// accesses; the pending request table is a CAM with a search energy.
std::string pipeline_entries() {
  std::string pending = entry("coalescer_pending_requests", 0.0067, 0.002, 0.0024, 1.4, 256, 8, 64);
  pending.insert(pending.size() - 1, ", \"search_energy_nj\": 0.004");
  return entry("instruction_buffer", 0.0047, 0.0012, 0.0023, 0.95, 768, 8, 64) + ", " +
         entry("scheduler_readiness_table", 0.0005, 0.0004, 0.0005, 0.16, 128, 4, 24) + ", " +
         entry("scoreboard", 0.003, 0.0011, 0.0016, 0.5, 384, 8, 63) + ", " +
         entry("operand_collector_storage", 0.25, 0.086, 0.092, 8.6, 6144, 64, 1024) + ", " + pending;
}

const char* kFixtureWire =
    "{\"repeated_delay_ns_per_mm\": 0.17, \"repeated_energy_nj_per_mm\": 0.0004, "
    "\"repeated_leakage_mw_per_mm\": 0.027, \"lowswing_delay_ns_1mm\": 0.146, \"lowswing_energy_nj_1mm\": 4.7e-6}";

std::string fixture_json() {
  return "{\"node\": \"fixture\", \"cacti\": \"test\", \"wire\": " + std::string(kFixtureWire) +
         ", \"structures\": {" + pipeline_entries() + ", " +
         entry("register_file_bank", 0.1, 0.05, 0.08, 10.0, 8192, 128, 1024) + ", " +
         entry("operand_cache_bank", 0.004, 0.002, 0.003, 0.5, 512, 16, 1024) + ", " +
         entry("lock_array_register", 0.000512, 0.0001, 0.0001, 0.2, 64, 1, 6) + ", " +
         entry("partner_id_table", 0.000512, 0.0001, 0.0001, 0.2, 64, 1, 4) + ", " +
         entry("owner_bits", 0.000512, 0.0001, 0.0001, 0.2, 64, 1, 1) + ", " +
         entry("scratchpad_bank", 0.004, 0.001, 0.001, 1.0, 1536, 4, 32) + ", " +
         entry("l1d", 0.3, 0.2, 0.2, 20.0, 16384, 128, 1024) + ", " +
         entry("l2_slice", 4.0, 1.5, 1.5, 120.0, 131072, 128, 1024) + "}}";
}

// CTest runs every case in its own process, in parallel: each process writes
// its own files, or one could read another's half-written fixture. The
// directory goes with the process.
std::string write_temp(const std::string& text, const std::string& tag) {
  static const TempDir dir;
  return dir.write(tag + ".json", text);
}

CactiResults fixture() { return load_cacti_results_file(write_temp(fixture_json(), "fixture")); }

// What mechanism `m` adds on `spec`, as its registry entry declares it.
AddedHardware added(const GpuSpec& spec, const std::string& m) {
  return mechanism_registry().configure({m, {}, ""}).hardware(spec);
}

using tb::input_error_of;

}  // namespace

TEST(PowerCactiResults, ReadsFixture) {
  const CactiResults r = fixture();
  EXPECT_EQ(r.node, "fixture");
  const CactiEntry& e = r.at("operand_cache_bank");
  EXPECT_DOUBLE_EQ(e.read_energy_nj, 0.002);
  EXPECT_EQ(e.cfg_bits(), 4096u);
  EXPECT_EQ(e.accesses_per_access(), 8u);  // 1024-bit line over a 128-bit block
  EXPECT_EQ(r.at("register_file_bank").accesses_per_access(), 1u);
}

TEST(PowerCactiResults, UnknownStructureListsKnown) {
  const CactiResults r = fixture();
  const std::string msg = input_error_of([&] { r.at("warp_scheduler"); });
  EXPECT_NE(msg.find("warp_scheduler"), std::string::npos) << msg;
  EXPECT_NE(msg.find("register_file_bank"), std::string::npos) << msg;
}

TEST(PowerCactiResults, MalformedEntryNamesFileAndKey) {
  std::string bad = fixture_json();
  const std::string good = "\"leakage_mw\": 10.000000";
  ASSERT_NE(bad.find(good), std::string::npos);
  bad.replace(bad.find(good), good.size(), "\"leakage_mw\": \"x\"");
  const std::string path = write_temp(bad, "bad");
  const std::string msg = input_error_of([&] { load_cacti_results_file(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("structures.register_file_bank.leakage_mw"), std::string::npos) << msg;

  const std::string path2 = write_temp("{not json", "notjson");
  EXPECT_NE(input_error_of([&] { load_cacti_results_file(path2); }).find("not valid JSON"), std::string::npos);
}

TEST(PowerCactiResults, UnknownNodeListsKnownNodes) {
  const std::string msg = input_error_of([] { cacti_results_path("7nm"); });
  EXPECT_NE(msg.find("7nm"), std::string::npos) << msg;
  EXPECT_NE(msg.find("40nm"), std::string::npos) << msg;
}

TEST(PowerCactiResults, CheckedInCacheCoversEveryCostedStructure) {
  const GpuSpec spec;
  for (const auto& node : {"40nm", "32nm"}) {
    const CactiResults& r = cacti_results(node);
    for (const auto& s : baseline_structures(spec)) EXPECT_NO_THROW(r.at(s.cfg)) << node;
    for (const auto& m : mechanism_registry().names())
      for (const auto& s : added(spec, m).structures) EXPECT_NO_THROW(r.at(s.cfg)) << node << " " << m;
  }
}

TEST(PowerEnergy, HandComputedDynamicAndLeakage) {
  const GpuSpec spec;  // Fermi: 8 KB RF banks, as the fixture's cfg
  ActivityCounters a;
  a["register_file_bank"] = {1000, 500, 240};
  a["operand_cache_bank"] = {100, 0, 60};
  a["dram"] = {10, 0, 6};
  EnergyOptions o;
  o.sm_unit_static = false;
  o.mechanism = "expars";
  o.hardware = added(spec, "expars");
  const auto j = energy_report(spec, a, 1e-3, o, fixture());
  const auto& s = j["energy"]["structures"];
  // RF: 1000 x 0.05 nJ + 500 x 0.08 nJ = 9e-8 J; leakage 10 mW x 240 x 1 ms = 2.4e-3 J.
  EXPECT_NEAR(s["register_file_bank"]["dynamic_j"].get<double>(), 9e-8, 1e-18);
  EXPECT_NEAR(s["register_file_bank"]["leakage_j"].get<double>(), 2.4e-3, 1e-15);
  // OC bank: 8 CACTI accesses per line: 100 x 8 x 0.002 nJ = 1.6e-9 J. A bank
  // is 1 Kbit (2 KB in Fermi's 16 register banks), a quarter of the cfg's:
  // 0.5 mW / 4 x 60 x 1 ms = 7.5e-6 J.
  EXPECT_NEAR(s["operand_cache_bank"]["dynamic_j"].get<double>(), 1.6e-9, 1e-19);
  EXPECT_NEAR(s["operand_cache_bank"]["leakage_j"].get<double>(), 7.5e-6, 1e-15);
  // DRAM: 10 lines x 16 nJ.
  EXPECT_NEAR(s["dram"]["dynamic_j"].get<double>(), 10 * 16e-9, 1e-18);
  const double total = 9e-8 + 2.4e-3 + 1.6e-9 + 7.5e-6 + 10 * 16e-9;
  EXPECT_NEAR(j["energy"]["total_j"].get<double>(), total, 1e-15);
  EXPECT_NEAR(j["power"]["average_w"].get<double>(), total / 1e-3, 1e-9);
  EXPECT_NEAR(j["power"]["leakage_w"].get<double>(), 2.4 + 0.0075, 1e-12);
}

TEST(PowerEnergy, DramLineEnergyIsTheTabulatedCacheLineFigure) {
  // BMC Bioinformatics 19:421, Table 7: "DRAM read/write (for an entire
  // cache line) 16000 pJ"; a counted access moves one 128 B line: 15.6 pJ/bit.
  const GpuSpec spec;
  ActivityCounters a;
  a["dram"] = {3, 2, 6};
  EnergyOptions o;
  o.sm_unit_static = false;
  const auto j = energy_report(spec, a, 1e-3, o, fixture());
  const auto& d = j["energy"]["structures"]["dram"];
  EXPECT_DOUBLE_EQ(d["read_energy_per_access_j"].get<double>(), 16e-9);
  EXPECT_DOUBLE_EQ(d["write_energy_per_access_j"].get<double>(), 16e-9);
  EXPECT_NEAR(d["read_energy_per_access_j"].get<double>() / (128 * 8), 15.625e-12, 1e-18);
  EXPECT_NEAR(d["dynamic_j"].get<double>(), 5 * 16e-9, 1e-20);
}

// GPUWattch's functional-unit energy at 40 nm, written out by hand from
// logic.cc and gpuwattch_gtx480.xml: Vdd and sckt_co_eff interpolated 8/13
// of the way from 32 nm (0.9 V, 1.1111) to 45 nm (1.0 V, 1.1387).
double gpuwattch_40nm(double base_pj, double coefficient) {
  const double vdd = (8 * 1.0 + 5 * 0.9) / 13, sckt = (8 * 1.1387 + 5 * 1.1111) / 13;
  return base_pj * 1e-12 * vdd * vdd * (40.0 / 90) * 2 * sckt * coefficient;
}

TEST(PowerPipeline, EnergyIsPerEventEnergyTimesHandCounts) {
  const GpuSpec spec;  // icnt.bytes_per_cycle = 32: 256-bit flits
  PipelineActivity p;
  p.warp_instructions = 1000;
  p.scheduler_cycles = 5000;
  p.scoreboard_updates = 1400;
  p.collector_dispatches = 990;
  p.operand_reads = 1800;
  p.int_alu_thread_ops = 32 * 300;  // 300 full warps
  p.fp_thread_ops = 32 * 500 + 7;   // 500 full warps and one of 7 lanes
  p.sfu_thread_ops = 16 * 10;
  p.memory_thread_ops = 32 * 150;
  p.global_transactions = 90;
  p.icnt_flits = 400;
  EnergyOptions o;
  o.sm_unit_static = false;
  const auto j = energy_report(spec, {}, p, 1e-3, o, fixture());
  const auto& c = j["energy"]["pipeline"]["components"];
  const double alu = gpuwattch_40nm(0.8 * 1.29 / (1.3 * 1.3), 2.38);
  const double fpu = gpuwattch_40nm(3.9 * 14.91 / (1.08 * 1.08), 0.64);
  const double sfu = gpuwattch_40nm(8 * 14.91 / (1.08 * 1.08), 0.51);
  // The same numbers rounded as docs/power-area.md quotes them.
  EXPECT_NEAR(alu, 1.347e-12, 0.001e-12);
  EXPECT_NEAR(fpu, 29.58e-12, 0.01e-12);
  EXPECT_NEAR(sfu, 48.35e-12, 0.01e-12);
  // The fixture's CACTI figures by hand (pJ): instruction buffer write 2.3 +
  // read 1.2; readiness table read 0.4; scoreboard read 1.1, write 1.6;
  // collector storage (2 CACTI accesses per operand) 2 x (92 + 86); CAM
  // search 4; a flit 0.4 pJ/mm x 2/3 x sqrt(529) mm x 256 bits.
  const double wire_mm = 2.0 / 3.0 * 23.0;
  const std::pair<const char*, double> per_event[] = {
      {"fetch_decode", 3.5e-12},    {"warp_scheduler", 0.4e-12},      {"scoreboard", 1.1e-12},
      {"scoreboard_update", 1.6e-12}, {"operand_collectors", 356e-12}, {"sp_int_alu", alu},
      {"sp_fpu", fpu},              {"sfu", sfu},                     {"ldst_agu", alu},
      {"ldst_coalescer", 4e-12},    {"interconnect", 0.4e-12 * wire_mm * 256}};
  const std::pair<const char*, uint64_t> events[] = {
      {"fetch_decode", 1000},     {"warp_scheduler", 5000}, {"scoreboard", 1000}, {"scoreboard_update", 1400},
      {"operand_collectors", 1800}, {"sp_int_alu", 9600},   {"sp_fpu", 16007},    {"sfu", 160},
      {"ldst_agu", 4800},         {"ldst_coalescer", 90},   {"interconnect", 400}};
  ASSERT_EQ(c.size(), 11u);
  EXPECT_NEAR(icnt_average_wire_mm(), 15.3333, 1e-4);
  double pipeline = 0;
  for (size_t i = 0; i < 11; ++i) {
    const auto& [name, e] = per_event[i];
    const uint64_t n = events[i].second;
    ASSERT_STREQ(name, events[i].first);
    EXPECT_EQ(c[name]["events"].get<uint64_t>(), n) << name;
    EXPECT_NEAR(c[name]["energy_per_event_j"].get<double>(), e, e * 1e-12) << name;
    EXPECT_NEAR(c[name]["dynamic_j"].get<double>(), n * e, n * e * 1e-12) << name;
    pipeline += n * e;
  }
  EXPECT_EQ(j["energy"]["pipeline"]["icnt_flit_bytes"].get<uint32_t>(), 32u);
  EXPECT_NEAR(j["energy"]["pipeline"]["dynamic_j"].get<double>(), pipeline, pipeline * 1e-12);
  EXPECT_NEAR(j["energy"]["pipeline_dynamic_j"].get<double>(), pipeline, pipeline * 1e-12);
  EXPECT_NEAR(j["energy"]["total_j"].get<double>(), pipeline, pipeline * 1e-12);  // no structures, no static power
  EXPECT_NEAR(j["power"]["pipeline_dynamic_w"].get<double>(), pipeline / 1e-3, pipeline * 1e-9);
  EXPECT_NEAR(j["power"]["average_w"].get<double>(), pipeline / 1e-3, pipeline * 1e-9);
}

TEST(PowerPipeline, FlitEnergyFollowsTheFlitWidth) {
  GpuSpec spec;
  spec.icnt.bytes_per_cycle = 64;
  PipelineActivity p;
  p.icnt_flits = 10;
  const auto j = energy_report(spec, {}, p, 1e-3, EnergyOptions{}, fixture());
  const auto& f = j["energy"]["pipeline"]["components"]["interconnect"];
  EXPECT_NEAR(f["energy_per_event_j"].get<double>(), 0.4e-12 * (2.0 / 3.0 * 23.0) * 512, 1e-22);
  EXPECT_EQ(j["energy"]["pipeline"]["icnt_flit_bytes"].get<uint32_t>(), 64u);
}

TEST(PowerPipeline, CheckedInCacheGivesTheDocumentedFigures) {
  // docs/power-area.md quotes these CACTI 7 40 nm results (results.json) and
  // the per-event energies made from them.
  const GpuSpec spec;
  const auto v = pipeline_energy_components(spec, "40nm");
  auto at = [&](const std::string& name) {
    for (const auto& c : v)
      if (c.name == name) return c.energy_per_event_j;
    ADD_FAILURE() << name;
    return 0.0;
  };
  EXPECT_NEAR(at("fetch_decode"), (1.18203 + 2.30717) * 1e-12, 1e-18);
  EXPECT_NEAR(at("warp_scheduler"), 0.424902e-12, 1e-18);
  EXPECT_NEAR(at("scoreboard"), 1.0716e-12, 1e-18);
  EXPECT_NEAR(at("scoreboard_update"), 1.61061e-12, 1e-18);
  EXPECT_NEAR(at("operand_collectors"), (86.4393 + 92.2181) * 1e-12, 1e-16);
  EXPECT_NEAR(at("ldst_coalescer"), 3.98541e-12, 1e-18);
  EXPECT_NEAR(at("interconnect"), 0.402675e-12 * (2.0 / 3.0 * 23.0) * 256, 1e-16);
  EXPECT_EQ(at("ldst_agu"), at("sp_int_alu"));
}

TEST(PowerPipeline, CacheWithoutAPipelineArrayIsInputError) {
  std::string bad = fixture_json();
  const std::string key = "\"scoreboard\": {";
  ASSERT_NE(bad.find(key), std::string::npos);
  bad.replace(bad.find(key), key.size(), "\"scoreboard_old\": {");
  const std::string path = write_temp(bad, "noscoreboard");
  const CactiResults r = load_cacti_results_file(path);
  const std::string msg = input_error_of([&] { pipeline_energy_components(GpuSpec{}, "40nm", r); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("structures.scoreboard"), std::string::npos) << msg;
  EXPECT_NE(msg.find("scoreboard.cfg"), std::string::npos) << msg;
}

TEST(PowerPipeline, NodeSetsVddAndUnknownNodeIsInputError) {
  // 32 nm is a table node: Vdd 0.9 V, sckt_co_eff 1.1111, no interpolation.
  const GpuSpec spec;
  const auto at32 = pipeline_energy_components(spec, "32nm");
  const auto at40 = pipeline_energy_components(spec, "40nm");
  auto fpu = [](const std::vector<PipelineComponent>& v) {
    for (const auto& c : v)
      if (c.name == "sp_fpu") return c.energy_per_event_j;
    return 0.0;
  };
  EXPECT_NEAR(fpu(at32), 3.9 * 14.91 / (1.08 * 1.08) * 1e-12 * 0.81 * (32.0 / 90) * 2 * 1.1111 * 0.64, 1e-20);
  EXPECT_LT(fpu(at32), fpu(at40));
  const std::string msg = input_error_of([&] { pipeline_energy_components(spec, "7nm", fixture()); });
  EXPECT_NE(msg.find("7nm"), std::string::npos) << msg;
  EXPECT_NE(msg.find("40nm, 32nm"), std::string::npos) << msg;
}

TEST(PowerPipeline, ReportsWithoutPipelineEventsListEveryComponentAtZero) {
  const GpuSpec spec;
  const auto j = energy_report(spec, {}, 1.0, EnergyOptions{}, fixture());
  const auto& c = j["energy"]["pipeline"]["components"];
  EXPECT_EQ(c.size(), 11u);
  for (const auto& [name, comp] : c.items()) EXPECT_EQ(comp["events"].get<uint64_t>(), 0u) << name;
  EXPECT_EQ(j["energy"]["pipeline_dynamic_j"].get<double>(), 0.0);
}

TEST(PowerEnergy, LeakageScalesWithConfiguredSize) {
  GpuSpec spec;
  spec.sm.registers = 65536;  // Kepler-sized RF: 16 KB banks modelled from the 8 KB cfg
  ActivityCounters a;
  a["register_file_bank"] = {0, 0, 1};
  EnergyOptions o;
  o.sm_unit_static = false;
  const auto j = energy_report(spec, a, 1.0, o, fixture());
  EXPECT_NEAR(j["energy"]["structures"]["register_file_bank"]["leakage_w"].get<double>(), 2 * 10e-3, 1e-15);
}

TEST(PowerEnergy, GatedSmStaticPowerFromTable3) {
  GpuSpec spec;  // 15 SMs
  ActivityCounters none;
  EnergyOptions o;
  o.mechanism = "occ";
  o.hardware = added(spec, "occ");
  o.gated_sms = 5;
  const auto j = energy_report(spec, none, 2.0, o, fixture());
  const double gateable = 0.06783 + 0.038 + 0.911 + 1.571 + 0.86;  // front end, SIMD, LDST, undiff, tex/const
  const double expect_w = 10 * gateable + 15 * 0.0385416;          // + wiring of every SM (Table III)
  const auto& st = j["energy"]["sm_unit_static"];
  EXPECT_NEAR(st["static_w"].get<double>(), expect_w, 1e-9);
  EXPECT_NEAR(st["saved_by_gating_w"].get<double>(), 5 * gateable, 1e-9);
  EXPECT_NEAR(j["energy"]["sm_unit_static_j"].get<double>(), 2 * expect_w, 1e-9);

  o.mechanism = "baseline";
  o.hardware = added(spec, "baseline");
  o.gated_sms = 0;
  const auto b = energy_report(spec, none, 1.0, o, fixture());
  EXPECT_NEAR(b["power"]["average_w"].get<double>(), 15 * gateable, 1e-9);
}

TEST(PowerEnergy, UnknownStructureAndBadOptionsAreInputErrors) {
  const GpuSpec spec;
  ActivityCounters a;
  a["warp_scheduler"] = {1, 0, 1};
  const CactiResults f = fixture();
  std::string msg = input_error_of([&] { energy_report(spec, a, 1.0, EnergyOptions{}, f); });
  EXPECT_NE(msg.find("warp_scheduler"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dram"), std::string::npos) << msg;
  EXPECT_NE(msg.find("register_file_bank"), std::string::npos) << msg;

  EnergyOptions o;
  o.gated_sms = 16;
  EXPECT_NE(input_error_of([&] { energy_report(spec, {}, 1.0, o, f); }).find("gated_sms"), std::string::npos);
  o.gated_sms = 1;
  o.gated_units = {"register_file"};
  EXPECT_NE(input_error_of([&] { energy_report(spec, {}, 1.0, o, f); }).find("cannot be gated"), std::string::npos);
  EXPECT_NE(input_error_of([&] { energy_report(spec, {}, -1.0, EnergyOptions{}, f); }).find("simulated_seconds"),
            std::string::npos);
}

TEST(PowerEnergy, DefaultNodeUsesCheckedInCache) {
  const GpuSpec spec;
  ActivityCounters a;
  a["register_file_bank"] = {100, 100, spec.num_sms * spec.sm.register_banks};
  a["l1d"] = {10, 1, spec.num_sms};
  const auto j = energy_report(spec, a, 1e-6);
  EXPECT_EQ(j["energy"]["node"], "40nm");
  EXPECT_GT(j["energy"]["structures"]["l1d"]["dynamic_j"].get<double>(), 0.0);
  EXPECT_GT(j["power"]["average_w"].get<double>(), 0.0);
}

TEST(PowerArea, JatalaBitsFollowSectionVFormulas) {
  GpuSpec spec;  // W = 48, T = 8
  auto bits = [&](const std::string& m) {
    uint64_t n = 0;
    for (const auto& s : added(spec, m).structures) n += s.bits * s.per_sm;
    return n;
  };
  // (1 + T ceil(log2(T+1)) + 2W + floor(W/2) ceil(log2 W)) = 1 + 32 + 96 + 144
  EXPECT_EQ(bits("regshare"), 273u);
  // (1 + T ceil(log2(T+1)) + W + floor(T/2) ceil(log2 T)) = 1 + 32 + 48 + 12
  EXPECT_EQ(bits("spmshare"), 93u);
  spec.sm.max_warps = 64;
  spec.sm.max_ctas = 16;
  EXPECT_EQ(bits("regshare"), 1u + 16 * 5 + 128 + 32 * 6);
  EXPECT_EQ(bits("spmshare"), 1u + 16 * 5 + 64 + 8 * 4);
}

TEST(PowerArea, PapersStatedSizes) {
  const GpuSpec spec;
  auto find = [&](const std::string& m, const std::string& n) {
    for (const auto& s : added(spec, m).structures)
      if (s.name == n) return s.bits * s.per_sm;
    return uint64_t{0};
  };
  EXPECT_EQ(find("zorua", "register_mapping_table"), 64u * 16 * 9);   // 1.125 KB
  EXPECT_EQ(find("zorua", "scratchpad_mapping_table"), 672u * 8);     // 672 B
  EXPECT_EQ(find("zorua", "warp_slot_mapping_table"), 56u * 8);       // 56 B
  EXPECT_EQ(find("expars", "operand_cache_bank"), 2048u * 8);         // 2 KB, a bank per register bank
  // The paper: 16 x 10-bit tags = 20 B for its direct-mapped cache; ours is
  // fully associative (operand_cache.hpp): 6 warp + 6 register + 2 bits.
  EXPECT_EQ(find("expars", "operand_cache_tags"), 16u * 14);
  EXPECT_EQ(find("expars", "prefetch_bitvector_table"), 378u * 8);    // 48 x 63 bits = 378 B
  EXPECT_EQ(find("expars", "register_allocation_table"), 16u * 8 + 3 + 6 * 3);  // SBR 16 B + 4 variables
}

TEST(PowerArea, HandComputedScaledAreaAndSums) {
  const GpuSpec spec;  // 15 SMs
  const auto j = area_report(spec, "regshare", added(spec, "regshare"), fixture());
  // Fixture: 0.000512 mm^2 for a 512-bit cfg -> 1e-6 mm^2 per bit; 273 bits per SM.
  EXPECT_NEAR(j["cacti_area_per_sm_mm2"].get<double>(), 273e-6, 1e-12);
  EXPECT_NEAR(j["total_mm2"].get<double>(), 15 * 273e-6, 1e-12);
  EXPECT_NEAR(j["percent_of_die"].get<double>(), 100 * 15 * 273e-6 / 529.0, 1e-12);
  EXPECT_EQ(j["added_bits_gpu"].get<uint64_t>(), 15u * 273);
  double sum = 0;
  for (const auto& s : j["added_structures"]) sum += s["area_gpu_mm2"].get<double>();
  EXPECT_NEAR(sum, j["total_mm2"].get<double>(), 1e-12);
}

TEST(PowerArea, EveryMechanismSumsOnCheckedInCache) {
  const GpuSpec spec;
  for (const auto& m : mechanism_registry().names()) {
    const auto j = area_report(spec, m, added(spec, m), "40nm");
    double sum = 0, per_sm = 0;
    for (const auto& s : j["added_structures"]) {
      sum += s["area_gpu_mm2"].get<double>();
      if (s["source"] == "CACTI") per_sm += s["area_per_sm_mm2"].get<double>();
    }
    EXPECT_NEAR(sum, j["total_mm2"].get<double>(), 1e-9) << m;
    EXPECT_NEAR(per_sm * spec.num_sms, j["cacti_area_gpu_mm2"].get<double>(), 1e-9) << m;
    EXPECT_NEAR(j["percent_of_die"].get<double>(), 100 * j["total_mm2"].get<double>() / 529.0, 1e-9) << m;
    if (m == "baseline") EXPECT_EQ(j["total_mm2"].get<double>(), 0.0);
    else EXPECT_GT(j["total_mm2"].get<double>(), 0.0) << m;
  }
  // Cross-SM wiring: 4.71 mm^2 per complete pair (7 pairs of 15 SMs).
  const auto occ = area_report(spec, "occ", added(spec, "occ"), "40nm");
  EXPECT_NEAR(occ["paper_area_gpu_mm2"].get<double>(), 7 * 4.71 + 15 * 0.064, 1e-9);
}

TEST(PowerArea, EveryPapersMechanismIsCostedAndAnUnknownNodeListsKnown) {
  const GpuSpec spec;
  for (const char* m : {"baseline", "regshare", "spmshare", "zorua", "expars", "occ", "bal", "bigsm", "bigsm_occ"})
    EXPECT_TRUE(mechanism_registry().contains(m)) << m;
  EXPECT_NE(input_error_of([&] { area_report(spec, "zorua", added(spec, "zorua"), "7nm"); }).find("40nm"),
            std::string::npos);
}
