// The CtaAdmission of a mechanism whose one per-SM state object decides
// admission (jatala::JatalaSm, expars::ExparsSm): a thin view forwarding to
// it, so the state object stays the one place that knows the rule.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "hw/sm/mechanism.hpp"

namespace smshare {

template <class State>
class AdmissionView final : public CtaAdmission {
 public:
  explicit AdmissionView(std::shared_ptr<State> s) : s_(std::move(s)) {}
  Occupancy occupancy() const override { return s_->occupancy(); }
  bool try_admit(uint32_t cta_slot, CtaAllocation& alloc) override { return s_->admit(cta_slot, alloc); }
  void release(const CtaAllocation& alloc) override { s_->release(alloc); }
  uint32_t registers_allocated() const override { return s_->registers_allocated(); }
  uint32_t smem_allocated() const override { return s_->smem_allocated(); }

 private:
  std::shared_ptr<State> s_;
};

}  // namespace smshare
