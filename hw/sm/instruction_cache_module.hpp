// gpu.smN.icache: the SM's instruction cache, present only when
// icache.size_bytes > 0. Its state is the InstructionCache (hit, miss and
// pending-hit rules in instruction_cache.hpp).
//
// Probes (plain stores, cleared when the SM's cycle starts):
// `hits_this_cycle` and `misses_this_cycle` (fetch lookups).
// Counters: `hits`, `misses`, `pending_hits` (lookups of a line whose fill
// was in flight) and `fills`.
#pragma once

#include "hw/common/structure_module.hpp"
#include "hw/sm/instruction_cache.hpp"

namespace smshare {

class InstructionCacheModule : public StructureModule {
 public:
  InstructionCacheModule(sc_core::sc_module_name name, const InstructionCache& icache, uint32_t sm)
      : StructureModule(name, "instruction cache", "InstructionCache", sm), icache_(icache) {
    probe("hits_this_cycle", icache.probes().hits_this_cycle);
    probe("misses_this_cycle", icache.probes().misses_this_cycle);
  }

  StructureCounters counters() const override {
    return {{"hits", icache_.hits()}, {"misses", icache_.misses()}, {"pending_hits", icache_.pending_hits()},
            {"fills", icache_.fills()}};
  }

 private:
  const InstructionCache& icache_;
};

}  // namespace smshare
