// gpu.smN.register_file: the SM's register banks (sm.register_banks banks
// of sm.register_bank_ports ports each). Its state is the RegisterFile BankArray inside the
// SM's BankArbitrator, which grants the accesses (bank_arbitrator.hpp).
//
// Probes (computed from the bank array's totals, BankArray::probes(): their
// growth since the SM's cycle started): `reads_this_cycle`,
// `writes_this_cycle`, `conflicts_this_cycle` (requests refused because their
// bank was taken).
#pragma once

#include "hw/common/structure_module.hpp"
#include "hw/sm/bank_arbitrator.hpp"

namespace smshare {

class RegisterFileModule : public StructureModule {
 public:
  RegisterFileModule(sc_core::sc_module_name name, const BankArray& banks, uint32_t sm)
      : StructureModule(name, "register file", "BankArray", sm), banks_(banks) {
    probe("reads_this_cycle", this_cycle_.reads_this_cycle);
    probe("writes_this_cycle", this_cycle_.writes_this_cycle);
    probe("conflicts_this_cycle", this_cycle_.conflicts_this_cycle);
  }

  void update_probes(uint64_t) override { this_cycle_ = banks_.probes(); }

  StructureCounters counters() const override {
    return {{"reads", banks_.total_reads()},
            {"writes", banks_.total_writes()},
            {"conflicts", banks_.total_conflicts()}};
  }

 private:
  const BankArray& banks_;
  BankArray::Probes this_cycle_;  // computed (BankArray::probes())
};

}  // namespace smshare
