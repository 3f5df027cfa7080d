// EXPARS (Yu et al. 2018) Sec. 3.3.3: the register allocation table (RAT).
// It holds Start_CTA (= CTA_RF: CTA slots below it keep every register in the
// register file), Start_Reg (the first per-thread register index a mixed CTA
// keeps in the scratchpad), Max_Reg (the highest register index),
// Warps_Per_CTA, and the SBR table: the base byte address of each mixed CTA's
// register region, indexed by CTA slot - Start_CTA.
//
// Judgement logic (Sec. 3.3.5, printed inverted; this is Sec. 3.3.3's
// wording): register `reg` of CTA slot c is in the scratchpad iff
// c >= Start_CTA and reg >= Start_Reg.
//
// Addresses, in bytes throughout (Eqs. (11)-(13) mix S in 4-byte words with
// 128-byte lines; docs/expars-reproduction.md, "Resource allocator and RAT"):
// warp w of the CTA, register reg, lane l:
//   SBR + ((Max_Reg - Start_Reg + 1) * w + (reg - Start_Reg)) * 128 + 4 l.
// One line of 32 words per warp register, so its 32 lanes fall in the 32
// distinct banks. SBR comes from the ScratchpadAllocator (Eq. (11) is its
// position-k layout).
#pragma once

#include <cstdint>
#include <vector>

namespace smshare::expars {

// Bytes of one warp register in the scratchpad: 32 lanes of 4 bytes.
inline constexpr uint32_t kWarpRegisterBytes = 128;

class RegisterAllocationTable {
 public:
  // `cta_slots` sizes the SBR table (slots from start_cta up); `regs_per_thread`
  // gives Max_Reg = regs_per_thread - 1. start_reg == regs_per_thread or
  // start_cta == cta_slots: nothing in the scratchpad. Throws std::logic_error
  // on values that cannot describe a CTA layout.
  RegisterAllocationTable(uint32_t start_cta, uint32_t start_reg, uint32_t regs_per_thread, uint32_t warps_per_cta,
                          uint32_t cta_slots);

  uint32_t start_cta() const { return start_cta_; }
  uint32_t start_reg() const { return start_reg_; }
  uint32_t max_reg() const { return max_reg_; }
  uint32_t warps_per_cta() const { return warps_per_cta_; }
  // Bytes of one mixed CTA's register region (what the allocator reserves):
  // (Max_Reg - Start_Reg + 1) x Warps_Per_CTA x 128.
  uint32_t region_bytes() const;

  // Records / forgets the SBR of a mixed CTA slot (>= Start_CTA).
  void set_sbr(uint32_t cta_slot, uint32_t base_bytes);
  void clear_sbr(uint32_t cta_slot);

  // The judgement logic (correctly oriented). reg must be <= Max_Reg.
  bool in_scratchpad(uint32_t cta_slot, uint32_t reg) const;
  // Byte address of lane `lane` of register `reg` of warp `warp_in_cta`
  // (Eq. (13), in bytes); the register must be in the scratchpad and the
  // slot's SBR set.
  uint32_t address(uint32_t cta_slot, uint32_t warp_in_cta, uint32_t reg, uint32_t lane = 0) const;

 private:
  static constexpr uint32_t kUnset = UINT32_MAX;
  uint32_t sbr(uint32_t cta_slot, const char* what) const;

  uint32_t start_cta_, start_reg_, max_reg_, warps_per_cta_, cta_slots_;
  std::vector<uint32_t> sbr_;  // [cta_slot - start_cta]
};

}  // namespace smshare::expars
