#include "hw/sharing/expars/register_allocation_table.hpp"

#include <stdexcept>
#include <string>

#include "hw/common/instruction.hpp"

namespace smshare::expars {

static_assert(kWarpRegisterBytes == kWarpLanes * 4, "a warp register is one 4-byte word per lane");

RegisterAllocationTable::RegisterAllocationTable(uint32_t start_cta, uint32_t start_reg, uint32_t regs_per_thread,
                                                 uint32_t warps_per_cta, uint32_t cta_slots)
    : start_cta_(start_cta),
      start_reg_(start_reg),
      max_reg_(regs_per_thread - 1),
      warps_per_cta_(warps_per_cta),
      cta_slots_(cta_slots) {
  if (regs_per_thread == 0 || warps_per_cta == 0 || cta_slots == 0)
    throw std::logic_error("RegisterAllocationTable: registers per thread, warps per CTA and CTA slots must be positive");
  if (start_reg > regs_per_thread || start_cta > cta_slots)
    throw std::logic_error("RegisterAllocationTable: Start_Reg " + std::to_string(start_reg) + " / Start_CTA " +
                           std::to_string(start_cta) + " beyond " + std::to_string(regs_per_thread) +
                           " registers / " + std::to_string(cta_slots) + " CTA slots");
  sbr_.assign(cta_slots - start_cta, kUnset);
}

uint32_t RegisterAllocationTable::region_bytes() const {
  return (max_reg_ + 1 - start_reg_) * warps_per_cta_ * kWarpRegisterBytes;
}

void RegisterAllocationTable::set_sbr(uint32_t cta_slot, uint32_t base_bytes) {
  if (cta_slot < start_cta_ || cta_slot >= cta_slots_)
    throw std::logic_error("RegisterAllocationTable::set_sbr: CTA slot " + std::to_string(cta_slot) +
                           " is not a mixed slot [" + std::to_string(start_cta_) + ", " + std::to_string(cta_slots_) +
                           ")");
  sbr_[cta_slot - start_cta_] = base_bytes;
}

void RegisterAllocationTable::clear_sbr(uint32_t cta_slot) {
  sbr(cta_slot, "clear_sbr");  // checks it is set
  sbr_[cta_slot - start_cta_] = kUnset;
}

uint32_t RegisterAllocationTable::sbr(uint32_t cta_slot, const char* what) const {
  if (cta_slot < start_cta_ || cta_slot >= cta_slots_ || sbr_[cta_slot - start_cta_] == kUnset)
    throw std::logic_error(std::string("RegisterAllocationTable::") + what + ": CTA slot " +
                           std::to_string(cta_slot) + " has no SBR");
  return sbr_[cta_slot - start_cta_];
}

bool RegisterAllocationTable::in_scratchpad(uint32_t cta_slot, uint32_t reg) const {
  if (reg > max_reg_)
    throw std::logic_error("RegisterAllocationTable::in_scratchpad: register " + std::to_string(reg) +
                           " beyond Max_Reg " + std::to_string(max_reg_));
  return cta_slot >= start_cta_ && reg >= start_reg_;
}

uint32_t RegisterAllocationTable::address(uint32_t cta_slot, uint32_t warp_in_cta, uint32_t reg, uint32_t lane) const {
  if (!in_scratchpad(cta_slot, reg) || warp_in_cta >= warps_per_cta_ || lane >= kWarpLanes)
    throw std::logic_error("RegisterAllocationTable::address: CTA slot " + std::to_string(cta_slot) + " warp " +
                           std::to_string(warp_in_cta) + " register " + std::to_string(reg) + " lane " +
                           std::to_string(lane) + " is not a scratchpad register of a warp of a mixed CTA");
  const uint32_t regs_in_scratchpad = max_reg_ + 1 - start_reg_;  // Max_Reg - Start_Reg + 1
  return sbr(cta_slot, "address") + (regs_in_scratchpad * warp_in_cta + (reg - start_reg_)) * kWarpRegisterBytes +
         4 * lane;
}

}  // namespace smshare::expars
