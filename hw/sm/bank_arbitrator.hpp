// The bank arbitrator: grants the SM's banks to register accesses, in the
// bank groups of bank_group.hpp (register file, a mechanism's operand cache,
// the scratchpad, a neighbouring SM's register file). Each bank has a number
// of ports: the accesses it serves per cycle. The register file's banks have
// sm.register_bank_ports (GPGPU-Sim's gpgpu_reg_file_port_throughput); every
// other group's banks are single-ported.
//
// Grant rules (the timing every testbench derives its cycles from):
//  * A bank serves up to `ports` accesses per cycle, reads and writes alike.
//    Requests are served first come, first served within the cycle; a
//    refused request is not queued: its requester asks again in a later
//    cycle, and each refusal counts one conflict. SmCore asks in this order
//    every cycle:
//      1. writeback: the results due, oldest first (due cycle, then issue
//         order), each instruction's destination registers in order;
//      2. dispatch: an LDS/STS entering the scratchpad claims the scratchpad
//         banks it uses for the cycles it uses them (Scratchpad::access);
//      3. operand read: the collector units in rotating order, each unit's
//         unread operands in source order (OperandCollectors::read).
//    So a write has priority over a read of the same bank in the same cycle.
//    GPGPU-Sim runs its operand collector's arbitration once per port per
//    cycle (shader.cc, shader_core_ctx::read_operands calls
//    opndcoll_rfu_t::step reg_file_port_throughput times; the arbiter_t
//    grants each bank one read per step and is reset after each): a bank
//    reads `ports` registers per cycle, and a register written in the cycle
//    (opndcoll_rfu_t::writeback, before the first step) takes one of them.
//  * A claim reserves banks of a group for the cycles an access of the
//    structure itself uses them (the scratchpad's waves: bank b for the
//    first w_b cycles from the access's start): a register access routed to
//    such a bank is refused in those cycles, whatever its ports. A group
//    holds one claim at a time (the structure has one access in flight); a
//    new claim replaces it.
//  * A bank's state is keyed by cycle number and never cleared: bank b is
//    taken in cycle c iff all its ports were granted in c or it is claimed
//    over c. SMs that tick one after another within a cycle therefore see
//    each other's grants on shared banks (RemoteRegisterFile) whichever
//    ticks first, and a sleeping SM's banks need no clearing.
//  * RemoteRegisterFile requests go to the attached neighbour's
//    RegisterFile banks, with the neighbour's ports: the neighbour's bank
//    array counts the read or write (the energy is spent in its banks); this
//    arbitrator counts the grant or the conflict in its own
//    RemoteRegisterFile array (this SM's share).
//
// The register file of the SM is this arbitrator's RegisterFile bank array:
// register_file() is what an architect points at for its per-bank reads and
// writes.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "hw/sm/bank_group.hpp"

namespace smshare {

// One group of banks: in which cycles each bank is taken, and what it served.
class BankArray {
 public:
  // This cycle's activity, for waveforms (probes()).
  struct Probes {
    uint32_t reads_this_cycle = 0;
    uint32_t writes_this_cycle = 0;
    uint32_t conflicts_this_cycle = 0;
  };

  uint32_t banks() const { return size_; }
  uint32_t ports() const { return ports_; }  // accesses each bank serves per cycle
  // Per bank: accesses served, and requests refused because the bank was taken.
  uint64_t reads(uint16_t bank) const { return banks_.at(bank).reads; }
  uint64_t writes(uint16_t bank) const { return banks_.at(bank).writes; }
  uint64_t conflicts(uint16_t bank) const { return banks_.at(bank).conflicts; }
  std::vector<uint64_t> reads() const;  // all banks
  std::vector<uint64_t> writes() const;
  // All banks' counts, in one pass.
  struct Totals {
    uint64_t reads = 0, writes = 0, conflicts = 0;
  };
  Totals totals() const;
  uint64_t total_reads() const { return totals().reads; }
  uint64_t total_writes() const { return totals().writes; }
  uint64_t total_conflicts() const { return totals().conflicts; }
  // The accesses served and refused since the arbitrator's cycle started
  // (BankArbitrator::begin_cycle, called each cycle only in an SM a waveform
  // traces, SmCore::set_probes_traced; elsewhere they count since an earlier
  // cycle and are read by nobody): worked out from the banks' totals, so that
  // a request counts once, in its bank, not also in a per-cycle sum (about
  // 5 M host instructions on the bench trace, 1 M on hotspot).
  Probes probes() const;

 private:
  friend class BankArbitrator;
  static constexpr uint64_t kNone = ~0ull;
  // Everything the hot path touches for one bank, in one place.
  struct Bank {
    uint64_t granted = kNone;  // cycle of its last grant
    uint32_t ports_used = 0;   // grants in cycle `granted`
    uint32_t last_step = 0;    // step of that cycle its last grant was in (kAnyStep counts as step 0)
    uint64_t reads = 0, writes = 0, conflicts = 0;
  };
  // kMayBeClaimed false: the caller knows the group holds no claim.
  // kSinglePort: the caller knows ports_ is 1, so a bank granted in `cycle`
  // is taken whatever its ports_used and last_step say (see grant).
  template <bool kMayBeClaimed = true, bool kSinglePort = false>
  bool taken(uint32_t bank, uint64_t cycle, uint32_t step = ~0u) const {
    const Bank& b = banks_[bank];
    if (b.granted == cycle && (kSinglePort || b.ports_used >= ports_ || b.last_step == step)) return true;
    // cycle - claim_first_ wraps to a huge number before the claim starts.
    return kMayBeClaimed && claim_cycles_ && cycle - claim_first_ < claim_cycles_[bank];
  }
  // Takes one port of `bank` (not taken) in `cycle` (step `step` of it).
  // kSinglePort (ports_ is 1): a bank not taken was not granted in the
  // cycle, and its one port is now used. Its last_step is not stored: it is
  // read only while ports_used < ports_, never once a single port is used
  // (a grant per register read spared the store, and the read of ports_used
  // at each refusal).
  template <bool kSinglePort = false>
  void grant(uint32_t bank, uint64_t cycle, uint32_t step = ~0u) {
    Bank& b = banks_[bank];
    if (kSinglePort) {
      b.granted = cycle;
      b.ports_used = 1;
      return;
    }
    if (b.granted != cycle) {
      b.granted = cycle;
      b.ports_used = 0;
    }
    ++b.ports_used;
    b.last_step = step == ~0u ? 0 : step;
  }
  void resize(uint32_t banks);

  std::vector<Bank> banks_;
  uint32_t size_ = 0;
  uint32_t ports_ = 1;
  const uint16_t* claim_cycles_ = nullptr;  // per bank: cycles claimed from claim_first_ (the claimant's array)
  uint64_t claim_first_ = 0;
  // Cycle of the group's last grant (any bank), kept for every group but the
  // register file: granted_any() looks at its banks instead, so that its
  // reads and writes (about 7 M on the bench trace) spare the store.
  uint64_t last_grant_ = kNone;
  Totals at_cycle_start_;  // totals() when the arbitrator's cycle started, less the banks resized away since
};

class BankArbitrator {
 public:
  struct Probes {
    uint32_t grants_this_cycle = 0;     // requests granted this cycle (all groups)
    uint32_t conflicts_this_cycle = 0;  // requests refused this cycle (all groups)
  };

  // RegisterFile and Scratchpad sized from the SM's spec (sm.register_banks
  // with sm.register_bank_ports each, sm.scratchpad_banks); OperandCache and
  // RemoteRegisterFile have no banks until set_banks / attach_neighbour.
  // Banks of every group but the register file have one port.
  BankArbitrator(uint32_t register_banks, uint32_t scratchpad_banks, uint32_t register_bank_ports = 1);
  BankArbitrator(const BankArbitrator&) = delete;  // neighbours and claimants hold pointers
  BankArbitrator& operator=(const BankArbitrator&) = delete;

  // Sizes a group (a mechanism's operand cache: Mechanism::operand_cache_banks).
  // Counters of banks that remain are kept.
  void set_banks(BankGroup group, uint32_t banks);
  // RemoteRegisterFile requests go to `neighbour`'s register banks (cross-SM
  // sharing); the group gets as many banks as the neighbour's register file.
  void attach_neighbour(BankArbitrator& neighbour);

  // Starts cycle `cycle`: the probes count from here (idempotent within a cycle).
  void begin_cycle(uint64_t cycle) {
    if (cycle != cycle_) start_cycle(cycle);
  }

  // A request's place in the cycle when the operand collector steps several
  // times a cycle (sm.pipeline_registers): in step s a bank grants only if it
  // granted at most s accesses before in the cycle, i.e. one per step, with
  // the cycle's writes in step 0 (GPGPU-Sim: opndcoll_rfu_t::step runs
  // sm.register_bank_ports times; each allocate_reads grants a bank once and
  // process_banks frees it for the next step). kAnyStep: the compact timing,
  // where a bank serves its ports in any order, and the writes of the
  // writeback stage (step 0).
  static constexpr uint32_t kAnyStep = ~0u;

  // One access to `bank` of `group` in `cycle` (in step `step` of it): true if
  // granted (one of the bank's ports is then used for the cycle), false if
  // the bank is taken (a conflict).
  // A bank outside the group is a mechanism's error (std::logic_error).
  bool request(BankGroup group, uint16_t bank, bool is_write, uint64_t cycle, uint32_t step = kAnyStep) {
    if (group == BankGroup::RemoteRegisterFile) return request_remote(bank, is_write, cycle, step);
    if (bank >= groups_[static_cast<unsigned>(group)].size_) bad_bank(group, bank);
    return request_existing(group, bank, is_write, cycle, step);
  }
  // request() of a register-file bank the caller knows exists, while the
  // register file holds no claim (unclaimed_register_banks() is not 0): the
  // baseline's interleaved route, whose bank count the SM checks against
  // this once per stage, spares its operand reads and result writes the
  // bank check and the claim test (five host instructions each, 7.6 M
  // accesses on the bench trace).
  // kSinglePort: the caller knows the register file's banks have one port
  // each (register_file().ports() is 1, as sm.register_bank_ports is on most
  // configs).
  template <bool kSinglePort = false>
  bool request_register_file(uint32_t bank, bool is_write, uint64_t cycle, uint32_t step = kAnyStep) {
    return request_existing<false, kSinglePort>(BankGroup::RegisterFile, bank, is_write, cycle, step);
  }
  // The register file's banks, or 0 once a claim was put on them (none of
  // the SM's structures claims them; a claim holds until replaced).
  uint32_t unclaimed_register_banks() const {
    const BankArray& a = register_file();
    return a.claim_cycles_ ? 0 : a.size_;
  }

  // Is `bank` of `group` taken in `cycle` (every port granted, or claimed)?
  bool taken(BankGroup group, uint16_t bank, uint64_t cycle) const;
  // Was any bank of `group`, or bank `bank`, granted to a request (any of
  // its ports) in `cycle`?
  bool granted_any(BankGroup group, uint64_t cycle) const {
    const BankArray& a = groups_[static_cast<unsigned>(group)];
    return group == BankGroup::RegisterFile ? any_register_bank_granted(cycle) : a.last_grant_ == cycle;
  }
  bool granted(BankGroup group, uint16_t bank, uint64_t cycle) const;
  // Claims bank b of `group` for cycles [first, first + cycles[b]) for every
  // b < banks() (the scratchpad's own access: Scratchpad::access), replacing
  // the group's previous claim. `cycles` is the claimant's array, read
  // until the next claim (not copied: a claim per LDS/STS must be cheap).
  void claim(BankGroup group, uint64_t first, const uint16_t* cycles);

  const BankArray& group(BankGroup g) const { return groups_[static_cast<unsigned>(g)]; }
  const BankArray& register_file() const { return group(BankGroup::RegisterFile); }
  // Requests refused in every group: operand accesses deferred by a busy bank.
  uint64_t total_conflicts() const;
  // Worked out from the groups' probes (BankArray::probes(): since the cycle
  // started, in an SM a waveform traces): each request of this SM counts
  // once in the group whose banks served or refused it, so the sums need no
  // counting of their own at every request (about 8 M host instructions on
  // the bench trace). A neighbour's remote access served by this register
  // file counts in its group, not in this SM's grants (lent_).
  Probes probes() const;

 private:
  bool request_remote(uint16_t bank, bool is_write, uint64_t cycle, uint32_t step);
  // request() of a bank `group` has, not of RemoteRegisterFile
  // (kMayBeClaimed, kSinglePort: as for BankArray::taken).
  template <bool kMayBeClaimed = true, bool kSinglePort = false>
  bool request_existing(BankGroup group, uint32_t bank, bool is_write, uint64_t cycle, uint32_t step) {
    BankArray& a = groups_[static_cast<unsigned>(group)];
    if (a.taken<kMayBeClaimed, kSinglePort>(bank, cycle, step)) {
      refuse(a, bank);
      return false;
    }
    a.grant<kSinglePort>(bank, cycle, step);
    // (Without kMayBeClaimed the group is the register file.)
    if (kMayBeClaimed && group != BankGroup::RegisterFile) a.last_grant_ = cycle;
    serve(a, bank, is_write);
    return true;
  }
  [[noreturn]] void bad_bank(BankGroup group, uint16_t bank) const;
  bool any_register_bank_granted(uint64_t cycle) const;
  void start_cycle(uint64_t cycle);
  static void refuse(BankArray& a, uint32_t bank) { ++a.banks_[bank].conflicts; }
  static void serve(BankArray& a, uint32_t bank, bool is_write) {
    if (is_write) ++a.banks_[bank].writes;
    else ++a.banks_[bank].reads;
  }

  std::array<BankArray, kNumBankGroups> groups_;
  BankArbitrator* neighbour_ = nullptr;
  uint64_t cycle_ = BankArray::kNone;
  // The neighbour's remote accesses its register file served (they count in
  // this SM's register file, not in its grants), all of them and when the
  // cycle started.
  uint64_t lent_ = 0;
  uint64_t lent_at_cycle_start_ = 0;
};

}  // namespace smshare
