#include "hw/sm/operand_collectors.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace smshare {

namespace {

// The bit set of a pool's first n units.
uint64_t first_units(uint32_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// The slots of `src` that name a register (not kNoReg), as bits 0-3. On
// x86-64 the four 16-bit slots are compared at once (7 host instructions; a
// loop over the slots that kept the named ones cost about 20 an allocation).
uint32_t register_slots(const std::array<uint16_t, kMaxSrcRegs>& src) {
  static_assert(kMaxSrcRegs == 4, "the slots fill the low 8 bytes of a vector");
#if defined(__SSE2__)
  const __m128i slots = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src.data()));
  const __m128i empty = _mm_cmpeq_epi16(slots, _mm_set1_epi16(static_cast<short>(kNoReg)));
  // Packed to a byte per slot: bytes 0-3 are slots 0-3.
  return ~static_cast<uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(empty, empty))) & 0xFu;
#else
  uint32_t named = 0;
  for (uint32_t i = 0; i < kMaxSrcRegs; ++i) named |= uint32_t{src[i] != kNoReg} << i;
  return named;
#endif
}

}  // namespace

OperandCollectors::OperandCollectors(const SmSpec& spec)
    : stepped_(spec.pipeline_registers), steps_per_cycle_(spec.pipeline_registers ? spec.register_bank_ports : 1) {
  const std::array<uint32_t, kNumExecUnits> counts = {spec.oc_units_sp, spec.oc_units_sfu, spec.oc_units_mem};
  for (unsigned u = 0; u < kNumExecUnits; ++u) {
    pool_begin_[u] = static_cast<uint32_t>(units_.size());
    if (counts[u] > 64)  // the config's range: one word of free units per pool
      throw std::logic_error("operand collectors: " + std::to_string(counts[u]) + " units in a pool (at most 64)");
    free_[u] = first_units(counts[u]);
    home_units_[u] = {free_[u], free_[u]};  // no split
    for (uint32_t i = 0; i < counts[u]; ++i) {
      units_.emplace_back();
      units_.back().unit = static_cast<ExecUnit>(u);
      units_.back().pool_bit = uint64_t{1} << i;
    }
  }
  num_units_ = static_cast<uint32_t>(units_.size());
  pool_begin_[kNumExecUnits] = num_units_;
  reading_ = bit_words(num_units_);
}

bool OperandCollectors::allocate(const WarpContext& warp, const WarpInstruction& inst, uint64_t cycle,
                                 uint32_t step) {
  return allocate_for(exec_unit_of(inst.op), warp, inst, cycle, step);
}

bool OperandCollectors::allocate_for(ExecUnit unit, const WarpContext& warp, const WarpInstruction& inst,
                                     uint64_t cycle, uint32_t step) {
  const unsigned u = static_cast<unsigned>(unit);
  const uint64_t free = free_[u];
  const uint64_t candidates = free & home_units_[u][warp.home ? 1 : 0];
  if (candidates == 0) return false;
  // The lowest-numbered candidate.
  const uint32_t bit = static_cast<uint32_t>(__builtin_ctzll(candidates));
  free_[u] = free & ~(uint64_t{1} << bit);
  const uint32_t free_unit = pool_begin_[u] + bit;
  CollectorUnit& c = units_[free_unit];
  ++probes_.busy_units;
  c.seq = allocations_++;
  c.warp = warp;
  copy_decoded(c.inst, inst);
  // The operands keep their source slots: pending's bits are in source
  // order, the order they are read in.
  c.operands = inst.src;
  uint32_t reads = register_slots(inst.src) & ((1u << inst.num_src) - 1);
  if (!stepped_) {
    // A register named again is read once, at its first slot.
    for (uint32_t later = reads & (reads - 1); later; later &= later - 1) {
      const uint32_t i = static_cast<uint32_t>(__builtin_ctz(later));
      for (uint32_t j = 0; j < i; ++j)
        if (inst.src[j] == inst.src[i]) reads &= ~(1u << i);
    }
  }
  c.pending = static_cast<uint8_t>(reads);
  if (reads) {
    // Its ready time is its reads' (every one at least a step later than
    // now): the value left by the unit's last instruction, which left no
    // later than now, is below any of them, so it needs no reset.
    ++reading_units_;
    set_bit(reading_, free_unit, true);
  } else {
    c.ready_cycle = time(cycle, step) + 1;
    collect(free_unit);
  }
  return true;
}

void OperandCollectors::collect(uint32_t unit) { mark_collected(units_[unit]); }

void OperandCollectors::set_home_split(const std::array<uint32_t, kNumExecUnits>& own_units) {
  for (unsigned u = 0; u < kNumExecUnits; ++u) {
    const uint32_t size = pool_begin_[u + 1] - pool_begin_[u];
    if (own_units[u] > size)
      throw std::logic_error("operand collectors: " + std::to_string(own_units[u]) + " own units in a pool of " +
                             std::to_string(size));
    const uint64_t all = first_units(size), own = first_units(own_units[u]);
    if (own_units[u] == 0 || own_units[u] == size) home_units_[u] = {all, all};  // no split
    else home_units_[u] = {own, all & ~own};
  }
}

OperandCollectors::ReadResult OperandCollectors::read(uint64_t cycle, RegisterRoute& route,
                                                      BankArbitrator& arbitrator, uint32_t step) {
  if (reading_units_ == 0) return {};
  // The baseline's route, interleaved over banks that all exist in the
  // register file (which holds no claim), needs no call and cannot retry or
  // add cycles: its loop is compiled with those answers known (read()
  // 116 M -> 90 M host instructions on hotspot --ctas 45). Any other route
  // is asked per operand.
  // Register banks of one port (sm.register_bank_ports 1, most configs)
  // have a loop of their own: a grant stores less, and a refusal reads less.
  const uint32_t banks = route.interleaved_banks_within(arbitrator.unclaimed_register_banks());
  if (banks != 0) {
    const auto bank_of = [banks](const CollectorUnit& c, uint32_t i) {
      return RegisterRoute::interleaved_bank(c.warp, c.operands[i], banks);
    };
    if (arbitrator.register_file().ports() == 1) return read_units<true, true>(cycle, step, arbitrator, bank_of);
    return read_units<true, false>(cycle, step, arbitrator, bank_of);
  }
  uint32_t most_extra_cycles = 0;  // for delayed_reads_ready_by_ (an ungranted read's count only widens the bound)
  const ReadResult result =
      read_units<false, false>(cycle, step, arbitrator, [&route, cycle, &most_extra_cycles](const CollectorUnit& c, uint32_t i) {
        const OperandRoute r = route.route_of(c.warp, c.operands[i], /*is_write=*/false, cycle);
        most_extra_cycles = std::max<uint32_t>(most_extra_cycles, r.extra_cycles);
        return r;
      });
  if (most_extra_cycles > 0)
    delayed_reads_ready_by_ = std::max<uint64_t>(
        delayed_reads_ready_by_, time(cycle, step) + 1 + uint64_t{most_extra_cycles} * steps_per_cycle_);
  return result;
}

template <bool kInterleaved, bool kSinglePort, class RouteOf>
OperandCollectors::ReadResult OperandCollectors::read_units(uint64_t cycle, uint32_t step, BankArbitrator& arbitrator,
                                                            RouteOf&& route_of) {
  const uint64_t now = time(cycle, step);
  const uint32_t bank_step = stepped_ ? step : BankArbitrator::kAnyStep;
  const uint64_t read_ready = now + 1;  // a granted read's value is there then (plus the route's extra cycles)
  // Counted in locals, and each unit's pending set and ready cycle too: the
  // arbitrator's counters are stores the compiler cannot tell apart from
  // the unit's fields, so it would reload and store those at every request.
  bool granted = false;
  uint32_t route_retries = 0;
  visit_set_bits_from(reading_, num_units_, rotation_, [&](uint32_t u) {
    CollectorUnit& c = units_[u];
    // The built-in route adds no cycles, so its last read is its latest
    // value (an earlier read or the allocation is at most as late): the
    // ready time is written once, not kept as a maximum.
    uint64_t ready = kInterleaved ? 0 : c.ready_cycle;
    // The unread operands in source order (a reading unit has one). Those
    // left unread are collected, not the read ones taken out: most requests
    // are granted.
    uint32_t unread = c.pending;
    uint32_t pending = 0;
    do {
      const uint32_t i = static_cast<uint32_t>(__builtin_ctz(unread));
      if constexpr (kInterleaved) {
        const uint32_t bank = route_of(static_cast<const CollectorUnit&>(c), i);
        if (arbitrator.request_register_file<kSinglePort>(bank, /*is_write=*/false, cycle, bank_step)) {
          granted = true;
          continue;
        }
      } else {
        const OperandRoute r = route_of(static_cast<const CollectorUnit&>(c), i);
        if (r.retry) {
          ++route_retries;
        } else if (arbitrator.request(r.group, r.bank, /*is_write=*/false, cycle, bank_step)) {
          ready = std::max<uint64_t>(ready, read_ready + uint64_t{r.extra_cycles} * steps_per_cycle_);
          granted = true;
          continue;
        }
      }
      pending |= 1u << i;
    } while ((unread &= unread - 1) != 0);
    c.pending = static_cast<uint8_t>(pending);
    if constexpr (!kInterleaved) c.ready_cycle = ready;
    if (!pending) {
      if constexpr (kInterleaved) c.ready_cycle = read_ready;
      --reading_units_;
      set_bit(reading_, u, false);
      mark_collected(c);
    }
    return false;
  });
  if (granted && ++rotation_ == num_units_) rotation_ = 0;
  return {granted, route_retries};
}

}  // namespace smshare
