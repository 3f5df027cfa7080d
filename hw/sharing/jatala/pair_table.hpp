// Jatala Sec. III and IV: which resident CTAs are unshared and which form
// shared pairs, and which member of a pair is the owner. A new CTA takes a
// free unshared seat, else a free seat of a shared pair (a pair's seats are
// refilled as their CTAs finish). Ownership (Sec. IV): the member that holds
// the shared resource; while neither does, the member that arrived first.
// So when the owner finishes, ownership passes to its partner and the CTA
// launched into the freed seat is the new non-owner.
#pragma once

#include <cstdint>
#include <vector>

namespace smshare::jatala {

struct Seat {
  bool shared = false;
  uint32_t pair = 0;    // shared: pair index
  uint8_t member = 0;   // shared: 0 or 1
};

class PairTable {
 public:
  static constexpr uint32_t kNone = ~0u;

  PairTable(uint32_t unshared, uint32_t pairs, uint32_t cta_slots);

  // Seats a new CTA in `cta_slot`; false when every seat is taken.
  bool place(uint32_t cta_slot, Seat& out);
  // The CTA in `cta_slot` finished: its seat is free.
  void remove(uint32_t cta_slot);

  bool resident(uint32_t cta_slot) const { return cta_slot < seat_of_.size() && seat_of_[cta_slot].valid; }
  const Seat& seat(uint32_t cta_slot) const { return seat_of_[cta_slot].seat; }
  // CTA slot in (pair, member), or kNone.
  uint32_t occupant(uint32_t pair, uint8_t member) const { return pairs_[pair].slot[member]; }
  uint32_t partner_slot(uint32_t cta_slot) const;
  uint32_t pairs() const { return static_cast<uint32_t>(pairs_.size()); }
  uint32_t resident_ctas() const { return resident_; }
  // Resident CTAs in unshared seats.
  uint32_t unshared_ctas() const { return unshared_used_; }

  // Owner member of `pair` given which members hold the shared resource
  // (holds[m]); -1 when the pair is empty. Both or neither holding: the one
  // that arrived first.
  int owner(uint32_t pair, const bool holds[2]) const;

 private:
  struct Pair {
    uint32_t slot[2] = {kNone, kNone};
    uint64_t arrival[2] = {0, 0};
  };
  struct SlotSeat {
    bool valid = false;
    Seat seat;
  };
  uint32_t unshared_capacity_;
  uint32_t unshared_used_ = 0;
  std::vector<Pair> pairs_;
  std::vector<SlotSeat> seat_of_;
  uint64_t next_arrival_ = 0;
  uint32_t resident_ = 0;
};

}  // namespace smshare::jatala
