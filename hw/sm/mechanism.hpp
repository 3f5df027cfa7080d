// The four extension points through which a resource-sharing mechanism plugs
// into the SM pipeline (DESIGN.md, principle 2). The pipeline is written once
// and calls only these; a mechanism is a bundle of implementations. Baseline
// is the trivial implementation of each.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hw/common/activity.hpp"
#include "hw/common/bit_words.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/instruction.hpp"
#include "hw/frontend/kernel.hpp"
#include "hw/sm/bank_group.hpp"
#include "hw/sm/occupancy.hpp"

namespace smshare {

class BankArbitrator;

// The warp and CTA slots an SM holds: its own (sm.max_warps, sm.max_ctas),
// or what the run's mechanism decides (Zorua's logical warps and CTAs, a
// cross-SM group's merged slots, an inactive SM's none). Fixed before
// elaboration, like the mechanism: the SM's per-slot state is sized by them.
// The mechanism's admission must admit no more than they hold.
struct SmSlots {
  uint32_t warps = 0;
  uint32_t ctas = 0;
};
inline SmSlots physical_slots(const SmSpec& sm) { return {sm.max_warps, sm.max_ctas}; }

// What a mechanism may know about a warp when routing or gating it.
struct WarpContext {
  uint32_t slot = 0;         // warp slot on the SM
  uint32_t cta_slot = 0;     // CTA slot on the SM
  uint32_t warp_in_cta = 0;
  uint64_t age = 0;          // dynamic warp id (launch order)
  // The physical SM of a cross-SM group whose register banks and operand
  // collectors serve the warp (Dhar & Chen Sec. V-B2: 0 = this SM's own, 1 =
  // the neighbour's lent to it); always 0 outside cross-SM sharing. Fixed at
  // launch by RegisterRoute::home().
  uint8_t home = 0;
};

// Where a CTA's resources were placed.
struct CtaAllocation {
  uint32_t cta_slot = 0;
  uint32_t registers = 0;
  uint32_t smem_bytes = 0;
  uint32_t threads = 0;
  uint32_t warps = 0;
  uint8_t home = 0;  // whose resources it holds (WarpContext::home): the SM's own, or the neighbour's it borrows
};

// May another CTA start on this SM, and with which resources.
class CtaAdmission {
 public:
  virtual ~CtaAdmission() = default;
  // Resident CTAs without simulating (what `smshare occupancy` prints).
  virtual Occupancy occupancy() const = 0;
  // Admits one CTA into `cta_slot` if resources allow; fills `alloc`.
  virtual bool try_admit(uint32_t cta_slot, CtaAllocation& alloc) = 0;
  virtual void release(const CtaAllocation& alloc) = 0;
  // Resources currently allocated, for utilization statistics.
  virtual uint32_t registers_allocated() const = 0;
  virtual uint32_t smem_allocated() const = 0;
  // True if the two counts above change only in try_admit() and release():
  // the SM then reads them after those calls instead of in every cycle it
  // ticks (two virtual calls a tick otherwise).
  virtual bool allocation_changes_only_on_admit_and_release() const { return false; }
};

// Where a register operand access goes and what it costs. The bank
// arbitrator grants (group, bank) one access per port per cycle (bank_arbitrator.hpp).
struct OperandRoute {
  bool retry = false;         // not accessible this cycle (e.g. a lock held by the partner)
  uint16_t bank = 0;          // bank within `group` that serves it
  uint16_t extra_cycles = 0;  // added latency (mapping table, remote bank, ...)
  BankGroup group = BankGroup::RegisterFile;  // register file, operand cache, scratchpad or a neighbour's RF
};

class RegisterRoute {
 public:
  virtual ~RegisterRoute() = default;
  virtual OperandRoute route(const WarpContext& w, uint16_t reg, bool is_write, uint64_t cycle) = 0;
  // The baseline's interleaving, register reg of warp slot s in register
  // file bank (reg + s) mod banks, never a retry, no extra cycles.
  static OperandRoute interleaved(const WarpContext& w, uint16_t reg, uint32_t banks) {
    return {false, static_cast<uint16_t>(interleaved_bank(w, reg, banks)), 0};
  }
  // Its bank, as a full word (the SM's read loop indexes the bank array with
  // it; as OperandRoute's 16-bit field it is cut down first). Every shipped
  // config has a power of two of banks: a mask then, not a division, whose
  // 20-odd cycles stood before each operand's bank check (about 3 % of the
  // bench trace's time). The test is the same for the whole loop that asks,
  // which the compiler takes out of it.
  static uint32_t interleaved_bank(const WarpContext& w, uint16_t reg, uint32_t banks) {
    const uint32_t n = reg + w.slot;
    return is_power_of_two(banks) ? n & (banks - 1) : n % banks;
  }
  // What route() answers, without a virtual call for a route that is
  // interleaved() and keeps no state (the baseline's): the SM asks this for
  // every operand read and result written.
  OperandRoute route_of(const WarpContext& w, uint16_t reg, bool is_write, uint64_t cycle) {
    return interleaved_banks_ ? interleaved(w, reg, interleaved_banks_) : route(w, reg, is_write, cycle);
  }
  // The banks of a route that is interleaved() for every access, when a
  // register file of `register_file_banks` banks has every one of them; 0
  // for a route that must be asked (route()) or banks the file lacks. The
  // SM's operand reads and result writes then run with the route's answers
  // known and no bank check (BankArbitrator::request_register_file).
  uint32_t interleaved_banks_within(uint32_t register_file_banks) const {
    return interleaved_banks_ != 0 && interleaved_banks_ <= register_file_banks ? interleaved_banks_ : 0;
  }
  // The register indexing policy: the home (WarpContext::home) of a warp
  // launched with `w` (its home field holds its CTA's CtaAllocation::home).
  // Its operands are routed to that SM's banks and its instructions take
  // that SM's operand collectors (Mechanism::own_collector_units).
  virtual uint8_t home(const WarpContext& w) const { return w.home; }

 protected:
  RegisterRoute() = default;
  // A route whose route() is interleaved(w, reg, banks) for every access.
  explicit RegisterRoute(uint32_t interleaved_banks) : interleaved_banks_(interleaved_banks) {}

 private:
  uint32_t interleaved_banks_ = 0;  // 0: ask route()
};

// Which warps may issue this cycle (beyond the pipeline's own hazards).
class WarpGate {
 public:
  virtual ~WarpGate() = default;
  virtual bool may_issue(const WarpContext& w, const WarpInstruction& inst, uint64_t cycle) = 0;
  // The instruction may_issue let through entered the pipeline. The SM may
  // still refuse it after the gate said yes (a full collector or ID_OC
  // register); it then asks the gate again in a later cycle it ticks, and a
  // sleeping SM ticks fewer of those than one traced cycle by cycle. So
  // whatever must not depend on how often the SM polls is counted here.
  virtual void issued(const WarpContext&, const WarpInstruction&) {}
  // True for a gate that does nothing (the baseline's open gate): may_issue
  // says yes to every warp, issued() keeps no state and every warp's
  // priority_class is 1. The SM then never asks it (the cost of these calls
  // is in every issue and every warp refresh).
  virtual bool inert() const { return false; }
  // Scheduling class the scheduler policy may use (0 = first): OWF's owner,
  // unshared, non-owner. Baseline: everyone equal.
  virtual uint8_t priority_class(const WarpContext&) const { return 1; }
};

// The SM's issue activity so far, for a mechanism's time-based decisions.
// Each cycle with resident warps in which nothing issued counts once in
// idle_cycles or stall_cycles (SmStats); memory_wait_cycles counts those of
// them in which no warp was ready for want of data from memory or of a free
// pipeline while a global load was in flight, or the gate held warps back
// for data the mechanism fetched (MechanismHooks::waits_on_memory) (Zorua's
// c_mem: the memory system, not a lack of warps, holds the SM back).
struct IssueActivity {
  uint64_t idle_cycles = 0;         // no warp ready (the pipeline had room)
  uint64_t stall_cycles = 0;        // a ready warp found its pipeline full
  uint64_t memory_wait_cycles = 0;  // of both, waiting on memory
  uint64_t memory_wait_idle_cycles = 0;  // of those, counted in idle_cycles
  uint64_t non_issue_cycles() const { return idle_cycles + stall_cycles; }
  // Idle for a reason other than memory (Zorua's c_idle: more warps could use the pipeline).
  uint64_t idle_not_memory_cycles() const { return idle_cycles - memory_wait_idle_cycles; }
};

// Global-memory transactions a mechanism makes itself (Zorua's swap space),
// sent through the SM's initiator socket like the LDST unit's, so they
// contend with the kernel's traffic in the interconnect, L2 and DRAM.
class MechanismMemoryPort {
 public:
  static constexpr uint64_t kDeferred = ~0ull;
  // This SM's slice of the swap region (dram.swap_base, dram.swap_bytes
  // shared equally by the SMs, in whole lines).
  struct SwapRegion {
    uint64_t base = 0, bytes = 0;
  };
  virtual ~MechanismMemoryPort() = default;
  virtual SwapRegion swap_region() const = 0;
  // One transaction leaving the SM at `cycle` for the whole line at
  // `line_addr`: the cycle its response (read data, write acknowledgement;
  // `cycle` for a write that is never acknowledged: one the memory system
  // holds, or one booked after the tick) is back, or kDeferred for a read
  // whose return is known later (the memory system decides it later, or the
  // SM, ticked ahead or on a host thread, books it after its tick):
  // MechanismHooks::memory_response(tag, cycle) then says when, before the
  // SM's next tick if the read was booked after the tick. Nothing may wait
  // on a write's return (booked after the tick, it is `cycle`).
  virtual uint64_t access(uint64_t line_addr, bool is_write, uint64_t cycle, uint64_t tag) = 0;
};

// Events and time-based state a mechanism may need beyond the three
// decisions above. Every method has a trivial default (the baseline's).
class MechanismHooks {
 public:
  static constexpr uint64_t kNever = ~0ull;
  virtual ~MechanismHooks() = default;
  // A warp finished (retired): e.g. its register lock is released.
  virtual void warp_finished(const WarpContext&) {}
  // The SM ticks `cycle` (called first in every tick, for a mechanism whose
  // gate is not inert): events that carry no cycle (warp_finished, the
  // admission's release, ...) happen in it.
  virtual void begin_cycle(uint64_t /*cycle*/) {}
  // First cycle at which time-based state (dynamic warp execution's
  // monitoring period) must be updated: the SM runs that cycle even when it
  // could sleep through it. kNever: none.
  virtual uint64_t next_wake() const { return kNever; }
  // True when next_wake() may be a cycle in which a warp the gate refuses
  // can pass (Zorua: its swap reads are back): an SM waiting for it is not
  // deadlocked. (Dynamic warp execution's monitoring periods wake the SM
  // forever: they do not keep a lock that never opens from being a deadlock.)
  virtual bool wake_ends_a_wait() const { return false; }
  // Called in the first cycle >= next_wake() the SM runs, with the SM's
  // issue activity in the cycles before it.
  virtual void at_wake(uint64_t /*cycle*/, const IssueActivity&) {}
  // True when, in `cycle`, the gate refused a warp for a reason that can
  // change with time alone (a probability draw): the SM then retries the next
  // cycle instead of sleeping, and such a wait is not a deadlock.
  virtual bool waits_on_time(uint64_t /*cycle*/) const { return false; }
  // True when, in `cycle`, the gate holds a warp back until data the
  // mechanism fetched from memory is back (Zorua's swap reads): such a cycle
  // counts as waiting on memory (IssueActivity::memory_wait_cycles).
  virtual bool waits_on_memory(uint64_t /*cycle*/) const { return false; }
  // Changes whenever WarpGate::priority_class may have changed for warps
  // other than the one just refreshed (e.g. CTA ownership passed).
  virtual uint64_t priority_epoch() const { return 0; }
  // Activity of the structures the mechanism adds (keys: CACTI cfg names).
  virtual void collect(ActivityCounters&) const {}
  // The SM's bank arbitrator, at each kernel launch before any CTA starts,
  // for a mechanism that moves registers through the SM's banks itself
  // (EXPARS's register prefetcher reads and writes scratchpad banks). It
  // outlives the mechanism instance.
  virtual void bind(BankArbitrator&) {}
  // The SM's port for the mechanism's own global-memory transactions, at
  // each kernel launch; it outlives the mechanism instance.
  virtual void bind_memory(MechanismMemoryPort&) {}
  // A read the port answered kDeferred is back at `cycle`. Decided later by
  // the memory system, the SM runs from that cycle. Booked after the SM's
  // tick (run-ahead, host threads), the SM asks next_wake() again instead:
  // the data's time must be in it where an answer known at once would have
  // put it, and an answer may bring next_wake() earlier, never later.
  virtual void memory_response(uint64_t /*tag*/, uint64_t /*cycle*/) {}
  // The instruction stream of the warp `w` launches with, as its instruction
  // decoder reads it: a mechanism may read it through (EXPARS's decoder sees
  // each bundle's PREF there). The default reads `program` as it is.
  virtual std::unique_ptr<WarpProgram> decode(const WarpContext& /*w*/, std::unique_ptr<WarpProgram> program) {
    return program;
  }
  // An instruction of warp `w` that entered a pipeline left its operand
  // collector unit: its source registers are read. (Called only for a
  // mechanism whose gate is not inert, as are the two below.)
  virtual void operands_read(const WarpContext&, const WarpInstruction&) {}
  // Register `reg` of warp `w` was written by a result (each destination of
  // an instruction once, in the cycle its bank took it).
  virtual void register_written(const WarpContext&, uint16_t /*reg*/) {}
  // The mechanism's state in words, for the report of a deadlocked SM
  // (e.g. Zorua's coordinator queues). Empty: nothing to add.
  virtual std::string describe() const { return {}; }
  // Named counters for the report's "mechanism_stats" section (summed over
  // SMs). A waveform shows the mechanism through its structure modules
  // (mechanism_module.hpp), not through the hooks.
  virtual void counters(std::vector<std::pair<std::string, uint64_t>>&) const {}
};

// State one kernel's mechanism instances share across SMs (e.g. SM0's stall
// count for dynamic warp execution). Created once per kernel by the GPU.
// Read and written only in MechanismHooks::at_wake: with SMs ticked on
// several host threads, an SM holding one calls at_wake in its turn, after
// every lower SM's tick of the cycle (tick_turn.hpp), as in SM order.
class KernelSharedState {
 public:
  virtual ~KernelSharedState() = default;
};

// A mechanism instance for one SM.
struct Mechanism {
  std::string name;  // set by the registry
  std::unique_ptr<CtaAdmission> admission;
  std::unique_ptr<RegisterRoute> route;
  std::unique_ptr<WarpGate> gate;
  std::unique_ptr<MechanismHooks> hooks = std::make_unique<MechanismHooks>();
  // The kernel's GPU-wide state, set only if this instance reads or writes
  // it (in at_wake): the SM then waits for its turn there on the threads,
  // and is never ticked ahead of the others (SmCore::runs_ahead_ok).
  std::shared_ptr<KernelSharedState> shared_state;
  // Banks of the operand cache its route sends accesses to (BankGroup::OperandCache; EXPARS: 4).
  uint32_t operand_cache_banks = 0;
  // Cross-SM sharing: of each collector pool (SP, SFU, MEM), the units on
  // the SM's own side; the rest of the pool is the neighbour's and serves
  // warps of home 1 only. All 0: one pool per type, for every warp.
  std::array<uint32_t, 3> own_collector_units{};
  // Dhar & Chen's BigSM: warps 2k and 2k+1 of a CTA are the two halves of
  // one wide warp, in one scheduler. After the lower half issues, the SM
  // issues the upper half's next instruction in the same cycle if it is the
  // same instruction (same pc) and the upper half is ready; halves in step
  // wait for each other, halves out of step or at different instructions
  // issue on their own (SmCore::waits_for_other_half).
  bool wide_warps = false;
};

// The SM's default policies, which the baseline mechanism is made of and a
// mechanism may reuse for the decisions it does not change. Mechanisms
// themselves are built through the mechanism registry, outside the SM, which
// the SM does not know (docs/architecture.md, "Mechanism registry").
//
// Admission while registers, scratchpad, threads, CTA slots and warp slots
// last (baseline_occupancy); `origin` names the kernel in the error for a CTA
// that can never fit.
std::unique_ptr<CtaAdmission> make_default_admission(const SmSpec& sm, const KernelResources& kernel,
                                                     const std::string& origin);
// Register `reg` of the warp in slot `slot` lives in bank (reg + slot) % banks, as in GPGPU-Sim.
std::unique_ptr<RegisterRoute> make_default_route(uint32_t banks);
// Every warp may issue.
std::unique_ptr<WarpGate> make_open_gate();
// All three defaults: the baseline, and the start of a mechanism that changes
// only some decisions.
Mechanism make_default_mechanism(const SmSpec& sm, const KernelResources& kernel, const std::string& origin);

}  // namespace smshare
