// The operand collectors: the collector units that hold an issued
// instruction while its source registers are read from the banks, one pool
// per execution unit type (sm.oc_units_sp, _sfu, _mem), as in GPGPU-Sim's
// opndcoll_rfu_t.
//
// Rules:
//  * Allocation at issue: an instruction takes the lowest-numbered free
//    unit of its type (none free: the warp cannot issue, a pipeline stall).
//    With a home split (cross-SM sharing, set_home_split) each pool's first
//    units are the SM's own and the rest its neighbour's: a warp takes a
//    unit on its home's side only (WarpContext::home), so its operands and
//    its collector are on one physical SM (Dhar & Chen Sec. V-B2).
//    Its source registers are deduplicated (an instruction reading r3 twice
//    reads it once) and all are unread.
//  * Reading, once per cycle: the units are visited in rotating order,
//    starting at the unit after the one that started the last cycle in which
//    anything was granted (a cycle without a grant leaves no trace, so an SM
//    that sleeps through such cycles behaves as one that ticks them). In
//    each unit the unread operands go, in source order, through the
//    mechanism's RegisterRoute (retry: try again next cycle) and then to the
//    bank arbitrator for the bank the route names. A granted read is done;
//    its value is there at cycle + 1 + the route's extra cycles.
//  * Dispatch: the units whose operands are all read and present are
//    offered to the execution units in unit order (SP, SFU, MEM pools, each
//    lowest-numbered first); a unit whose instruction leaves is free for an
//    issue in the same cycle. A unit refused closes its pool for the step
//    (an execution unit refuses for its type, not for the instruction).
// Unit numbering is the pool order SP, SFU, MEM: index 0 is the first SP unit.
//
// With sm.pipeline_registers the collectors step sm.register_bank_ports times
// a cycle, as GPGPU-Sim's opndcoll_rfu_t::step (shader.cc,
// shader_core_ctx::read_operands): the SM calls dispatch, read and allocate
// once per step, in that order (dispatch_ready_cu, allocate_reads,
// allocate_cu), so a unit allocated in a step reads from the next step and is
// dispatched the step after its last read. The collectors' clock then counts
// steps (time = cycle * steps_per_cycle() + step): ready_cycle and a route's
// extra cycles are in steps; each bank grants one read per step (the cycle's
// writes take step 0); and an instruction reading a register twice reads it
// twice (GPGPU-Sim's collector_unit_t::allocate queues every source operand).
// Without pipeline registers there is one step per cycle and the clock is the
// cycle.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "hw/common/bit_words.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/instruction.hpp"
#include "hw/sm/bank_arbitrator.hpp"
#include "hw/sm/mechanism.hpp"

namespace smshare {

// The execution unit type an instruction is dispatched to.
enum class ExecUnit : uint8_t { Sp = 0, Sfu = 1, Mem = 2 };
constexpr unsigned kNumExecUnits = 3;
// The rule (the pool an operation's collector unit and OC_EX register are of).
constexpr ExecUnit exec_unit_rule(OpClass op) {
  switch (op) {
    case OpClass::Sfu:
      return ExecUnit::Sfu;
    case OpClass::GlobalLoad:
    case OpClass::GlobalStore:
    case OpClass::LocalLoad:
    case OpClass::LocalStore:
    case OpClass::SharedLoad:
    case OpClass::SharedStore:
      return ExecUnit::Mem;
    default:
      return ExecUnit::Sp;
  }
}
// The rule by operation, worked out at compile time: it is asked at every
// issue try and allocation, and GCC compiles the switch into range tests
// (about 10 host instructions) rather than a lookup (52 M of them on the
// bench trace).
inline constexpr std::array<ExecUnit, kNumOpClasses> kExecUnitOf = [] {
  std::array<ExecUnit, kNumOpClasses> units{};
  for (unsigned op = 0; op < kNumOpClasses; ++op) units[op] = exec_unit_rule(static_cast<OpClass>(op));
  return units;
}();
inline ExecUnit exec_unit_of(OpClass op) { return kExecUnitOf[static_cast<unsigned>(op)]; }

class OperandCollectors {
 public:
  static constexpr uint64_t kNever = ~0ull;

  struct CollectorUnit {
    ExecUnit unit = ExecUnit::Sp;
    // Its bit in its pool's words (free_, collected_), fixed when built: the
    // read loop marks a unit collected without working it out again.
    uint64_t pool_bit = 0;
    WarpContext warp;  // the issuing warp (fixed while the instruction is in flight)
    WarpInstruction inst;
    // inst.src again, beside the read loop's other fields (pending,
    // ready_cycle): one cache line per unit visited, not two.
    std::array<uint16_t, kMaxSrcRegs> operands{};
    uint8_t pending = 0;  // bit k: the register of operands[k] not yet read
    // Operands present from then (the collectors' clock), once pending is 0
    // (the built-in route's reads write it at the last read only; before
    // the first read it is left from the unit's last instruction).
    uint64_t ready_cycle = 0;
    uint64_t seq = 0;          // allocation order: oldest first in the pipeline registers
  };
  struct ReadResult {
    bool granted = false;         // at least one operand was read
    uint32_t route_retries = 0;   // operand reads the route deferred
  };
  // For waveforms (plain stores).
  struct Probes {
    uint32_t busy_units = 0;      // units holding an instruction
  };

  explicit OperandCollectors(const SmSpec& spec);

  // Takes a free unit of `inst`'s type for `warp` in `cycle` (step `step` of
  // it); false if none is free.
  bool allocate(const WarpContext& warp, const WarpInstruction& inst, uint64_t cycle, uint32_t step = 0);
  // allocate() for a caller that knows the type, exec_unit_of(inst.op) (the
  // ID_OC register the instruction waits in): spares working it out again.
  bool allocate_for(ExecUnit unit, const WarpContext& warp, const WarpInstruction& inst, uint64_t cycle,
                    uint32_t step);

  // Pool u's first own_units[u] units serve warps of home 0, the rest warps
  // of home 1; all 0: no split. Only between kernels (no unit busy).
  void set_home_split(const std::array<uint32_t, kNumExecUnits>& own_units);

  // Whether allocate() could find a free unit for an instruction bound for
  // `unit` (with a home split: on either side).
  bool has_free_unit(ExecUnit unit) const { return free_[static_cast<unsigned>(unit)] != 0; }

  // The operand-read stage of `cycle` (step `step` of it).
  ReadResult read(uint64_t cycle, RegisterRoute& route, BankArbitrator& arbitrator, uint32_t step = 0);

  // The dispatch stage of `cycle` (step `step` of it): offers each unit whose
  // operands are ready to `leave(const CollectorUnit&)`, which returns true
  // if the instruction went on (to an execution unit, or to the OC_EX
  // pipeline register); the collector unit is then free. Returns the
  // earliest later cycle in which a unit's read operands are ready (kNever:
  // none is waiting for that).
  template <class Leave>
  uint64_t dispatch(uint64_t cycle, Leave&& leave, uint32_t step = 0) {
    return dispatch(cycle, std::forward<Leave>(leave), [](ExecUnit) { return true; }, step);
  }
  // The same, where `takes(ExecUnit)` false says that leave() would refuse
  // every unit of that type now (its OC_EX register is full): the pool's
  // units are then not offered, unless one is still waiting for its
  // operands' values, whose ready time the result must include.
  // Either way, leave() refusing a unit closes its pool for the step: the
  // pool's later units are not offered (both callers refuse for the type,
  // a full OC_EX register or a busy pipeline, not for the unit).
  template <class Leave, class Takes>
  uint64_t dispatch(uint64_t cycle, Leave&& leave, Takes&& takes, uint32_t step);

  // Steps per cycle: sm.register_bank_ports with pipeline registers, else 1.
  uint32_t steps_per_cycle() const { return steps_per_cycle_; }

  uint32_t busy_units() const { return probes_.busy_units; }
  // Whether unit `unit` holds an instruction (it is not among its pool's free units).
  bool busy(uint32_t unit) const {
    const CollectorUnit& c = units_[unit];
    return (free_[static_cast<unsigned>(c.unit)] & c.pool_bit) == 0;
  }
  // Busy units with an operand still to read (the rest wait for dispatch).
  uint32_t reading_units() const { return reading_units_; }
  uint64_t allocations() const { return allocations_; }  // instructions that took a unit, since construction
  const std::vector<CollectorUnit>& units() const { return units_; }
  const Probes& probes() const { return probes_; }

 private:
  // kInterleaved: route_of is RegisterRoute::interleaved_bank over banks the
  // register file has (BankArbitrator::request_register_file); otherwise it
  // answers an OperandRoute. kSinglePort (with kInterleaved only): the
  // register file's banks have one port each.
  template <bool kInterleaved, bool kSinglePort, class RouteOf>
  ReadResult read_units(uint64_t cycle, uint32_t step, BankArbitrator& arbitrator, RouteOf&& route_of);

  std::vector<CollectorUnit> units_;
  uint32_t num_units_ = 0;  // units_.size(), kept: a unit's size is no power of two, so size() divides
  std::array<uint32_t, kNumExecUnits + 1> pool_begin_{};  // units of type u: [pool_begin_[u], pool_begin_[u + 1])
  uint64_t time(uint64_t cycle, uint32_t step) const { return cycle * steps_per_cycle_ + step; }

  bool stepped_ = false;           // sm.pipeline_registers
  uint32_t steps_per_cycle_ = 1;
  uint32_t rotation_ = 0;  // unit the next reading cycle starts at
  // The busy units by state, as bit sets: read() visits the units with
  // operands to read in rotating order, dispatch() those whose operands are
  // all read in unit order, without stepping over the others (read() 138 M
  // -> 114 M host instructions on hotspot --ctas 45). The free units are
  // one bit set of a word per pool (sm.oc_units_* <= 64): allocate() takes
  // its lowest bit (a scan of the pool's units was 16 host instructions an
  // allocation).
  std::vector<uint64_t> reading_;  // over the unit numbers (bit_words.hpp): busy, an operand still to read
  uint32_t reading_units_ = 0;     // members of reading_
  // Per pool, bit i for its unit pool_begin_[u] + i: the units not busy;
  // the units busy with all operands read, waiting for dispatch (one word a
  // pool, so that dispatch visits a pool's units without masking a set over
  // all units, and passes over a pool that takes none with one test); and
  // the units a warp of home 0 or 1 may take (all of them without a split).
  std::array<uint64_t, kNumExecUnits> free_{};
  std::array<uint64_t, kNumExecUnits> collected_{};
  std::array<std::array<uint64_t, 2>, kNumExecUnits> home_units_{};
  // Puts busy unit `unit` in collected_ from allocate() (an instruction
  // with no register to read). Out of line: inlined, its shift cost
  // allocate() two more saved registers a call (+19 M host instructions on
  // the bench trace), where almost every instruction has one to read.
  [[gnu::noinline]] void collect(uint32_t unit);
  // Puts busy unit `c` in collected_ (read(): its last operand read).
  void mark_collected(const CollectorUnit& c) { collected_[static_cast<unsigned>(c.unit)] |= c.pool_bit; }
  // A read value is present from the step after the read (ready_cycle =
  // read time + 1), in time for the next dispatch; only a route's extra
  // cycles make a unit wait in collected_. This is the latest time such a
  // read made a value wait for (not lowered as units leave, so a bound):
  // from then on every collected unit is ready, and dispatch may pass over
  // a pool whose units cannot leave without losing a ready time (4.7 M of
  // the bench trace's 6.6 M offers were refused for a full OC_EX register).
  uint64_t delayed_reads_ready_by_ = 0;
  uint64_t allocations_ = 0;
  Probes probes_;
};

template <class Leave, class Takes>
uint64_t OperandCollectors::dispatch(uint64_t cycle, Leave&& leave, Takes&& takes, uint32_t step) {
  uint64_t next_ready = kNever;
  if (probes_.busy_units == reading_units_) return next_ready;  // none collected
  const uint64_t now = time(cycle, step);
  // Whether a collected unit may still wait for a route's extra cycles: if
  // not, a pool that takes none now is passed over.
  const bool values_awaited = now < delayed_reads_ready_by_;
  // Unrolled (as SmCore::allocate_collectors): each pool's words and the
  // callers' per-type state at fixed places (bench trace 4,301.5 M ->
  // 4,282.2 M host instructions, hotspot 781.8 M -> 779.3 M).
#pragma GCC unroll 3
  for (unsigned pool = 0; pool < kNumExecUnits; ++pool) {
    uint64_t& collected = collected_[pool];
    if (collected == 0 || (!values_awaited && !takes(static_cast<ExecUnit>(pool)))) continue;
    bool open = true;  // leave() has refused none of the pool this step
    // Each word is read once, so a unit leaving does not disturb the scan.
    for (uint64_t waiting = collected; waiting; waiting &= waiting - 1) {
      const uint32_t bit = static_cast<uint32_t>(__builtin_ctzll(waiting));
      CollectorUnit& c = units_[pool_begin_[pool] + bit];
      // Every unit of the pool is of its type (fixed when built). Said to
      // the compiler, it lets leave() and takes() find their per-type state
      // (an OC_EX register, its bit) at the unrolled pool's fixed place
      // instead of from the unit's field at run time.
      if (c.unit != static_cast<ExecUnit>(pool)) __builtin_unreachable();
      if (c.ready_cycle > now) {
        if (c.ready_cycle < next_ready) next_ready = c.ready_cycle;
        continue;
      }
      // After a refusal the pool's later units are visited for their ready
      // times only.
      if (!open) continue;
      if (!leave(static_cast<const CollectorUnit&>(c))) {
        open = false;
        continue;
      }
      collected &= ~(uint64_t{1} << bit);
      free_[pool] |= uint64_t{1} << bit;
      --probes_.busy_units;
    }
  }
  return next_ready == kNever || steps_per_cycle_ == 1 ? next_ready : next_ready / steps_per_cycle_;
}

}  // namespace smshare
