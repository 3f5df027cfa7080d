#include "hw/frontend/trace_phases.hpp"

#include <algorithm>
#include <bitset>
#include <limits>
#include <map>

namespace smshare {
namespace {

using Live = std::bitset<kMaxArchRegs>;

// Is the change from `from` to `to` at least kChangePercent of their union?
bool changed_enough(const Live& from, const Live& to) {
  const size_t all = (from | to).count();
  return all > 0 && (from ^ to).count() * 100 >= all * TracePhases::kChangePercent;
}

}  // namespace

TracePhases::TracePhases(const std::vector<WarpInstruction>& stream) {
  const size_t n = stream.size();
  // Live before each instruction, backwards: what it reads, plus what is
  // live after it that it does not write.
  std::vector<Live> live(n);
  Live l;
  for (size_t i = n; i-- > 0;) {
    const WarpInstruction& inst = stream[i];
    for (uint8_t d = 0; d < inst.num_dst; ++d)
      if (inst.dst[d] != kNoReg) l.reset(inst.dst[d]);
    for (uint8_t s = 0; s < inst.num_src; ++s)
      if (inst.src[s] != kNoReg) l.set(inst.src[s]);
    live[i] = l;
  }
  stream_phases_.assign(n, 0);
  uint16_t phase = 0;
  size_t start = 0;
  const uint32_t full_mask = n ? stream[0].active_mask : 0;
  for (size_t i = 1; i < n; ++i) {
    const bool after_barrier = stream[i - 1].op == OpClass::Barrier;
    const bool cut = after_barrier || (i - start >= kMinInstructions && stream[i].active_mask == full_mask &&
                                       changed_enough(live[start], live[i]));
    if (cut && phase < std::numeric_limits<uint16_t>::max()) {
      ++phase;
      start = i;
    }
    stream_phases_[i] = phase;
  }
  for (uint32_t p = 0; p <= phase; ++p) names_.push_back("phase" + std::to_string(p));
  // Each PC keeps the phase of its first execution.
  std::map<uint64_t, uint16_t> first;
  for (size_t i = 0; i < n; ++i) first.emplace(stream[i].pc, stream_phases_[i]);
  by_pc_.assign(first.begin(), first.end());
  constexpr uint64_t kMaxSlots = 1u << 20;
  if (!by_pc_.empty() && by_pc_.back().first / 8 < kMaxSlots) {
    by_slot_.resize(by_pc_.back().first / 8 + 1);
    for (uint64_t s = 0; s < by_slot_.size(); ++s) by_slot_[s] = lookup(8 * s);
  }
  // What each phase holds, by the phase its instructions run in.
  registers_.assign(names_.size(), Live{});
  for (size_t i = 0; i < n; ++i) {
    const WarpInstruction& inst = stream[i];
    Live& held = registers_[phase_of(inst.pc)];
    held |= live[i];
    for (uint8_t d = 0; d < inst.num_dst; ++d)
      if (inst.dst[d] != kNoReg) held.set(inst.dst[d]);
    for (uint8_t s = 0; s < inst.num_src; ++s)
      if (inst.src[s] != kNoReg) held.set(inst.src[s]);
  }
}

uint16_t TracePhases::lookup(uint64_t pc) const {
  // The last PC at or below `pc`; the first phase below every known PC.
  auto it = std::upper_bound(by_pc_.begin(), by_pc_.end(), std::make_pair(pc, std::numeric_limits<uint16_t>::max()));
  return it == by_pc_.begin() ? 0 : std::prev(it)->second;
}

}  // namespace smshare
