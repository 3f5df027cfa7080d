#include "hw/sharing/zorua/zorua_sm.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "hw/common/error.hpp"
#include "hw/sm/occupancy.hpp"

namespace smshare::zorua {
namespace {

constexpr uint32_t kNone = ~0u;
constexpr uint64_t kLine = 128;  // swap lines: one warp register (32 lanes x 4 B), one L1/L2 line

uint32_t div_up(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

// Tags of the swap reads the SM answers later (MechanismHooks::memory_response):
// the warp slot, and which of the slot's warps sent it.
uint64_t tag_of(uint32_t slot, uint32_t generation) { return uint64_t{generation} << 32 | slot; }
uint32_t slot_of(uint64_t tag) { return static_cast<uint32_t>(tag); }
uint32_t generation_of(uint64_t tag) { return static_cast<uint32_t>(tag >> 32); }

}  // namespace

std::vector<PhaseSets> phase_sets(const KernelResources& k, const std::string& origin) {
  std::vector<PhaseSets> out;
  const size_t phases = std::max<size_t>(1, k.phase_names.size());
  const uint32_t cta_sets = div_up(k.smem_bytes_per_cta, kSmemSetBytes);
  if (cta_sets > kMaxSmemSets)
    throw input_error(origin, "smem_bytes_per_cta",
                      "Zorua maps a CTA's scratchpad in 1 KB sets, at most " + std::to_string(kMaxSmemSets));
  if (k.phase_needs.empty()) {
    PhaseSets all;
    for (uint32_t r = 0; r < k.regs_per_thread && r < kMaxArchRegs; ++r) all.registers.set(r / kRegsPerSet);
    for (uint32_t s = 0; s < cta_sets; ++s) all.smem.set(s);
    out.assign(phases, all);
    return out;
  }
  if (k.phase_needs.size() != phases)
    throw std::logic_error("KernelResources: " + std::to_string(k.phase_needs.size()) + " phase needs for " +
                           std::to_string(phases) + " phases");
  for (const PhaseNeed& need : k.phase_needs) {
    PhaseSets p;
    for (uint32_t r = 0; r < kMaxArchRegs; ++r)
      if (need.registers.test(r)) p.registers.set(r / kRegsPerSet);
    for (const auto& [first, end] : need.smem) {
      if (end > k.smem_bytes_per_cta)
        throw input_error(origin, "phases", "a phase holds scratchpad bytes up to " + std::to_string(end) +
                                                " beyond smem_bytes_per_cta = " + std::to_string(k.smem_bytes_per_cta));
      for (uint32_t s = first / kSmemSetBytes; first < end && s <= (end - 1) / kSmemSetBytes; ++s) p.smem.set(s);
    }
    out.push_back(p);
  }
  return out;
}

uint64_t SwapLayout::register_line(uint32_t warp, uint16_t reg) const {
  return base + (uint64_t{warp} * reg_sets_per_warp * kRegsPerSet + reg) * kLine;
}
uint64_t SwapLayout::smem_line(uint32_t cta, uint32_t byte) const {
  const uint64_t regs_end = uint64_t{logical_warps} * reg_sets_per_warp * kRegsPerSet * kLine;
  return base + regs_end + (uint64_t{cta} * smem_sets_per_cta * kSmemSetBytes + byte) / kLine * kLine;
}
uint64_t SwapLayout::warp_state_line(uint32_t warp) const {
  const uint64_t regs_end = uint64_t{logical_warps} * reg_sets_per_warp * kRegsPerSet * kLine;
  const uint64_t smem_end = uint64_t{logical_ctas} * smem_sets_per_cta * kSmemSetBytes;
  return base + regs_end + smem_end + uint64_t{warp} * kLine;
}
uint64_t SwapLayout::needed_bytes() const { return warp_state_line(logical_warps) - base; }

namespace {

uint32_t register_sets_per_warp(const std::vector<PhaseSets>& phases) {
  uint32_t n = 0;
  for (const PhaseSets& p : phases)
    for (uint32_t s = 0; s < kMaxRegSets; ++s)
      if (p.registers.test(s)) n = std::max(n, s + 1);
  return n;
}

}  // namespace

Occupancy logical_occupancy(const SmSpec& sm, const KernelResources& k, const std::string& origin, const Settings& s) {
  // Registers and scratchpad are virtual: they never bind; the logical
  // warp and CTA slots do.
  SmSpec logical = sm;
  logical.max_warps = s.logical_warps;
  logical.max_ctas = s.logical_ctas;
  logical.max_threads = s.logical_warps * sm.warp_size;
  KernelResources unbound = k;
  unbound.regs_per_thread = 0;
  unbound.smem_bytes_per_cta = 0;
  Occupancy o = baseline_occupancy(logical, unbound, origin);
  const uint32_t warps = k.warps_per_cta(sm.warp_size);
  if (warps > sm.max_warps)
    throw input_error(origin, "threads_per_cta",
                      "a CTA of " + std::to_string(warps) + " warps cannot run on " + std::to_string(sm.max_warps) +
                          " physical warp slots (sm.max_warps), even under Zorua");
  if (k.smem_bytes_per_cta > sm.scratchpad_bytes)
    throw input_error(origin, "smem_bytes_per_cta",
                      std::to_string(k.smem_bytes_per_cta) + " bytes: more than the SM's scratchpad (" +
                          std::to_string(sm.scratchpad_bytes) + "), which Zorua's mapping table addresses");
  return o;
}


ZoruaSm::ZoruaSm(const SmSpec& sm, const KernelResources& k, const std::string& origin, const Settings& s)
    : sm_(sm),
      settings_(s),
      origin_(origin),
      occupancy_(logical_occupancy(sm, k, origin, s)),
      phases_(phase_sets(k, origin)),
      warps_per_cta_(k.warps_per_cta(sm.warp_size)),
      regs_(s.logical_warps, register_sets_per_warp(phases_), sm.registers / (kRegsPerSet * sm.warp_size),
            s.logical_warps * register_sets_per_warp(phases_)),
      smem_(s.logical_ctas, div_up(k.smem_bytes_per_cta, kSmemSetBytes), sm.scratchpad_bytes / kSmemSetBytes,
            s.logical_ctas * div_up(k.smem_bytes_per_cta, kSmemSetBytes)),
      slots_(s.logical_warps, 1, sm.max_warps, s.logical_warps),
      warps_(s.logical_warps),
      ctas_(s.logical_ctas),
      slot_generation_(s.logical_warps, 0),
      o_thresh_(s.o_default_percent),
      next_epoch_(s.epoch_cycles) {
  // Beyond the threshold at which every table's whole swap capacity is
  // allowed, raising it changes nothing (and a stuck SM would raise it forever).
  auto full = [](const MappingTable& t) {
    return t.physical_sets() ? static_cast<uint32_t>((uint64_t{t.swap_capacity()} * 100 + t.physical_sets() - 1) /
                                                     t.physical_sets())
                             : 0u;
  };
  o_thresh_max_ = std::max({s.o_default_percent, full(regs_), full(smem_)});
  swap_.reg_sets_per_warp = regs_.sets_per_owner();
  swap_.smem_sets_per_cta = smem_.sets_per_owner();
  swap_.logical_warps = s.logical_warps;
  swap_.logical_ctas = s.logical_ctas;
}

void ZoruaSm::bind_memory(MechanismMemoryPort& port) {
  port_ = &port;
  const MechanismMemoryPort::SwapRegion region = port.swap_region();
  swap_.base = region.base;
  swap_.bytes = region.bytes;
  if (swap_.needed_bytes() > region.bytes)
    throw InputError("dram.swap_bytes: Zorua needs " + std::to_string(swap_.needed_bytes()) +
                     " bytes of swap space per SM for this kernel (" + std::to_string(settings_.logical_warps) +
                     " logical warps' registers, " + std::to_string(settings_.logical_ctas) +
                     " logical CTAs' scratchpad, warp state); the SM's share of the swap region is " +
                     std::to_string(region.bytes) + " bytes: raise dram.swap_bytes");
}

// --- admission

// The size of the virtual space (Sec. 3.1, challenge 1): a CTA starts when
// the register and scratchpad sets the resident warps' current phases hold,
// plus what its warps' first phase holds, stay within the physical sets plus
// o_thresh percent of them (an SM with no CTA takes one whatever it needs).
bool ZoruaSm::admit(uint32_t cta_slot, CtaAllocation& a) {
  Cta& c = ctas_.at(cta_slot);
  if (c.valid) throw std::logic_error("zorua: CTA slot admitted twice");
  uint32_t resident_warps = warps_per_cta_;
  for (const Cta& other : ctas_) resident_warps += other.valid ? warps_per_cta_ : 0;
  if (resident_warps > settings_.logical_warps) return false;  // the logical warp slots (SmCore checks them too)
  uint64_t reg_demand = uint64_t{warps_per_cta_} * phases_[0].registers.count();
  uint64_t smem_demand = phases_[0].smem.count();
  bool any = false;
  for (uint32_t cta = 0; cta < ctas_.size(); ++cta) {
    if (!ctas_[cta].valid) continue;
    any = true;
    std::bitset<kMaxSmemSets> cta_smem;
    for (uint32_t slot : ctas_[cta].warps) {
      reg_demand += need(warps_[slot]).registers.count();
      cta_smem |= need(warps_[slot]).smem;
    }
    smem_demand += cta_smem.count();
  }
  auto within = [this](uint64_t demand, const MappingTable& t) {
    return demand * 100 <= uint64_t{t.physical_sets()} * (100 + o_thresh_);
  };
  if (any && (!within(reg_demand, regs_) || !within(smem_demand, smem_))) {
    ++ctas_held_back_;
    return false;
  }
  c.valid = true;
  c.age = ~0ull;  // set by its first warp
  c.warps.clear();
  a.cta_slot = cta_slot;
  a.warps = warps_per_cta_;
  a.threads = warps_per_cta_ * sm_.warp_size;
  a.registers = 0;  // acquired per phase, not at admission
  a.smem_bytes = 0;
  return true;
}

void ZoruaSm::release(const CtaAllocation& a) {
  Cta& c = ctas_.at(a.cta_slot);
  // Its warps have ended (the SM retires a CTA after its last warp);
  // whatever one still holds goes with the CTA.
  for (const uint32_t slot : std::vector<uint32_t>(c.warps)) free_warp(slot);
  for (uint32_t set = 0; set < smem_.sets_per_owner(); ++set) smem_.unmap(a.cta_slot, set);
  c.valid = false;
  traverse();
}

uint32_t ZoruaSm::registers_allocated() const { return regs_.physical_in_use() * kRegsPerSet * sm_.warp_size; }
uint32_t ZoruaSm::smem_allocated() const {
  return std::min(smem_.physical_in_use() * kSmemSetBytes, sm_.scratchpad_bytes);
}

// --- route

OperandRoute ZoruaSm::route(const WarpContext& w, uint16_t reg) {
  const uint32_t set = reg / kRegsPerSet;
  const bool held = set < regs_.sets_per_owner() && regs_.held(w.slot, set);
  // An issued instruction's sets stay held until it is done with them (its
  // warp may have moved on to wait for its next phase): only a warp the
  // coordinator holds back can find a set unmapped, and it waits.
  if (!held && warps_[w.slot].where != Where::Schedulable) {
    OperandRoute wait;
    wait.retry = true;
    return wait;
  }
  if (!held)
    throw std::logic_error("zorua: warp slot " + std::to_string(w.slot) + " accessed R" + std::to_string(reg) +
                           ", whose register set its phase does not hold\n" + describe());
  regs_.lookup(w.slot, set);  // the access that goes ahead reads the table (a retry does not)
  OperandRoute r;
  r.bank = static_cast<uint16_t>((reg + w.slot) % sm_.register_banks);
  r.extra_cycles = static_cast<uint16_t>(settings_.mapping_table_cycles);
  return r;
}

// --- events

void ZoruaSm::warp_started(const WarpContext& w) {
  Warp& warp = warps_.at(w.slot);
  Cta& cta = ctas_.at(w.cta_slot);
  warp = Warp();
  warp.cta = w.cta_slot;
  warp.age = w.age;
  cta.age = std::min(cta.age, w.age);
  cta.warps.push_back(w.slot);
  enter_phase(w.slot, 0);
  traverse();
}

bool ZoruaSm::may_issue(const WarpContext& w, const WarpInstruction& inst, uint64_t cycle) {
  now_ = cycle;
  Warp& warp = warps_[w.slot];
  if (inst.phase >= phases_.size())
    throw std::logic_error("zorua: instruction of phase " + std::to_string(inst.phase) + " in a kernel of " +
                           std::to_string(phases_.size()) + " phases");
  if (warp.where == Where::AtBarrier) {
    after_barrier(w.slot, inst.phase);
    traverse();
  } else if (warp.where == Where::Schedulable && inst.phase != warp.phase) {
    enter_phase(w.slot, inst.phase);
    traverse();
  }
  if (warp.where != Where::Schedulable) return false;
  if (!warp.head_fetched) {
    warp.head_fetched = true;
    fetch_swapped_operands(w.slot, inst);
  }
  return warp.undecided == 0 && warp.ready_at <= cycle;
}

void ZoruaSm::issued(const WarpContext& w, const WarpInstruction& inst) {
  Warp& warp = warps_[w.slot];
  warp.head_fetched = false;
  if (inst.op == OpClass::Barrier) {
    // Waiting at the barrier, the warp does not need its thread slot
    // (Sec. 3.2.1); it keeps it until another warp takes it.
    warp.where = Where::AtBarrier;
    note_schedulable_change();
    --schedulable_;
    traverse();  // a coordinator event: its slot may go to a waiting warp
    return;
  }
  if (acts_at_issue(inst.op)) return;  // an exit's operands are never read
  for (uint8_t i = 0; i < inst.num_src; ++i)
    if (inst.src[i] != kNoReg) ++warp.in_use[inst.src[i] / kRegsPerSet];
  for (uint8_t i = 0; i < inst.num_dst; ++i)
    if (inst.dst[i] != kNoReg) ++warp.in_use[inst.dst[i] / kRegsPerSet];
  if (is_shared_memory(inst.op)) look_up_smem_sets(warp.cta, inst);
  if (inst.op == OpClass::SharedStore) {
    for (uint64_t line : swapped_smem_lines(warp.cta, inst)) {
      swap_write(line);
      ++swap_smem_writes_;
    }
  }
}

void ZoruaSm::operands_read(const WarpContext& w, const WarpInstruction& inst) {
  for (uint8_t i = 0; i < inst.num_src; ++i)
    if (inst.src[i] != kNoReg) release_register_set(w.slot, inst.src[i] / kRegsPerSet);
}

void ZoruaSm::register_written(const WarpContext& w, uint16_t reg) {
  if (regs_.in_swap(w.slot, reg / kRegsPerSet)) {
    swap_write(swap_.register_line(w.slot, reg));
    ++swap_register_writes_;
  }
  release_register_set(w.slot, reg / kRegsPerSet);
}

// One access of the set is done: release it if the phase no longer holds it
// and nothing else in flight uses it.
void ZoruaSm::release_register_set(uint32_t slot, uint32_t set) {
  Warp& warp = warps_[slot];
  if (warp.in_use[set] == 0) throw std::logic_error("zorua: register set access count underflow");
  if (--warp.in_use[set] > 0 || !warp.release_pending.test(set)) return;
  warp.release_pending.reset(set);
  regs_.unmap(slot, set);
  traverse();
}

void ZoruaSm::warp_finished(const WarpContext& w) {
  free_warp(w.slot);
  shrink_cta_smem(warps_[w.slot].cta);
  traverse();
}

void ZoruaSm::free_warp(uint32_t slot) {
  Warp& warp = warps_[slot];
  dequeue(slot);
  // Its reads still to come back answer nobody (undecided_reads_ counts
  // them until they do); the slot's next warp sends reads of its own.
  ++slot_generation_[slot];
  warp.undecided = 0;
  if (warp.where == Where::Schedulable) {
    note_schedulable_change();
    --schedulable_;
  }
  for (uint32_t set = 0; set < regs_.sets_per_owner(); ++set) regs_.unmap(slot, set);
  slots_.unmap(slot, 0);
  warp.where = Where::Free;
  Cta& cta = ctas_[warp.cta];
  cta.warps.erase(std::find(cta.warps.begin(), cta.warps.end(), slot));
}

void ZoruaSm::memory_response(uint64_t tag, uint64_t cycle) {
  if (undecided_reads_ == 0) throw std::logic_error("zorua: a swap read answered twice");
  --undecided_reads_;
  last_swap_ready_ = std::max(last_swap_ready_, cycle);
  const uint32_t slot = slot_of(tag);
  if (slot_generation_.at(slot) != generation_of(tag)) return;  // for a warp that ended before its reads came back
  Warp& warp = warps_[slot];
  if (warp.undecided == 0) throw std::logic_error("zorua: a swap read answered twice");
  --warp.undecided;
  warp.ready_at = std::max(warp.ready_at, cycle);
}

uint64_t ZoruaSm::next_wake() const {
  if (!epoch_started_) return now_;  // the kernel's first tick starts the epochs (at_wake)
  uint64_t wake = std::min(wake_at_, stuck_ ? MechanismHooks::kNever : next_epoch_);
  if (undecided_reads_ == 0 && last_swap_ready_ <= now_) return wake;  // no swap data on its way
  for (const Warp& w : warps_)
    if (w.where == Where::Schedulable && w.undecided == 0 && w.ready_at > now_) wake = std::min(wake, w.ready_at);
  return wake;
}

bool ZoruaSm::waits_on_swap(uint64_t cycle) const {
  if (undecided_reads_ == 0 && last_swap_ready_ <= cycle) return false;
  for (const Warp& w : warps_)
    if (w.where == Where::Schedulable && (w.undecided > 0 || w.ready_at > cycle)) return true;
  return false;
}

void ZoruaSm::at_wake(uint64_t cycle, const IssueActivity& a) {
  now_ = cycle;
  if (cycle >= wake_at_) wake_at_ = MechanismHooks::kNever;
  if (!epoch_started_) {
    // The kernel's first tick: epochs and Algorithm 1's counters start here
    // (the SM's cycles and activity run over every kernel of the stream).
    epoch_started_ = true;
    next_epoch_ = cycle + settings_.epoch_cycles;
    idle_prev_ = a.idle_not_memory_cycles();
    mem_prev_ = a.memory_wait_cycles;
    schedulable_epoch_start_ = schedulable_warp_cycles_;
    return;
  }
  if (cycle < next_epoch_) return;
  while (next_epoch_ <= cycle) next_epoch_ += settings_.epoch_cycles;
  // Algorithm 1, with c_idle and c_mem counted over the epoch.
  const int64_t idle = static_cast<int64_t>(a.idle_not_memory_cycles() - idle_prev_);
  const int64_t mem = static_cast<int64_t>(a.memory_wait_cycles - mem_prev_);
  idle_prev_ = a.idle_not_memory_cycles();
  mem_prev_ = a.memory_wait_cycles;
  const int64_t delta = static_cast<int64_t>(settings_.c_delta_thresh);
  const uint32_t before = o_thresh_;
  if (idle - mem > delta && o_thresh_ < o_thresh_max_) {
    o_thresh_ = std::min(o_thresh_max_, o_thresh_ + settings_.o_thresh_step_percent);
    ++threshold_raises_;
  }
  if (mem - idle > delta && o_thresh_ > 0) {
    o_thresh_ -= std::min(o_thresh_, settings_.o_thresh_step_percent);
    ++threshold_lowers_;
  }
  traverse();  // a higher threshold may let queued warps through
  // Stuck: no warp could issue over the whole epoch and the threshold cannot
  // help (it did not move, or it allows all swap space already).
  note_schedulable_change();
  const bool idle_epoch = schedulable_warp_cycles_ == schedulable_epoch_start_;
  schedulable_epoch_start_ = schedulable_warp_cycles_;
  stuck_ = schedulable_ == 0 && idle_epoch && (o_thresh_ == before || o_thresh_ == o_thresh_max_) &&
           !waits_on_swap(cycle);
}

// --- the coordinator

void ZoruaSm::enter_phase(uint32_t slot, uint16_t phase) {
  Warp& warp = warps_[slot];
  if (warp.where == Where::Schedulable) {
    note_schedulable_change();
    --schedulable_;
  }
  if (warp.where != Where::Free) ++phase_changes_;
  warp.phase = phase;
  // Release what the new phase does not hold, once no issued instruction
  // uses it; spilled contents it does not hold are dead.
  const PhaseSets& n = need(warp);
  warp.spilled &= n.registers;
  for (uint32_t set = 0; set < regs_.sets_per_owner(); ++set) {
    if (!regs_.held(slot, set)) continue;
    if (n.registers.test(set)) {
      warp.release_pending.reset(set);
    } else if (warp.in_use[set] == 0) {
      regs_.unmap(slot, set);
    } else {
      warp.release_pending.set(set);
    }
  }
  shrink_cta_smem(warp.cta);
  warp.where = Where::Queued;
  enqueue(slot);
}

// The warp's barrier opened: the instruction after it may start a new phase.
void ZoruaSm::after_barrier(uint32_t slot, uint16_t phase) {
  if (phase != warps_[slot].phase) enter_phase(slot, phase);
  else enqueue(slot);
}

// The first queue whose resource the warp lacks, or schedulable.
void ZoruaSm::enqueue(uint32_t slot) {
  Warp& warp = warps_[slot];
  dequeue(slot);
  QueueId q = kNoQueue;
  if (slots_.entry(slot, 0) == MappingTable::kNotHeld || slots_.in_swap(slot, 0)) q = kThreadQueue;
  else if (lacks_smem(warp)) q = kSmemQueue;
  else if (lacks_registers(slot)) q = kRegQueue;
  if (q == kNoQueue) {
    make_schedulable(slot);
    return;
  }
  warp.where = Where::Queued;
  warp.queue = q;
  ++queue_writes_;
  auto& queue = queues_[q];
  const auto at = std::lower_bound(queue.begin(), queue.end(), warp.age,
                                   [this](uint32_t s, uint64_t age) { return warps_[s].age < age; });
  queue.insert(at, slot);
}

void ZoruaSm::dequeue(uint32_t slot) {
  Warp& warp = warps_[slot];
  if (warp.queue == kNoQueue) return;
  auto& queue = queues_[warp.queue];
  queue.erase(std::find(queue.begin(), queue.end(), slot));
  ++queue_reads_;
  warp.queue = kNoQueue;
}

void ZoruaSm::make_schedulable(uint32_t slot) {
  Warp& warp = warps_[slot];
  stuck_ = false;
  slots_.lookup(slot, 0);  // the scheduler's slot of the warp: its schedulable bit is set there (fn. 6)
  warp.where = Where::Schedulable;
  warp.queue = kNoQueue;
  warp.head_fetched = false;
  note_schedulable_change();
  ++schedulable_;
  wake_at_ = std::min(wake_at_, now_ + 1);
}

void ZoruaSm::note_schedulable_change() {
  schedulable_warp_cycles_ += uint64_t{schedulable_} * (now_ - std::min(now_, schedulable_since_));
  schedulable_since_ = now_;
}

template <size_t N>
std::vector<uint32_t> ZoruaSm::missing_sets(const MappingTable& table, uint32_t owner, const std::bitset<N>& need) {
  std::vector<uint32_t> missing;
  for (uint32_t set = 0; set < table.sets_per_owner(); ++set)
    if (need.test(set) && !table.held(owner, set)) missing.push_back(set);
  return missing;
}

void ZoruaSm::traverse() {
  // Every waiting warp is checked (Sec. 4.2), oldest first, whatever queue
  // it is in. A warp passes only with everything it lacks at once ("once a
  // warp has traversed all the queues, the coordinator acquires all the
  // resources"); otherwise it waits where it is, keeping what it holds, and
  // no younger warp takes what it lacks in this pass. (The paper's queues
  // are served register queue first; served that way, a younger CTA's warp
  // takes the sets an older CTA's warp is waiting for, and CTAs stall at
  // their barriers half resident: the starvation Sec. 4.3 orders the queues
  // to avoid. Oldest first with no overtaking avoids it for every queue.)
  for (bool moved = true; moved;) {
    moved = false;
    std::vector<uint32_t> waiting;
    for (const auto& queue : queues_) waiting.insert(waiting.end(), queue.begin(), queue.end());
    std::sort(waiting.begin(), waiting.end(), [this](uint32_t a, uint32_t b) { return warps_[a].age < warps_[b].age; });
    Lacks blocked;
    for (uint32_t slot : waiting) {
      if (warps_[slot].queue == kNoQueue) continue;  // (no longer waiting)
      if (!acquire_all(slot, blocked)) continue;
      dequeue(slot);
      make_schedulable(slot);
      moved = true;
    }
  }
  swap_in_registers();
}

// Physical register sets left free after the queues are served take back
// swapped sets, oldest warp first: their lines are read from swap, and the
// warp issues again when they are back. (Scratchpad sets stay in swap until
// their CTA releases them.)
void ZoruaSm::swap_in_registers() {
  if (regs_.swapped_sets() == 0 || regs_.free_sets() == 0) return;
  std::vector<uint32_t> by_age;
  for (uint32_t slot = 0; slot < warps_.size(); ++slot)
    if (warps_[slot].where != Where::Free) by_age.push_back(slot);
  std::sort(by_age.begin(), by_age.end(), [this](uint32_t a, uint32_t b) { return warps_[a].age < warps_[b].age; });
  for (uint32_t slot : by_age) {
    for (uint32_t set = 0; set < regs_.sets_per_owner() && regs_.free_sets() > 0; ++set) {
      if (!regs_.in_swap(slot, set) || warps_[slot].release_pending.test(set)) continue;  // (dead once released)
      regs_.unmap(slot, set);
      regs_.map_physical(slot, set);
      for (uint16_t r = 0; r < kRegsPerSet; ++r) swap_read(slot, swap_.register_line(slot, set * kRegsPerSet + r));
      ++register_sets_swapped_in_;
    }
    if (regs_.swapped_sets() == 0 || regs_.free_sets() == 0) return;
  }
}

// Forward progress: when no warp can issue, the oldest resident CTA's warps
// may use swap beyond the threshold.
bool ZoruaSm::may_exceed_threshold(uint32_t cta) const {
  if (!settings_.forward_progress || schedulable_ > 0) return false;  // some warp can still issue: no need to exceed the threshold
  for (uint32_t c = 0; c < ctas_.size(); ++c)
    if (ctas_[c].valid && !ctas_[c].warps.empty() && ctas_[c].age < ctas_[cta].age) return false;
  return true;
}

bool ZoruaSm::lacks_smem(const Warp& w) const { return !missing_sets(smem_, w.cta, need(w).smem).empty(); }

bool ZoruaSm::lacks_registers(uint32_t slot) const {
  return !missing_sets(regs_, slot, need(warps_[slot]).registers).empty();
}

// Can `missing` sets be mapped: free physical ones and `preemptible` ones
// first, the rest in swap within the threshold (or beyond it, up to the
// swap space, when `may_exceed`)?
bool ZoruaSm::fits(const MappingTable& table, size_t missing, size_t preemptible, bool may_exceed,
                   bool& exceeds) const {
  exceeds = false;
  if (missing <= table.free_sets() + preemptible) return true;
  const uint64_t to_swap = missing - table.free_sets() - preemptible;
  if (table.swapped_sets() + to_swap > table.swap_capacity()) return false;
  exceeds = table.swapped_sets() + to_swap > uint64_t{o_thresh_} * table.physical_sets() / 100;
  return !exceeds || may_exceed;
}

void ZoruaSm::map_all(MappingTable& table, uint32_t owner, const std::vector<uint32_t>& missing) {
  for (uint32_t set : missing)
    if (!table.map_physical(owner, set)) table.map_swap(owner, set);
}

bool ZoruaSm::acquire_all(uint32_t slot, Lacks& blocked) {
  Warp& warp = warps_[slot];
  const bool has_slot = slots_.held(slot, 0) && !slots_.in_swap(slot, 0);
  const auto smem_missing = missing_sets(smem_, warp.cta, need(warp).smem);
  const auto reg_missing = missing_sets(regs_, slot, need(warp).registers);
  Lacks lacks;
  lacks.slot = !has_slot;
  lacks.smem = !smem_missing.empty();
  lacks.registers = !reg_missing.empty();
  const bool overtakes = (lacks.slot && blocked.slot) || (lacks.smem && blocked.smem) ||
                         (lacks.registers && blocked.registers);
  auto wait = [&] {  // no younger warp takes what this one lacks either
    blocked.slot = blocked.slot || lacks.slot;
    blocked.smem = blocked.smem || lacks.smem;
    blocked.registers = blocked.registers || lacks.registers;
    return false;
  };
  if (overtakes) return wait();  // an older warp still waits for it
  const uint32_t victim = !lacks.slot || slots_.free_sets() > 0 ? kNone : slot_victim(slot);
  const bool may_exceed = may_exceed_threshold(warp.cta);
  const auto preempt = reg_missing.size() > regs_.free_sets()
                           ? register_victims(slot, reg_missing.size() - regs_.free_sets())
                           : std::vector<std::pair<uint32_t, uint32_t>>();
  bool smem_exceeds = false, reg_exceeds = false;
  if ((lacks.slot && slots_.free_sets() == 0 && victim == kNone) ||
      !fits(smem_, smem_missing.size(), 0, may_exceed, smem_exceeds) ||
      !fits(regs_, reg_missing.size(), preempt.size(), may_exceed, reg_exceeds))
    return wait();
  forced_swaps_ += smem_exceeds + reg_exceeds;
  for (const auto& [owner, set] : preempt) spill_register_set(owner, set);
  map_all(smem_, warp.cta, smem_missing);
  map_all(regs_, slot, reg_missing);
  restore_spilled_registers(slot);
  if (lacks.slot) take_slot(slot, victim);
  return true;
}

// Physical register sets younger warps hold but do not use now (they wait
// in a queue or at a barrier, with nothing in flight on the set), youngest
// first, at most `count`: an older warp may take them, their contents
// going to swap.
std::vector<std::pair<uint32_t, uint32_t>> ZoruaSm::register_victims(uint32_t slot, size_t count) const {
  std::vector<uint32_t> younger;
  for (uint32_t s = 0; s < warps_.size(); ++s) {
    const Warp& v = warps_[s];
    if (v.age > warps_[slot].age && (v.where == Where::Queued || v.where == Where::AtBarrier)) younger.push_back(s);
  }
  std::sort(younger.begin(), younger.end(), [this](uint32_t a, uint32_t b) { return warps_[a].age > warps_[b].age; });
  std::vector<std::pair<uint32_t, uint32_t>> sets;
  for (uint32_t s : younger)
    for (uint32_t set = 0; set < regs_.sets_per_owner() && sets.size() < count; ++set)
      if (regs_.held(s, set) && !regs_.in_swap(s, set) && warps_[s].in_use[set] == 0) sets.emplace_back(s, set);
  return sets;
}

// The set's 4 registers are written to swap and its physical set freed; the
// warp reads them back when it holds the set again.
void ZoruaSm::spill_register_set(uint32_t slot, uint32_t set) {
  Warp& v = warps_[slot];
  regs_.unmap(slot, set);
  v.release_pending.reset(set);
  v.spilled.set(set);
  for (uint16_t r = 0; r < kRegsPerSet; ++r) swap_write(swap_.register_line(slot, static_cast<uint16_t>(set * kRegsPerSet + r)));
  ++register_sets_spilled_;
  if (v.where == Where::Queued) enqueue(slot);  // it lacks registers now
}

// Sets the warp holds again in the physical register file, whose contents
// were spilled: read back before the warp issues. (A spilled set mapped to
// swap is already there.)
void ZoruaSm::restore_spilled_registers(uint32_t slot) {
  Warp& w = warps_[slot];
  for (uint32_t set = 0; set < regs_.sets_per_owner(); ++set) {
    if (!w.spilled.test(set) || !regs_.held(slot, set)) continue;
    w.spilled.reset(set);
    if (regs_.in_swap(slot, set)) continue;
    for (uint16_t r = 0; r < kRegsPerSet; ++r) swap_read(slot, swap_.register_line(slot, static_cast<uint16_t>(set * kRegsPerSet + r)));
  }
}

// A warp at a barrier, else the youngest warp of a younger CTA waiting in a
// queue, holding a physical slot: the slot a warp without one may take.
uint32_t ZoruaSm::slot_victim(uint32_t slot) const {
  const Warp& warp = warps_[slot];
  uint32_t victim = kNone;
  for (uint32_t s = 0; s < warps_.size(); ++s) {
    const Warp& v = warps_[s];
    if (s == slot || !slots_.held(s, 0) || slots_.in_swap(s, 0)) continue;
    const bool at_barrier = v.where == Where::AtBarrier;
    if (!at_barrier && !(v.where == Where::Queued && v.age > warp.age && v.cta != warp.cta)) continue;
    const bool victim_at_barrier = victim != kNone && warps_[victim].where == Where::AtBarrier;
    if (victim == kNone || (at_barrier && !victim_at_barrier) ||
        (at_barrier == victim_at_barrier && v.age > warps_[victim].age))
      victim = s;
  }
  return victim;
}

// The warp takes a free physical slot, or `victim`'s (whose state goes to
// swap); a warp whose own state is in swap reads it back.
void ZoruaSm::take_slot(uint32_t slot, uint32_t victim) {
  if (victim != kNone) {
    slots_.unmap(victim, 0);
    slots_.map_swap(victim, 0);
    swap_write(swap_.warp_state_line(victim));
    ++warp_state_saves_;
    if (warps_[victim].where == Where::Queued) enqueue(victim);  // now it lacks a slot
  }
  const bool restore = slots_.in_swap(slot, 0);
  if (restore) slots_.unmap(slot, 0);
  slots_.map_physical(slot, 0);
  if (restore) {
    swap_read(slot, swap_.warp_state_line(slot));
    ++warp_state_restores_;
  }
}

void ZoruaSm::shrink_cta_smem(uint32_t cta) {
  // The CTA holds the sets some live warp's phase holds.
  std::bitset<kMaxSmemSets> held_by_phases;
  for (uint32_t slot : ctas_[cta].warps) held_by_phases |= need(warps_[slot]).smem;
  for (uint32_t set = 0; set < smem_.sets_per_owner(); ++set)
    if (!held_by_phases.test(set)) smem_.unmap(cta, set);
}

// --- swap traffic

void ZoruaSm::swap_read(uint32_t slot, uint64_t line) {
  if (!port_) throw std::logic_error("zorua: swap traffic before the SM bound its memory port (bind_memory)");
  Warp& warp = warps_[slot];
  ++swap_reads_;
  const uint64_t back = port_->access(line, /*is_write=*/false, now_, tag_of(slot, slot_generation_[slot]));
  if (back == MechanismMemoryPort::kDeferred) {
    ++warp.undecided;
    ++undecided_reads_;
  } else {
    warp.ready_at = std::max(warp.ready_at, back);
    last_swap_ready_ = std::max(last_swap_ready_, back);
  }
}

void ZoruaSm::swap_write(uint64_t line) {
  if (!port_) throw std::logic_error("zorua: swap traffic before the SM bound its memory port (bind_memory)");
  ++swap_writes_;
  port_->access(line, /*is_write=*/true, now_, 0);
}

void ZoruaSm::fetch_swapped_operands(uint32_t slot, const WarpInstruction& inst) {
  const Warp& warp = warps_[slot];
  if (regs_.swapped_sets() > 0 && !acts_at_issue(inst.op)) {
    for (uint8_t i = 0; i < inst.num_src; ++i) {
      const uint16_t r = inst.src[i];
      if (r == kNoReg || !regs_.in_swap(slot, r / kRegsPerSet)) continue;
      swap_read(slot, swap_.register_line(slot, r));
      ++swap_register_reads_;
    }
  }
  if (inst.op == OpClass::SharedLoad) {
    for (uint64_t line : swapped_smem_lines(warp.cta, inst)) {
      swap_read(slot, line);
      ++swap_smem_reads_;
    }
  }
}

// The LDS/STS's scratchpad sets are looked up in the mapping table, once
// each (Sec. 4.5: the compute units access the tables first).
void ZoruaSm::look_up_smem_sets(uint32_t cta, const WarpInstruction& inst) {
  std::bitset<kMaxSmemSets> seen;
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) {
    if (!(inst.active_mask >> lane & 1u)) continue;
    const uint32_t set = static_cast<uint32_t>(inst.lane_address(lane) / kSmemSetBytes);
    if (set >= smem_.sets_per_owner() || seen.test(set)) continue;
    seen.set(set);
    smem_.lookup(cta, set);
  }
}

// The swap lines of the scratchpad bytes the LDS/STS's active lanes touch in
// the CTA's swapped sets, each once (consecutive lanes share lines).
std::vector<uint64_t> ZoruaSm::swapped_smem_lines(uint32_t cta, const WarpInstruction& inst) const {
  std::vector<uint64_t> lines;
  if (smem_.swapped_sets() == 0) return lines;
  for (unsigned lane = 0; lane < kWarpLanes; ++lane) {
    if (!(inst.active_mask >> lane & 1u)) continue;
    const uint32_t byte = static_cast<uint32_t>(inst.lane_address(lane));
    const uint32_t set = byte / kSmemSetBytes;
    if (set >= smem_.sets_per_owner() || !smem_.in_swap(cta, set)) continue;
    const uint64_t line = swap_.smem_line(cta, byte);
    if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
  }
  return lines;
}

// --- checks, probes, counters

std::string ZoruaSm::check_invariants() const {
  std::ostringstream err;
  uint32_t schedulable = 0;
  for (uint32_t slot = 0; slot < warps_.size(); ++slot) {
    const Warp& w = warps_[slot];
    if (w.where != Where::Schedulable) continue;
    ++schedulable;
    if (slots_.entry(slot, 0) == MappingTable::kNotHeld || slots_.in_swap(slot, 0))
      err << "schedulable warp " << slot << " holds no physical warp slot; ";
    if (lacks_registers(slot)) err << "schedulable warp " << slot << " lacks a register set of phase " << w.phase << "; ";
    if (lacks_smem(w)) err << "schedulable warp " << slot << " lacks a scratchpad set of phase " << w.phase << "; ";
  }
  if (schedulable != schedulable_) err << "schedulable count " << schedulable_ << " != " << schedulable << "; ";
  if (slots_.physical_in_use() > sm_.max_warps) err << "more physical warp slots in use than exist; ";
  return err.str();
}

std::string ZoruaSm::describe() const {
  std::ostringstream out;
  out << "zorua coordinator: thread/barrier queue " << thread_queue_length() << ", scratchpad queue "
      << scratchpad_queue_length() << ", register queue " << register_queue_length() << ", schedulable "
      << schedulable_ << ", o_thresh " << o_thresh_ << "%; registers " << regs_.free_sets() << " sets free, "
      << regs_.swapped_sets() << " in swap; scratchpad " << smem_.free_sets() << " sets free, "
      << smem_.swapped_sets() << " in swap; warp slots " << slots_.free_sets() << " free, " << slots_.swapped_sets()
      << " warps' state in swap; " << (thread_queue_length() - queues_[kThreadQueue].size())
      << " warps at a barrier";
  const char* names[] = {"thread", "scratchpad", "register"};
  for (unsigned q = 0; q < 3; ++q) {
    if (queues_[q].empty()) continue;
    out << "; " << names[q] << " queue (oldest first):";
    constexpr size_t kListed = 8;
    for (size_t i = 0; i < queues_[q].size() && i < kListed; ++i) {
      const uint32_t slot = queues_[q][i];
      out << " w" << slot << " (CTA slot " << warps_[slot].cta << ", phase " << warps_[slot].phase << ")";
    }
    if (queues_[q].size() > kListed) out << " and " << queues_[q].size() - kListed << " more";
  }
  return out.str();
}

uint32_t ZoruaSm::thread_queue_length() const {
  uint32_t at_barrier = 0;
  for (const Warp& w : warps_) at_barrier += w.where == Where::AtBarrier;
  return static_cast<uint32_t>(queues_[kThreadQueue].size()) + at_barrier;
}

void ZoruaSm::collect(ActivityCounters& out) const {
  // Each lookup reads an entry; each update writes one.
  out["register_mapping_table"].reads += regs_.lookups();
  out["register_mapping_table"].writes += regs_.updates();
  out["scratchpad_mapping_table"].reads += smem_.lookups();
  out["scratchpad_mapping_table"].writes += smem_.updates();
  out["warp_slot_mapping_table"].reads += slots_.lookups();
  out["warp_slot_mapping_table"].writes += slots_.updates();
  // A warp entering a queue writes an entry, leaving it reads one.
  out["coordinator_queue"].reads += queue_reads_;
  out["coordinator_queue"].writes += queue_writes_;
}

void ZoruaSm::counters(std::vector<std::pair<std::string, uint64_t>>& c) const {
  c.emplace_back("phase_changes", phase_changes_);
  c.emplace_back("swap_reads", swap_reads_);
  c.emplace_back("swap_writes", swap_writes_);
  c.emplace_back("swap_register_reads", swap_register_reads_);
  c.emplace_back("swap_register_writes", swap_register_writes_);
  c.emplace_back("swap_scratchpad_reads", swap_smem_reads_);
  c.emplace_back("swap_scratchpad_writes", swap_smem_writes_);
  c.emplace_back("warp_state_saves", warp_state_saves_);
  c.emplace_back("warp_state_restores", warp_state_restores_);
  c.emplace_back("register_sets_mapped_to_swap", regs_.swap_mappings());
  c.emplace_back("scratchpad_sets_mapped_to_swap", smem_.swap_mappings());
  c.emplace_back("register_sets_swapped_in", register_sets_swapped_in_);
  c.emplace_back("register_sets_spilled", register_sets_spilled_);
  c.emplace_back("forced_swaps", forced_swaps_);
  c.emplace_back("ctas_held_back", ctas_held_back_);
  c.emplace_back("register_table_lookups", regs_.lookups());
  c.emplace_back("scratchpad_table_lookups", smem_.lookups());
  c.emplace_back("scratchpad_table_updates", smem_.updates());
  c.emplace_back("warp_slot_table_updates", slots_.updates());
  c.emplace_back("threshold_raises", threshold_raises_);
  c.emplace_back("threshold_lowers", threshold_lowers_);
  c.emplace_back("schedulable_warp_cycles", schedulable_warp_cycles_);
}

}  // namespace smshare::zorua
