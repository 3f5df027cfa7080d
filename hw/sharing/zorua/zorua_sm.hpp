// One SM's Zorua instance (Vijaykumar et al. 2016, Sec. 4) for one kernel:
// the coordinator, its three queues and the three mapping tables. The
// mechanism's interface objects (zorua_mechanism.cpp) are thin views on it,
// and its structure modules (zorua_modules.hpp) read it through the const
// accessors.
//
//  * Logical warps and CTAs. The SM holds zorua.logical_warps warp slots and
//    zorua.logical_ctas CTA slots (SmSlots). A CTA starts while logical slots
//    last and the virtual space holds it: the register and scratchpad sets
//    the resident warps' current phases hold, plus its warps' first phase,
//    within the physical sets plus o_thresh percent (Sec. 3.1, challenge 1).
//    Nothing is reserved at admission: each warp acquires its phase's sets.
//  * Phases. The front end gives each phase's need (KernelResources::
//    phase_needs): the registers (in sets of 4 warp registers, Sec. 4.5.1)
//    and scratchpad bytes (1 KB sets of the CTA) it holds. A warp meets a
//    phase specifier when the gate is shown its first instruction of a new
//    phase; a barrier is a boundary too (Sec. 3.2.1, 4.2).
//  * Coordinator events (Sec. 4.2): a CTA's warp launches, a warp changes
//    phase (it releases the register sets its new phase does not hold, each
//    once no issued instruction still reads or writes it; its CTA's
//    scratchpad sets go as soon as no warp's phase holds them, LDS/STS still
//    in flight or not: the model carries no data; and it waits in the queue of
//    the first resource it lacks: thread/barrier, scratchpad, register),
//    a warp reaches a barrier (its slot may go to another warp), a warp or
//    CTA ends, and, ours, an epoch ends. At every event every waiting warp
//    is checked, oldest first; it passes only with everything it lacks at
//    once, and no younger warp takes what an older one still lacks.
//  * Resources. A physical warp slot: a free one, else one taken from a warp
//    at a barrier or from a younger CTA's waiting warp, whose state (PC,
//    SIMT stack: one 128-B line) goes to swap and is read back when it gets
//    a slot again. A register set: a free physical set, else one taken from
//    a younger waiting warp (its 4 registers written to swap, read back when
//    that warp holds the set again), else a set in swap while the sets in
//    swap stay within o_thresh percent of the physical ones (Sec. 4.4).
//    A scratchpad set: free, else swap within the threshold. Register sets
//    left free after an event take back swapped sets (read from swap).
//    Forward progress (ours; the paper says only that the queue order
//    avoids deadlock): when no warp is schedulable, the oldest resident
//    CTA's warps may use swap beyond the threshold (zorua.forward_progress).
//  * Schedulable warps hold a physical warp slot and every set of their
//    phase; only they pass the gate. A swapped register an instruction reads
//    is read from swap (one line per register) before the warp issues it, a
//    swapped register written is written to swap when the result is written;
//    LDS/STS lanes in a swapped scratchpad set read/write their lines in
//    swap. Every transaction goes through the SM's initiator socket to the
//    SM's slice of the swap region (dram.swap_base).
//  * Every register access looks up the register mapping table: the route
//    adds zorua.mapping_table_cycles (Sec. 5.1: 2) to it.
//  * Algorithm 1 each zorua.epoch cycles, with c_idle and c_mem the epoch's
//    idle cycles not waiting on memory and its memory-wait cycles
//    (IssueActivity); o_thresh stops where all swap space is allowed.
// docs/zorua-reproduction.md says why each choice beyond the paper was made.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hw/common/activity.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sharing/zorua/mapping_table.hpp"
#include "hw/sm/mechanism.hpp"

namespace smshare::zorua {

constexpr uint32_t kRegsPerSet = 4;         // Sec. 4.5.1: 4 x warp_size registers per set
constexpr uint32_t kSmemSetBytes = 1024;    // Sec. 4.5.1
constexpr uint32_t kMaxRegSets = kMaxArchRegs / kRegsPerSet;
constexpr uint32_t kMaxSmemSets = 256;      // 256 KB of scratchpad per SM
constexpr uint32_t kWarpStateBytes = 128;   // a warp's PC and SIMT stack in swap: one line (our estimate)

// The `zorua.*` settings (zorua_registration.cpp declares the keys).
struct Settings final : MechanismSettings {
  uint32_t logical_warps = 64;  // Sec. 5.1
  uint32_t logical_ctas = 16;   // Sec. 5.1
  // Algorithm 1; the paper defers its values to a technical report: ours,
  // with the reasons, in docs/zorua-reproduction.md.
  uint32_t o_default_percent = 0;
  uint32_t o_thresh_step_percent = 5;
  uint32_t c_delta_thresh = 512;
  uint32_t epoch_cycles = 2048;
  uint32_t mapping_table_cycles = 2;  // Sec. 5.1
  // Ours (the paper has no such rule): when no warp can issue, the oldest
  // CTA's warps may use swap beyond the threshold. Off: the paper's
  // coordinator as written, which can deadlock (reported with its queues).
  bool forward_progress = true;
};

// The sets one phase holds.
struct PhaseSets {
  std::bitset<kMaxRegSets> registers;
  std::bitset<kMaxSmemSets> smem;
};

// The sets each phase of `k` holds (one entry per phase; the whole allocation
// when the workload gives no needs). InputError naming `origin` when a phase
// holds scratchpad beyond smem_bytes_per_cta.
std::vector<PhaseSets> phase_sets(const KernelResources& k, const std::string& origin);

// Resident CTAs per SM under Zorua (`smshare occupancy`, the report): the
// logical warp and CTA slots bind, registers and scratchpad are virtual.
// InputError naming `origin` when a CTA cannot run at all (more warps than
// physical slots, more scratchpad than the SM has).
Occupancy logical_occupancy(const SmSpec& sm, const KernelResources& k, const std::string& origin, const Settings& s);

// The SM's slice of the swap region and where each swapped item lives in it.
struct SwapLayout {
  uint64_t base = 0, bytes = 0;
  uint32_t reg_sets_per_warp = 0, smem_sets_per_cta = 0, logical_warps = 0, logical_ctas = 0;
  uint64_t register_line(uint32_t warp, uint16_t reg) const;
  uint64_t smem_line(uint32_t cta, uint32_t byte) const;  // the line holding scratchpad byte `byte` of the CTA
  uint64_t warp_state_line(uint32_t warp) const;
  uint64_t needed_bytes() const;
};

class ZoruaSm {
 public:
  ZoruaSm(const SmSpec& sm, const KernelResources& k, const std::string& origin, const Settings& s);

  // --- admission (the logical slots; SmCore checks them)
  const Occupancy& occupancy() const { return occupancy_; }
  bool admit(uint32_t cta_slot, CtaAllocation& a);
  void release(const CtaAllocation& a);
  uint32_t registers_allocated() const;  // physical registers mapped
  uint32_t smem_allocated() const;       // physical scratchpad bytes mapped

  // --- route: every register access looks its set up
  OperandRoute route(const WarpContext& w, uint16_t reg);

  // --- gate and events
  void begin_cycle(uint64_t cycle) {
    now_ = cycle;
    if (!epoch_started_) schedulable_since_ = cycle;  // launch-time events counted from the first tick
  }
  void warp_started(const WarpContext& w);
  bool may_issue(const WarpContext& w, const WarpInstruction& inst, uint64_t cycle);
  void issued(const WarpContext& w, const WarpInstruction& inst);
  void operands_read(const WarpContext& w, const WarpInstruction& inst);
  void register_written(const WarpContext& w, uint16_t reg);
  void warp_finished(const WarpContext& w);
  void bind_memory(MechanismMemoryPort& port);
  void memory_response(uint64_t tag, uint64_t cycle);
  uint64_t next_wake() const;
  // A schedulable warp waits for swap reads in `cycle`.
  bool waits_on_swap(uint64_t cycle) const;
  void at_wake(uint64_t cycle, const IssueActivity& a);

  // --- invariant (testbenches): every schedulable warp holds a physical
  // warp slot and every set of its phase; the tables' counters agree with
  // their entries. Empty when it holds, else what is wrong.
  std::string check_invariants() const;
  // The coordinator's queues and the tables' counters, for a deadlock report.
  std::string describe() const;

  // --- state for probes and counters
  uint32_t thread_queue_length() const;  // waiting for a slot, or at a barrier
  uint32_t scratchpad_queue_length() const { return static_cast<uint32_t>(queues_[kSmemQueue].size()); }
  uint32_t register_queue_length() const { return static_cast<uint32_t>(queues_[kRegQueue].size()); }
  uint32_t schedulable_warps() const { return schedulable_; }
  uint32_t o_thresh_percent() const { return o_thresh_; }
  const MappingTable& register_table() const { return regs_; }
  const MappingTable& scratchpad_table() const { return smem_; }
  const MappingTable& warp_slot_table() const { return slots_; }
  uint64_t phase_changes() const { return phase_changes_; }
  uint64_t swap_reads() const { return swap_reads_; }
  uint64_t swap_writes() const { return swap_writes_; }
  void collect(ActivityCounters& out) const;
  void counters(std::vector<std::pair<std::string, uint64_t>>& c) const;

 private:
  enum QueueId : uint8_t { kThreadQueue = 0, kSmemQueue = 1, kRegQueue = 2, kNoQueue = 3 };
  enum class Where : uint8_t { Free, Queued, Schedulable, AtBarrier };
  struct Warp {
    Where where = Where::Free;
    QueueId queue = kNoQueue;
    uint16_t phase = 0;
    uint32_t cta = 0;
    uint64_t age = 0;
    // Issued accesses not yet done, per register set: a set the phase no
    // longer holds is released when its count reaches 0.
    std::array<uint16_t, kMaxRegSets> in_use{};
    std::bitset<kMaxRegSets> release_pending;
    std::bitset<kMaxRegSets> spilled;  // sets taken by an older warp: their contents wait in swap
    bool head_fetched = false;  // swap reads for the instruction at the head are sent
    uint64_t ready_at = 0;      // ... and back at this cycle
    uint32_t undecided = 0;     // ... deferred ones not answered yet
  };
  struct Cta {
    bool valid = false;
    uint64_t age = 0;
    std::vector<uint32_t> warps;  // logical warp slots
  };

  const PhaseSets& need(const Warp& w) const { return phases_[w.phase]; }
  void enter_phase(uint32_t slot, uint16_t phase);
  void free_warp(uint32_t slot);  // everything the warp holds, and its place in its CTA
  void after_barrier(uint32_t slot, uint16_t phase);
  void enqueue(uint32_t slot);
  void dequeue(uint32_t slot);
  void make_schedulable(uint32_t slot);
  void release_register_set(uint32_t slot, uint32_t set);
  void shrink_cta_smem(uint32_t cta);
  void traverse();
  void swap_in_registers();
  bool may_exceed_threshold(uint32_t cta) const;
  // What a waiting warp lacks; in a traversal, what older warps still wait for.
  struct Lacks {
    bool slot = false, smem = false, registers = false;
  };
  bool acquire_all(uint32_t slot, Lacks& blocked);
  uint32_t slot_victim(uint32_t slot) const;
  void take_slot(uint32_t slot, uint32_t victim);
  template <size_t N>
  static std::vector<uint32_t> missing_sets(const MappingTable& table, uint32_t owner, const std::bitset<N>& need);
  bool fits(const MappingTable& table, size_t missing, size_t preemptible, bool may_exceed, bool& exceeds) const;
  std::vector<std::pair<uint32_t, uint32_t>> register_victims(uint32_t slot, size_t count) const;
  void spill_register_set(uint32_t slot, uint32_t set);
  void restore_spilled_registers(uint32_t slot);
  static void map_all(MappingTable& table, uint32_t owner, const std::vector<uint32_t>& missing);
  bool lacks_smem(const Warp& w) const;
  bool lacks_registers(uint32_t slot) const;
  void swap_read(uint32_t slot, uint64_t line);
  void swap_write(uint64_t line);
  void fetch_swapped_operands(uint32_t slot, const WarpInstruction& inst);
  std::vector<uint64_t> swapped_smem_lines(uint32_t cta, const WarpInstruction& inst) const;
  void look_up_smem_sets(uint32_t cta, const WarpInstruction& inst);
  void note_schedulable_change();

  const SmSpec& sm_;
  const Settings settings_;
  std::string origin_;
  Occupancy occupancy_;
  std::vector<PhaseSets> phases_;
  uint32_t warps_per_cta_;
  MappingTable regs_, smem_, slots_;
  std::vector<Warp> warps_;
  std::vector<Cta> ctas_;
  std::array<std::vector<uint32_t>, 3> queues_;  // logical warp slots, by age
  SwapLayout swap_;
  MechanismMemoryPort* port_ = nullptr;

  uint64_t now_ = 0;
  uint64_t wake_at_ = MechanismHooks::kNever;  // a warp became schedulable: ask the gate again
  uint32_t schedulable_ = 0;
  uint64_t schedulable_since_ = 0;
  uint64_t schedulable_warp_cycles_ = 0;

  // Per warp slot, how many warps have left it: a swap read's tag names the
  // warp that sent it, so that one still to come back when its warp has
  // ended is told from the reads of the slot's next warp, whichever order
  // the DRAM answers them in (FR-FCFS reorders them).
  std::vector<uint32_t> slot_generation_;
  // Swap data on its way: deferred reads not answered, and the latest cycle
  // a read is back (no warp waits on swap beyond either).
  uint32_t undecided_reads_ = 0;
  uint64_t last_swap_ready_ = 0;

  // Algorithm 1.
  uint32_t o_thresh_;
  uint32_t o_thresh_max_ = 0;
  uint64_t next_epoch_;
  // An epoch passed in which no warp could issue and the threshold did not
  // move: only another event can change that, so epochs no longer wake the
  // SM (which then finds its deadlock).
  bool stuck_ = false;
  bool epoch_started_ = false;               // at_wake has seen the kernel's first tick
  uint64_t schedulable_epoch_start_ = 0;     // schedulable_warp_cycles_ when the epoch began
  uint64_t idle_prev_ = 0, mem_prev_ = 0;

  uint64_t swap_reads_ = 0, swap_writes_ = 0;
  uint64_t swap_register_reads_ = 0, swap_register_writes_ = 0;
  uint64_t swap_smem_reads_ = 0, swap_smem_writes_ = 0;
  uint64_t warp_state_saves_ = 0, warp_state_restores_ = 0;
  uint64_t register_sets_swapped_in_ = 0, register_sets_spilled_ = 0, ctas_held_back_ = 0;
  uint64_t queue_reads_ = 0, queue_writes_ = 0;
  uint64_t phase_changes_ = 0, forced_swaps_ = 0, threshold_raises_ = 0, threshold_lowers_ = 0;
};

}  // namespace smshare::zorua
