// gpu.smN.bank_arbitrator: grants the SM's banks (register file, operand
// cache, scratchpad, a neighbour's register file) as many accesses per bank
// per cycle as the bank has ports. Its state is the BankArbitrator (grant rules in
// bank_arbitrator.hpp).
//
// Probes (computed from the groups' this-cycle counts, BankArray::probes():
// the growth of their banks' totals since the SM's cycle started):
// `grants_this_cycle` and `conflicts_this_cycle`, all groups together.
// Counters: accesses granted and refused per bank group, as each group's
// banks count them (a neighbour's remote accesses to this SM's register
// file are in its register_file counts: the banks served them).
#pragma once

#include <string>

#include "hw/common/structure_module.hpp"
#include "hw/sm/bank_arbitrator.hpp"

namespace smshare {

class BankArbitratorModule : public StructureModule {
 public:
  BankArbitratorModule(sc_core::sc_module_name name, const BankArbitrator& arbitrator, uint32_t sm)
      : StructureModule(name, "bank arbitrator", "BankArbitrator", sm), arbitrator_(arbitrator) {
    probe("grants_this_cycle", this_cycle_.grants_this_cycle);
    probe("conflicts_this_cycle", this_cycle_.conflicts_this_cycle);
  }

  void update_probes(uint64_t) override { this_cycle_ = arbitrator_.probes(); }

  StructureCounters counters() const override {
    StructureCounters c;
    for (unsigned g = 0; g < kNumBankGroups; ++g) {
      const BankArray& banks = arbitrator_.group(static_cast<BankGroup>(g));
      const std::string group = to_string(static_cast<BankGroup>(g));
      c.emplace_back(group + "_grants", banks.total_reads() + banks.total_writes());
      c.emplace_back(group + "_conflicts", banks.total_conflicts());
    }
    return c;
  }

 private:
  const BankArbitrator& arbitrator_;
  BankArbitrator::Probes this_cycle_;  // computed (BankArbitrator::probes())
};

}  // namespace smshare
