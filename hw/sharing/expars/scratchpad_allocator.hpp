// EXPARS (Yu et al. 2018) Sec. 3.3.2: two-way allocation of one SM's
// scratchpad. CTA data regions (the kernel's own scratchpad) grow from the low
// end, register regions (a mixed CTA's registers >= Start_Reg, addressed from
// its SBR) from the high end; free space lies between the two.
//
// Compactness: all CTAs of one kernel need equally large regions, so each end
// is an array of fixed-size positions. Data position k is
// [k*D, (k+1)*D); register position k is [S-(k+1)*G, S-k*G) (Eq. (11)'s
// layout, with k the position instead of CTA_ID - Start_CTA). A CTA takes the
// lowest free position of each kind it needs, so a finished CTA's region is
// the next one handed out to a CTA of the same kind: holes exist only between
// a CTA finishing and the next one arriving, and each end never extends past
// the most regions of its kind held at once.
//
// Plain state, no timing. Misuse (a slot out of range, allocating a held
// slot, releasing a free one, a register region of zero bytes) throws
// std::logic_error; running out of space is not misuse: allocate() returns
// false and changes nothing.
#pragma once

#include <cstdint>
#include <vector>

namespace smshare::expars {

struct ScratchpadRegion {
  uint32_t begin = 0, end = 0;  // bytes [begin, end); empty when begin == end
  uint32_t bytes() const { return end - begin; }
  bool empty() const { return begin == end; }
};

class ScratchpadAllocator {
 public:
  // `capacity_bytes` of scratchpad, `cta_slots` CTA slots of the SM,
  // `data_bytes_per_cta` (after the SM's allocation granularity; 0 if the
  // kernel declares none) and `register_bytes_per_cta` (a mixed CTA's
  // registers in the scratchpad; 0 if no CTA is mixed).
  ScratchpadAllocator(uint32_t capacity_bytes, uint32_t cta_slots, uint32_t data_bytes_per_cta,
                      uint32_t register_bytes_per_cta);

  // Gives CTA slot `cta_slot` its data region (if the kernel has one) and,
  // when `mixed`, a register region; both or neither. False, changing
  // nothing, when a region would cross into the other end's regions.
  bool allocate(uint32_t cta_slot, bool mixed);
  // Frees the slot's regions for the next CTA of the same kind.
  void release(uint32_t cta_slot);

  bool held(uint32_t cta_slot) const;
  // The slot's regions (empty when it has none of that kind); the slot must be held.
  ScratchpadRegion data_region(uint32_t cta_slot) const;
  ScratchpadRegion register_region(uint32_t cta_slot) const;

  // The low end's extent (one past its highest held data byte; 0 if none)
  // and the high end's (its lowest held register byte; capacity if none).
  uint32_t data_end() const;
  uint32_t register_begin() const;
  uint32_t capacity_bytes() const { return capacity_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Slot {
    bool held = false;
    uint32_t data_position = kNone, register_position = kNone;
  };

  void check_slot(uint32_t cta_slot, const char* what) const;
  static uint32_t lowest_free(const std::vector<bool>& taken);
  // Extent of the held positions of one kind: one past the highest taken.
  static uint32_t extent(const std::vector<bool>& taken);

  uint32_t capacity_, data_bytes_, register_bytes_;
  std::vector<Slot> slots_;
  std::vector<bool> data_taken_, register_taken_;  // by position
};

}  // namespace smshare::expars
