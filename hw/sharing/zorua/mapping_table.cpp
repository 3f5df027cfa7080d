#include "hw/sharing/zorua/mapping_table.hpp"

#include <stdexcept>
#include <string>

namespace smshare::zorua {

MappingTable::MappingTable(uint32_t owners, uint32_t sets_per_owner, uint32_t physical_sets, uint32_t swap_sets)
    : owners_(owners),
      sets_per_owner_(sets_per_owner),
      physical_sets_(physical_sets),
      swap_sets_(swap_sets),
      map_(size_t{owners} * sets_per_owner, kNotHeld) {
  for (uint32_t p = 0; p < physical_sets; ++p) free_.insert(free_.end(), p);
}

size_t MappingTable::index(uint32_t owner, uint32_t set) const {
  if (owner >= owners_ || set >= sets_per_owner_)
    throw std::logic_error("zorua mapping table: entry (" + std::to_string(owner) + ", " + std::to_string(set) +
                           ") outside " + std::to_string(owners_) + " x " + std::to_string(sets_per_owner_));
  return size_t{owner} * sets_per_owner_ + set;
}

bool MappingTable::map_physical(uint32_t owner, uint32_t set) {
  uint32_t& e = map_[index(owner, set)];
  if (e != kNotHeld) throw std::logic_error("zorua mapping table: set mapped twice");
  if (free_.empty()) return false;
  e = *free_.begin();
  free_.erase(free_.begin());
  ++updates_;
  return true;
}

bool MappingTable::map_swap(uint32_t owner, uint32_t set) {
  uint32_t& e = map_[index(owner, set)];
  if (e != kNotHeld) throw std::logic_error("zorua mapping table: set mapped twice");
  if (swapped_ == swap_sets_) return false;
  e = kSwap;
  ++swapped_;
  ++swap_mappings_;
  ++updates_;
  return true;
}

void MappingTable::unmap(uint32_t owner, uint32_t set) {
  uint32_t& e = map_[index(owner, set)];
  if (e == kNotHeld) return;
  if (e == kSwap) --swapped_;
  else free_.insert(e);
  e = kNotHeld;
  ++updates_;
}

}  // namespace smshare::zorua
