#include "hw/sm/scheduler_policy.hpp"

#include "hw/common/gpu_config.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "hw/common/error.hpp"

namespace smshare {

namespace {

constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();

// Loose round robin (GPGPU-Sim's lrr): the valid warps in list order, starting
// one past the last warp that issued and wrapping around. Before anything has
// issued, or when the last issued slot has left the list, it starts at the front.
class LrrPolicy final : public SchedulerPolicy {
 public:
  std::string name() const override { return "lrr"; }

  void order(const std::vector<WarpView>& warps, std::vector<uint32_t>& order) override {
    const size_t n = warps.size();
    size_t start = 0;
    if (last_ != kNoSlot) {
      const size_t last = position(warps, last_);
      if (last < n) start = last + 1;
    }
    // This runs every cycle for every scheduler with a ready warp: two plain
    // passes instead of a modulo per warp, each writing every slot and
    // keeping it only if valid (no branch, no push_back per warp), into a
    // buffer that only ever grows, copied out at once.
    if (buffer_.size() < n) buffer_.resize(n);
    uint32_t* out = buffer_.data();
    size_t kept = 0;
    for (size_t i = start; i < n; ++i) {
      out[kept] = warps[i].slot;
      kept += warps[i].valid;
    }
    for (size_t i = 0; i < start; ++i) {
      out[kept] = warps[i].slot;
      kept += warps[i].valid;
    }
    order.assign(out, out + kept);
  }

  void issued(uint32_t slot) override { last_ = slot; }
  bool stateless_order() const override { return true; }  // position_ and buffer_ only save work
  bool round_robin() const override { return true; }

 private:
  // Position of `slot` in `warps`, or warps.size(). A scheduler's warp list
  // rarely changes (the SM's never does), so the positions are kept by slot
  // and rebuilt only when they no longer match the list.
  size_t position(const std::vector<WarpView>& warps, uint32_t slot) {
    auto known = [&] { return slot < position_.size() && position_[slot] < warps.size() &&
                              warps[position_[slot]].slot == slot; };
    if (known()) return position_[slot];
    position_.assign(position_.size(), warps.size());
    for (size_t i = 0; i < warps.size(); ++i) {
      if (warps[i].slot >= position_.size()) position_.resize(warps[i].slot + 1, warps.size());
      position_[warps[i].slot] = i;
    }
    return known() ? position_[slot] : warps.size();
  }

  uint32_t last_ = kNoSlot;
  std::vector<size_t> position_;  // by slot: its index in the last list seen
  std::vector<uint32_t> buffer_;
};

// Orders the valid warps by a two-part key, smallest first, after the `greedy`
// slot when that warp is still valid (kNoSlot: no greedy warp). Ties are
// broken by slot so the order is deterministic. The scratch vector is reused:
// no allocation in steady state. GTO is (greedy = last issued, key = {age});
// OWF is (greedy = kNoSlot, key = {priority_class, age}).
class KeyOrder {
 public:
  struct Key {
    uint64_t major = 0;
    uint64_t minor = 0;
  };

  template <class KeyFn>
  void order(const std::vector<WarpView>& warps, uint32_t greedy, KeyFn key, std::vector<uint32_t>& order) {
    order.clear();
    scratch_.clear();
    for (const WarpView& w : warps) {
      if (!w.valid) continue;
      if (w.slot == greedy)
        order.push_back(w.slot);
      else
        scratch_.push_back(Entry{key(w), w.slot});
    }
    std::sort(scratch_.begin(), scratch_.end(), [](const Entry& a, const Entry& b) {
      if (a.key.major != b.key.major) return a.key.major < b.key.major;
      if (a.key.minor != b.key.minor) return a.key.minor < b.key.minor;
      return a.slot < b.slot;
    });
    for (const Entry& e : scratch_) order.push_back(e.slot);
  }

 private:
  struct Entry {
    Key key;
    uint32_t slot;
  };
  std::vector<Entry> scratch_;
};

// Greedy then oldest (GPGPU-Sim's gto): the warp that issued last keeps the
// top priority while it stays valid; the others follow by age, oldest first.
class GtoPolicy final : public SchedulerPolicy {
 public:
  std::string name() const override { return "gto"; }

  void order(const std::vector<WarpView>& warps, std::vector<uint32_t>& order) override {
    sorter_.order(warps, last_, [](const WarpView& w) { return KeyOrder::Key{w.age, 0}; }, order);
  }

  void issued(uint32_t slot) override { last_ = slot; }
  bool stateless_order() const override { return true; }

 private:
  KeyOrder sorter_;
  uint32_t last_ = kNoSlot;
};

// Owner Warp First (Jatala Sec. IV-A): warps by the mechanism's priority
// class (shared owner, unshared, shared non-owner), oldest first within a
// class. With every warp unshared it is oldest-first, which is why the paper
// finds it comparable to GTO on Set-3.
class OwfPolicy final : public SchedulerPolicy {
 public:
  std::string name() const override { return "owf"; }

  void order(const std::vector<WarpView>& warps, std::vector<uint32_t>& order) override {
    sorter_.order(warps, kNoSlot, [](const WarpView& w) { return KeyOrder::Key{w.priority_class, w.age}; }, order);
  }

  void issued(uint32_t) override {}
  bool stateless_order() const override { return true; }

 private:
  KeyOrder sorter_;
};

// How the two-level policy orders its active set.
enum class InnerOrder {
  Lrr,  // round robin, starting one past the warp that issued last (GPGPU-Sim's two_level_active)
  Gto,  // the warp that issued last while it stays active, then the others oldest first
};

// An active-set size with no limit: every valid warp that is not waiting is active.
constexpr uint32_t kUnlimitedActiveSet = std::numeric_limits<uint32_t>::max();

// Two-level (GPGPU-Sim's two_level_active, outer level FIFO, inner level LRR;
// LTLWS below also uses it with GTO inside and resizes it at run time).
// Each cycle, before ordering:
//  1. warps that left (slot invalid, or a new warp in the slot) leave both sets;
//     warps that arrived join the back of the pending set, oldest first;
//  2. active warps that are waiting are demoted to the back of the
//     pending set, in active-set order;
//  3. if the active set is larger than its size (set_active_set made it
//     smaller), the warps the inner order ranks last move to the front of the
//     pending set, in that order: they lost their place to the new size, not to
//     a long-latency wait, so they are the first to come back;
//  4. the active set is refilled to `active_set` warps from the front of the
//     pending set (the warp pending longest first), skipping pending warps that
//     still wait on a long-latency operation (GPGPU-Sim promotes them anyway and
//     demotes them again a cycle later; skipping avoids that wasted entry).
// Only the active set is written to `order`, in the inner order. LRR: starting
// one past the warp that issued last; if that warp was demoted, with the warp
// that followed it. GTO: the warp that issued last if it is still active,
// then the others oldest first, ties by slot.
class TwoLevelPolicy final : public SchedulerPolicy {
 public:
  TwoLevelPolicy(uint32_t active_set, InnerOrder inner) : active_set_(active_set), inner_(inner) {}

  std::string name() const override { return "two-level"; }

  // The active set's size from the next order() on (kUnlimitedActiveSet: no limit).
  void set_active_set(uint32_t active_set) { active_set_ = active_set; }
  uint32_t active_limit() const override { return active_set_ == kUnlimitedActiveSet ? 0 : active_set_; }

  void order(const std::vector<WarpView>& warps, std::vector<uint32_t>& order) override {
    track_arrivals_and_departures(warps);
    demote_waiting();
    shrink_to_active_set();
    promote_pending();

    rank_active(ranked_);
    order.clear();
    for (const Member& m : ranked_) order.push_back(m.slot);
  }

  void issued(uint32_t slot) override {
    for (size_t i = 0; i < active_.size(); ++i)
      if (active_[i].slot == slot) {
        next_ = i + 1;
        greedy_ = active_[i];
        return;
      }
  }

 private:
  // A warp is identified by (slot, age): a new warp may reuse an exited warp's slot.
  struct Member {
    uint32_t slot;
    uint64_t age;
    bool operator==(const Member& o) const { return slot == o.slot && age == o.age; }
  };
  // Oldest first, ties by slot: deterministic.
  static bool older(const Member& a, const Member& b) { return a.age != b.age ? a.age < b.age : a.slot < b.slot; }
  struct SlotState {
    bool tracked = false;  // the warp `age` is in one of the two sets
    uint64_t age = 0;      // age of the warp seen in the slot
    uint64_t seen = 0;     // epoch of the last order() that saw it valid
    uint32_t view = 0;     // its index in this cycle's `warps`
  };

  void track_arrivals_and_departures(const std::vector<WarpView>& warps) {
    ++epoch_;
    warps_ = &warps;
    size_t arrivals = 0;
    for (uint32_t i = 0; i < warps.size(); ++i) {
      const WarpView& w = warps[i];
      if (!w.valid) continue;
      if (w.slot >= slots_.size()) slots_.resize(w.slot + 1);  // only when a higher slot first appears
      SlotState& s = slots_[w.slot];
      if (!s.tracked || s.age != w.age) {
        s.tracked = true;
        s.age = w.age;
        pending_.push_back(Member{w.slot, w.age});
        ++arrivals;
      }
      s.seen = epoch_;
      s.view = i;
    }
    // Warps that exited, or whose slot now holds a newer warp, leave both sets.
    auto gone = [this](const Member& m) {
      SlotState& s = slots_[m.slot];
      if (s.seen == epoch_ && s.age == m.age) return false;
      if (s.seen != epoch_) s.tracked = false;
      return true;
    };
    remove_from_active_if(gone);
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(), gone), pending_.end());
    // Arrivals of one cycle (a CTA launch) join the pending set oldest first.
    std::sort(pending_.end() - static_cast<std::ptrdiff_t>(arrivals), pending_.end(), older);
  }

  const WarpView& view(const Member& m) const { return (*warps_)[slots_[m.slot].view]; }

  void demote_waiting() {
    remove_from_active_if([this](const Member& m) {
      if (!view(m).waiting) return false;
      pending_.push_back(m);
      return true;
    });
  }

  void shrink_to_active_set() {
    if (active_.size() <= active_set_) return;
    rank_active(ranked_);
    const auto keep = ranked_.begin() + static_cast<std::ptrdiff_t>(active_set_);
    active_.assign(ranked_.begin(), keep);
    pending_.insert(pending_.begin(), keep, ranked_.end());
    next_ = 0;  // ranked_ starts where the LRR scan would have started
  }

  void promote_pending() {
    if (active_.size() >= active_set_) return;
    size_t out = 0;
    for (size_t i = 0; i < pending_.size(); ++i) {
      const Member m = pending_[i];
      if (active_.size() < active_set_ && !view(m).waiting)
        active_.push_back(m);
      else
        pending_[out++] = m;
    }
    pending_.resize(out);
  }

  // Writes the active set into `ranked` in the inner order, highest priority first.
  void rank_active(std::vector<Member>& ranked) const {
    ranked.clear();
    const size_t n = active_.size();
    if (inner_ == InnerOrder::Lrr) {
      const size_t start = n ? next_ % n : 0;
      for (size_t k = 0; k < n; ++k) ranked.push_back(active_[(start + k) % n]);
      return;
    }
    const bool greedy_active = std::find(active_.begin(), active_.end(), greedy_) != active_.end();
    if (greedy_active) ranked.push_back(greedy_);
    for (const Member& m : active_)
      if (!(greedy_active && m == greedy_)) ranked.push_back(m);
    std::sort(ranked.begin() + (greedy_active ? 1 : 0), ranked.end(), older);
  }

  // Removes the active warps for which `pred` holds, keeping the order of the
  // rest and the LRR cursor on the same next warp. `pred` is called once per warp.
  template <class Pred>
  void remove_from_active_if(Pred pred) {
    size_t out = 0;
    size_t next = next_;
    for (size_t i = 0; i < active_.size(); ++i) {
      if (pred(active_[i])) {
        if (i < next_) --next;
      } else {
        active_[out++] = active_[i];
      }
    }
    active_.resize(out);
    next_ = next;
  }

  uint32_t active_set_;
  InnerOrder inner_;
  std::vector<Member> active_;    // in LRR order
  std::vector<Member> pending_;   // FIFO: front = pending longest
  std::vector<Member> ranked_;    // scratch: the active set in the inner order
  std::vector<SlotState> slots_;  // indexed by slot
  size_t next_ = 0;               // index in active_ where the LRR scan starts
  Member greedy_{kNoSlot, 0};     // the warp that issued last (GTO inner order)
  uint64_t epoch_ = 0;
  const std::vector<WarpView>* warps_ = nullptr;  // this cycle's view, valid during order()
};

// Lazy two-level warp scheduler (EXPARS Sec. 3.3.6; "ltlws-lrr", "ltlws-gto"):
// two-level with the named inner order whose active set starts unlimited, so
// every valid warp that is not waiting is schedulable, while it counts the
// instructions each warp issues. When the first warp finishes execution it
// fixes the active set, for the rest of the kernel, at Eq. (14):
//   W_opt = floor(sum_{i=1..W_Max} Inst_i / Inst_Max),
// W_Max the warps that issued at least one instruction since the kernel
// started (the finished one included), Inst_i their counts at that moment,
// Inst_Max the finished warp's count. The finished warp is one of the
// summands, so W_opt >= 1. Example: four warps issued 10, 10, 5 and 5 when
// the first of them finishes after 10: W_opt = floor(30 / 10) = 3.
// W_opt is per scheduler: the SM builds one policy per scheduler and each
// sees only its own warps (slots s mod sm.num_schedulers), so each counts
// its warps, waits for its own first finished warp and keeps its own active
// set, as sm.two_level_active_warps is per scheduler for two-level. The
// paper describes one scheduler per SM; this is that rule applied to each.
// Until the first warp finishes no slot of the scheduler is reused, so the
// counts can be kept by slot. A warp that finishes having issued nothing
// gives no Inst_Max (Eq. 14 would divide by zero): the next one to finish
// sizes the set. Each kernel is measured afresh (kernel_started()).
// EXPARS's prefetching queue (warps whose registers are still being
// preloaded) has no counterpart here: such warps are `waiting` in the view
// and wait in the pending set.
class LtlwsPolicy final : public SchedulerPolicy {
 public:
  explicit LtlwsPolicy(InnerOrder inner) : inner_(inner), two_level_(kUnlimitedActiveSet, inner) {}

  std::string name() const override { return inner_ == InnerOrder::Lrr ? "ltlws-lrr" : "ltlws-gto"; }

  void order(const std::vector<WarpView>& warps, std::vector<uint32_t>& order) override {
    two_level_.order(warps, order);
  }

  void issued(uint32_t slot) override {
    two_level_.issued(slot);
    if (sized_) return;
    if (slot >= issued_by_slot_.size()) issued_by_slot_.resize(slot + 1, 0);
    ++issued_by_slot_[slot];
  }

  void warp_finished(uint32_t slot) override {
    if (sized_ || slot >= issued_by_slot_.size() || issued_by_slot_[slot] == 0) return;
    const uint64_t inst_max = issued_by_slot_[slot];
    const uint64_t inst_sum = std::accumulate(issued_by_slot_.begin(), issued_by_slot_.end(), uint64_t{0});
    const uint64_t w_opt = inst_sum / inst_max;
    // Warps longer than the finished one can make W_opt exceed the warps
    // there are; any size past that is the same as no limit.
    two_level_.set_active_set(static_cast<uint32_t>(std::min<uint64_t>(w_opt, kUnlimitedActiveSet)));
    sized_ = true;
  }

  uint32_t active_limit() const override { return two_level_.active_limit(); }

  void kernel_started() override {
    two_level_.set_active_set(kUnlimitedActiveSet);
    issued_by_slot_.clear();
    sized_ = false;
  }

 private:
  InnerOrder inner_;
  TwoLevelPolicy two_level_;
  std::vector<uint64_t> issued_by_slot_;  // Inst_i by slot until the first warp finishes
  bool sized_ = false;                    // W_opt is set for this kernel
};

}  // namespace

std::unique_ptr<SchedulerPolicy> make_scheduler_policy(const std::string& name, uint32_t active_set) {
  if (name == "lrr") return std::make_unique<LrrPolicy>();
  if (name == "gto") return std::make_unique<GtoPolicy>();
  if (name == "owf") return std::make_unique<OwfPolicy>();
  if (name == "two-level") {
    if (active_set == 0)
      throw input_error("warp scheduler", "sm.two_level_active_warps", "must be at least 1 for the two-level policy");
    return std::make_unique<TwoLevelPolicy>(active_set, InnerOrder::Lrr);
  }
  if (name == "ltlws-lrr") return std::make_unique<LtlwsPolicy>(InnerOrder::Lrr);
  if (name == "ltlws-gto") return std::make_unique<LtlwsPolicy>(InnerOrder::Gto);
  throw input_error("warp scheduler", "sm.scheduler",
                    "unknown policy '" + name + "'; allowed: " + join(scheduler_policy_names()));
}

}  // namespace smshare
