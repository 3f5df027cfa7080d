// gpu.memory.l2_slice<p>: the L2 slice of partition p. Its state is the
// L2Slice inside MemoryTiming.
//
// Probes, computed on sampling (accesses are booked when the SM issues the
// request, so they count the accesses booked in the cycle): `hits` and
// `misses`, reads and writes together.
#pragma once

#include "hw/common/structure_module.hpp"
#include "hw/mem/l2_slice.hpp"

namespace smshare {

class L2SliceModule : public StructureModule {
 public:
  L2SliceModule(sc_core::sc_module_name name, const L2Slice& slice)
      : StructureModule(name, "L2 slice", "L2Slice"), slice_(slice), hits_(total_hits()), misses_(total_misses()) {
    probe("hits", hits_.value());
    probe("misses", misses_.value());
  }

  void update_probes(uint64_t) override {
    hits_.update(total_hits());
    misses_.update(total_misses());
  }

  StructureCounters counters() const override {
    const L2Counters& c = slice_.counters();
    return {{"read_hits", c.read_hits},     {"read_misses", c.read_misses},   {"write_hits", c.write_hits},
            {"write_misses", c.write_misses}, {"writebacks", c.writebacks},   {"pending_hits", c.pending_hits},
            {"sector_misses", c.sector_misses},     {"port_busy_ps", slice_.port_busy_ps()}};
  }

 private:
  uint64_t total_hits() const { return slice_.counters().read_hits + slice_.counters().write_hits; }
  uint64_t total_misses() const { return slice_.counters().read_misses + slice_.counters().write_misses; }

  const L2Slice& slice_;
  ThisCycleCount hits_, misses_;
};

}  // namespace smshare
