// Jatala Sec. IV-C, dynamic warp execution. SM0 is the reference: it never
// issues memory instructions of non-owner warps. Every other SM starts with
// probability 1 of issuing them and, at the end of each monitoring period
// (1000 cycles), compares its stall cycles in the period with SM0's: more
// stalls -> probability - p, fewer -> + p, kept in [0, 1] (saturating).
// "Stall cycle" is Sec. II's: a cycle in which no warp could be scheduled
// (our stall + idle cycles). Probabilities are held in percent (integers).
#pragma once

#include <cstdint>

namespace smshare::jatala {

// GPU-wide, one per kernel: SM0's stall cycles in its last closed period.
struct DweReference {
  bool published = false;
  uint64_t period = 0;  // index of the period the count belongs to
  uint64_t stalls = 0;
};

class DynamicWarpExecution {
 public:
  DynamicWarpExecution(bool is_reference, uint64_t period_cycles, uint32_t step_percent, DweReference* ref);

  // First cycle of the next period: the SM must run that cycle (wake hint).
  uint64_t next_boundary() const { return boundary_; }
  // Called in a cycle >= next_boundary() with the SM's cumulative stall
  // cycles before that cycle; closes the period(s) that ended.
  void at_boundary(uint64_t cycle, uint64_t cumulative_stalls);
  // Closes one period with `stalls` stall cycles (the walk itself; unit-tested).
  void close_period(uint64_t period, uint64_t stalls);

  uint32_t probability_percent() const { return reference_ ? 0 : probability_; }
  // Decides one non-owner memory instruction; `draw` is uniform in [0, 100).
  bool allow(uint32_t draw) const { return draw < probability_percent(); }
  bool is_reference() const { return reference_; }

 private:
  bool reference_;
  uint64_t period_cycles_;
  uint32_t step_;
  DweReference* ref_;
  uint32_t probability_ = 100;
  uint64_t boundary_;
  uint64_t stalls_at_period_start_ = 0;
};

}  // namespace smshare::jatala
