// The groups of banks a register access can be sent to. A mechanism's
// RegisterRoute names the group and the bank inside it (OperandRoute); the
// SM's BankArbitrator grants each bank as many accesses per cycle as it has
// ports (sm.register_bank_ports for the register file, one elsewhere).
#pragma once

#include <cstdint>

namespace smshare {

enum class BankGroup : uint8_t {
  RegisterFile = 0,        // the SM's register banks (sm.register_banks, sm.register_bank_ports each)
  OperandCache = 1,        // a mechanism's operand cache (EXPARS: 4 banks); 0 banks unless the mechanism declares them
  Scratchpad = 2,          // the scratchpad's banks (sm.scratchpad_banks), shared with the LDS/STS path
  RemoteRegisterFile = 3,  // a neighbouring SM's register banks (cross-SM sharing)
};
constexpr unsigned kNumBankGroups = 4;

inline const char* to_string(BankGroup g) {
  switch (g) {
    case BankGroup::RegisterFile: return "register_file";
    case BankGroup::OperandCache: return "operand_cache";
    case BankGroup::Scratchpad: return "scratchpad";
    case BankGroup::RemoteRegisterFile: return "remote_register_file";
  }
  return "unknown";
}

}  // namespace smshare
