// The scratchpad (CUDA shared memory) as the LDS/STS path sees it: 4-byte
// words interleaved over sm.scratchpad_banks single-ported banks.
//
// Timing rules of access(inst, cycle):
//  * The conflict degree d is the largest number of distinct words one bank
//    must deliver (smem_bank_words; lanes on the same word are a broadcast).
//    The banks deliver one conflict-free wave per cycle, so the access holds
//    the LDST unit d cycles and its data is back sm.smem_latency after the
//    last wave: unit free at start + d, data ready at start + latency + d - 1
//    (an access with no active lane: free at start + 1, ready at
//    start + latency).
//  * Bank b, delivering w_b words, is claimed in the SM's bank arbitrator
//    for cycles [start, start + w_b - 1], so a register access a mechanism
//    routes to a scratchpad bank (BankGroup::Scratchpad) is refused while
//    the LDS/STS uses that bank.
//  * start is the dispatch cycle, unless a register access was already
//    granted one of the banks the access needs in that cycle (writeback
//    runs before dispatch): then the access starts one cycle later. Nothing
//    routes register accesses to the scratchpad in the baseline or Jatala,
//    so there start is always the dispatch cycle.
//  * One access holds the banks at a time: the next one is dispatched when
//    the LDST unit is free, after the last wave. (With sm.ldst_units > 1,
//    SmCore still books the scratchpad on LDST pipe 0, as it always has, so
//    a second pipe may start an access early; its claim then replaces the
//    first one's.)
#pragma once

#include <cstdint>

#include "hw/common/gpu_config.hpp"
#include "hw/common/instruction.hpp"
#include "hw/sm/bank_arbitrator.hpp"
#include "hw/sm/memory_access.hpp"

namespace smshare {

class Scratchpad {
 public:
  struct Timing {
    uint64_t unit_free;   // first cycle the LDST unit can start another access
    uint64_t data_ready;  // cycle the loaded data (or the store's completion) is written back
  };
  // This cycle's activity, for waveforms (plain stores).
  struct Probes {
    uint32_t accesses_this_cycle = 0;   // lane accesses of the access started this cycle
    uint32_t last_conflict_degree = 0;  // conflict degree of the last access
  };

  // Claims its banks in `arbitrator`'s Scratchpad group, which must have
  // spec.scratchpad_banks banks.
  Scratchpad(const SmSpec& spec, BankArbitrator& arbitrator);
  Scratchpad(const Scratchpad&) = delete;  // the arbitrator reads its claim array
  Scratchpad& operator=(const Scratchpad&) = delete;

  void begin_cycle() { probes_.accesses_this_cycle = 0; }
  // An LDS/STS dispatched in `cycle`.
  Timing access(const WarpInstruction& inst, uint64_t cycle);

  uint32_t banks() const { return banks_; }
  uint32_t latency() const { return latency_; }
  uint64_t accesses() const { return accesses_; }                // lane accesses served
  uint64_t conflict_cycles() const { return conflict_cycles_; }  // extra waves: sum of d - 1
  // Cleared each cycle only in an SM a waveform traces (SmCore::set_probes_traced);
  // elsewhere they accumulate and are read by nobody.
  const Probes& probes() const { return probes_; }

 private:
  const uint32_t banks_;
  const uint32_t latency_;
  BankArbitrator& arbitrator_;
  // The last access's words per bank, unless smem_bank_use gave its shared
  // table: the claim in arbitrator_ reads it until the next access.
  SmemBankWords words_{};
  uint64_t accesses_ = 0;
  uint64_t conflict_cycles_ = 0;
  Probes probes_;
};

}  // namespace smshare
