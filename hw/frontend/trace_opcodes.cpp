#include "hw/frontend/trace_opcodes.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "hw/common/error.hpp"

namespace smshare {
namespace {

uint32_t fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}

// The class of every mnemonic any table knows. Choices the model makes where
// SASS has no matching unit are written down in docs/traces.md:
// double precision, half precision and tensor-core floating point run as
// FpAlu; textures, surfaces, constant loads and the uniform datapath as
// IntAlu (the model has no texture or uniform pipeline); atomics and
// reductions as stores of their address space; MEMBAR as Control.
struct ClassGroup {
  OpClass op;
  const char* mnemonics;
};
const ClassGroup kClassGroups[] = {
    {OpClass::FpAlu,
     "FADD FADD32I FCHK FFMA FFMA32I FMNMX FMUL FMUL32I FSEL FSET FSETP FSWZADD FSWZ FCMP RRO "
     "HADD2 HADD2_32I HFMA2 HFMA2_32I HMUL2 HMUL2_32I HSET2 HSETP2 HMNMX2 "
     "DADD DFMA DMUL DSETP DMNMX DSET HMMA DMMA "
     "F2F F2I I2F FRND F2FP I2FP F2IP"},
    {OpClass::Sfu, "MUFU"},
    {OpClass::IntAlu,
     "BMSK BREV FLO IABS IADD IADD3 IADD32I IDP IDP4A IMAD IMMA BMMA IMNMX IMUL IMUL32I ISCADD ISCADD32I "
     "ISETP ISET LEA LOP LOP3 LOP32I POPC SHF SHL SHR VABSDIFF VABSDIFF4 VADD VMNMX BFE BFI ICMP IMADSP "
     "XMAD ISUB ISAD I2I I2IP "
     "MOV MOV32I MOVM PRMT SEL SGXT SHFL PLOP3 PSETP P2R R2P CSET CSETP PSET "
     "LDC MATCH QSPC CCTL CCTLL CCTLT ERRBAR LDGDEPBAR "
     "TEX TLD TLD4 TMML TXD TXQ TEXS TLD4S TLDS "
     "SUATOM SULD SUQUERY SURED SUST SUCLAMP SUBFM SUEAU SULDGA SUSTGA "
     "R2UR REDUX S2UR UBMSK UBREV UCLEA UF2FP UFLO UIADD3 UIMAD UISETP ULDC ULEA ULOP ULOP3 ULOP32I "
     "UMOV UP2UR UPLOP3 UPOPC UPRMT UPSETP UR2UP USEL USGXT USHF USHL USHR VOTEU "
     "B2R CS2R CSMTEST DEPBAR GETLMEMBASE LEPC NOP PMTRIG R2B S2R SETCTAID SETLMEMBASE VOTE VOTE_VTG"},
    {OpClass::GlobalLoad, "LD LDG LDGSTS"},
    {OpClass::GlobalStore, "ST STG ATOM ATOMG RED"},
    {OpClass::LocalLoad, "LDL"},
    {OpClass::LocalStore, "STL"},
    {OpClass::SharedLoad, "LDS LDSM LDSLK"},
    {OpClass::SharedStore, "STS STSCUL ATOMS"},
    {OpClass::Barrier, "BAR"},
    {OpClass::Control,
     "BMOV BPT BRA BREAK BRX BRXU BSSY BSYNC CALL JMP JMX JMXU KILL NANOSLEEP RET RPCMOV RTT WARPSYNC "
     "YIELD SSY SYNC CAL JCAL PRET BRK PBK CONT PCNT PEXIT MEMBAR"},
    {OpClass::Exit, "EXIT"},
};

std::vector<std::string> words(const char* text) {
  std::istringstream is(text);
  std::vector<std::string> out;
  for (std::string w; is >> w;) out.push_back(w);
  return out;
}

const std::map<std::string, OpClass>& class_of_mnemonic() {
  static const std::map<std::string, OpClass> m = [] {
    std::map<std::string, OpClass> out;
    for (const auto& g : kClassGroups)
      for (const auto& w : words(g.mnemonics))
        if (!out.emplace(w, g.op).second) throw std::logic_error("opcode class table lists " + w + " twice");
    return out;
  }();
  return m;
}

// Mnemonics of each architecture's SASS (as far as Accel-Sim's ISA_Def
// tables list them).
const char* const kKepler =
    "FFMA FFMA32I FADD FADD32I FCMP FMUL FMUL32I FMNMX FSWZ FSET FSETP FCHK RRO MUFU "
    "DFMA DADD DMUL DMNMX DSET DSETP "
    "IMAD IMADSP IMUL IMUL32I IADD IADD32I ISUB ISCADD ISCADD32I ISAD IMNMX BFE BFI SHR SHL SHF LOP "
    "LOP32I FLO ISET ISETP ICMP POPC F2F F2I I2F I2I MOV MOV32I SEL PRMT SHFL P2R R2P CSET CSETP PSET "
    "PSETP TEX TLD TLD4 TXQ LDC LD LDG LDL LDS LDSLK ST STL STS STSCUL ATOM RED CCTL CCTLL MEMBAR "
    "SUCLAMP SUBFM SUEAU SULDGA SUSTGA BRA BRX JMP JMX CAL JCAL RET BRK CONT SSY PBK PCNT PRET BPT "
    "EXIT NOP S2R B2R BAR VOTE";

const char* const kPascal =
    "FADD FADD32I FCHK FFMA32I FFMA FMNMX FMUL FMUL32I FSEL FSET FSETP FSWZADD RRO FCMP MUFU "
    "HADD2 HFMA2 HMUL2 HSET2 HSETP2 DADD DFMA DMUL DSETP DMNMX DSET "
    "BMSK BREV FLO IABS IADD IADD3 IADD32I IDP IDP4A IMAD IMMA IMNMX IMUL IMUL32I ISCADD ISCADD32I "
    "ISETP ISET LEA LOP LOP3 LOP32I POPC SHF SHR VABSDIFF VABSDIFF4 VADD BFE BFI ICMP IMADSP SHL XMAD "
    "VMNMX F2F F2I I2F I2I I2IP FRND MOV MOV32I PRMT SEL SGXT SHFL PLOP3 PSETP P2R R2P CSET CSETP PSET "
    "LD LDC LDG LDL LDS ST STG STL STS MATCH QSPC ATOM ATOMS ATOMG RED CCTL CCTLL ERRBAR MEMBAR CCTLT "
    "TEX TLD TLD4 TMML TXD TXQ TEXS TLD4S TLDS "
    "BMOV BPT BRA BREAK BRX BSSY BSYNC CALL EXIT JMP SSY SYNC JMX KILL NANOSLEEP RET RPCMOV RTT "
    "WARPSYNC YIELD CAL JCAL PRET BRK PBK CONT PCNT PEXIT "
    "B2R BAR CS2R CSMTEST DEPBAR GETLMEMBASE LEPC NOP PMTRIG R2B S2R SETCTAID SETLMEMBASE VOTE VOTE_VTG";

const char* const kVolta =
    "FADD FADD32I FCHK FFMA32I FFMA FMNMX FMUL FMUL32I FSEL FSET FSETP FSWZADD MUFU "
    "HADD2 HADD2_32I HFMA2 HFMA2_32I HMUL2 HMUL2_32I HSET2 HSETP2 HMMA DADD DFMA DMUL DSETP "
    "BMSK BREV FLO IABS IADD IADD3 IADD32I IDP IDP4A IMAD IMMA IMNMX IMUL IMUL32I ISCADD ISCADD32I "
    "ISETP LEA LOP LOP3 LOP32I POPC SHF SHR VABSDIFF VABSDIFF4 "
    "F2F F2I I2F I2I I2IP FRND MOV MOV32I PRMT SEL SGXT SHFL PLOP3 PSETP P2R R2P "
    "LD LDC LDG LDL LDS ST STG STL STS MATCH QSPC ATOM ATOMS ATOMG RED CCTL CCTLL ERRBAR MEMBAR CCTLT "
    "TEX TLD TLD4 TMML TXD TXQ "
    "BMOV BPT BRA BREAK BRX BSSY BSYNC CALL EXIT JMP JMX KILL NANOSLEEP RET RPCMOV RTT WARPSYNC YIELD "
    "B2R BAR CS2R CSMTEST DEPBAR GETLMEMBASE LEPC NOP PMTRIG R2B S2R SETCTAID SETLMEMBASE VOTE VOTE_VTG";

const char* const kTuringExtra =
    "SHL BMMA MOVM LDSM F2FP R2UR S2UR UBMSK UBREV UCLEA UFLO UIADD3 UIMAD UISETP ULDC ULEA ULOP ULOP3 "
    "ULOP32I UMOV UP2UR UPLOP3 UPOPC UPRMT UPSETP UR2UP USEL USGXT USHF USHL USHR VOTEU "
    "SUATOM SULD SURED SUST BRXU JMXU";

const char* const kAmpereExtra = "HMNMX2 DMMA I2FP F2IP LDGDEPBAR LDGSTS REDUX UF2FP SUQUERY";

OpcodeTable make_table(const char* name, const char* versions, std::vector<std::string> mnemonics) {
  const auto& classes = class_of_mnemonic();
  std::vector<std::pair<std::string, OpClass>> entries;
  for (const auto& m : mnemonics) {
    auto it = classes.find(m);
    if (it == classes.end()) throw std::logic_error("opcode table " + std::string(name) + ": no class for " + m);
    entries.emplace_back(m, it->second);
  }
  return OpcodeTable(name, versions, std::move(entries));
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const OpcodeTable& kepler() {
  static const OpcodeTable t = make_table("Kepler", "30-39", words(kKepler));
  return t;
}
const OpcodeTable& pascal() {
  static const OpcodeTable t = make_table("Maxwell/Pascal", "50-62", words(kPascal));
  return t;
}
const OpcodeTable& volta() {
  static const OpcodeTable t = make_table("Volta", "70, 72", words(kVolta));
  return t;
}
const OpcodeTable& turing() {
  static const OpcodeTable t = make_table("Turing", "75", concat(words(kVolta), words(kTuringExtra)));
  return t;
}
const OpcodeTable& ampere() {
  static const OpcodeTable t =
      make_table("Ampere", "80-89", concat(concat(words(kVolta), words(kTuringExtra)), words(kAmpereExtra)));
  return t;
}

}  // namespace

OpcodeTable::OpcodeTable(std::string name, std::string binary_versions,
                         std::vector<std::pair<std::string, OpClass>> entries)
    : name_(std::move(name)), binary_versions_(std::move(binary_versions)), entries_(std::move(entries)) {
  std::sort(entries_.begin(), entries_.end());
  entries_.erase(std::unique(entries_.begin(), entries_.end(),
                             [](const auto& a, const auto& b) { return a.first == b.first; }),
                 entries_.end());
  size_t size = 16;
  while (size < entries_.size() * 4) size *= 2;
  slots_.assign(size, Slot{});
  for (size_t i = 0; i < entries_.size(); ++i) {
    uint32_t h = fnv1a(entries_[i].first);
    size_t s = h & (size - 1);
    while (slots_[s].entry >= 0) s = (s + 1) & (size - 1);
    slots_[s] = Slot{h, static_cast<int32_t>(i)};
  }
}

std::optional<OpClass> OpcodeTable::lookup(std::string_view mnemonic) const {
  uint32_t h = fnv1a(mnemonic);
  size_t mask = slots_.size() - 1;
  for (size_t s = h & mask;; s = (s + 1) & mask) {
    const Slot& slot = slots_[s];
    if (slot.entry < 0) return std::nullopt;
    if (slot.hash == h && entries_[slot.entry].first == mnemonic) return entries_[slot.entry].second;
  }
}

const OpcodeTable& opcode_table_for(uint32_t binary_version, const std::string& where) {
  if (binary_version >= 30 && binary_version <= 39) return kepler();
  if (binary_version >= 50 && binary_version <= 62) return pascal();
  if (binary_version == 70 || binary_version == 72) return volta();
  if (binary_version == 75) return turing();
  if (binary_version >= 80 && binary_version <= 89) return ampere();
  throw input_error(where, "binary version",
                    "unsupported binary version " + std::to_string(binary_version) +
                        " (supported: 30-39 Kepler, 50-62 Maxwell/Pascal, 70/72 Volta, 75 Turing, 80-89 Ampere)");
}

std::vector<const OpcodeTable*> all_opcode_tables() {
  return {&kepler(), &pascal(), &volta(), &turing(), &ampere()};
}

}  // namespace smshare
