// The fermi-gtx480 that the rule testbenches derive their cycles on: the
// GTX480 with smshare's compact pipeline (sm.pipeline_registers false), FCFS
// DRAM scheduling, no instruction cache, no memory-system limits and 2 KB
// DRAM rows, i.e. what the shipped config was before it took GPGPU-Sim's
// values (configs/gpu/fermi-gtx480.yaml: the pipeline registers, FR-FCFS,
// il1, the dl1/dl2 MSHRs, dram_latency, the DRAM queue, 4 KB rows). Each of
// those has testbenches of its own (tb_pipeline_registers, tb_dram_rows,
// tb_icache, tb_memory_microbench, test_mem_limits); a rule derived by hand
// on the compact timing needs none of them in the way. `overrides` come
// after, so a test can turn one back on.
#pragma once

#include <string>
#include <vector>

namespace smshare::tb {

inline std::vector<std::string> compact_gtx480(std::vector<std::string> overrides = {}) {
  std::vector<std::string> all = {"sm.pipeline_registers=false", "dram.scheduler=fcfs", "icache.size_bytes=0",
                                  "l1.mshr_entries=0",           "l2.mshr_entries=0",   "dram.latency=0",
                                  "dram.queue_depth=0",          "dram.row_bytes=2048"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return all;
}

}  // namespace smshare::tb
