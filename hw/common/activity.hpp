// Access counts per hardware structure, as the power model consumes them.
// Timing code fills these through the blocks' own counters; the energy model
// multiplies them by CACTI's per-access energies. Structure names are the
// keys of cacti-params/<node>/ cfgs (see docs/power-area.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace smshare {

struct StructureActivity {
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint32_t instances = 1;  // copies of the structure on the GPU (e.g. one per SM, per bank)
};

// Keys used by the baseline model:
//   "register_file_bank"  reads/writes of one RF bank (instances = SMs x banks)
//   "scratchpad_bank"     word accesses per bank (instances = SMs x 32)
//   "l1d"                 L1 data cache accesses (instances = SMs)
//   "l2_slice"            L2 accesses (instances = partitions)
//   "dram"                DRAM line reads/writes (instances = channels)
// Mechanisms add their own (lock arrays, mapping tables, operand cache, ...).
using ActivityCounters = std::map<std::string, StructureActivity>;

}  // namespace smshare
