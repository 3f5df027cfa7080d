#include "hw/common/gpu_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "hw/common/bit_words.hpp"
#include "hw/common/error.hpp"
#include "hw/common/instruction.hpp"
#include "hw/common/yaml_file.hpp"

#ifndef SMSHARE_CONFIG_DIR
#define SMSHARE_CONFIG_DIR "configs"
#endif

namespace fs = std::filesystem;

namespace smshare {

const std::vector<std::string>& scheduler_policy_names() {
  static const std::vector<std::string> names = {"lrr", "gto", "two-level", "owf", "ltlws-lrr", "ltlws-gto"};
  return names;
}

const std::vector<std::string>& dram_scheduler_names() {
  static const std::vector<std::string> names = {"fcfs", "frfcfs"};  // in DramScheduler's order
  return names;
}

uint64_t GpuSpec::core_period_ps() const {
  return static_cast<uint64_t>(std::llround(1e6 / core_clock_mhz));
}

void declare_params(ParamTable& t, GpuSpec& s) {
  t.add_string("name", &s.name, "configuration name");
  t.add_string("description", &s.description, "free text: where the numbers come from");
  t.add_uint("gpu.num_sms", &s.num_sms, 1, 256, "streaming multiprocessors");
  t.add_double("gpu.core_clock_mhz", &s.core_clock_mhz, 1, 10000, "SM core clock in MHz");

  SmSpec& m = s.sm;
  t.add_uint("sm.warp_size", &m.warp_size, 32, 32, "threads per warp");
  t.add_uint("sm.max_threads", &m.max_threads, 32, 65536, "resident threads per SM");
  t.add_uint("sm.max_warps", &m.max_warps, 1, 1024, "warp slots per SM");
  t.add_uint("sm.max_ctas", &m.max_ctas, 1, 256, "CTA slots per SM");
  t.add_uint("sm.registers", &m.registers, 32, 1u << 22, "32-bit registers per SM");
  t.add_uint("sm.register_banks", &m.register_banks, 1, 64, "register file banks");
  t.add_uint("sm.register_bank_ports", &m.register_bank_ports, 1, 8,
             "accesses (reads or writes) one register bank serves per cycle (GPGPU-Sim: gpgpu_reg_file_port_throughput)");
  t.add_uint("sm.reg_alloc_thread_granularity", &m.reg_alloc_thread_granularity, 1, 256,
             "registers per thread are rounded up to a multiple of this");
  t.add_uint("sm.reg_alloc_warp_granularity", &m.reg_alloc_warp_granularity, 1, 8192,
             "registers per warp are then rounded up to a multiple of this");
  t.add_uint("sm.scratchpad_bytes", &m.scratchpad_bytes, 0, 1u << 24, "scratchpad (shared memory) bytes per SM");
  t.add_uint("sm.scratchpad_banks", &m.scratchpad_banks, 1, 64, "scratchpad banks (4-byte words interleaved)");
  t.add_uint("sm.smem_alloc_granularity", &m.smem_alloc_granularity, 1, 65536,
             "scratchpad bytes per CTA are rounded up to a multiple of this");
  t.add_uint("sm.num_schedulers", &m.num_schedulers, 1, 8, "warp schedulers per SM");
  t.add_choice("sm.scheduler", &m.scheduler, scheduler_policy_names(),
               "warp scheduling policy (owf: Jatala's owner warp first; with baseline, oldest first; "
               "ltlws-lrr/ltlws-gto: EXPARS's lazy two-level, active set per scheduler sized by Eq. 14 "
               "when its first warp finishes)");
  t.add_uint("sm.two_level_active_warps", &m.two_level_active_warps, 1, 64,
             "active-set size per scheduler for the two-level policy (LTLWS sizes its own)");
  t.add_bool("sm.dual_issue", &m.dual_issue,
             "a scheduler that issues a warp's instruction may issue the warp's next one in the same cycle "
             "(GPGPU-Sim: gpgpu_max_insn_issue_per_warp = 2)");
  t.add_bool("sm.dual_issue_different_units", &m.dual_issue_different_units,
             "with sm.dual_issue, the second instruction must go to another execution unit (SP, SFU, LDST) "
             "than the first (GPGPU-Sim: gpgpu_dual_issue_diff_exec_units)");
  t.add_bool("sm.pipeline_registers", &m.pipeline_registers,
             "GPGPU-Sim's pipeline registers: ID_OC, collector steps, OC_EX, dispatch register, EX_WB, "
             "writeback, as shader.cc's shader_core_ctx::cycle; false: the compact timing");
  t.add_uint("sm.ibuffer_entries", &m.ibuffer_entries, 1, 16, "decoded instructions buffered per warp");
  t.add_uint("sm.fetch_per_cycle", &m.fetch_per_cycle, 1, 64, "warps fetched and decoded per cycle");
  t.add_uint("sm.oc_units_sp", &m.oc_units_sp, 1, 64, "operand collector units for the SP pipe");
  t.add_uint("sm.oc_units_sfu", &m.oc_units_sfu, 1, 64, "operand collector units for the SFU pipe");
  t.add_uint("sm.oc_units_mem", &m.oc_units_mem, 1, 64, "operand collector units for the LDST pipe");
  t.add_uint("sm.sp_units", &m.sp_units, 1, 16, "SP (int/fp ALU) pipelines");
  t.add_uint("sm.sfu_units", &m.sfu_units, 1, 16, "SFU pipelines");
  // One: the LDST unit is one pipeline (SmCore::ldst_step; execute() skips
  // its OC_EX register while it is busy).
  t.add_uint("sm.ldst_units", &m.ldst_units, 1, 1, "LDST pipelines");
  t.add_uint("sm.int_alu.latency", &m.int_alu.latency, 1, 1000, "integer ALU latency, cycles");
  t.add_uint("sm.int_alu.initiation_interval", &m.int_alu.initiation_interval, 1, 1000,
             "cycles between two integer ops on one SP pipe");
  t.add_uint("sm.fp_alu.latency", &m.fp_alu.latency, 1, 1000, "FP ALU latency, cycles");
  t.add_uint("sm.fp_alu.initiation_interval", &m.fp_alu.initiation_interval, 1, 1000,
             "cycles between two FP ops on one SP pipe");
  t.add_uint("sm.sfu.latency", &m.sfu.latency, 1, 1000, "SFU latency, cycles");
  t.add_uint("sm.sfu.initiation_interval", &m.sfu.initiation_interval, 1, 1000,
             "cycles between two ops on one SFU");
  t.add_uint("sm.smem_latency", &m.smem_latency, 1, 1000, "scratchpad access latency without conflicts");
  t.add_uint("sm.ldst_transactions_per_cycle", &m.ldst_transactions_per_cycle, 1, 32,
             "memory transactions the LDST unit issues per cycle");

  t.add_uint("l1.size_bytes", &s.l1.size_bytes, 0, 1u << 24, "L1 data cache bytes per SM (0 = no L1)");
  t.add_uint("l1.line_bytes", &s.l1.line_bytes, 32, 1024, "L1 line size");
  // Up to 256: Accel-Sim's Pascal L1 (SM6_TITANX dl1 S:4:128:96) has 96 ways.
  t.add_uint("l1.ways", &s.l1.ways, 1, 256, "L1 associativity");
  t.add_uint("l1.hit_latency", &s.l1.hit_latency, 1, 1000, "L1 hit latency, cycles");
  t.add_uint("l1.sector_bytes", &s.l1.sector_bytes, 0, 1024,
             "L1 sector size: 0 = not sectored, else a power of two from 32 dividing l1.line_bytes");
  t.add_uint("l1.mshr_entries", &s.l1.mshr_entries, 0, 4096,
             "L1 misses in flight at once (0 = unlimited); a miss finding them all busy stalls the LDST unit");

  t.add_uint("icache.size_bytes", &s.icache.size_bytes, 0, 1u << 20,
             "instruction cache bytes per SM (0 = no instruction cache: fetch reads the program directly)");
  t.add_uint("icache.line_bytes", &s.icache.line_bytes, 16, 1024,
             "instruction cache line size (a miss reads one line below the SM)");
  t.add_uint("icache.ways", &s.icache.ways, 1, 64, "instruction cache associativity");
  t.add_uint("icache.hit_latency", &s.icache.hit_latency, 1, 1000,
             "cycles from the fetch's instruction cache read (a hit, or a returned fill) to the first cycle its "
             "instructions can issue");

  t.add_uint("icnt.latency", &s.icnt.latency, 0, 10000, "interconnect latency each way, cycles");
  t.add_uint("icnt.bytes_per_cycle", &s.icnt.bytes_per_cycle, 1, 4096, "bytes per cycle per port");

  t.add_uint("l2.size_bytes", &s.l2.size_bytes, 1024, 1u << 30, "L2 bytes, whole GPU");
  t.add_uint("l2.line_bytes", &s.l2.line_bytes, 32, 1024, "L2 line size");
  t.add_uint("l2.ways", &s.l2.ways, 1, 64, "L2 associativity");
  t.add_uint("l2.hit_latency", &s.l2.hit_latency, 1, 10000, "L2 hit latency in the partition, cycles");
  t.add_uint("l2.bytes_per_cycle", &s.l2.bytes_per_cycle, 1, 4096, "L2 bytes per cycle per partition");
  t.add_uint("l2.sector_bytes", &s.l2.sector_bytes, 0, 1024,
             "L2 sector size: 0 = not sectored, else a power of two from 32 dividing l2.line_bytes");
  t.add_uint("l2.mshr_entries", &s.l2.mshr_entries, 0, 65536,
             "L2 read misses in flight at once per slice (0 = unlimited); a miss finding them all busy holds "
             "the slice's input until one returns");

  t.add_uint("dram.channels", &s.dram.channels, 1, 64, "memory channels (one L2 partition each)");
  t.add_uint("dram.banks", &s.dram.banks, 1, 64, "banks per channel");
  t.add_double("dram.bandwidth_gbps", &s.dram.bandwidth_gbps, 0.1, 100000, "peak DRAM bandwidth, GB/s, whole GPU");
  t.add_double("dram.clock_mhz", &s.dram.clock_mhz, 1, 100000, "DRAM command clock, MHz");
  t.add_uint("dram.row_bytes", &s.dram.row_bytes, 64, 1u << 20, "row (page) size per bank");
  t.add_uint("dram.tCL", &s.dram.tCL, 1, 1000, "CAS latency, DRAM cycles");
  t.add_uint("dram.tRCD", &s.dram.tRCD, 1, 1000, "activate to read, DRAM cycles");
  t.add_uint("dram.tRP", &s.dram.tRP, 1, 1000, "precharge, DRAM cycles");
  t.add_uint("dram.tRAS", &s.dram.tRAS, 1, 1000, "activate to precharge, DRAM cycles");
  t.add_uint("dram.latency", &s.dram.latency, 0, 100000,
             "fixed delay from the L2 to the DRAM channel, core cycles (GPGPU-Sim's dram_latency)");
  t.add_uint("dram.queue_depth", &s.dram.queue_depth, 0, 65536,
             "requests a channel's queue holds until their bank takes them (0 = unlimited); a full queue "
             "holds the L2 slice's read misses at its input");
  {
    const std::vector<std::string>& names = dram_scheduler_names();
    DramScheduler* target = &s.dram.scheduler;
    t.add_custom(
        "dram.scheduler", "one of: " + names[0] + ", " + names[1],
        [target, &names](const std::string& text) -> std::string {
          for (size_t i = 0; i < names.size(); ++i)
            if (text == names[i]) {
              *target = static_cast<DramScheduler>(i);
              return "";
            }
          return "value '" + text + "' is not one of: " + names[0] + ", " + names[1];
        },
        [target, &names] { return names[static_cast<size_t>(*target)]; },
        "order in which a channel's banks serve waiting requests: fcfs (arrival order) or frfcfs (per bank the "
        "oldest request to the open row first, else the oldest; GPGPU-Sim's dram_sched.cc)");
  }
  t.add_uint("dram.interleave_bytes", &s.dram.interleave_bytes, 32, 1u << 20,
             "bytes mapped to one channel before moving to the next");
  t.add_uint64("dram.swap_base", &s.dram.swap_base, 0, UINT64_MAX, "start of the reserved swap region");
  t.add_uint64("dram.swap_bytes", &s.dram.swap_bytes, 0, 1ull << 40, "size of the reserved swap region");
}

namespace {
// A sector size is 0 (not sectored) or a power of two from 32 (GPGPU-Sim's
// SECTOR_SIZE, the coalescer's chunk) that divides the line.
void validate_sector_bytes(uint32_t sector_bytes, uint32_t line_bytes, const std::string& origin,
                           const std::string& key, const std::string& line_key) {
  if (sector_bytes == 0) return;
  if (!is_power_of_two(sector_bytes) || sector_bytes < 32 || sector_bytes > line_bytes)
    throw input_error(origin, key,
                      "must be 0 (not sectored) or a power of two from 32 to " + line_key + " (" +
                          std::to_string(line_bytes) + "), got " + std::to_string(sector_bytes));
}
}  // namespace

void validate(const GpuSpec& s, const std::string& origin) {
  const SmSpec& m = s.sm;
  if (m.max_warps * m.warp_size < m.max_threads)
    throw input_error(origin, "sm.max_threads", "exceeds sm.max_warps * sm.warp_size (" +
                                                    std::to_string(m.max_warps * m.warp_size) + ")");
  if (m.max_warps % m.num_schedulers != 0)
    throw input_error(origin, "sm.num_schedulers", "must divide sm.max_warps (" + std::to_string(m.max_warps) + ")");
  if (s.l1.size_bytes) {
    if (!is_power_of_two(s.l1.line_bytes)) throw input_error(origin, "l1.line_bytes", "must be a power of two");
    if (s.l1.size_bytes % (s.l1.line_bytes * s.l1.ways) != 0 ||
        !is_power_of_two(s.l1.size_bytes / (s.l1.line_bytes * s.l1.ways)))
      throw input_error(origin, "l1.size_bytes", "must be a power-of-two number of sets of l1.ways * l1.line_bytes");
    validate_sector_bytes(s.l1.sector_bytes, s.l1.line_bytes, origin, "l1.sector_bytes", "l1.line_bytes");
  }
  if (s.icache.size_bytes) {
    if (!is_power_of_two(s.icache.line_bytes)) throw input_error(origin, "icache.line_bytes", "must be a power of two");
    if (s.icache.line_bytes > s.l2.line_bytes)
      throw input_error(origin, "icache.line_bytes",
                        "must not exceed l2.line_bytes (" + std::to_string(s.l2.line_bytes) +
                            "): a miss is one L2 line read");
    if (s.icache.size_bytes % (s.icache.line_bytes * s.icache.ways) != 0 ||
        !is_power_of_two(s.icache.size_bytes / (s.icache.line_bytes * s.icache.ways)))
      throw input_error(origin, "icache.size_bytes",
                        "must be a power-of-two number of sets of icache.ways * icache.line_bytes");
    if (s.dram.swap_base < kInstructionBase + kInstructionRegionBytes)
      throw input_error(origin, "dram.swap_base",
                        "must be at least " + hex(kInstructionBase + kInstructionRegionBytes) +
                            " with an instruction cache: instructions are read from [" + hex(kInstructionBase) +
                            ", " + hex(kInstructionBase + kInstructionRegionBytes) + ")");
  }
  if (!is_power_of_two(s.l2.line_bytes)) throw input_error(origin, "l2.line_bytes", "must be a power of two");
  validate_sector_bytes(s.l2.sector_bytes, s.l2.line_bytes, origin, "l2.sector_bytes", "l2.line_bytes");
  const uint64_t l2_set_bytes = uint64_t{s.dram.channels} * s.l2.line_bytes * s.l2.ways;
  if (s.l2.size_bytes % l2_set_bytes != 0 || !is_power_of_two(s.l2.size_bytes / l2_set_bytes))
    throw input_error(origin, "l2.size_bytes",
                      "must split into dram.channels partitions of a power-of-two number of sets "
                      "(l2.ways * l2.line_bytes = " + std::to_string(s.l2.ways * s.l2.line_bytes) + " bytes each)");
  if (s.dram.interleave_bytes % s.l2.line_bytes != 0)
    throw input_error(origin, "dram.interleave_bytes", "must be a multiple of l2.line_bytes");
  if (s.dram.row_bytes % s.l2.line_bytes != 0)
    throw input_error(origin, "dram.row_bytes", "must be a multiple of l2.line_bytes");
}

std::string config_root() {
  if (const char* env = std::getenv("SMSHARE_CONFIGS")) return env;
  return SMSHARE_CONFIG_DIR;
}

std::string resolve_config_file(const std::string& kind, const std::string& name_or_path) {
  fs::path as_path(name_or_path);
  if (name_or_path.find('/') != std::string::npos || as_path.extension() == ".yaml" ||
      as_path.extension() == ".yml") {
    if (!fs::is_regular_file(as_path)) throw InputError(name_or_path + ": no such file");
    return as_path.string();
  }
  fs::path named = fs::path(config_root()) / kind / (name_or_path + ".yaml");
  if (!fs::is_regular_file(named)) {
    const std::string known = join(list_config_names(kind));
    const std::string what = kind == "gpu" ? "GPU config" : kind == "kernels" ? "kernel profile" : kind;
    throw InputError("unknown " + what + " '" + name_or_path + "' (known: " + known + "; or give a path)");
  }
  return named.string();
}

std::vector<std::string> list_config_names(const std::string& kind) {
  std::vector<std::string> names;
  fs::path dir = fs::path(config_root()) / kind;
  if (!fs::is_directory(dir)) return names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

void apply_with_extends(ParamTable& table, const std::string& file, std::set<std::string>& seen) {
  std::string canonical = fs::weakly_canonical(file).string();
  if (!seen.insert(canonical).second) throw input_error(file, "extends", "forms a cycle");
  YAML::Node root = load_yaml_file(file);
  if (!root.IsMap()) throw input_error(file, "", "the top level must be a mapping of keys to values");
  if (root["extends"]) {
    if (!root["extends"].IsScalar()) throw input_error(file, "extends", "must name one config");
    std::string base;
    try {
      base = resolve_config_file("gpu", root["extends"].Scalar());
    } catch (const InputError& e) {
      throw input_error(file, "extends", e.what());
    }
    apply_with_extends(table, base, seen);
  }
  table.apply_yaml(root, file, {"extends"});
}

}  // namespace

GpuSpec load_gpu_config(const std::string& name_or_path, const std::vector<std::string>& overrides,
                        std::vector<std::pair<std::string, std::string>>* effective) {
  const std::string file = resolve_config_file("gpu", name_or_path);
  GpuSpec spec;
  ParamTable table;
  declare_params(table, spec);
  std::set<std::string> seen;
  apply_with_extends(table, file, seen);
  table.apply_overrides(overrides);
  validate(spec, overrides.empty() ? file : file + " (with --set overrides)");
  if (effective) *effective = table.effective();
  return spec;
}

}  // namespace smshare
