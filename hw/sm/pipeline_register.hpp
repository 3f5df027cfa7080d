// A pipeline register between two stages of the SM (sm.pipeline_registers):
// GPGPU-Sim's register_set (src/abstract_hardware_model.h), `width` slots of
// instructions in flight between the stages, e.g. ID_OC_SP between issue and
// the SP collector units, OC_EX_SP between them and the SP pipelines.
//
// Rules (GPGPU-Sim's): a stage may move an instruction in while a slot is
// free (register_set::has_free); the next stage takes the oldest one
// (register_set::get_ready picks the lowest instruction uid), so each slot
// holds an instruction for at least the cycle it was written in. Plain data,
// allocated once: nothing is allocated while the SM runs.
#pragma once

#include <bitset>
#include <cstdint>
#include <utility>
#include <vector>

namespace smshare {

template <class Instruction>
class PipelineRegister {
 public:
  explicit PipelineRegister(uint32_t width = 0) { slots_.reserve(width_ = width); }

  uint32_t width() const { return width_; }
  uint32_t size() const { return static_cast<uint32_t>(slots_.size()); }
  bool empty() const { return slots_.empty(); }
  bool has_free() const { return slots_.size() < width_; }

  // `age`: smaller is older (GPGPU-Sim's instruction uid).
  void move_in(uint64_t age, const Instruction& inst) { slots_.push_back({age, inst}); }

  const Instruction& oldest() const { return slots_[oldest_index()].inst; }
  void pop_oldest() { slots_.erase(slots_.begin() + static_cast<std::ptrdiff_t>(oldest_index())); }
  void clear() { slots_.clear(); }

 private:
  struct Slot {
    uint64_t age;
    Instruction inst;
  };
  size_t oldest_index() const {
    size_t best = 0;
    for (size_t i = 1; i < slots_.size(); ++i)
      if (slots_[i].age < slots_[best].age) best = i;
    return best;
  }

  std::vector<Slot> slots_;
  uint32_t width_ = 0;
};

// The cycles in which an SP or SFU pipeline's instructions leave it, as
// GPGPU-Sim's simd_function_unit::occupied (shader.h): a pipeline takes no
// instruction that would leave in the same cycle as one already in it
// (can_issue tests occupied.test(latency); issue sets it, cycle() shifts it).
class ResultCycles {
 public:
  static constexpr uint32_t kSpan = 1024;  // beyond the largest latency a config allows (1000)

  bool taken(uint64_t leaves, uint64_t now) {
    advance(now);
    return leaves - now < kSpan && bits_.test(leaves - now);
  }
  void take(uint64_t leaves, uint64_t now) {
    advance(now);
    bits_.set(leaves - now);
  }

 private:
  void advance(uint64_t now) {  // bit k: something leaves at base_ + k
    if (now == base_) return;
    bits_ >>= static_cast<size_t>(now - base_ < kSpan ? now - base_ : kSpan);
    base_ = now;
  }
  std::bitset<kSpan> bits_;
  uint64_t base_ = 0;
};

}  // namespace smshare
