#include "hw/sharing/jatala/pair_table.hpp"

#include <stdexcept>

namespace smshare::jatala {

PairTable::PairTable(uint32_t unshared, uint32_t pairs, uint32_t cta_slots)
    : unshared_capacity_(unshared), pairs_(pairs), seat_of_(cta_slots) {}

bool PairTable::place(uint32_t cta_slot, Seat& out) {
  if (cta_slot >= seat_of_.size() || seat_of_[cta_slot].valid)
    throw std::logic_error("PairTable::place: CTA slot out of range or taken");
  Seat s;
  if (unshared_used_ < unshared_capacity_) {
    ++unshared_used_;
  } else {
    bool found = false;
    for (uint32_t p = 0; p < pairs_.size() && !found; ++p)
      for (uint8_t m = 0; m < 2 && !found; ++m)
        if (pairs_[p].slot[m] == kNone) {
          pairs_[p].slot[m] = cta_slot;
          pairs_[p].arrival[m] = next_arrival_;
          s = {true, p, m};
          found = true;
        }
    if (!found) return false;
  }
  ++next_arrival_;
  seat_of_[cta_slot] = {true, s};
  ++resident_;
  out = s;
  return true;
}

void PairTable::remove(uint32_t cta_slot) {
  SlotSeat& ss = seat_of_.at(cta_slot);
  if (!ss.valid) throw std::logic_error("PairTable::remove: slot not resident");
  if (ss.seat.shared) pairs_[ss.seat.pair].slot[ss.seat.member] = kNone;
  else --unshared_used_;
  ss.valid = false;
  --resident_;
}

uint32_t PairTable::partner_slot(uint32_t cta_slot) const {
  if (!resident(cta_slot) || !seat(cta_slot).shared) return kNone;
  const Seat& s = seat(cta_slot);
  return pairs_[s.pair].slot[1 - s.member];
}

int PairTable::owner(uint32_t pair, const bool holds[2]) const {
  const Pair& p = pairs_[pair];
  const bool present[2] = {p.slot[0] != kNone, p.slot[1] != kNone};
  if (!present[0] && !present[1]) return -1;
  if (!present[0]) return 1;
  if (!present[1]) return 0;
  if (holds[0] != holds[1]) return holds[0] ? 0 : 1;
  return p.arrival[0] < p.arrival[1] ? 0 : 1;
}

}  // namespace smshare::jatala
