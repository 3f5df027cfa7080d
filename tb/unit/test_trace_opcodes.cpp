// Opcode tables of the Accel-Sim trace front end.
#include <gtest/gtest.h>

#include <set>

#include "hw/common/error.hpp"
#include "hw/frontend/trace_opcodes.hpp"

namespace smshare {
namespace {

TEST(TraceOpcodes, TableChosenByBinaryVersion) {
  EXPECT_EQ(opcode_table_for(35).name(), "Kepler");
  EXPECT_EQ(opcode_table_for(37).name(), "Kepler");
  EXPECT_EQ(opcode_table_for(52).name(), "Maxwell/Pascal");
  EXPECT_EQ(opcode_table_for(61).name(), "Maxwell/Pascal");
  EXPECT_EQ(opcode_table_for(70).name(), "Volta");
  EXPECT_EQ(opcode_table_for(72).name(), "Volta");
  EXPECT_EQ(opcode_table_for(75).name(), "Turing");
  EXPECT_EQ(opcode_table_for(80).name(), "Ampere");
  EXPECT_EQ(opcode_table_for(86).name(), "Ampere");
}

TEST(TraceOpcodes, UnsupportedBinaryVersionNamesIt) {
  for (uint32_t v : {0u, 20u, 45u, 73u, 90u}) {
    try {
      opcode_table_for(v, "k.traceg:14");
      FAIL() << "binary version " << v << " accepted";
    } catch (const InputError& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find("k.traceg:14"), std::string::npos) << msg;
      EXPECT_NE(msg.find("binary version " + std::to_string(v)), std::string::npos) << msg;
    }
  }
}

TEST(TraceOpcodes, VoltaClasses) {
  const OpcodeTable& t = opcode_table_for(70);
  struct Case {
    const char* mnemonic;
    OpClass op;
  };
  const Case cases[] = {
      {"FFMA", OpClass::FpAlu},        {"FADD", OpClass::FpAlu},        {"HFMA2", OpClass::FpAlu},
      {"DFMA", OpClass::FpAlu},        {"HMMA", OpClass::FpAlu},        {"F2I", OpClass::FpAlu},
      {"IADD3", OpClass::IntAlu},      {"IMAD", OpClass::IntAlu},       {"LOP3", OpClass::IntAlu},
      {"ISETP", OpClass::IntAlu},      {"MOV", OpClass::IntAlu},        {"S2R", OpClass::IntAlu},
      {"SHFL", OpClass::IntAlu},       {"LDC", OpClass::IntAlu},        {"TEX", OpClass::IntAlu},
      {"MUFU", OpClass::Sfu},          {"LDG", OpClass::GlobalLoad},    {"LD", OpClass::GlobalLoad},
      {"STG", OpClass::GlobalStore},   {"ST", OpClass::GlobalStore},    {"ATOM", OpClass::GlobalStore},
      {"ATOMG", OpClass::GlobalStore}, {"RED", OpClass::GlobalStore},   {"LDL", OpClass::LocalLoad},
      {"STL", OpClass::LocalStore},    {"LDS", OpClass::SharedLoad},    {"STS", OpClass::SharedStore},
      {"ATOMS", OpClass::SharedStore}, {"BAR", OpClass::Barrier},       {"EXIT", OpClass::Exit},
      {"BRA", OpClass::Control},       {"BSSY", OpClass::Control},      {"BSYNC", OpClass::Control},
      {"WARPSYNC", OpClass::Control},  {"RET", OpClass::Control},       {"MEMBAR", OpClass::Control},
  };
  for (const auto& c : cases) {
    auto op = t.lookup(c.mnemonic);
    ASSERT_TRUE(op.has_value()) << c.mnemonic;
    EXPECT_EQ(*op, c.op) << c.mnemonic << " is " << to_string(*op);
  }
}

TEST(TraceOpcodes, ArchitectureSpecificMnemonics) {
  // Uniform datapath and LDSM appear with Turing; LDGSTS with Ampere; XMAD
  // and SSY are Maxwell/Pascal; IADD3 does not exist on Kepler.
  EXPECT_FALSE(opcode_table_for(70).lookup("UIADD3"));
  EXPECT_EQ(opcode_table_for(75).lookup("UIADD3"), OpClass::IntAlu);
  EXPECT_EQ(opcode_table_for(75).lookup("LDSM"), OpClass::SharedLoad);
  EXPECT_FALSE(opcode_table_for(75).lookup("LDGSTS"));
  EXPECT_EQ(opcode_table_for(86).lookup("LDGSTS"), OpClass::GlobalLoad);
  EXPECT_EQ(opcode_table_for(61).lookup("XMAD"), OpClass::IntAlu);
  EXPECT_EQ(opcode_table_for(61).lookup("SSY"), OpClass::Control);
  EXPECT_FALSE(opcode_table_for(70).lookup("XMAD"));
  EXPECT_FALSE(opcode_table_for(35).lookup("IADD3"));
  EXPECT_EQ(opcode_table_for(35).lookup("LD"), OpClass::GlobalLoad);
  EXPECT_EQ(opcode_table_for(35).lookup("LDSLK"), OpClass::SharedLoad);
}

TEST(TraceOpcodes, EveryTableHasTheEssentials) {
  for (const OpcodeTable* t : all_opcode_tables()) {
    for (const char* m : {"FFMA", "MUFU", "LDG", "LDL", "STL", "LDS", "STS", "BAR", "EXIT", "BRA", "S2R"})
      EXPECT_TRUE(t->lookup(m).has_value()) << t->name() << " lacks " << m;
    std::set<std::string> names;
    for (const auto& e : t->entries()) {
      EXPECT_TRUE(names.insert(e.first).second) << e.first;
      EXPECT_EQ(t->lookup(e.first), e.second) << e.first;
    }
    EXPECT_GT(t->entries().size(), 100u) << t->name();
  }
}

TEST(TraceOpcodes, LookupIsByMnemonicOnly) {
  const OpcodeTable& t = opcode_table_for(80);
  EXPECT_EQ(opcode_mnemonic("LDG.E.64.SYS"), "LDG");
  EXPECT_EQ(opcode_mnemonic("EXIT"), "EXIT");
  EXPECT_FALSE(t.lookup("LDG.E"));
  EXPECT_FALSE(t.lookup("ldg"));
  EXPECT_FALSE(t.lookup(""));
  EXPECT_FALSE(t.lookup("NOTANOPCODE"));
}

}  // namespace
}  // namespace smshare
