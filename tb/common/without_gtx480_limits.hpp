// The fermi-gtx480 that the rule testbenches derive their cycles on:
// GPGPU-Sim's GTX480 pipeline and memory timing without the instruction
// cache and the memory-system limits the shipped config also sets
// (configs/gpu/fermi-gtx480.yaml: il1, the dl1/dl2 MSHRs, dram_latency, the
// DRAM queue, 4 KB rows). Each of those has testbenches of its own
// (tb_icache, tb_memory_microbench, test_mem_limits); a pipeline or memory
// rule derived by hand needs none of them in the way.
#pragma once

#include <string>
#include <vector>

namespace smshare::tb {

inline std::vector<std::string> without_gtx480_limits(std::vector<std::string> overrides = {}) {
  std::vector<std::string> all = {"icache.size_bytes=0", "l1.mshr_entries=0", "l2.mshr_entries=0",
                                  "dram.latency=0",      "dram.queue_depth=0", "dram.row_bytes=2048"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return all;
}

}  // namespace smshare::tb
