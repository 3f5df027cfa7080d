#include "hw/sharing/jatala/dynamic_warp_execution.hpp"

namespace smshare::jatala {

DynamicWarpExecution::DynamicWarpExecution(bool is_reference, uint64_t period_cycles, uint32_t step_percent,
                                           DweReference* ref)
    : reference_(is_reference),
      period_cycles_(period_cycles ? period_cycles : 1),
      step_(step_percent),
      ref_(ref),
      boundary_(period_cycles_) {}

void DynamicWarpExecution::at_boundary(uint64_t cycle, uint64_t cumulative_stalls) {
  if (cycle < boundary_) return;
  // An SM that slept across several boundaries stalled in all of them alike:
  // the skipped periods are closed with the whole count on the last one.
  const uint64_t period = cycle / period_cycles_ - 1;
  close_period(period, cumulative_stalls - stalls_at_period_start_);
  stalls_at_period_start_ = cumulative_stalls;
  boundary_ = (cycle / period_cycles_ + 1) * period_cycles_;
}

void DynamicWarpExecution::close_period(uint64_t period, uint64_t stalls) {
  if (reference_) {
    if (ref_) *ref_ = {true, period, stalls};
    return;
  }
  // SM0 publishes in the same time step, before or after this SM: its count
  // for this period or the one before. An older count means SM0 has no work
  // left; then there is no reference and the probability stays.
  if (!ref_ || !ref_->published || ref_->period + 1 < period) return;
  if (stalls > ref_->stalls) probability_ = probability_ > step_ ? probability_ - step_ : 0;
  else if (stalls < ref_->stalls) probability_ = probability_ + step_ < 100 ? probability_ + step_ : 100;
}

}  // namespace smshare::jatala
