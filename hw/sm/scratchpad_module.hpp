// gpu.smN.scratchpad: the shared-memory banks as LDS/STS see them. Its
// state is the Scratchpad (conflict degree and timing rules in
// scratchpad.hpp); its banks are claimed in the SM's bank arbitrator.
//
// Probes (plain stores): `accesses_this_cycle`, lane accesses of the
// LDS/STS started this cycle; `last_conflict_degree`, the conflict degree
// of the last one (the cycles it holds the banks). Counters: `accesses`
// (lane accesses) and `conflict_cycles` (extra waves: the sum of degree - 1).
#pragma once

#include "hw/common/structure_module.hpp"
#include "hw/sm/scratchpad.hpp"

namespace smshare {

class ScratchpadModule : public StructureModule {
 public:
  ScratchpadModule(sc_core::sc_module_name name, const Scratchpad& scratchpad, uint32_t sm)
      : StructureModule(name, "scratchpad", "Scratchpad", sm), scratchpad_(scratchpad) {
    probe("accesses_this_cycle", scratchpad.probes().accesses_this_cycle);
    probe("last_conflict_degree", scratchpad.probes().last_conflict_degree);
  }

  StructureCounters counters() const override {
    return {{"accesses", scratchpad_.accesses()}, {"conflict_cycles", scratchpad_.conflict_cycles()}};
  }

 private:
  const Scratchpad& scratchpad_;
};

}  // namespace smshare
