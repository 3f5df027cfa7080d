#include "hw/sharing/expars/bundle_reader.hpp"

#include <stdexcept>
#include <string>

namespace smshare::expars {

BundleReader::BundleReader(std::unique_ptr<WarpProgram> program, const BundleRules& rules, BundleSink& sink,
                           uint32_t slot)
    : program_(std::move(program)), rules_(rules), sink_(sink), slot_(slot) {
  if (rules.max_instructions == 0 || rules.cache_lines < kMaxSrcRegs + kMaxDstRegs)
    throw std::logic_error("BundleReader: a bundle must hold at least one instruction with all its registers");
}

bool BundleReader::next(WarpInstruction& out) {
  if (next_ == count_ && !read_bundle()) return false;
  copy_decoded(out, buffer_[next_++]);
  return true;
}

bool BundleReader::read_bundle() {
  count_ = next_ = 0;
  Bundle b;
  uint32_t spilled = 0;  // registers >= start_reg in b.used
  for (;;) {
    // Read straight into the buffer, whose entries live from bundle to bundle.
    if (count_ == buffer_.size()) buffer_.emplace_back();
    WarpInstruction& inst = buffer_[count_];
    if (held_) {
      inst = held_instruction_;
      held_ = false;
    } else if (!program_->next(inst)) {
      break;
    }
    RegisterSet fresh;  // its scratchpad-resident registers the bundle does not use yet
    auto note = [&](uint16_t r) {
      if (r != kNoReg && r >= rules_.start_reg && !b.used.test(r)) fresh.set(r);
    };
    for (uint8_t i = 0; i < inst.num_src; ++i) note(inst.src[i]);
    for (uint8_t i = 0; i < inst.num_dst; ++i) note(inst.dst[i]);
    const uint32_t new_spilled = static_cast<uint32_t>(fresh.count());
    if (b.instructions > 0 && spilled + new_spilled > rules_.cache_lines) {
      held_instruction_ = inst;  // the operand cache could not hold it with the rest: it starts the next bundle
      held_ = true;
      break;
    }
    spilled += new_spilled;
    // Sources are read before the instruction writes: a register is live
    // into the bundle if a read of it comes before any reference.
    for (uint8_t i = 0; i < inst.num_src; ++i) {
      const uint16_t r = inst.src[i];
      if (r == kNoReg) continue;
      if (!b.used.test(r)) b.live_in.set(r);
      b.used.set(r);
    }
    for (uint8_t i = 0; i < inst.num_dst; ++i)
      if (inst.dst[i] != kNoReg) b.used.set(inst.dst[i]);
    ++count_;
    ++b.instructions;
    if (inst.op == OpClass::Control || inst.op == OpClass::Barrier || inst.op == OpClass::Exit ||
        b.instructions == rules_.max_instructions)
      break;
  }
  if (b.instructions == 0) return false;
  sink_.decoded(slot_, b);
  return true;
}

}  // namespace smshare::expars
