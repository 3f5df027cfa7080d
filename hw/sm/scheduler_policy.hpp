// Warp scheduler policies only order warps; the scheduler issues the first
// ready warp in that order (GPGPU-Sim's split). A policy sees one scheduler's
// warps and is told what issued, so LRR, GTO, two-level, OWF and LTLWS are
// each one small class.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace smshare {

// What a policy may look at for one warp slot.
struct WarpView {
  uint32_t slot = 0;              // warp slot on the SM
  uint64_t age = 0;               // dynamic warp id: smaller = launched earlier
  bool valid = false;             // a warp occupies the slot
  // Cannot issue for a while (two-level demotes it, as GPGPU-Sim's waiting()):
  // a global load outstanding, waiting at a barrier, drained (issued its last
  // instruction), or refused by the mechanism's gate in the previous cycle.
  bool waiting = false;
  uint8_t priority_class = 1;     // set by the mechanism: 0 = owner, 1 = unshared, 2 = non-owner
};

class SchedulerPolicy {
 public:
  virtual ~SchedulerPolicy() = default;
  virtual std::string name() const = 0;
  // Writes into `order` the slots of `warps` (only valid ones), highest
  // priority first. Called once per cycle per scheduler. Two-level writes
  // only its active set: pending warps may not issue.
  virtual void order(const std::vector<WarpView>& warps, std::vector<uint32_t>& order) = 0;
  // The warp in `slot` issued this cycle.
  virtual void issued(uint32_t slot) = 0;
  // The warp in `slot` finished execution (retired: drained, nothing in
  // flight); its slot is invalid from the next order() on. LTLWS sizes its
  // active set on the first one.
  virtual void warp_finished(uint32_t /*slot*/) {}
  // A kernel launches on the SM: the previous kernel's warps are all gone.
  // LTLWS measures each kernel afresh.
  virtual void kernel_started() {}
  // True when order() keeps no state that later orders depend on: the SM
  // may then skip it in a cycle in which none of the scheduler's warps can
  // issue. (Two-level's order() moves warps between its sets.)
  virtual bool stateless_order() const { return false; }
  // True for a round-robin policy (LRR), whose order() is the valid warps in
  // list order from the one after the warp last passed to issued() (from the
  // front when none was, or that warp is not in the list). The SM then walks
  // its ready warps in that order itself, keeping the last issued slot,
  // instead of calling order(), which would list every valid warp every
  // cycle, and issued(), which would keep that slot for order().
  virtual bool round_robin() const { return false; }
  // The most warps its order() may hold (two-level's active set; LTLWS's
  // W_opt once the first warp has finished); 0: no limit.
  virtual uint32_t active_limit() const { return 0; }
};

// "lrr", "gto", "two-level", "owf", "ltlws-lrr", "ltlws-gto"; throws
// InputError on anything else. `active_set` is the two-level policy's active
// warps per scheduler (LTLWS sizes its own at run time and ignores it).
std::unique_ptr<SchedulerPolicy> make_scheduler_policy(const std::string& name, uint32_t active_set);

}  // namespace smshare
