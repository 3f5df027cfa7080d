#include "hw/sharing/jatala/jatala_sm.hpp"

namespace smshare::jatala {

// Registers: the baseline's footprint (threads padded to whole warps,
// GPGPU-Sim's allocation); it gives Table VI exactly, and so does 508 x 24 for
// b+tree (docs/jatala-reproduction.md). Scratchpad: the kernel's bytes, not
// rounded to sm.smem_alloc_granularity: Table VIII's NW1/NW2 entries at 50 %
// and 70 % (8 CTAs) need the exact 2180 B.
uint64_t units_per_cta(Resource r, const SmSpec& sm, const KernelResources& k) {
  return r == Resource::Registers ? cta_footprint(sm, k).registers : k.smem_bytes_per_cta;
}

JatalaSm::JatalaSm(Resource r, const SmSpec& sm, const KernelResources& k, const std::string& origin,
                   const Settings& opt, uint32_t sm_id, DweReference* reference)
    : resource_(r),
      banks_(sm.register_banks),
      footprint_(cta_footprint(sm, k)),
      occupancy_(sharing_occupancy(r, sm, k, origin, opt.sharing_percent)),
      split_(split_ctas(r == Resource::Registers ? sm.registers : sm.scratchpad_bytes, units_per_cta(r, sm, k),
                        opt.sharing_percent, occupancy_.ctas_per_sm)),
      percent_(opt.sharing_percent),
      private_regs_(private_units(k.regs_per_thread, opt.sharing_percent)),
      private_bytes_(private_units(k.smem_bytes_per_cta, opt.sharing_percent)),
      table_(split_.unshared, split_.shared_pairs, sm.max_ctas),
      reg_locks_(split_.shared_pairs, footprint_.warps, opt.deadlock_avoidance),
      spm_locks_(split_.shared_pairs),
      owner_(split_.shared_pairs, -1),
      waiting_(sm.max_warps, 0),
      waiting_since_(sm.max_warps, 0),
      waiting_phase_(sm.max_warps, 0),
      phase_names_(k.phase_names),
      phase_lock_waits_(k.phase_names.size(), 0),
      phase_lock_wait_cycles_(k.phase_names.size(), 0),
      rng_(0x9E3779B97F4A7C15ull * (sm_id + 1)) {
  if (opt.dynamic_warp_execution)
    dwe_ = std::make_unique<DynamicWarpExecution>(sm_id == 0, opt.dwe_period_cycles, opt.dwe_step_percent,
                                                  reference ? reference : &own_reference_);
}

bool JatalaSm::admit(uint32_t cta_slot, CtaAllocation& a) {
  if (table_.resident_ctas() >= occupancy_.ctas_per_sm) return false;
  Seat s;
  if (!table_.place(cta_slot, s)) return false;
  a = {cta_slot, footprint_.registers, footprint_.smem_bytes, footprint_.threads, footprint_.warps};
  if (s.shared) {
    // A pair holds Rtb (1 + t): each member is charged half of it.
    uint32_t& share = resource_ == Resource::Registers ? a.registers : a.smem_bytes;
    share = static_cast<uint32_t>(uint64_t{share} * (200 - percent_) / 200);
    ++ctas_shared_;
    update_owner(s.pair);
  } else {
    ++ctas_unshared_;
  }
  regs_allocated_ += a.registers;
  smem_allocated_ += a.smem_bytes;
  return true;
}

void JatalaSm::release(const CtaAllocation& a) {
  const Seat s = table_.seat(a.cta_slot);  // the CTA's role is the pair table's, not the SM's
  table_.remove(a.cta_slot);
  regs_allocated_ -= a.registers;
  smem_allocated_ -= a.smem_bytes;
  if (!s.shared) return;
  spm_locks_.release(s.pair, s.member);
  const int before = owner_[s.pair];
  update_owner(s.pair);
  if (before == s.member && owner_[s.pair] >= 0 && owner_[s.pair] != s.member) ++ownership_transfers_;
}

OperandRoute JatalaSm::route(const WarpContext& w, uint16_t reg) {
  const uint16_t bank = static_cast<uint16_t>((reg + w.slot) % banks_);
  if (resource_ != Resource::Registers || reg < private_regs_) return {false, bank, 0};  // step (c)
  const Seat& s = table_.seat(w.cta_slot);
  if (!s.shared) return {false, bank, 0};                                                // step (b)
  if (!reg_locks_.holds(s.pair, s.member, w.warp_in_cta)) return {true, bank, 0};       // step (e)
  return {false, bank, 0};
}

bool JatalaSm::may_issue(const WarpContext& w, const WarpInstruction& inst, uint64_t cycle) {
  const Seat& s = table_.seat(w.cta_slot);
  if (!s.shared) return true;
  if (dwe_ && is_memory(inst.op) && !is_shared_memory(inst.op) && owner_[s.pair] != s.member) {
    if (!dwe_->allow(static_cast<uint32_t>(next_random() % 100))) {
      ++dwe_refusals_;
      dwe_refused_cycle_ = cycle;
      return false;
    }
  }
  if (needs_lock(inst)) {
    const LockResult r = resource_ == Resource::Registers ? reg_locks_.acquire(s.pair, s.member, w.warp_in_cta)
                                                          : spm_locks_.acquire(s.pair, s.member);
    if (r == LockResult::Busy || r == LockResult::Refused) {
      if (!waiting_[w.slot] && r == LockResult::Refused) ++rule_refusals_;
      set_waiting(w.slot, true, cycle, inst.phase);
      return false;
    }
    if (r == LockResult::Granted) update_owner(s.pair);
  }
  set_waiting(w.slot, false, cycle);
  return true;
}

// The lookup that let the instruction through is read once, however many
// cycles a full pipeline kept it from issuing (lock_array.hpp).
void JatalaSm::issued(const WarpContext& w, const WarpInstruction& inst) {
  if (!table_.seat(w.cta_slot).shared || !needs_lock(inst)) return;
  if (resource_ == Resource::Registers) reg_locks_.count_issue_lookup();
  else spm_locks_.count_issue_lookup();
}

uint8_t JatalaSm::priority_class(const WarpContext& w) const {
  if (!table_.resident(w.cta_slot)) return 1;
  const Seat& s = table_.seat(w.cta_slot);
  if (!s.shared) return 1;
  return owner_[s.pair] == s.member ? 0 : 2;
}

void JatalaSm::warp_finished(const WarpContext& w) {
  set_waiting(w.slot, false, 0);
  const Seat& s = table_.seat(w.cta_slot);
  if (!s.shared || resource_ != Resource::Registers) return;
  reg_locks_.release(s.pair, s.member, w.warp_in_cta);
  update_owner(s.pair);
}

void JatalaSm::collect(ActivityCounters& out) const {
  const bool regs = resource_ == Resource::Registers;
  auto& lock = out[regs ? "lock_array_register" : "lock_array_scratchpad"];
  // Lookups of instructions that issued and of operands, plus one lookup per
  // cycle a refused warp busy-waits.
  lock.reads += (regs ? reg_locks_.reads() : spm_locks_.reads()) + lock_wait_cycles_;
  lock.writes += regs ? reg_locks_.writes() : spm_locks_.writes();
  lock.instances = 1;  // per SM; the report multiplies by SMs
  // The partner id table and owner bits are written when CTAs are seated
  // and ownership changes, read on every lock decision.
  auto& partner = out["partner_id_table"];
  partner.writes += ctas_shared_ + ctas_unshared_;
  partner.reads += lock_decisions();
  partner.instances = 1;
  auto& owner = out["owner_bits"];
  owner.writes += owner_changes_;
  owner.reads += lock_decisions();
  owner.instances = 1;
}

void JatalaSm::counters(std::vector<std::pair<std::string, uint64_t>>& c) const {
  const bool regs = resource_ == Resource::Registers;
  c.push_back({"unshared_ctas_launched", ctas_unshared_});
  c.push_back({"shared_ctas_launched", ctas_shared_});
  c.push_back({"lock_acquisitions", regs ? reg_locks_.acquisitions() : spm_locks_.acquisitions()});
  c.push_back({"lock_waits", lock_waits_});
  c.push_back({"lock_wait_cycles", lock_wait_cycles_});
  c.push_back({"deadlock_rule_refusals", rule_refusals_});
  c.push_back({"ownership_transfers", ownership_transfers_});
  c.push_back({"dwe_refusals", dwe_refusals_});
  for (size_t i = 0; i < phase_names_.size(); ++i) {
    c.push_back({"phase_lock_waits." + phase_names_[i], phase_lock_waits_[i]});
    c.push_back({"phase_lock_wait_cycles." + phase_names_[i], phase_lock_wait_cycles_[i]});
  }
}

bool JatalaSm::needs_lock(const WarpInstruction& inst) const {
  if (resource_ == Resource::Registers) {
    for (uint8_t i = 0; i < inst.num_src; ++i)
      if (inst.src[i] != kNoReg && inst.src[i] >= private_regs_) return true;
    for (uint8_t i = 0; i < inst.num_dst; ++i)
      if (inst.dst[i] != kNoReg && inst.dst[i] >= private_regs_) return true;
    return false;
  }
  if (!is_shared_memory(inst.op)) return false;
  // Scratchpad addresses are offsets in the CTA's allocation: the first
  // floor(S_tb t) bytes are private (Fig. 4).
  for (unsigned lane = 0; lane < kWarpLanes; ++lane)
    if ((inst.active_mask >> lane & 1u) && inst.lane_address(lane) >= private_bytes_) return true;
  return false;
}

void JatalaSm::update_owner(uint32_t pair) {
  bool holds[2];
  for (uint8_t m = 0; m < 2; ++m)
    holds[m] = resource_ == Resource::Registers ? reg_locks_.held_by(pair, m) > 0 : spm_locks_.holder(pair) == m;
  const int o = table_.owner(pair, holds);
  if (o != owner_[pair]) {
    owner_[pair] = o;
    ++epoch_;
    ++owner_changes_;
  }
}

// A warp refused by a lock busy-waits (Fig. 3: retry in another cycle) from
// the cycle of its first refusal to the cycle it gets the lock.
void JatalaSm::set_waiting(uint32_t slot, bool on, uint64_t cycle, uint16_t phase) {
  if (waiting_[slot] == on) return;
  waiting_[slot] = on;
  const bool phased = !phase_names_.empty();
  if (on) {
    ++waiting_count_;
    ++lock_waits_;
    waiting_since_[slot] = cycle;
    waiting_phase_[slot] = phase;
    if (phased) ++phase_lock_waits_.at(phase);
  } else {
    --waiting_count_;
    if (cycle > waiting_since_[slot]) {
      lock_wait_cycles_ += cycle - waiting_since_[slot];
      if (phased) phase_lock_wait_cycles_[waiting_phase_[slot]] += cycle - waiting_since_[slot];
    }
  }
}

uint64_t JatalaSm::next_random() {  // splitmix64: deterministic per SM
  uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t JatalaSm::lock_decisions() const {
  return lock_waits_ + (resource_ == Resource::Registers ? reg_locks_.acquisitions() : spm_locks_.acquisitions());
}

}  // namespace smshare::jatala
