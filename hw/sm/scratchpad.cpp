#include "hw/sm/scratchpad.hpp"

#include <algorithm>
#include <stdexcept>

namespace smshare {

Scratchpad::Scratchpad(const SmSpec& spec, BankArbitrator& arbitrator)
    : banks_(spec.scratchpad_banks), latency_(spec.smem_latency), arbitrator_(arbitrator) {
  if (arbitrator.group(BankGroup::Scratchpad).banks() != banks_)
    throw std::logic_error("Scratchpad: the bank arbitrator's scratchpad group must have sm.scratchpad_banks banks");
}

Scratchpad::Timing Scratchpad::access(const WarpInstruction& inst, uint64_t cycle) {
  // The previous access's claim ended before the LDST unit was free again,
  // so its array can be rewritten.
  const SmemBankUse use = smem_bank_use(inst, banks_, words_);
  const uint32_t degree = use.degree;
  const SmemBankWords& words = *use.words;
  const uint32_t lanes = inst.active_lanes();
  accesses_ += lanes;
  if (degree > 1) conflict_cycles_ += degree - 1;
  probes_.accesses_this_cycle = lanes;
  probes_.last_conflict_degree = degree;

  uint64_t start = cycle;
  if (arbitrator_.granted_any(BankGroup::Scratchpad, cycle))
    for (uint16_t b = 0; b < banks_ && start == cycle; ++b)
      if (words[b] && arbitrator_.granted(BankGroup::Scratchpad, b, cycle)) start = cycle + 1;
  arbitrator_.claim(BankGroup::Scratchpad, start, words.data());
  return {start + std::max(degree, 1u), start + latency_ + (degree ? degree - 1 : 0)};
}

}  // namespace smshare
