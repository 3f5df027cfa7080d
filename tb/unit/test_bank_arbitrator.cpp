// The bank arbitrator on its own: one access per bank per cycle (or one per
// port of a multi-ported register bank), first come first served, claims,
// bank groups, and a neighbour's register banks, with cycles derived by hand
// from the rules in hw/sm/bank_arbitrator.hpp.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "hw/sm/bank_arbitrator.hpp"

namespace smshare {
namespace {

// A requester that, like SmCore, asks again every cycle until granted.
struct Request {
  BankGroup group;
  uint16_t bank;
  bool is_write;
  uint64_t granted_in = 0;
  bool done = false;
};

// A result write and three operand reads, all to register-file bank `bank`.
std::vector<Request> write_and_three_reads(uint16_t bank) {
  return {{BankGroup::RegisterFile, bank, true},
          {BankGroup::RegisterFile, bank, false},
          {BankGroup::RegisterFile, bank, false},
          {BankGroup::RegisterFile, bank, false}};
}

// Runs cycles from `first` until every request is granted, asking in list
// order each cycle (the order SmCore asks in: writes, then reads).
void run_until_granted(BankArbitrator& arb, std::vector<Request>& requests, uint64_t first) {
  for (uint64_t cycle = first; cycle < first + 100; ++cycle) {
    arb.begin_cycle(cycle);
    bool all = true;
    for (Request& r : requests) {
      if (r.done) continue;
      if (arb.request(r.group, r.bank, r.is_write, cycle)) {
        r.done = true;
        r.granted_in = cycle;
      } else {
        all = false;
      }
    }
    if (all) return;
  }
  FAIL() << "requests were not all granted within 100 cycles";
}

TEST(BankArbitrator, KReadsAndAWriteToOneBankAreGrantedOnePerCycleInRequestOrder) {
  // In cycle 10 a write (writeback asks first) and three reads want RF bank
  // 3: the write gets cycle 10, the reads 11, 12 and 13. Each refusal is a
  // conflict: 3 in cycle 10, 2 in 11, 1 in 12.
  BankArbitrator arb(16, 32);
  std::vector<Request> reqs = write_and_three_reads(3);
  run_until_granted(arb, reqs, 10);
  EXPECT_EQ(reqs[0].granted_in, 10u);
  EXPECT_EQ(reqs[1].granted_in, 11u);
  EXPECT_EQ(reqs[2].granted_in, 12u);
  EXPECT_EQ(reqs[3].granted_in, 13u);
  const BankArray& rf = arb.register_file();
  EXPECT_EQ(rf.writes(3), 1u);
  EXPECT_EQ(rf.reads(3), 3u);
  EXPECT_EQ(rf.conflicts(3), 6u);
  EXPECT_EQ(arb.total_conflicts(), 6u);
  EXPECT_EQ(rf.total_reads(), 3u);
}

TEST(BankArbitrator, DistinctBanksAndDistinctGroupsAreGrantedInTheSameCycle) {
  BankArbitrator arb(16, 32);
  arb.begin_cycle(4);
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 0, false, 4));
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 1, false, 4));
  EXPECT_TRUE(arb.request(BankGroup::Scratchpad, 0, false, 4));  // bank 0 of another group
  EXPECT_FALSE(arb.request(BankGroup::RegisterFile, 0, true, 4));
  EXPECT_EQ(arb.probes().grants_this_cycle, 3u);
  EXPECT_EQ(arb.probes().conflicts_this_cycle, 1u);
  EXPECT_EQ(arb.register_file().probes().reads_this_cycle, 2u);
  EXPECT_EQ(arb.register_file().probes().conflicts_this_cycle, 1u);
  EXPECT_EQ(arb.group(BankGroup::Scratchpad).probes().reads_this_cycle, 1u);
  // A new cycle clears the probes, not the counters.
  arb.begin_cycle(5);
  EXPECT_EQ(arb.probes().grants_this_cycle, 0u);
  EXPECT_EQ(arb.register_file().probes().reads_this_cycle, 0u);
  EXPECT_EQ(arb.register_file().reads(0), 1u);
}

TEST(BankArbitrator, BankStateIsKeyedByCycleNotCleared) {
  // A bank granted in cycle 5 is free in cycle 6 and after a long sleep,
  // without any begin_cycle in between.
  BankArbitrator arb(16, 32);
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 7, false, 5));
  EXPECT_TRUE(arb.taken(BankGroup::RegisterFile, 7, 5));
  EXPECT_FALSE(arb.taken(BankGroup::RegisterFile, 7, 6));
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 7, false, 6));
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 7, true, 1000));
  EXPECT_EQ(arb.total_conflicts(), 0u);
}

TEST(BankArbitrator, ARegisterAccessRoutedToAClaimedScratchpadBankConflicts) {
  // An LDS claims scratchpad bank 2 for cycles 20..23 (its four waves) and
  // bank 3 for cycle 20: a register access routed to bank 2 is refused in
  // 20..23 and granted in 24; bank 3 is free from 21, and every bank is
  // free the cycle before the claim.
  BankArbitrator arb(16, 32);
  std::vector<uint16_t> cycles(32, 0);
  cycles[2] = 4;
  cycles[3] = 1;
  arb.claim(BankGroup::Scratchpad, 20, cycles.data());
  EXPECT_TRUE(arb.request(BankGroup::Scratchpad, 2, false, 19));
  for (uint64_t c = 20; c <= 23; ++c) EXPECT_FALSE(arb.request(BankGroup::Scratchpad, 2, false, c)) << c;
  EXPECT_FALSE(arb.request(BankGroup::Scratchpad, 3, false, 20));
  EXPECT_TRUE(arb.request(BankGroup::Scratchpad, 3, false, 21));
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 2, false, 21));  // the register file's bank 2 is another bank
  EXPECT_TRUE(arb.request(BankGroup::Scratchpad, 2, true, 24));
  EXPECT_EQ(arb.group(BankGroup::Scratchpad).conflicts(2), 4u);
  EXPECT_EQ(arb.group(BankGroup::Scratchpad).reads(2), 1u);
  EXPECT_EQ(arb.group(BankGroup::Scratchpad).writes(2), 1u);

  // The next access's claim replaces this one.
  std::vector<uint16_t> next(32, 0);
  next[5] = 2;
  arb.claim(BankGroup::Scratchpad, 22, next.data());
  EXPECT_FALSE(arb.taken(BankGroup::Scratchpad, 2, 23));
  EXPECT_TRUE(arb.taken(BankGroup::Scratchpad, 5, 23));
  EXPECT_FALSE(arb.taken(BankGroup::Scratchpad, 5, 24));
}

// The probes are the growth of the banks' totals since the cycle started:
// earlier cycles' accesses stay out, and banks resized away within the cycle
// (a kernel's operand cache) keep their part of it, as counts of the cycle's
// own would.
TEST(BankArbitrator, ProbesCountTheCycleSinceItStartedAcrossResizes) {
  BankArbitrator arb(16, 32);
  arb.set_banks(BankGroup::OperandCache, 4);
  arb.begin_cycle(1);
  EXPECT_TRUE(arb.request(BankGroup::OperandCache, 3, false, 1));
  EXPECT_TRUE(arb.request(BankGroup::OperandCache, 0, true, 1));
  arb.begin_cycle(2);
  EXPECT_TRUE(arb.request(BankGroup::OperandCache, 3, false, 2));
  EXPECT_FALSE(arb.request(BankGroup::OperandCache, 3, true, 2));
  EXPECT_TRUE(arb.request(BankGroup::OperandCache, 1, false, 2));
  const auto oc = [&arb] { return arb.group(BankGroup::OperandCache).probes(); };
  EXPECT_EQ(oc().reads_this_cycle, 2u);
  EXPECT_EQ(oc().writes_this_cycle, 0u);
  EXPECT_EQ(oc().conflicts_this_cycle, 1u);
  EXPECT_EQ(arb.probes().grants_this_cycle, 2u);
  EXPECT_EQ(arb.probes().conflicts_this_cycle, 1u);
  arb.set_banks(BankGroup::OperandCache, 2);  // bank 3 (2 reads, 1 conflict; 1 and 1 this cycle) goes
  EXPECT_EQ(oc().reads_this_cycle, 2u);
  EXPECT_EQ(oc().conflicts_this_cycle, 1u);
  arb.set_banks(BankGroup::OperandCache, 4);  // and comes back with no counts
  EXPECT_EQ(arb.group(BankGroup::OperandCache).reads(3), 0u);
  EXPECT_TRUE(arb.request(BankGroup::OperandCache, 3, true, 2));
  EXPECT_EQ(oc().writes_this_cycle, 1u);
  EXPECT_EQ(arb.probes().grants_this_cycle, 3u);
  arb.begin_cycle(3);
  EXPECT_EQ(oc().reads_this_cycle, 0u);
  EXPECT_EQ(oc().writes_this_cycle, 0u);
  EXPECT_EQ(oc().conflicts_this_cycle, 0u);
  EXPECT_EQ(arb.probes().grants_this_cycle, 0u);
}

TEST(BankArbitrator, OperandCacheBanksExistOnlyOnceDeclared) {
  BankArbitrator arb(16, 32);
  EXPECT_EQ(arb.group(BankGroup::OperandCache).banks(), 0u);
  try {
    arb.request(BankGroup::OperandCache, 1, false, 0);
    FAIL() << "a request to an undeclared operand cache bank must be an error";
  } catch (const std::logic_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("operand_cache"), std::string::npos) << what;
    EXPECT_NE(what.find("operand_cache_banks"), std::string::npos) << what;
  }
  arb.set_banks(BankGroup::OperandCache, 4);
  EXPECT_TRUE(arb.request(BankGroup::OperandCache, 1, false, 0));
  EXPECT_FALSE(arb.request(BankGroup::OperandCache, 1, false, 0));
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 1, false, 0));
  EXPECT_THROW(arb.request(BankGroup::OperandCache, 4, false, 1), std::logic_error);
  EXPECT_THROW(arb.request(BankGroup::RegisterFile, 16, false, 1), std::logic_error);
}

TEST(BankArbitrator, RemoteAccessesCompeteWithTheNeighboursOwnWhicheverSmTicksFirst) {
  BankArbitrator sm0(16, 32), sm1(16, 32);
  EXPECT_THROW(sm0.request(BankGroup::RemoteRegisterFile, 3, false, 7), std::logic_error);  // no neighbour yet
  sm0.attach_neighbour(sm1);
  EXPECT_EQ(sm0.group(BankGroup::RemoteRegisterFile).banks(), 16u);

  // Cycle 7: SM0 ticks first and reads SM1's bank 3; SM1's own read of
  // bank 3 in the same cycle is refused, and granted in cycle 8.
  sm0.begin_cycle(7);
  EXPECT_TRUE(sm0.request(BankGroup::RemoteRegisterFile, 3, false, 7));
  sm1.begin_cycle(7);  // does not wipe what SM0 did to SM1's banks in cycle 7
  EXPECT_EQ(sm1.register_file().probes().reads_this_cycle, 1u);
  // The grant is SM0's: SM1's banks served it, but SM1 granted nothing.
  EXPECT_EQ(sm0.probes().grants_this_cycle, 1u);
  EXPECT_EQ(sm1.probes().grants_this_cycle, 0u);
  EXPECT_FALSE(sm1.request(BankGroup::RegisterFile, 3, false, 7));
  EXPECT_EQ(sm1.probes().conflicts_this_cycle, 1u);
  EXPECT_EQ(sm0.probes().conflicts_this_cycle, 0u);
  EXPECT_TRUE(sm1.request(BankGroup::RegisterFile, 3, false, 8));

  // Cycle 9, the other order: SM1 writes its bank 5, then SM0's remote
  // write to it is refused; SM0's own bank 5 is a different bank.
  EXPECT_TRUE(sm1.request(BankGroup::RegisterFile, 5, true, 9));
  EXPECT_FALSE(sm0.request(BankGroup::RemoteRegisterFile, 5, true, 9));
  EXPECT_TRUE(sm0.request(BankGroup::RegisterFile, 5, true, 9));
  EXPECT_TRUE(sm0.request(BankGroup::RemoteRegisterFile, 5, true, 10));

  // SM1's banks count every access they served (SM0's included: the energy
  // is spent there); SM0 counts its share and its refusals as remote.
  EXPECT_EQ(sm1.register_file().reads(3), 2u);
  EXPECT_EQ(sm1.register_file().writes(5), 2u);
  EXPECT_EQ(sm1.register_file().conflicts(3), 1u);
  const BankArray& remote = sm0.group(BankGroup::RemoteRegisterFile);
  EXPECT_EQ(remote.reads(3), 1u);
  EXPECT_EQ(remote.writes(5), 1u);
  EXPECT_EQ(remote.conflicts(5), 1u);
  EXPECT_EQ(sm0.register_file().total_reads() + sm0.register_file().total_writes(), 1u);
  EXPECT_EQ(sm0.total_conflicts(), 1u);
}

TEST(BankArbitrator, ATwoPortedRegisterBankServesTwoAccessesPerCycle) {
  // sm.register_bank_ports = 2 (GPGPU-Sim's gpgpu_reg_file_port_throughput):
  // the write and three reads of the first test, all to RF bank 3 in cycle
  // 10: the write and the first read take bank 3's two ports in cycle 10,
  // the other two reads are refused (2 conflicts) and both granted in 11.
  BankArbitrator arb(16, 32, 2);
  EXPECT_EQ(arb.register_file().ports(), 2u);
  std::vector<Request> reqs = write_and_three_reads(3);
  run_until_granted(arb, reqs, 10);
  EXPECT_EQ(reqs[0].granted_in, 10u);
  EXPECT_EQ(reqs[1].granted_in, 10u);
  EXPECT_EQ(reqs[2].granted_in, 11u);
  EXPECT_EQ(reqs[3].granted_in, 11u);
  EXPECT_EQ(arb.register_file().conflicts(3), 2u);
  EXPECT_EQ(arb.register_file().reads(3), 3u);
  EXPECT_EQ(arb.register_file().writes(3), 1u);

  // Two reads in one cycle are granted, a third waits; the bank is taken
  // only once both ports are used.
  arb.begin_cycle(20);
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 5, false, 20));
  EXPECT_TRUE(arb.granted(BankGroup::RegisterFile, 5, 20));
  EXPECT_FALSE(arb.taken(BankGroup::RegisterFile, 5, 20));
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 5, false, 20));
  EXPECT_TRUE(arb.taken(BankGroup::RegisterFile, 5, 20));
  EXPECT_FALSE(arb.request(BankGroup::RegisterFile, 5, false, 20));
  EXPECT_EQ(arb.register_file().probes().reads_this_cycle, 2u);
  EXPECT_EQ(arb.register_file().probes().conflicts_this_cycle, 1u);
  // Keyed by cycle: both ports are free again in the next cycle.
  EXPECT_FALSE(arb.taken(BankGroup::RegisterFile, 5, 21));
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 5, false, 21));
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 5, false, 21));
}

TEST(BankArbitrator, RegisterBankPortsLeaveOtherGroupsAndClaimsAlone) {
  // Only the register file's banks have sm.register_bank_ports: the
  // scratchpad's and the operand cache's stay single-ported, and a claimed
  // bank is refused whatever its ports.
  BankArbitrator arb(16, 32, 2);
  arb.set_banks(BankGroup::OperandCache, 4);
  EXPECT_EQ(arb.group(BankGroup::Scratchpad).ports(), 1u);
  EXPECT_EQ(arb.group(BankGroup::OperandCache).ports(), 1u);
  EXPECT_TRUE(arb.request(BankGroup::Scratchpad, 0, false, 3));
  EXPECT_FALSE(arb.request(BankGroup::Scratchpad, 0, false, 3));
  EXPECT_TRUE(arb.request(BankGroup::OperandCache, 1, false, 3));
  EXPECT_FALSE(arb.request(BankGroup::OperandCache, 1, false, 3));

  std::vector<uint16_t> cycles(32, 0);
  cycles[2] = 2;  // scratchpad bank 2 claimed in cycles 8 and 9
  arb.claim(BankGroup::Scratchpad, 8, cycles.data());
  EXPECT_FALSE(arb.request(BankGroup::Scratchpad, 2, false, 9));
  std::vector<uint16_t> rf_cycles(16, 0);
  rf_cycles[4] = 1;  // a claim on a two-ported register bank takes both ports
  EXPECT_EQ(arb.unclaimed_register_banks(), 16u);  // request_register_file may pass over claims
  arb.claim(BankGroup::RegisterFile, 8, rf_cycles.data());
  EXPECT_EQ(arb.unclaimed_register_banks(), 0u);  // it may not: the SM asks request()
  EXPECT_TRUE(arb.taken(BankGroup::RegisterFile, 4, 8));
  EXPECT_FALSE(arb.request(BankGroup::RegisterFile, 4, false, 8));
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 4, false, 9));
  EXPECT_TRUE(arb.request(BankGroup::RegisterFile, 4, false, 9));
}

TEST(BankArbitrator, RemoteAccessesUseTheNeighboursPorts) {
  // Two-ported register banks on both SMs: in cycle 7 SM0's remote read and
  // SM1's own read of SM1's bank 3 both go; SM1's second own read is refused.
  BankArbitrator sm0(16, 32, 2), sm1(16, 32, 2);
  sm0.attach_neighbour(sm1);
  EXPECT_EQ(sm0.group(BankGroup::RemoteRegisterFile).ports(), 2u);
  EXPECT_TRUE(sm0.request(BankGroup::RemoteRegisterFile, 3, false, 7));
  EXPECT_TRUE(sm1.request(BankGroup::RegisterFile, 3, false, 7));
  EXPECT_FALSE(sm1.request(BankGroup::RegisterFile, 3, false, 7));
  EXPECT_FALSE(sm0.request(BankGroup::RemoteRegisterFile, 3, true, 7));
  EXPECT_TRUE(sm0.taken(BankGroup::RemoteRegisterFile, 3, 7));
  EXPECT_EQ(sm1.register_file().reads(3), 2u);
  EXPECT_EQ(sm0.group(BankGroup::RemoteRegisterFile).conflicts(3), 1u);
}

TEST(BankArbitrator, ASinglePortGrantTakesTheBankForEveryLaterRequestOfTheCycle) {
  // The operand reads' single-port path (request_register_file<true>) stores
  // neither the grant's step nor a count from zero: the general path must
  // still see the bank taken in that cycle, in any step, by a write, by the
  // neighbour's remote access, and free again in the next cycle.
  BankArbitrator sm0(16, 32), sm1(16, 32);
  sm1.attach_neighbour(sm0);
  EXPECT_EQ(sm0.register_file().ports(), 1u);
  EXPECT_TRUE(sm0.request_register_file<true>(3, false, 5, 0));
  EXPECT_TRUE(sm0.taken(BankGroup::RegisterFile, 3, 5));
  EXPECT_FALSE(sm0.request(BankGroup::RegisterFile, 3, true, 5));
  EXPECT_FALSE(sm0.request(BankGroup::RegisterFile, 3, false, 5, 1));
  EXPECT_FALSE(sm1.request(BankGroup::RemoteRegisterFile, 3, false, 5));
  EXPECT_FALSE(sm0.request_register_file<true>(3, false, 5, 0));
  EXPECT_FALSE(sm0.request_register_file(3, false, 5));
  // A bank the general path granted first is taken to the single-port path.
  EXPECT_TRUE(sm0.request(BankGroup::RegisterFile, 4, true, 5));
  EXPECT_FALSE(sm0.request_register_file<true>(4, false, 5, 0));
  EXPECT_TRUE(sm0.request_register_file<true>(3, false, 6, 0));
  EXPECT_TRUE(sm0.request_register_file<true>(4, false, 6, 0));
  EXPECT_EQ(sm0.register_file().reads(3), 2u);
  EXPECT_EQ(sm0.register_file().conflicts(3), 4u);
  EXPECT_EQ(sm0.register_file().conflicts(4), 1u);
  EXPECT_EQ(sm1.group(BankGroup::RemoteRegisterFile).conflicts(3), 1u);
  EXPECT_TRUE(sm0.granted_any(BankGroup::RegisterFile, 6));
}

TEST(BankArbitrator, ARegisterBankNeedsAPort) {
  EXPECT_THROW(BankArbitrator(16, 32, 0), std::logic_error);
}

TEST(BankArbitrator, GrantedAnySeesEveryWayABankIsGranted) {
  BankArbitrator sm0(16, 32), sm1(16, 32);
  sm0.attach_neighbour(sm1);
  // The register file through request_register_file, through request, and
  // through a neighbour's remote access; the scratchpad through request.
  EXPECT_TRUE(sm0.request_register_file(2, false, 5));
  EXPECT_TRUE(sm0.request(BankGroup::RegisterFile, 3, true, 6));
  EXPECT_TRUE(sm0.request(BankGroup::RemoteRegisterFile, 4, false, 7));
  EXPECT_TRUE(sm0.request(BankGroup::Scratchpad, 9, false, 8));
  for (uint64_t c = 4; c <= 9; ++c) {
    EXPECT_EQ(sm0.granted_any(BankGroup::RegisterFile, c), c == 5 || c == 6) << "cycle " << c;
    EXPECT_EQ(sm1.granted_any(BankGroup::RegisterFile, c), c == 7) << "cycle " << c;
    EXPECT_EQ(sm0.granted_any(BankGroup::Scratchpad, c), c == 8) << "cycle " << c;
  }
}

}  // namespace
}  // namespace smshare
