// One SM's EXPARS instance (Yu et al. 2018, Sec. 3.3) for one kernel:
// everything EXPARS keeps on an SM. The mechanism's four interface objects
// (expars_mechanism.cpp) are thin views on it, and its structure modules
// (expars_modules.hpp) read it through the const accessors.
//
//  * Admission (Sec. 3.3.1-3.3.2): CTA slots [0, CTA_RF) hold all-RF CTAs,
//    [CTA_RF, CTA_RF + CTA_Mix) mixed ones; the ScratchpadAllocator gives
//    each CTA its data region and a mixed CTA its register region (SBR),
//    which the RAT records.
//  * Register route (Sec. 3.3.5, the judgement logic): a register of a mixed
//    CTA at or above Start_Reg is served by its operand-cache line's bank;
//    every other register by the register file, as in the baseline.
//  * Warp gate and register prefetcher (Sec. 3.3.4): the decoder hands each
//    bundle's PREF to the prefetcher (BundleReader). A warp is schedulable
//    while its current bundle's scratchpad-resident registers are in the
//    operand cache. When its bundle has issued, it takes its next bundle: if
//    that needs registers from the scratchpad it joins the prefetching queue
//    (at the front when it continues a bundle, at the back when it is the
//    warp's first: "moved to the front of prefetching queue"). Each cycle the
//    prefetcher looks at the head warp: if the operand cache can take the
//    bundle's registers (free lines, or lines of bundles that have issued
//    and completed: evicted, dirty ones written back), it reserves them and
//    moves one warp register per cycle between the scratchpad and the cache
//    (write-backs first, then fills of the registers the bundle reads before
//    writing), each transfer taking all scratchpad banks for the cycle when
//    no LDS/STS or other access holds one. The warp becomes schedulable when
//    the last fill's data is back (sm.smem_latency after it).
//  * A line is pinned while the bundle that claimed it has instructions to
//    issue, or an issued instruction has still to read or write it (the SM
//    says when an instruction's sources are read and each result written).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hw/common/activity.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel.hpp"
#include "hw/sharing/expars/bundle_reader.hpp"
#include "hw/sharing/expars/expars_occupancy.hpp"
#include "hw/sharing/expars/operand_cache.hpp"
#include "hw/sharing/expars/register_allocation_table.hpp"
#include "hw/sharing/expars/scratchpad_allocator.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sm/mechanism.hpp"

namespace smshare {
class BankArbitrator;
}

namespace smshare::expars {

// The `expars.*` settings (expars_registration.cpp declares the keys).
struct Settings final : MechanismSettings {
  uint32_t tau_percent = kPaperTauPercent;
  uint32_t operand_cache_bytes = 2048;  // Sec. 3.3.7
  uint32_t bundle_instructions = 16;    // our choice: the paper gives no length (docs)
};

class ExparsSm final : public BundleSink {
 public:
  ExparsSm(const SmSpec& sm, const KernelResources& k, const std::string& origin, const Settings& s);

  // --- admission
  const Admission& plan() const { return plan_; }
  const Occupancy& occupancy() const { return plan_.occupancy; }
  bool admit(uint32_t cta_slot, CtaAllocation& a);
  void release(const CtaAllocation& a);
  uint32_t registers_allocated() const;
  uint32_t smem_allocated() const;

  // --- register route (the judgement logic)
  OperandRoute route(const WarpContext& w, uint16_t reg, bool is_write);

  // --- warp gate
  // May the warp issue its next instruction? A warp whose bundle ended at a
  // barrier takes its next bundle here, once the barrier lets the SM ask.
  bool may_issue(const WarpContext& w, uint64_t cycle);
  void issued(const WarpContext& w, const WarpInstruction& inst);

  // --- hooks
  void bind(BankArbitrator& arbitrator) { arbitrator_ = &arbitrator; }
  std::unique_ptr<WarpProgram> decode(const WarpContext& w, std::unique_ptr<WarpProgram> program);
  void decoded(uint32_t slot, const Bundle& bundle) override;
  void operands_read(const WarpContext& w, const WarpInstruction& inst);
  void register_written(const WarpContext& w, uint16_t reg);
  void warp_finished(const WarpContext& w);
  // The prefetcher wants every cycle while a warp is queued, a transfer is
  // under way or a fill's data is on its way; waits_on_time says whether
  // time alone moves it (not when the head waits for lines others pin).
  uint64_t next_wake() const;
  void step(uint64_t cycle);
  bool waits_on_time(uint64_t cycle) const;
  void collect(ActivityCounters& out) const;
  void counters(std::vector<std::pair<std::string, uint64_t>>& c) const;

  // --- what the structure modules show
  const RegisterAllocationTable& rat() const { return rat_; }
  const OperandCache& operand_cache() const { return cache_; }
  uint32_t prefetching_warps() const { return static_cast<uint32_t>(queue_.size()); }
  // Warps whose current bundle may issue in `cycle` (registers in the RF or
  // the cache).
  uint32_t schedulable_warps(uint64_t cycle) const;
  int32_t head_warp() const { return queue_.empty() ? -1 : static_cast<int32_t>(queue_.front()); }
  uint32_t mixed_ctas_resident() const { return mixed_resident_; }
  uint64_t pref_instructions() const { return prefs_; }
  uint64_t bundles_prefetched() const { return prefetches_; }
  uint64_t allocations_without_fill() const { return allocations_without_fill_; }
  uint64_t sbr_writes() const { return sbr_writes_; }
  uint64_t fills() const { return fills_; }
  uint64_t hits() const { return hits_; }
  // Accesses to a scratchpad register not in the cache (the route said wait):
  // 0 unless the gate let a bundle issue too early.
  uint64_t misses() const { return misses_; }
  uint64_t evictions() const { return evictions_; }
  uint64_t writebacks() const { return writebacks_; }
  uint64_t space_wait_cycles() const { return space_waits_; }
  uint64_t bank_wait_cycles() const { return bank_waits_; }

 private:
  enum class Phase : uint8_t {
    AwaitDecode,  // its next bundle's PREF is not decoded yet
    AtBarrier,    // its bundle ended with a barrier: the next one waits for the barrier to open
    Queued,       // in the prefetching queue
    Filling,      // the head: its transfers are under way
    Ready,        // its bundle may issue from ready_at
  };
  struct WarpState {
    bool valid = false;
    uint32_t cta_slot = 0, warp_in_cta = 0;
    Phase phase = Phase::AwaitDecode;
    std::deque<Bundle> decoded;  // PREFs read ahead of the current bundle
    Bundle current;
    uint64_t bundle = 0;             // number of the current bundle (1, 2, ...)
    uint32_t remaining = 0;          // its instructions still to issue
    uint64_t ready_at = 0;
    // The bundles 1..this have issued all their instructions.
    uint64_t issued_through() const { return remaining == 0 ? bundle : bundle - 1; }
  };
  struct Transfer {
    bool write;     // a write-back (else a fill)
    uint32_t line;  // the line filled (fills only)
  };

  // The judgement logic: is register `reg` of a warp of CTA slot
  // `cta_slot` in the scratchpad? (A register past the kernel's count,
  // which a trace or --regs-per-thread may give, has no place in the
  // scratchpad: it is served as the baseline serves it, by the RF.)
  bool spilled(uint32_t cta_slot, uint16_t reg) const {
    return cta_slot >= rat_.start_cta() && reg >= rat_.start_reg() && reg <= rat_.max_reg();
  }
  // Takes the warp's next decoded bundle (there must be one).
  void start_bundle(uint32_t slot, bool continuing);
  // A line still needed: its bundle has instructions to issue, or issued
  // ones still to read or write it.
  bool pinned(const OperandCache::Line& l) const {
    return l.pending > 0 || (warps_[l.slot].valid && l.bundle > warps_[l.slot].issued_through());
  }
  // Holds (+1) or releases (-1) the cache line of each of `inst`'s registers
  // in the scratchpad: sources (`sources`) or destinations.
  void account(const WarpContext& w, const WarpInstruction& inst, bool sources, bool hold);
  // Places the head warp's bundle into the cache: claims its cached lines,
  // reserves lines for the others, queues the transfers. False, changing
  // nothing, when some register finds no line.
  bool place_head(uint32_t slot);
  enum class LineUse : uint8_t { Free, Evictable, Taken };
  // A line for a register preferring `preferred_bank`, by `use` (there must
  // be a free or evictable one).
  uint32_t choose_line(uint32_t preferred_bank, const std::vector<LineUse>& use) const;
  bool scratchpad_free(uint64_t cycle) const;
  void take_scratchpad(bool is_write, uint64_t cycle);

  const uint32_t smem_latency_;
  Admission plan_;
  CtaFootprint rf_cta_, mixed_cta_;  // footprints of an all-RF and a mixed CTA
  RegisterAllocationTable rat_;
  ScratchpadAllocator allocator_;
  OperandCache cache_;
  BundleRules rules_;
  BankArbitrator* arbitrator_ = nullptr;
  std::vector<WarpState> warps_;
  std::deque<uint32_t> queue_;       // the prefetching queue (warp slots)
  std::deque<Transfer> transfers_;   // the head's, write-backs first
  bool blocked_ = false;             // the head found no room in the cache ...
  uint64_t blocked_since_ = 0;       // ... since this cycle
  // Counts every event that can free a line for the head (an access done, an
  // instruction issued, a bundle taken, a warp gone): a blocked head is
  // planned again only after one (place_head is a function of that state).
  uint64_t line_events_ = 0, blocked_events_ = 0;
  uint32_t blocked_head_ = 0;
  std::vector<LineUse> line_use_;                      // place_head's scratch: what each line can be
  std::vector<std::pair<uint16_t, uint32_t>> placed_;  // ... and (register, line) of the registers not cached
  uint64_t latest_ready_ = 0;        // the latest cycle a prefetched warp becomes ready
  uint64_t last_step_ = ~0ull;       // the last cycle step() ran
  uint32_t resident_rf_ = 0, mixed_resident_ = 0;  // resident all-RF and mixed CTAs
  uint64_t prefs_ = 0, bitvector_reads_ = 0, prefetches_ = 0, hits_ = 0, fills_ = 0, allocations_without_fill_ = 0,
           evictions_ = 0, writebacks_ = 0, space_waits_ = 0, bank_waits_ = 0, sbr_writes_ = 0,
           misses_ = 0;
};

// The instance behind an EXPARS mechanism, for its structure modules (null
// for any other mechanism).
const ExparsSm* expars_sm_of(const Mechanism& m);

}  // namespace smshare::expars
