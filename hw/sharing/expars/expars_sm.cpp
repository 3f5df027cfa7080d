#include "hw/sharing/expars/expars_sm.hpp"

#include <algorithm>
#include <stdexcept>

#include "hw/sm/bank_arbitrator.hpp"

namespace smshare::expars {

namespace {

KernelResources with_registers(const KernelResources& k, uint32_t regs_per_thread) {
  KernelResources left = k;
  left.regs_per_thread = regs_per_thread;
  return left;
}

}  // namespace

ExparsSm::ExparsSm(const SmSpec& sm, const KernelResources& k, const std::string& origin, const Settings& s)
    : smem_latency_(sm.smem_latency),
      plan_(admission(sm, k, origin, s.tau_percent)),
      rf_cta_(cta_footprint(sm, k)),
      mixed_cta_(cta_footprint(sm, with_registers(k, plan_.start_reg))),
      // A kernel without registers keeps none in the scratchpad: Start_Reg 1 of 1.
      rat_(plan_.cta_rf, k.regs_per_thread == 0 ? 1 : plan_.start_reg, std::max<uint32_t>(k.regs_per_thread, 1),
           std::max<uint32_t>(rf_cta_.warps, 1), sm.max_ctas),
      allocator_(sm.scratchpad_bytes, sm.max_ctas, rf_cta_.smem_bytes, plan_.cta_mix ? rat_.region_bytes() : 0),
      cache_(s.operand_cache_bytes, sm.register_banks, sm.max_warps, kMaxArchRegs),
      warps_(sm.max_warps) {
  if (plan_.cta_mix && rat_.region_bytes() != plan_.spill_bytes_per_cta)
    throw std::logic_error("EXPARS: the RAT's register region (" + std::to_string(rat_.region_bytes()) +
                           " B) differs from the admission's spill (" + std::to_string(plan_.spill_bytes_per_cta) +
                           " B)");
  rules_.max_instructions = s.bundle_instructions;
  rules_.start_reg = plan_.cta_mix ? plan_.start_reg : kMaxArchRegs;
  rules_.cache_lines = cache_.lines();
}

// --- admission

bool ExparsSm::admit(uint32_t cta_slot, CtaAllocation& a) {
  if (cta_slot >= plan_.cta_rf + plan_.cta_mix) return false;
  const bool mixed = cta_slot >= plan_.cta_rf;
  // The plan fits every CTA it admits, so the two ends never meet.
  if (!allocator_.allocate(cta_slot, mixed))
    throw std::logic_error("EXPARS: the scratchpad allocator refused CTA slot " + std::to_string(cta_slot) +
                           " of a plan that fits");
  const CtaFootprint& f = mixed ? mixed_cta_ : rf_cta_;
  uint32_t smem = f.smem_bytes;
  if (mixed) {
    const ScratchpadRegion regs = allocator_.register_region(cta_slot);
    rat_.set_sbr(cta_slot, regs.begin);
    smem += regs.bytes();
    ++mixed_resident_;
    ++sbr_writes_;
  } else {
    ++resident_rf_;
  }
  a = {cta_slot, f.registers, smem, f.threads, f.warps};
  return true;
}

void ExparsSm::release(const CtaAllocation& a) {
  allocator_.release(a.cta_slot);
  if (a.cta_slot >= plan_.cta_rf) {
    rat_.clear_sbr(a.cta_slot);
    --mixed_resident_;
    ++sbr_writes_;
  } else {
    --resident_rf_;
  }
}

uint32_t ExparsSm::registers_allocated() const {
  return resident_rf_ * rf_cta_.registers + mixed_resident_ * mixed_cta_.registers;
}

uint32_t ExparsSm::smem_allocated() const {
  return resident_rf_ * rf_cta_.smem_bytes + mixed_resident_ * (mixed_cta_.smem_bytes + rat_.region_bytes());
}

// --- register route

OperandRoute ExparsSm::route(const WarpContext& w, uint16_t reg, bool is_write) {
  if (!spilled(w.cta_slot, reg))
    return {false, static_cast<uint16_t>((reg + w.slot) % cache_.banks()), 0, BankGroup::RegisterFile};
  const int line = cache_.find(w.slot, reg);
  if (line == OperandCache::kAbsent) {
    // The gate lets a bundle issue only once its registers are cached, so
    // this never happens in a run (operand_cache_misses is 0: the tests
    // check it); an access out of turn waits.
    ++misses_;
    return {true, 0, 0, BankGroup::OperandCache};
  }
  if (is_write) cache_.write(static_cast<uint32_t>(line));
  else cache_.read(static_cast<uint32_t>(line));
  return {false, static_cast<uint16_t>(cache_.bank_of_line(static_cast<uint32_t>(line))), 0,
          BankGroup::OperandCache};
}

// --- warp gate

bool ExparsSm::may_issue(const WarpContext& w, uint64_t cycle) {
  WarpState& st = warps_[w.slot];
  if (st.phase == Phase::AtBarrier) {
    // The SM asks only once the barrier has opened: the next bundle may
    // take its registers now.
    if (st.decoded.empty()) st.phase = Phase::AwaitDecode;
    else start_bundle(w.slot, /*continuing=*/true);
  }
  return st.phase == Phase::Ready && cycle >= st.ready_at;
}

void ExparsSm::issued(const WarpContext& w, const WarpInstruction& inst) {
  WarpState& st = warps_[w.slot];
  if (st.phase != Phase::Ready || st.remaining == 0)
    throw std::logic_error("EXPARS: warp slot " + std::to_string(w.slot) + " issued outside a ready bundle");
  ++line_events_;  // the bundle's end comes nearer: its lines may unpin
  // The SM never reads a barrier's or an exit's operands, so nothing would
  // release a hold on them: it would pin the line until the warp finishes.
  if (!acts_at_issue(inst.op)) {
    account(w, inst, /*sources=*/true, /*hold=*/true);
    account(w, inst, /*sources=*/false, /*hold=*/true);
  }
  if (--st.remaining > 0) return;
  // A warp waiting at a barrier must not hold operand-cache lines: the warps
  // it waits for may need them (the paper's queueing would deadlock here).
  if (inst.op == OpClass::Barrier) st.phase = Phase::AtBarrier;
  else if (!st.decoded.empty()) start_bundle(w.slot, /*continuing=*/true);
  else st.phase = Phase::AwaitDecode;
}

// --- hooks

std::unique_ptr<WarpProgram> ExparsSm::decode(const WarpContext& w, std::unique_ptr<WarpProgram> program) {
  ++line_events_;
  WarpState& st = warps_[w.slot];
  st = WarpState{};
  st.valid = true;
  st.cta_slot = w.cta_slot;
  st.warp_in_cta = w.warp_in_cta;
  return std::make_unique<BundleReader>(std::move(program), rules_, *this, w.slot);
}

void ExparsSm::decoded(uint32_t slot, const Bundle& bundle) {
  WarpState& st = warps_[slot];
  st.decoded.push_back(bundle);
  ++prefs_;
  if (st.phase == Phase::AwaitDecode) start_bundle(slot, /*continuing=*/st.bundle > 0);
}

void ExparsSm::start_bundle(uint32_t slot, bool continuing) {
  ++line_events_;
  WarpState& st = warps_[slot];
  st.current = st.decoded.front();
  st.decoded.pop_front();
  ++st.bundle;
  st.remaining = st.current.instructions;
  ++bitvector_reads_;
  bool needs_scratchpad = false;
  if (st.cta_slot >= rat_.start_cta())
    for (uint32_t r = rat_.start_reg(); r <= rat_.max_reg() && !needs_scratchpad; ++r)
      needs_scratchpad = st.current.used.test(r);
  if (!needs_scratchpad) {
    st.phase = Phase::Ready;
    st.ready_at = 0;
    return;
  }
  ++prefetches_;
  st.phase = Phase::Queued;
  if (!continuing) {
    queue_.push_back(slot);
    return;
  }
  // To the front, behind a head whose transfers are under way.
  auto at = queue_.begin();
  if (at != queue_.end() && warps_[*at].phase == Phase::Filling) ++at;
  queue_.insert(at, slot);
}

void ExparsSm::account(const WarpContext& w, const WarpInstruction& inst, bool sources, bool hold) {
  ++line_events_;
  const uint8_t n = sources ? inst.num_src : inst.num_dst;
  for (uint8_t i = 0; i < n; ++i) {
    const uint16_t reg = sources ? inst.src[i] : inst.dst[i];
    if (reg == kNoReg || !spilled(w.cta_slot, reg)) continue;
    const int line = cache_.find(w.slot, reg);
    if (line == OperandCache::kAbsent) continue;  // a miss: the route makes it wait and counts it
    if (hold) cache_.hold(static_cast<uint32_t>(line));
    else cache_.release(static_cast<uint32_t>(line));
  }
}

void ExparsSm::operands_read(const WarpContext& w, const WarpInstruction& inst) {
  account(w, inst, /*sources=*/true, /*hold=*/false);
}

void ExparsSm::register_written(const WarpContext& w, uint16_t reg) {
  if (!spilled(w.cta_slot, reg)) return;
  ++line_events_;
  const int line = cache_.find(w.slot, reg);
  if (line != OperandCache::kAbsent) cache_.release(static_cast<uint32_t>(line));
}

void ExparsSm::warp_finished(const WarpContext& w) {
  ++line_events_;
  cache_.drop_warp(w.slot);  // its registers are dead: nothing to write back
  queue_.erase(std::remove(queue_.begin(), queue_.end(), w.slot), queue_.end());
  warps_[w.slot] = WarpState{};
}

uint64_t ExparsSm::next_wake() const {
  // 0: the next cycle the SM runs. (A fill's data on its way needs no step:
  // waits_on_time keeps the SM ticking until the warp may issue.)
  return queue_.empty() ? MechanismHooks::kNever : 0;
}

bool ExparsSm::waits_on_time(uint64_t cycle) const {
  return !transfers_.empty() || (!queue_.empty() && !blocked_) || latest_ready_ > cycle;
}

void ExparsSm::step(uint64_t cycle) {
  if (cycle == last_step_) return;
  last_step_ = cycle;
  if (queue_.empty()) return;
  const uint32_t head = queue_.front();
  WarpState& st = warps_[head];
  if (st.phase == Phase::Queued) {
    if (blocked_ && blocked_head_ == head && blocked_events_ == line_events_) return;  // the same plan would fail
    if (!place_head(head)) {
      if (!blocked_) blocked_since_ = cycle;
      blocked_ = true;
      blocked_head_ = head;
      blocked_events_ = line_events_;
      return;
    }
    if (blocked_) space_waits_ += cycle - blocked_since_;
    blocked_ = false;
    st.phase = Phase::Filling;
    st.ready_at = cycle;
  }
  if (!transfers_.empty()) {
    if (!scratchpad_free(cycle)) {
      ++bank_waits_;
      return;
    }
    const Transfer t = transfers_.front();
    transfers_.pop_front();
    take_scratchpad(t.write, cycle);
    if (t.write) {
      ++writebacks_;
      st.ready_at = cycle + 1;
    } else {
      cache_.fill(t.line);
      ++fills_;
      st.ready_at = cycle + smem_latency_;
    }
  }
  if (transfers_.empty()) {
    // Ready when the last fill's data is back (or the line the last
    // write-back freed is free).
    st.phase = Phase::Ready;
    latest_ready_ = std::max(latest_ready_, st.ready_at);
    queue_.pop_front();
  }
}

bool ExparsSm::place_head(uint32_t slot) {
  WarpState& st = warps_[slot];
  // What each line can be for this plan: taken (pinned, or already the
  // warp's), evictable, or free.
  std::vector<LineUse>& use = line_use_;
  use.resize(cache_.lines());
  uint32_t available = 0;
  for (uint32_t i = 0; i < cache_.lines(); ++i) {
    const OperandCache::Line& l = cache_.line(i);
    use[i] = !l.valid ? LineUse::Free : pinned(l) ? LineUse::Taken : LineUse::Evictable;
    available += use[i] != LineUse::Taken;
  }
  uint32_t hits = 0, needed = 0;
  for (uint32_t r = rat_.start_reg(); r <= rat_.max_reg(); ++r) {
    if (!st.current.used.test(r)) continue;
    const int line = cache_.find(slot, static_cast<uint16_t>(r));
    if (line == OperandCache::kAbsent) {
      ++needed;
    } else {
      available -= use[static_cast<uint32_t>(line)] != LineUse::Taken;
      use[static_cast<uint32_t>(line)] = LineUse::Taken;
      ++hits;
    }
  }
  // Any free or evictable line can take any register: the plan fits iff
  // there are enough of them (nothing has changed yet).
  if (needed > available) return false;
  std::vector<std::pair<uint16_t, uint32_t>>& placed = placed_;
  placed.clear();
  for (uint32_t r = rat_.start_reg(); r <= rat_.max_reg(); ++r) {
    if (!st.current.used.test(r) || cache_.find(slot, static_cast<uint16_t>(r)) != OperandCache::kAbsent) continue;
    const uint32_t line = choose_line(cache_.preferred_bank(slot, static_cast<uint16_t>(r)), use);
    use[line] = LineUse::Taken;
    placed.emplace_back(static_cast<uint16_t>(r), line);
  }
  // Commit: the hits now belong to this bundle; the other lines are freed
  // (write-backs first) and filled with the registers read before written.
  hits_ += hits;
  for (uint32_t r = rat_.start_reg(); r <= rat_.max_reg(); ++r) {
    if (!st.current.used.test(r)) continue;
    const int line = cache_.find(slot, static_cast<uint16_t>(r));
    if (line != OperandCache::kAbsent) cache_.claim(static_cast<uint32_t>(line), st.bundle);
  }
  for (const auto& [reg, line] : placed) {
    if (!cache_.line(line).valid) continue;
    ++evictions_;
    if (cache_.evict(line)) transfers_.push_back({true, line});
  }
  for (const auto& [reg, line] : placed) {
    cache_.allocate(line, slot, reg, rat_.address(st.cta_slot, st.warp_in_cta, reg), st.bundle);
    if (st.current.live_in.test(reg)) transfers_.push_back({false, line});
    else ++allocations_without_fill_;
  }
  return true;
}

uint32_t ExparsSm::choose_line(uint32_t preferred_bank, const std::vector<LineUse>& use) const {
  const uint32_t lines = cache_.lines(), banks = cache_.banks();
  // A free line of the register's bank, then any free line, then an
  // evictable line of its bank, then any evictable line.
  for (int pass = 0; pass < 4; ++pass) {
    const bool own_bank = pass % 2 == 0;
    const LineUse wanted = pass < 2 ? LineUse::Free : LineUse::Evictable;
    for (uint32_t i = own_bank ? preferred_bank : 0; i < lines; i += own_bank ? banks : 1)
      if (use[i] == wanted) return i;
  }
  throw std::logic_error("EXPARS: no line for a register of a plan that fits");
}

bool ExparsSm::scratchpad_free(uint64_t cycle) const {
  if (arbitrator_ == nullptr) throw std::logic_error("EXPARS: the prefetcher runs without the SM's bank arbitrator");
  const uint32_t banks = arbitrator_->group(BankGroup::Scratchpad).banks();
  for (uint32_t b = 0; b < banks; ++b)
    if (arbitrator_->taken(BankGroup::Scratchpad, static_cast<uint16_t>(b), cycle)) return false;
  return true;
}

void ExparsSm::take_scratchpad(bool is_write, uint64_t cycle) {
  // A warp register is one 4-byte word in each of the 32 banks (Sec. 3.3.2).
  const uint32_t banks = arbitrator_->group(BankGroup::Scratchpad).banks();
  for (uint32_t b = 0; b < banks; ++b) arbitrator_->request(BankGroup::Scratchpad, static_cast<uint16_t>(b), is_write, cycle);
}

uint32_t ExparsSm::schedulable_warps(uint64_t cycle) const {
  uint32_t n = 0;
  for (const WarpState& w : warps_) n += w.valid && w.phase == Phase::Ready && w.remaining > 0 && cycle >= w.ready_at;
  return n;
}

void ExparsSm::collect(ActivityCounters& out) const {
  const uint64_t oc_reads = arbitrator_ ? arbitrator_->group(BankGroup::OperandCache).total_reads() : 0;
  const uint64_t oc_writes = arbitrator_ ? arbitrator_->group(BankGroup::OperandCache).total_writes() : 0;
  const uint64_t rf_accesses =
      arbitrator_ ? arbitrator_->register_file().total_reads() + arbitrator_->register_file().total_writes() : 0;
  // Operand reads and result writes, plus a line read out per write-back and
  // written per fill.
  auto& bank = out["operand_cache_bank"];
  bank.reads += oc_reads + writebacks_;
  bank.writes += oc_writes + fills_;
  bank.instances = cache_.banks();
  // Tags: looked up for every register a bundle places (hit or not), every
  // eviction and every result write (the dirty bit); written when a line is
  // allocated and when it turns dirty.
  const uint64_t allocations = fills_ + allocations_without_fill_;
  auto& tags = out["operand_cache_tags"];
  tags.reads += hits_ + allocations + evictions_ + oc_writes;
  tags.writes += allocations + oc_writes;
  tags.instances = 1;
  // The RAT: the judgement logic reads Start_CTA and Start_Reg for every
  // register access, address generation reads the SBR for every transfer;
  // the SBR is written when a mixed CTA starts or ends.
  auto& rat = out["register_allocation_table"];
  rat.reads += rf_accesses + oc_reads + oc_writes + fills_ + writebacks_;
  rat.writes += sbr_writes_;
  rat.instances = 1;
  // The prefetcher's bit-vector table: a PREF written at decode, read when
  // its bundle starts.
  auto& bits = out["prefetch_bitvector_table"];
  bits.reads += bitvector_reads_;
  bits.writes += prefs_;
  bits.instances = 1;
}

void ExparsSm::counters(std::vector<std::pair<std::string, uint64_t>>& c) const {
  c.push_back({"pref_instructions", prefs_});
  c.push_back({"bundles_prefetched", prefetches_});
  c.push_back({"operand_cache_hits", hits_});
  c.push_back({"operand_cache_misses", misses_});
  c.push_back({"operand_cache_fills", fills_});
  c.push_back({"operand_cache_allocations_without_fill", allocations_without_fill_});
  c.push_back({"operand_cache_evictions", evictions_});
  c.push_back({"operand_cache_writebacks", writebacks_});
  c.push_back({"prefetch_space_wait_cycles", space_waits_});
  c.push_back({"prefetch_bank_wait_cycles", bank_waits_});
  c.push_back({"scratchpad_register_bytes", (fills_ + writebacks_) * kWarpRegisterBytes});
}

}  // namespace smshare::expars
