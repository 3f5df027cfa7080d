#include "hw/sharing/expars/expars_occupancy.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "hw/common/error.hpp"
#include "hw/common/percent.hpp"

namespace smshare::expars {

const char* const kTauFractions =
    "a fraction in [0, 1) in hundredths (0, 0.01, ..., 0.99; EXPARS's tau, the paper uses 0.8; 0 turns "
    "mixing off)";

bool parse_tau(const std::string& text, uint32_t& percent) {
  uint32_t p = 0;
  if (!parse_fraction_percent(text, p) || p >= 100) return false;
  percent = p;
  return true;
}

namespace {

// How N resident CTAs are placed: M mixed ones, each keeping `spill` registers
// per thread in the scratchpad.
struct Plan {
  bool fits = false;
  uint32_t mixed = 0;
  uint32_t spill = 0;
};

class Solver {
 public:
  Solver(const SmSpec& sm, const KernelResources& k, uint32_t tau_percent)
      : sm_(sm), f_(cta_footprint(sm, k)), threads_(f_.threads) {
    // The tau bound on the registers per thread a mixed CTA may place in the
    // scratchpad: s x threads <= tau R_CTA, i.e. at most floor(tau R_CTA)
    // registers per CTA, in whole per-thread registers (Start_Reg is one
    // index for every thread of every mixed CTA).
    const uint64_t by_tau = uint64_t{tau_percent} * f_.registers / (100 * uint64_t{threads_});
    const uint32_t max_spill = static_cast<uint32_t>(std::min<uint64_t>(k.regs_per_thread, by_tau));
    // A mixed CTA's RF allocation: its remaining registers at the SM's granularity.
    KernelResources left = k;
    for (uint32_t s = 0; s <= max_spill; ++s) {
      left.regs_per_thread = k.regs_per_thread - s;
      rf_left_.push_back(cta_footprint(sm, left).registers);
    }
  }

  const CtaFootprint& footprint() const { return f_; }
  // The most registers per thread tau lets a mixed CTA place in the scratchpad.
  uint32_t max_spill() const { return static_cast<uint32_t>(rf_left_.size() - 1); }
  uint32_t threads() const { return threads_; }

  // The fewest mixed CTAs, then the fewest registers per thread, that place
  // `n` CTAs; with `count_scratchpad` false the scratchpad's capacity is
  // ignored (the register file's and tau's own limit).
  Plan plan(uint64_t n, bool count_scratchpad) const {
    const uint64_t R = sm_.registers, S = sm_.scratchpad_bytes, r_cta = f_.registers;
    if (count_scratchpad && n * f_.smem_bytes > S) return {};
    for (uint64_t m = 0; m <= n; ++m) {
      for (uint32_t s = m == 0 ? 0 : 1; s < rf_left_.size(); ++s) {
        if ((n - m) * r_cta + m * rf_left_[s] > R) continue;  // more per thread may still fit
        if (count_scratchpad && n * f_.smem_bytes + 4 * m * s * threads_ > S) break;  // more only spills more
        return {true, static_cast<uint32_t>(m), m == 0 ? 0 : s};
      }
    }
    return {};
  }

  // The largest N <= `limit` that fits. Fitting is monotone in N (dropping a
  // CTA from a placement leaves a placement), so the first failure ends it.
  uint32_t largest(uint32_t limit, bool count_scratchpad) const {
    uint32_t n = 0;
    while (n < limit && plan(n + 1, count_scratchpad).fits) ++n;
    return n;
  }

 private:
  const SmSpec& sm_;
  CtaFootprint f_;
  uint32_t threads_;
  std::vector<uint32_t> rf_left_;  // [s]: RF registers of a mixed CTA spilling s per thread
};

}  // namespace

Admission admission(const SmSpec& sm, const KernelResources& k, const std::string& origin, uint32_t tau_percent) {
  if (tau_percent >= 100)
    throw input_error(origin, "expars.tau",
                      "tau = " + std::to_string(tau_percent) + " % is not " + kTauFractions);
  Admission a;
  a.occupancy = baseline_occupancy(sm, k, origin);  // throws if not one CTA fits
  a.cta_rf = a.occupancy.ctas_per_sm;
  a.start_reg = k.regs_per_thread;
  const Solver solver(sm, k, tau_percent);
  if (solver.footprint().registers == 0) return a;  // no register to place

  // Each resource's own limit, searched up to one past the largest hard
  // limit (or the baseline's register limit, if larger): a value that
  // reaches that bound never binds, so it is reported as the bound.
  Occupancy o = a.occupancy;
  const uint32_t bound = std::max(o.by_registers, std::max({o.by_threads, o.by_cta_slots, o.by_warp_slots}) + 1);
  o.by_registers = solver.largest(bound, false);  // RF with tau-bounded mixing, scratchpad unlimited
  o.by_scratchpad = solver.largest(bound, true);  // the kernel's scratchpad plus the mixed CTAs' registers
  // A mixed CTA uses the scratchpad even when the kernel declares none, so
  // the scratchpad can bind (choose_limit skips resources a CTA does not use).
  CtaFootprint used = solver.footprint();
  used.smem_bytes += solver.max_spill() * solver.threads() * 4;
  choose_limit(o, used, k);

  const Plan p = solver.plan(o.ctas_per_sm, true);
  if (!p.fits)
    throw std::logic_error("EXPARS admission: " + std::to_string(o.ctas_per_sm) + " CTAs chosen but not placeable");
  if (p.mixed == 0) return a;  // nothing mixed: exactly the baseline
  a.occupancy = o;
  a.cta_mix = p.mixed;
  a.cta_rf = o.ctas_per_sm - p.mixed;
  a.start_reg = k.regs_per_thread - p.spill;
  a.spill_regs_per_cta = p.spill * solver.threads();
  a.spill_bytes_per_cta = a.spill_regs_per_cta * 4;
  return a;
}

}  // namespace smshare::expars
