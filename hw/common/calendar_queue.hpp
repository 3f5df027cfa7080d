// A priority queue of timed entries, earliest (cycle, seq) first, for an SM's
// result writebacks: most are due a few cycles after they are pushed, so
// those go to a ring of per-cycle FIFOs (a calendar) in O(1); the rest (far
// ahead, or already due) go to a binary heap. The order popped is exactly a
// std::priority_queue's on (cycle, seq).
//
// T needs `uint64_t cycle`, `uint64_t seq` and operator> on (cycle, seq).
// Entries are pushed in increasing seq (a counter taken at each push), so
// each per-cycle FIFO is already in seq order; one pushed after entries with
// higher seqs goes in by push_out_of_seq_order().
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace smshare {

template <class T, uint32_t kBuckets = 64>
class CalendarQueue {
  static_assert(kBuckets <= 64 && (kBuckets & (kBuckets - 1)) == 0, "kBuckets is a power of two, at most 64");

 public:
  bool empty() const { return near_count_ == 0 && far_.empty(); }
  // False when no entry is due by `cycle`: pop_due() would return false
  // (its caller may skip the call, and the ring's window then moves on at
  // the next one).
  bool may_be_due(uint64_t cycle) const { return no_entry_before_ <= cycle; }
  size_t size() const { return near_count_ + far_.size(); }

  void push(const T& e) {
    if (e.cycle < no_entry_before_) no_entry_before_ = e.cycle;
    if (e.cycle >= base_ && e.cycle - base_ < kBuckets) {
      buckets_[e.cycle % kBuckets].entries.push_back(e);
      occupied_ |= uint64_t{1} << (e.cycle % kBuckets);
      ++near_count_;
      if (e.cycle < cursor_) cursor_ = e.cycle;
    } else {
      far_.push(e);
    }
  }
  // An entry whose seq is below one already pushed: to the heap, which
  // orders it by (cycle, seq) among the ring's entries too (pop_due()
  // compares the two fronts), where a FIFO would put it after them.
  void push_out_of_seq_order(const T& e) {
    if (e.cycle < no_entry_before_) no_entry_before_ = e.cycle;
    far_.push(e);
  }

  // The earliest entry's cycle (not empty()).
  uint64_t top_cycle() {
    const T* near = near_front();
    return far_.empty() || (near && far_.top() > *near) ? near->cycle : far_.top().cycle;
  }

  // Moves the earliest entry into `out` if it is due by `cycle`; false if
  // none is. Then nothing earlier than cycle + 1 is left, and the ring's
  // window moves on to start there (an entry pushed later for an earlier
  // cycle goes to the heap).
  bool pop_due(uint64_t cycle, T& out) {
    if (no_entry_before_ > cycle) {
      // Nothing due (most cycles): the window moves on without a search; no
      // ring entry is earlier than no_entry_before_, so none before base_.
      if (cycle + 1 > base_) base_ = cycle + 1;
      if (cursor_ < base_) cursor_ = base_;
      return false;
    }
    const T* near = near_front();
    // The heap's front is asked first whether it is due: most often it is not
    // (a load's data far ahead), and then the ring's front leaves without
    // the two fronts' (cycle, seq) comparison.
    const bool far_due = !far_.empty() && far_.top().cycle <= cycle;
    if (far_due && (!near || *near > far_.top())) {
      out = far_.top();
      far_.pop();
      no_entry_before_ = out.cycle;  // entries leave in order
      return true;
    }
    if (near && near->cycle <= cycle) {
      out = *near;
      no_entry_before_ = out.cycle;
      Bucket& b = buckets_[cursor_ % kBuckets];
      if (++b.head == b.entries.size()) {
        b.entries.clear();
        b.head = 0;
        occupied_ &= ~(uint64_t{1} << (cursor_ % kBuckets));
      }
      --near_count_;
      return true;
    }
    // Neither front is due (the heap's is not, or it would have left).
    no_entry_before_ = near ? near->cycle : kNone;
    if (!far_.empty() && far_.top().cycle < no_entry_before_) no_entry_before_ = far_.top().cycle;
    if (cycle + 1 > base_) base_ = cycle + 1;  // the ring's entries are all later
    if (!near) cursor_ = base_;
    return false;
  }

 private:
  struct Bucket {
    std::vector<T> entries;
    size_t head = 0;  // entries before it were popped
  };

  // The ring's earliest entry, or nullptr; moves cursor_ to its bucket. The
  // ring holds cycles [base_, base_ + kBuckets), one per bucket, so the first
  // occupied bucket at or after cursor_'s, going round, holds it.
  const T* near_front() {
    if (near_count_ == 0) return nullptr;
    const uint32_t at = static_cast<uint32_t>(cursor_ % kBuckets);
    const uint64_t ahead = occupied_ >> at;  // buckets at, at + 1, ..., kBuckets - 1
    // Most often the cursor's bucket holds it (the cycle being written back).
    if (!(ahead & 1)) cursor_ += ahead ? __builtin_ctzll(ahead) : kBuckets - at + __builtin_ctzll(occupied_);
    const Bucket& b = buckets_[cursor_ % kBuckets];
    return &b.entries[b.head];
  }

  static constexpr uint64_t kNone = ~uint64_t{0};
  std::array<Bucket, kBuckets> buckets_;
  uint64_t occupied_ = 0;  // bit b: bucket b holds an entry
  size_t near_count_ = 0;
  uint64_t base_ = 0;    // first cycle of the ring's window
  uint64_t cursor_ = 0;  // no ring entry is earlier (cursor_ >= base_)
  // No entry is earlier than this (a lower bound, exact after a search that
  // found nothing due; kNone: the queue is empty), so that pop_due() in a
  // cycle with nothing due costs a comparison.
  uint64_t no_entry_before_ = kNone;
  std::priority_queue<T, std::vector<T>, std::greater<T>> far_;
};

}  // namespace smshare
