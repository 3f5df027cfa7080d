// gpu.smN.operand_collectors: the collector units (sm.oc_units_sp, _sfu,
// _mem) holding issued instructions while their operands are read. Its
// state is the OperandCollectors (allocation, reading and dispatch order in
// operand_collectors.hpp).
//
// Probe: `busy_units`, the units holding an instruction (a plain store kept
// current by allocation and dispatch). Counter: `allocations`, instructions
// that took a unit (their operand reads are the register file's counts).
#pragma once

#include "hw/common/structure_module.hpp"
#include "hw/sm/operand_collectors.hpp"

namespace smshare {

class OperandCollectorsModule : public StructureModule {
 public:
  OperandCollectorsModule(sc_core::sc_module_name name, const OperandCollectors& collectors, uint32_t sm)
      : StructureModule(name, "operand collectors", "OperandCollectors", sm), collectors_(collectors) {
    probe("busy_units", collectors.probes().busy_units);
  }

  StructureCounters counters() const override { return {{"allocations", collectors_.allocations()}}; }

 private:
  const OperandCollectors& collectors_;
};

}  // namespace smshare
