// Hands out a kernel's CTAs in grid order to whichever SM has room. SMs pull
// from it at launch (round-robin, from the GPU top) and whenever one of
// their CTAs completes, so a finishing SM is refilled at once.
#pragma once

#include <cstdint>

namespace smshare {

class CtaDispatcher {
 public:
  explicit CtaDispatcher(uint32_t grid_ctas) : grid_(grid_ctas) {}
  bool has_next() const { return next_ < grid_; }
  uint32_t peek() const { return next_; }
  uint32_t take() { return next_++; }
  uint32_t grid() const { return grid_; }
  uint32_t dispatched() const { return next_; }

 private:
  uint32_t grid_;
  uint32_t next_ = 0;
};

}  // namespace smshare
