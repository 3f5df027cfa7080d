// gpu.smN.l1d: the SM's L1 data cache for global loads. Its state is the
// L1DataCache (hit, miss and pending-hit rules in l1_data_cache.hpp).
//
// Probes (plain stores, cleared when the SM's cycle starts):
// `hits_this_cycle` and `misses_this_cycle` (line lookups of loads).
// Counters: `hits`, `misses`, `fills`, `pending_hits` (hits whose data
// waited for a fill still in flight) and `sector_misses` (misses whose line
// was present without all the sectors needed).
#pragma once

#include "hw/common/structure_module.hpp"
#include "hw/sm/l1_data_cache.hpp"

namespace smshare {

class L1DataCacheModule : public StructureModule {
 public:
  L1DataCacheModule(sc_core::sc_module_name name, const L1DataCache& l1d, uint32_t sm)
      : StructureModule(name, "L1 data cache", "L1DataCache", sm), l1d_(l1d) {
    probe("hits_this_cycle", l1d.probes().hits_this_cycle);
    probe("misses_this_cycle", l1d.probes().misses_this_cycle);
  }

  StructureCounters counters() const override {
    return {{"hits", l1d_.hits()}, {"misses", l1d_.misses()}, {"fills", l1d_.fills()},
            {"pending_hits", l1d_.pending_hits()}, {"sector_misses", l1d_.sector_misses()}};
  }

 private:
  const L1DataCache& l1d_;
};

}  // namespace smshare
