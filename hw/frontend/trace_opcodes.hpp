// SASS opcode tables for Accel-Sim traces: which instruction class each
// mnemonic belongs to, one table per GPU architecture (chosen from the
// trace's `-binary version`). The tables list the mnemonics each
// architecture's SASS has (after Accel-Sim's ISA_Def tables); the class of a
// mnemonic is the same in every table. docs/traces.md prints them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hw/common/instruction.hpp"

namespace smshare {

class OpcodeTable {
 public:
  OpcodeTable(std::string name, std::string binary_versions, std::vector<std::pair<std::string, OpClass>> entries);

  // "Volta", "Turing", ...
  const std::string& name() const { return name_; }
  // Human-readable list of the binary versions using this table ("70, 72").
  const std::string& binary_versions() const { return binary_versions_; }
  // The class of a mnemonic (the opcode up to its first '.'), if known.
  std::optional<OpClass> lookup(std::string_view mnemonic) const;
  // Mnemonic → class, sorted by mnemonic.
  const std::vector<std::pair<std::string, OpClass>>& entries() const { return entries_; }

 private:
  struct Slot {
    uint32_t hash = 0;
    int32_t entry = -1;  // index into entries_, -1 = empty
  };
  std::string name_;
  std::string binary_versions_;
  std::vector<std::pair<std::string, OpClass>> entries_;
  std::vector<Slot> slots_;  // open addressing, power-of-two size
};

// The table for a trace's `-binary version` (CUDA compute capability x10):
// 30-39 Kepler, 50-62 Maxwell/Pascal, 70/72 Volta, 75 Turing, 80-89 Ampere
// (and Ada). Throws InputError naming `where` for any other version.
const OpcodeTable& opcode_table_for(uint32_t binary_version, const std::string& where = "trace");

// Every table, oldest architecture first (for docs and tests).
std::vector<const OpcodeTable*> all_opcode_tables();

// The mnemonic of an opcode token: "LDG.E.64.SYS" → "LDG".
inline std::string_view opcode_mnemonic(std::string_view opcode) {
  size_t dot = opcode.find('.');
  return dot == std::string_view::npos ? opcode : opcode.substr(0, dot);
}

}  // namespace smshare
