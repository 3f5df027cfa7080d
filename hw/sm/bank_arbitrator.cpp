#include "hw/sm/bank_arbitrator.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace smshare {

std::vector<uint64_t> BankArray::reads() const {
  std::vector<uint64_t> v;
  for (const Bank& b : banks_) v.push_back(b.reads);
  return v;
}

std::vector<uint64_t> BankArray::writes() const {
  std::vector<uint64_t> v;
  for (const Bank& b : banks_) v.push_back(b.writes);
  return v;
}

BankArray::Totals BankArray::totals() const {
  Totals t;
  for (const Bank& b : banks_) {
    t.reads += b.reads;
    t.writes += b.writes;
    t.conflicts += b.conflicts;
  }
  return t;
}

BankArray::Probes BankArray::probes() const {
  const Totals t = totals();
  return {static_cast<uint32_t>(t.reads - at_cycle_start_.reads),
          static_cast<uint32_t>(t.writes - at_cycle_start_.writes),
          static_cast<uint32_t>(t.conflicts - at_cycle_start_.conflicts)};
}

void BankArray::resize(uint32_t banks) {
  // A bank resized away takes its counts out of the totals: out of the
  // start's too, so that probes() keeps the cycle's count of the banks left
  // (the others' accesses of the cycle stay in it).
  for (uint32_t b = banks; b < size_; ++b) {
    at_cycle_start_.reads -= banks_[b].reads;
    at_cycle_start_.writes -= banks_[b].writes;
    at_cycle_start_.conflicts -= banks_[b].conflicts;
  }
  banks_.resize(banks);
  size_ = banks;
}

BankArbitrator::BankArbitrator(uint32_t register_banks, uint32_t scratchpad_banks, uint32_t register_bank_ports) {
  if (register_bank_ports == 0) throw std::logic_error("bank arbitrator: a register bank needs at least one port");
  groups_[static_cast<unsigned>(BankGroup::RegisterFile)].ports_ = register_bank_ports;
  set_banks(BankGroup::RegisterFile, register_banks);
  set_banks(BankGroup::Scratchpad, scratchpad_banks);
}

void BankArbitrator::set_banks(BankGroup group, uint32_t banks) {
  if (banks > 0xFFFFu)
    throw std::logic_error(std::string("bank arbitrator: ") + to_string(group) + " cannot have " +
                           std::to_string(banks) + " banks (at most 65535: OperandRoute::bank is 16 bits)");
  groups_[static_cast<unsigned>(group)].resize(banks);
}

void BankArbitrator::attach_neighbour(BankArbitrator& neighbour) {
  if (&neighbour == this) throw std::logic_error("bank arbitrator: an SM cannot be its own neighbour");
  neighbour_ = &neighbour;
  // Grants are decided on the neighbour's banks, with their ports; this
  // array only counts this SM's share.
  set_banks(BankGroup::RemoteRegisterFile, neighbour.register_file().banks());
  groups_[static_cast<unsigned>(BankGroup::RemoteRegisterFile)].ports_ = neighbour.register_file().ports();
}

bool BankArbitrator::request_remote(uint16_t bank, bool is_write, uint64_t cycle, uint32_t step) {
  BankArray& mine = groups_[static_cast<unsigned>(BankGroup::RemoteRegisterFile)];
  if (neighbour_ == nullptr || bank >= mine.size_) bad_bank(BankGroup::RemoteRegisterFile, bank);
  // The neighbour may not have ticked this cycle yet: its probes must
  // describe this cycle before the access is added to them.
  neighbour_->begin_cycle(cycle);
  BankArray& theirs = neighbour_->groups_[static_cast<unsigned>(BankGroup::RegisterFile)];
  if (theirs.taken(bank, cycle, step)) {
    refuse(mine, bank);
    return false;
  }
  theirs.grant(bank, cycle, step);
  serve(theirs, bank, is_write);
  serve(mine, bank, is_write);
  ++neighbour_->lent_;
  return true;
}

void BankArbitrator::bad_bank(BankGroup group, uint16_t bank) const {
  const BankArray& a = groups_[static_cast<unsigned>(group)];
  std::string why = std::string("bank arbitrator: a register access was routed to bank ") + std::to_string(bank) +
                    " of " + to_string(group) + ", which has " + std::to_string(a.banks()) + " banks";
  if (group == BankGroup::OperandCache) why += " (a mechanism declares them in Mechanism::operand_cache_banks)";
  if (group == BankGroup::RemoteRegisterFile && neighbour_ == nullptr)
    why += " (no neighbour SM attached: BankArbitrator::attach_neighbour)";
  throw std::logic_error(why);
}

bool BankArbitrator::taken(BankGroup group, uint16_t bank, uint64_t cycle) const {
  if (group == BankGroup::RemoteRegisterFile) {
    if (neighbour_ == nullptr) bad_bank(group, bank);
    return neighbour_->taken(BankGroup::RegisterFile, bank, cycle);
  }
  const BankArray& a = groups_[static_cast<unsigned>(group)];
  if (bank >= a.size_) bad_bank(group, bank);
  return a.taken(bank, cycle);
}

bool BankArbitrator::any_register_bank_granted(uint64_t cycle) const {
  const std::vector<BankArray::Bank>& banks = register_file().banks_;
  return std::any_of(banks.begin(), banks.end(), [cycle](const BankArray::Bank& b) { return b.granted == cycle; });
}

bool BankArbitrator::granted(BankGroup group, uint16_t bank, uint64_t cycle) const {
  const BankArray& a = groups_[static_cast<unsigned>(group)];
  if (group == BankGroup::RemoteRegisterFile || bank >= a.size_) bad_bank(group, bank);
  return a.banks_[bank].granted == cycle;  // ports_used >= 1 whenever granted is this cycle
}

void BankArbitrator::claim(BankGroup group, uint64_t first, const uint16_t* cycles) {
  if (group == BankGroup::RemoteRegisterFile)
    throw std::logic_error("bank arbitrator: a neighbour's register banks cannot be claimed");
  BankArray& a = groups_[static_cast<unsigned>(group)];
  a.claim_first_ = first;
  a.claim_cycles_ = cycles;
}

BankArbitrator::Probes BankArbitrator::probes() const {
  Probes p;
  for (const BankArray& a : groups_) {
    const BankArray::Probes g = a.probes();
    p.grants_this_cycle += g.reads_this_cycle + g.writes_this_cycle;
    p.conflicts_this_cycle += g.conflicts_this_cycle;
  }
  p.grants_this_cycle -= static_cast<uint32_t>(lent_ - lent_at_cycle_start_);
  return p;
}

uint64_t BankArbitrator::total_conflicts() const {
  uint64_t n = 0;
  for (const BankArray& a : groups_) n += a.total_conflicts();
  return n;
}

void BankArbitrator::start_cycle(uint64_t cycle) {
  cycle_ = cycle;
  for (BankArray& a : groups_) a.at_cycle_start_ = a.totals();
  lent_at_cycle_start_ = lent_;
}

}  // namespace smshare
