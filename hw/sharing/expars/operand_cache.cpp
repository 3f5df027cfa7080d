#include "hw/sharing/expars/operand_cache.hpp"

#include <stdexcept>
#include <string>

#include "hw/sharing/expars/register_allocation_table.hpp"

namespace smshare::expars {

OperandCache::OperandCache(uint32_t bytes, uint32_t banks, uint32_t max_warps, uint32_t max_regs)
    : banks_(banks), max_regs_(max_regs) {
  if (banks == 0 || bytes % (banks * kWarpRegisterBytes) != 0 || bytes == 0)
    throw std::logic_error("OperandCache: " + std::to_string(bytes) + " bytes do not make whole " +
                           std::to_string(kWarpRegisterBytes) + "-byte lines in each of " + std::to_string(banks) +
                           " banks");
  lines_.resize(bytes / kWarpRegisterBytes);
  where_.assign(size_t{max_warps} * max_regs, kAbsent);
  last_write_.assign(size_t{max_warps} * max_regs, 0);
}

void OperandCache::allocate(uint32_t i, uint32_t slot, uint16_t reg, uint32_t address, uint64_t bundle) {
  Line& l = lines_.at(i);
  if (l.valid || find(slot, reg) != kAbsent)
    throw std::logic_error("OperandCache::allocate: line " + std::to_string(i) + " is in use or R" +
                           std::to_string(reg) + " of warp slot " + std::to_string(slot) + " is already cached");
  l = Line{true, false, slot, reg, address, bundle, 0, 0};
  where_[index(slot, reg)] = static_cast<int16_t>(i);
  ++valid_;
}

void OperandCache::release(uint32_t i) {
  Line& l = lines_.at(i);
  if (l.pending == 0)
    throw std::logic_error("OperandCache::release: R" + std::to_string(l.reg) + " of warp slot " +
                           std::to_string(l.slot) + " has no access pending");
  --l.pending;
}

void OperandCache::fill(uint32_t i) {
  Line& l = lines_.at(i);
  const auto it = scratchpad_.find(l.address);
  l.version = it == scratchpad_.end() ? 0 : it->second;
  l.dirty = false;
}

bool OperandCache::evict(uint32_t i) {
  Line& l = lines_.at(i);
  if (!l.valid || l.pending != 0)
    throw std::logic_error("OperandCache::evict: line " + std::to_string(i) + " is not valid or still accessed");
  const bool dirty = l.dirty;
  if (dirty) scratchpad_[l.address] = l.version;
  where_[index(l.slot, l.reg)] = kAbsent;
  l.valid = l.dirty = false;
  --valid_;
  return dirty;
}

void OperandCache::drop_warp(uint32_t slot) {
  for (Line& l : lines_) {
    if (!l.valid || l.slot != slot) continue;
    where_[index(l.slot, l.reg)] = kAbsent;
    l.valid = l.dirty = false;
    l.pending = 0;
    --valid_;
  }
  for (uint32_t r = 0; r < max_regs_; ++r) last_write_[index(slot, static_cast<uint16_t>(r))] = 0;
}

void OperandCache::read(uint32_t i) const {
  const Line& l = lines_.at(i);
  const uint64_t last = last_write_[index(l.slot, l.reg)];
  // Before the warp's first write the register holds whatever the
  // scratchpad had: nothing to compare against.
  if (last != 0 && l.version != last)
    throw std::logic_error("OperandCache: R" + std::to_string(l.reg) + " of warp slot " + std::to_string(l.slot) +
                           " read as version " + std::to_string(l.version) + " after version " +
                           std::to_string(last) + " was written: a stale value");
}

void OperandCache::write(uint32_t i) {
  Line& l = lines_.at(i);
  l.version = ++next_version_;
  l.dirty = true;
  last_write_[index(l.slot, l.reg)] = l.version;
}

uint32_t OperandCache::dirty_lines() const {
  uint32_t n = 0;
  for (const Line& l : lines_) n += l.valid && l.dirty;
  return n;
}

}  // namespace smshare::expars
