// A pipeline register between two stages of the SM (sm.pipeline_registers):
// GPGPU-Sim's register_set (src/abstract_hardware_model.h), `width` slots of
// instructions in flight between the stages, e.g. ID_OC_SP between issue and
// the SP collector units, OC_EX_SP between them and the SP pipelines.
//
// Rules (GPGPU-Sim's): a stage may move an instruction in while a slot is
// free (register_set::has_free); the next stage takes the oldest one
// (register_set::get_ready picks the lowest instruction uid), so each slot
// holds an instruction for at least the cycle it was written in. The slots
// are built once and written in place: nothing is allocated or constructed
// while the SM runs.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/common/bit_words.hpp"

namespace smshare {

template <class Instruction>
class PipelineRegister {
 public:
  // A register is as wide as its unit's pipelines (sm.sp_units etc. allow at
  // most 16; the cross-SM big SM doubles them): one bit of full_ each.
  static constexpr uint32_t kMaxWidth = 64;

  explicit PipelineRegister(uint32_t width = 0) : slots_(width), width_(width) {
    if (width > kMaxWidth)
      throw std::logic_error("PipelineRegister: width " + std::to_string(width) + " beyond " +
                             std::to_string(kMaxWidth));
  }

  uint32_t width() const { return width_; }
  uint32_t size() const { return used_; }
  bool empty() const { return used_ == 0; }
  bool has_free() const { return used_ < width_; }

  // Takes a free slot (has_free() must hold) for an instruction of `age`
  // (smaller is older: GPGPU-Sim's uid); the caller writes it in.
  Instruction& move_in(uint64_t age) {
    const auto i = static_cast<uint32_t>(__builtin_ctzll(~full_));  // the first free slot
    Slot& s = slots_[i];
    full_ |= uint64_t{1} << i;
    s.age = age;
    ++used_;
    if (used_ == 1 || older(i, oldest_)) oldest_ = i;
    return s.inst;
  }

  // The oldest instruction (not empty()).
  const Instruction& oldest() const { return slots_[oldest_].inst; }
  void pop_oldest() {
    full_ &= ~(uint64_t{1} << oldest_);
    --used_;
    if (used_ > 0) oldest_ = oldest_index();  // an empty register's is set by the next move_in
  }

 private:
  struct Slot {
    uint64_t age = 0;
    Instruction inst{};
  };
  // Full slot i holds an older instruction than full slot j (the lower
  // index among equal ages).
  bool older(uint32_t i, uint32_t j) const {
    return slots_[i].age < slots_[j].age || (slots_[i].age == slots_[j].age && i < j);
  }
  // The oldest full slot (not empty()): the full slots are visited by their
  // bits, not by testing every slot.
  uint32_t oldest_index() const {
    uint64_t rest = full_;
    auto best = static_cast<uint32_t>(__builtin_ctzll(rest));
    for (rest &= rest - 1; rest; rest &= rest - 1) {
      const auto i = static_cast<uint32_t>(__builtin_ctzll(rest));
      if (older(i, best)) best = i;
    }
    return best;
  }

  std::vector<Slot> slots_;
  // slots_.size(), kept: a Slot's size is no power of two, so the vector's
  // size() divides, and the stages ask for it several times per instruction.
  uint32_t width_ = 0;
  uint32_t used_ = 0;
  uint64_t full_ = 0;  // bit i: slot i holds an instruction
  // The slot of the oldest instruction while not empty(): kept on every
  // move in and pop, as oldest() is asked every cycle a stage waits.
  uint32_t oldest_ = 0;
};

// A pipeline register its one writer fills in age order: ID_OC, which issue
// fills in issue order (GPGPU-Sim's uids). The oldest is then the first in,
// so the slots are a ring and no ages are kept or compared: the same
// instructions in the same order as a PipelineRegister given increasing ages
// (whose compare at each move in and search at each pop cost the bench
// trace 35 M host instructions of 4,547 M).
template <class Instruction>
class FifoPipelineRegister {
 public:
  explicit FifoPipelineRegister(uint32_t width = 0) : slots_(width), width_(width) {}

  uint32_t width() const { return width_; }
  uint32_t size() const { return used_; }
  bool empty() const { return used_ == 0; }
  bool has_free() const { return used_ < width_; }

  // Takes the free slot after the youngest (has_free() must hold) for an
  // instruction younger than all held; the caller writes it in.
  Instruction& move_in() {
    uint32_t i = first_ + used_;
    if (i >= width_) i -= width_;
    ++used_;
    return slots_[i];
  }

  // The oldest instruction (not empty()).
  const Instruction& oldest() const { return slots_[first_]; }
  void pop_oldest() {
    if (++first_ == width_) first_ = 0;
    --used_;
  }

 private:
  std::vector<Instruction> slots_;
  uint32_t width_ = 0;  // slots_.size(), kept (see PipelineRegister)
  uint32_t used_ = 0;
  uint32_t first_ = 0;  // the oldest instruction's slot while not empty()
};

// The cycles in which an SP or SFU pipeline's instructions leave it, as
// GPGPU-Sim's simd_function_unit::occupied (shader.h): a pipeline takes no
// instruction that would leave in the same cycle as one already in it
// (can_issue tests occupied.test(latency); issue sets it, cycle() shifts it).
// Kept as a ring of leave cycles indexed by cycle mod its length, longer
// than the longest latency: an instruction in flight leaves less than that
// many cycles from now, so two of them never share a place, and a place
// holding another cycle is simply free (nothing is shifted or cleared as
// time passes).
class ResultCycles {
 public:
  // Beyond the largest latency a config allows: 1,000, and 1,008 with
  // cross-SM sharing's boundary cycles.
  static constexpr uint32_t kSpan = 1024;

  // `longest_latency`: the longest an instruction takes in the pipeline (at
  // most kSpan - 1). The ring is the fewest places, a power of two, longer
  // than that (32 on fermi-gtx480): it comes round every few dozen cycles,
  // so its few lines stay in the host's cache while the other SMs tick. With
  // all kSpan places each place reached was one last used 1,024 cycles
  // before, long evicted (1-2 % of hotspot's time, in the execute stage).
  explicit ResultCycles(uint32_t longest_latency = kSpan - 1) {
    if (longest_latency >= kSpan)
      throw std::invalid_argument("ResultCycles: a latency of " + std::to_string(longest_latency) +
                                  " cycles; the ring holds at most " + std::to_string(kSpan - 1));
    mask_ = (uint64_t{1} << ceil_log2(uint64_t{longest_latency} + 1)) - 1;
    leaves_.fill(kFree);
  }
  bool taken(uint64_t leaves) const { return leaves_[leaves & mask_] == leaves; }
  void take(uint64_t leaves) { leaves_[leaves & mask_] = leaves; }

 private:
  static constexpr uint64_t kFree = ~0ull;
  uint64_t mask_ = 0;  // the ring's length - 1
  // In place (8 KiB a pipeline, of which the first mask_ + 1 places are
  // used): the execute stage reaches a place with one load fewer than
  // through a vector's buffer.
  std::array<uint64_t, kSpan> leaves_;
};

}  // namespace smshare
