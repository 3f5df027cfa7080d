// The GPU's specification: every number the model uses, read from
// configs/gpu/*.yaml (with `extends:` for variants) and `--set` overrides.
// Plain data; the blocks take the section they need.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/common/params.hpp"

namespace smshare {

struct UnitTiming {
  uint32_t latency = 4;              // cycles from dispatch to result
  uint32_t initiation_interval = 1;  // cycles between two dispatches to one unit
};

// Warp scheduler policies sm.scheduler accepts (hw/sm/scheduler_policy.cpp
// builds them; OWF is Jatala's owner-warp-first).
const std::vector<std::string>& scheduler_policy_names();

struct SmSpec {
  uint32_t warp_size = 32;
  uint32_t max_threads = 1536;
  uint32_t max_warps = 48;
  uint32_t max_ctas = 8;
  uint32_t registers = 32768;          // 32-bit registers per SM
  uint32_t register_banks = 16;
  uint32_t register_bank_ports = 1;            // accesses one register bank serves per cycle
  uint32_t reg_alloc_thread_granularity = 4;  // regs/thread rounded up to a multiple of this
  uint32_t reg_alloc_warp_granularity = 64;   // then regs/warp rounded up to a multiple of this
  uint32_t scratchpad_bytes = 48 * 1024;
  uint32_t scratchpad_banks = 32;
  uint32_t smem_alloc_granularity = 128;      // bytes
  uint32_t num_schedulers = 2;
  std::string scheduler = "lrr";               // one of scheduler_policy_names()
  uint32_t two_level_active_warps = 8;         // per scheduler, for two-level
  bool dual_issue = false;                     // a scheduler may issue its warp's next instruction too
  bool dual_issue_different_units = false;     // ... only to another execution unit than the first
  uint32_t ibuffer_entries = 2;                // decoded instructions buffered per warp
  uint32_t fetch_per_cycle = 1;                // warps fetched/decoded per cycle
  uint32_t oc_units_sp = 6;
  uint32_t oc_units_sfu = 8;
  uint32_t oc_units_mem = 2;
  uint32_t sp_units = 2;
  uint32_t sfu_units = 1;
  uint32_t ldst_units = 1;
  UnitTiming int_alu{4, 1};
  UnitTiming fp_alu{5, 1};
  UnitTiming sfu{20, 8};
  uint32_t smem_latency = 26;                  // scratchpad access, no conflicts
  uint32_t ldst_transactions_per_cycle = 1;    // coalesced lines the LDST unit emits per cycle
  // GPGPU-Sim's pipeline registers between issue, operand collection,
  // execution and writeback (docs/architecture.md, "Pipeline registers");
  // false: the compact timing (issue allocates the collector unit, a result
  // is written in the cycle it is ready).
  bool pipeline_registers = false;
};

struct CacheSpec {
  uint32_t size_bytes = 16 * 1024;
  uint32_t line_bytes = 128;
  uint32_t ways = 4;
  uint32_t hit_latency = 35;  // core cycles
  uint32_t sector_bytes = 0;  // 0: not sectored (the line is one sector)
  uint32_t mshr_entries = 0;  // misses in flight at once (0: unlimited); the L1 data cache only
};

struct InterconnectSpec {
  uint32_t latency = 20;            // core cycles each way
  uint32_t bytes_per_cycle = 32;    // per SM port and per partition port
};

struct L2Spec {
  uint32_t size_bytes = 768 * 1024;  // whole GPU, split over partitions
  uint32_t line_bytes = 128;
  uint32_t ways = 16;
  uint32_t hit_latency = 80;         // core cycles inside the partition (icnt excluded)
  uint32_t bytes_per_cycle = 64;     // per partition
  uint32_t sector_bytes = 0;         // 0: not sectored (the line is one sector)
  uint32_t mshr_entries = 0;         // read misses in flight at once per slice (0: unlimited)
};

// The order in which a DRAM channel's banks serve the requests waiting for
// them (dram.scheduler).
enum class DramScheduler : uint8_t {
  Fcfs,    // arrival order, each request booked end to end when it arrives
  Frfcfs,  // per bank, the oldest row hit first, else the oldest (GPGPU-Sim's default)
};
const std::vector<std::string>& dram_scheduler_names();  // "fcfs", "frfcfs"

struct DramSpec {
  uint32_t channels = 6;             // one L2 partition per channel
  uint32_t banks = 16;               // per channel
  double bandwidth_gbps = 177.4;     // GB/s, whole GPU
  double clock_mhz = 924;
  uint32_t row_bytes = 2048;
  uint32_t tCL = 12;                 // DRAM cycles
  uint32_t tRCD = 12;
  uint32_t tRP = 12;
  uint32_t tRAS = 28;
  uint32_t latency = 0;              // core cycles between the L2 and the channel (GPGPU-Sim's dram_latency)
  uint32_t queue_depth = 0;          // requests waiting per channel for their bank (0: unlimited)
  DramScheduler scheduler = DramScheduler::Fcfs;
  uint32_t interleave_bytes = 256;   // address interleaving across channels
  uint64_t swap_base = 1ull << 48;       // reserved region for swap space, above the 48-bit user address space that traces use
  uint64_t swap_bytes = 64ull << 20;
};

struct GpuSpec {
  std::string name = "unnamed";
  std::string description;
  uint32_t num_sms = 15;
  double core_clock_mhz = 1400;
  SmSpec sm;
  CacheSpec l1;
  // The instruction cache in front of fetch (GPGPU-Sim's -gpgpu_cache:il1).
  // size_bytes = 0: none, fetch reads the program directly (the default).
  // hit_latency here is fetch to issue: GPGPU-Sim's fetch fills the fetch
  // buffer, decode moves it to the instruction buffer the next cycle, and
  // the scheduler sees it the cycle after (2).
  CacheSpec icache{0, 128, 4, 2};
  InterconnectSpec icnt;
  L2Spec l2;
  DramSpec dram;

  // Core clock period in picoseconds (the SystemC time resolution is 1 ps).
  uint64_t core_period_ps() const;
};

// Declares every GpuSpec key on `table`, bound to `spec`'s fields.
void declare_params(ParamTable& table, GpuSpec& spec);

// Cross-field checks a single key's range cannot express; throws InputError
// naming `origin`.
void validate(const GpuSpec& spec, const std::string& origin);

// Loads a GPU config by name (configs/gpu/<name>.yaml) or path, follows
// `extends:`, applies overrides, validates. `effective` receives the final
// key/value list.
GpuSpec load_gpu_config(const std::string& name_or_path, const std::vector<std::string>& overrides,
                        std::vector<std::pair<std::string, std::string>>* effective = nullptr);

// Where the shipped configs live (SMSHARE_CONFIG_DIR at build time, or
// $SMSHARE_CONFIGS at run time).
std::string config_root();

// Resolves a name under configs/<kind>/ (adding .yaml) or accepts a path.
std::string resolve_config_file(const std::string& kind, const std::string& name_or_path);

// Names of the files under configs/<kind>/, without extension, sorted.
std::vector<std::string> list_config_names(const std::string& kind);

}  // namespace smshare
