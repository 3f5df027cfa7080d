#include "hw/sharing/expars/scratchpad_allocator.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace smshare::expars {

ScratchpadAllocator::ScratchpadAllocator(uint32_t capacity_bytes, uint32_t cta_slots, uint32_t data_bytes_per_cta,
                                         uint32_t register_bytes_per_cta)
    : capacity_(capacity_bytes),
      data_bytes_(data_bytes_per_cta),
      register_bytes_(register_bytes_per_cta),
      slots_(cta_slots),
      data_taken_(cta_slots, false),
      register_taken_(cta_slots, false) {
  if (cta_slots == 0) throw std::logic_error("ScratchpadAllocator: an SM has at least one CTA slot");
}

void ScratchpadAllocator::check_slot(uint32_t cta_slot, const char* what) const {
  if (cta_slot >= slots_.size())
    throw std::logic_error(std::string("ScratchpadAllocator::") + what + ": CTA slot " + std::to_string(cta_slot) +
                           " is not below the SM's " + std::to_string(slots_.size()));
}

uint32_t ScratchpadAllocator::lowest_free(const std::vector<bool>& taken) {
  for (uint32_t k = 0; k < taken.size(); ++k)
    if (!taken[k]) return k;
  return kNone;  // unreachable while positions = CTA slots and each slot holds one of each kind at most
}

uint32_t ScratchpadAllocator::extent(const std::vector<bool>& taken) {
  for (uint32_t k = static_cast<uint32_t>(taken.size()); k > 0; --k)
    if (taken[k - 1]) return k;
  return 0;
}

uint32_t ScratchpadAllocator::data_end() const { return extent(data_taken_) * data_bytes_; }

uint32_t ScratchpadAllocator::register_begin() const {
  return capacity_ - extent(register_taken_) * register_bytes_;
}

bool ScratchpadAllocator::allocate(uint32_t cta_slot, bool mixed) {
  check_slot(cta_slot, "allocate");
  Slot& s = slots_[cta_slot];
  if (s.held) throw std::logic_error("ScratchpadAllocator::allocate: CTA slot " + std::to_string(cta_slot) +
                                     " already holds its regions (release it first)");
  if (mixed && register_bytes_ == 0)
    throw std::logic_error("ScratchpadAllocator::allocate: a mixed CTA but no registers per CTA in the scratchpad");
  // 64-bit: positions times region sizes may exceed the capacity by far.
  uint64_t low = data_end(), high = register_begin();
  uint32_t data_position = kNone, register_position = kNone;
  if (data_bytes_ > 0) {
    data_position = lowest_free(data_taken_);
    low = std::max<uint64_t>(low, uint64_t{data_position + 1} * data_bytes_);
  }
  if (mixed) {
    register_position = lowest_free(register_taken_);
    const uint64_t reach = uint64_t{register_position + 1} * register_bytes_;
    if (reach > capacity_) return false;
    high = std::min<uint64_t>(high, capacity_ - reach);
  }
  if (low > high) return false;  // the two ends would cross
  s = {true, data_position, register_position};
  if (data_position != kNone) data_taken_[data_position] = true;
  if (register_position != kNone) register_taken_[register_position] = true;
  return true;
}

void ScratchpadAllocator::release(uint32_t cta_slot) {
  check_slot(cta_slot, "release");
  Slot& s = slots_[cta_slot];
  if (!s.held)
    throw std::logic_error("ScratchpadAllocator::release: CTA slot " + std::to_string(cta_slot) + " holds no regions");
  if (s.data_position != kNone) data_taken_[s.data_position] = false;
  if (s.register_position != kNone) register_taken_[s.register_position] = false;
  s = {};
}

bool ScratchpadAllocator::held(uint32_t cta_slot) const {
  check_slot(cta_slot, "held");
  return slots_[cta_slot].held;
}

ScratchpadRegion ScratchpadAllocator::data_region(uint32_t cta_slot) const {
  check_slot(cta_slot, "data_region");
  const Slot& s = slots_[cta_slot];
  if (!s.held) throw std::logic_error("ScratchpadAllocator::data_region: CTA slot " + std::to_string(cta_slot) +
                                      " holds no regions");
  if (s.data_position == kNone) return {};
  return {s.data_position * data_bytes_, (s.data_position + 1) * data_bytes_};
}

ScratchpadRegion ScratchpadAllocator::register_region(uint32_t cta_slot) const {
  check_slot(cta_slot, "register_region");
  const Slot& s = slots_[cta_slot];
  if (!s.held) throw std::logic_error("ScratchpadAllocator::register_region: CTA slot " +
                                      std::to_string(cta_slot) + " holds no regions");
  if (s.register_position == kNone) return {};
  return {capacity_ - (s.register_position + 1) * register_bytes_, capacity_ - s.register_position * register_bytes_};
}

}  // namespace smshare::expars
