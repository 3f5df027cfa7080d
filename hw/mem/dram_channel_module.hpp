// gpu.memory.dram_channel<c>: DRAM channel c (banks with an open row, one
// data bus). Its state is the DramChannelTiming inside MemoryTiming.
//
// Probes, computed on sampling: `queue_depth`, the requests booked whose
// data is not yet off the bus in this cycle (a request counts from the
// cycle the SM issued it; under FR-FCFS also those its banks have not taken
// yet); `row_hits` and `activates` of
// the requests booked this cycle.
#pragma once

#include "hw/common/structure_module.hpp"
#include "hw/mem/dram_channel.hpp"

namespace smshare {

class DramChannelModule : public StructureModule {
 public:
  DramChannelModule(sc_core::sc_module_name name, const DramChannelTiming& channel, uint64_t core_period_ps)
      : StructureModule(name, "DRAM channel", "DramChannelTiming"),
        channel_(channel),
        period_ps_(core_period_ps),
        row_hits_(channel.counters().row_hits),
        activates_(channel.counters().activates) {
    probe("queue_depth", queue_depth_);
    probe("row_hits", row_hits_.value());
    probe("activates", activates_.value());
  }

  void update_probes(uint64_t cycle) override {
    queue_depth_ = channel_.queue_depth(cycle * period_ps_);
    row_hits_.update(channel_.counters().row_hits);
    activates_.update(channel_.counters().activates);
  }

  StructureCounters counters() const override {
    const DramCounters& c = channel_.counters();
    return {{"reads", c.reads},         {"writes", c.writes}, {"row_hits", c.row_hits},
            {"activates", c.activates}, {"bytes", c.bytes},   {"read_bytes", c.read_bytes},
            {"bus_busy_ps", channel_.bus_busy_ps()}};
  }

 private:
  const DramChannelTiming& channel_;
  uint64_t period_ps_;
  uint32_t queue_depth_ = 0;
  ThisCycleCount row_hits_, activates_;
};

}  // namespace smshare
