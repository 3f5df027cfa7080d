// gpu.memory.interconnect: the crossbar between the SMs and the L2
// partitions. Its state is the Interconnect inside MemoryTiming.
//
// Probes, computed on sampling (a transaction is booked end to end when the
// SM issues it, so they show what was booked in the cycle, not when the
// bytes cross): `requests` sent up, `bytes_up` (write data) and `bytes_down`
// (read data) booked this cycle.
#pragma once

#include "hw/common/structure_module.hpp"
#include "hw/mem/interconnect.hpp"

namespace smshare {

class InterconnectModule : public StructureModule {
 public:
  InterconnectModule(sc_core::sc_module_name name, const Interconnect& icnt)
      : StructureModule(name, "interconnect", "Interconnect"),
        icnt_(icnt),
        requests_(icnt.requests()),
        bytes_up_(icnt.bytes_up()),
        bytes_down_(icnt.bytes_down()) {
    probe("requests", requests_.value());
    probe("bytes_up", bytes_up_.value());
    probe("bytes_down", bytes_down_.value());
  }

  void update_probes(uint64_t) override {
    requests_.update(icnt_.requests());
    bytes_up_.update(icnt_.bytes_up());
    bytes_down_.update(icnt_.bytes_down());
  }

  StructureCounters counters() const override {
    return {{"requests", icnt_.requests()}, {"bytes_up", icnt_.bytes_up()}, {"bytes_down", icnt_.bytes_down()}};
  }

 private:
  const Interconnect& icnt_;
  ThisCycleCount requests_, bytes_up_, bytes_down_;
};

}  // namespace smshare
