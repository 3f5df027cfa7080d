// A priority queue of timed entries, earliest (cycle, seq) first, for an SM's
// result writebacks: most are due a few cycles after they are pushed, so
// those go to a ring of per-cycle FIFOs (a calendar) in O(1); the rest (far
// ahead, or already due) go to a FarQueue: a coarser ring of sorted blocks
// of kBuckets cycles each (a long-latency load's result), a binary heap
// beyond it. The order popped is exactly a std::priority_queue's on
// (cycle, seq). take_due() hands a cycle's entries out where they lie.
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
#include <utility>
#include <vector>

namespace smshare {

// The occupied bits of a ring of kSlots slots (a power of two, at most 64)
// going round from slot `at`: bit k is slot (at + k) % kSlots for k < kSlots
// (the bits above are not read). The calendar's buckets and the far
// queue's blocks are both found so.
template <uint32_t kSlots>
constexpr uint64_t ring_bits_from(uint64_t occupied, uint32_t at) {
  return at == 0 ? occupied : (occupied >> at) | (occupied << (kSlots - at));
}

// The calendar's entries outside its ring, with a std::priority_queue's
// interface (push, top, pop, empty, size). Most are long-latency loads'
// results, a few hundred cycles ahead: through a binary heap a push and a
// pop cost them about 200 host instructions on the bench trace, so those
// within kBlocks blocks of kBlocks cycles from the earliest block held go to
// a ring of blocks instead, each kept sorted by (cycle, seq) by insertion
// from its back (pushed in seq order, most land at or near it); the rest
// (beyond the blocks, behind the first, or a long way ahead) go to the heap,
// and top() is the earlier of the two fronts. push() stays out of line: the
// calendar's push() is inlined into SmCore::tick's stages, and its far path
// there is one call.
template <class T, uint32_t kBlocks>
class FarQueue {
  static_assert(kBlocks <= 64 && (kBlocks & (kBlocks - 1)) == 0, "kBlocks is a power of two, at most 64");

 public:
  FarQueue() = default;
  // front_ points into the held vectors: a move keeps their storage, a copy
  // would not.
  FarQueue(const FarQueue&) = delete;
  FarQueue& operator=(const FarQueue&) = delete;
  FarQueue(FarQueue&&) = default;
  FarQueue& operator=(FarQueue&&) = default;

  bool empty() const { return front_ == nullptr; }
  size_t size() const { return ring_count_ + heap_.size(); }
  const T& top() const { return *front_; }
  // top().cycle, or ~0 when empty: one load for the calendar's tests
  // whether the far queue has an entry due.
  uint64_t front_cycle() const { return front_cycle_; }

  [[gnu::noinline]] void push(const T& e) {
    const bool earliest = front_ == nullptr || *front_ > e;
    const uint64_t block = e.cycle / kBlocks;
    if (ring_count_ == 0) first_block_ = block;
    if (block - first_block_ < kBlocks) {  // also block < first_block_: the heap
      const auto at = static_cast<uint32_t>(block % kBlocks);
      Block& b = blocks_[at];
      b.entries.push_back(e);  // most often the block's latest: no swap
      for (size_t i = b.entries.size() - 1; i > b.head && b.entries[i - 1] > e; --i)
        std::swap(b.entries[i], b.entries[i - 1]);
      occupied_ |= uint64_t{1} << at;
      ++ring_count_;
      if (earliest) front_block_ = at;
    } else {
      heap_.push(e);
      if (earliest) front_block_ = kInHeap;
    }
    // The push may have moved the front's storage.
    if (front_block_ == kInHeap) {
      front_ = &heap_.top();
    } else {
      const Block& b = blocks_[front_block_];
      front_ = &b.entries[b.head];
    }
    front_cycle_ = front_->cycle;
  }

  void pop() {
    pop_front();
    front_cycle_ = front_ ? front_->cycle : kEmpty;
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};

  void pop_front() {
    if (front_block_ == kInHeap) {
      heap_.pop();
      find_front();
      return;
    }
    // Nothing held is earlier than this entry's block, so the ring's window
    // may start there.
    first_block_ = front_->cycle / kBlocks;
    Block& b = blocks_[front_block_];
    --ring_count_;
    if (++b.head < b.entries.size()) {
      front_ = &b.entries[b.head];  // the ring's next entry, in the same block
      take_heap_front_if_earlier();
      return;
    }
    b.entries.clear();
    b.head = 0;
    occupied_ &= ~(uint64_t{1} << front_block_);
    find_front();
  }

  struct Block {
    std::vector<T> entries;  // sorted by (cycle, seq) from head on
    size_t head = 0;         // entries before it were popped
  };

  // front_ and front_block_ to the earlier of the ring's first entry (its
  // first occupied block going round from first_block_'s) and the heap's.
  void find_front() {
    front_ = nullptr;
    front_block_ = kInHeap;
    if (occupied_ != 0) {
      const auto from = static_cast<uint32_t>(first_block_ % kBlocks);
      front_block_ = (from + static_cast<uint32_t>(__builtin_ctzll(ring_bits_from<kBlocks>(occupied_, from)))) % kBlocks;
      const Block& b = blocks_[front_block_];
      front_ = &b.entries[b.head];
    }
    take_heap_front_if_earlier();
  }

  // front_ is the ring's first entry, or nullptr with the ring empty.
  void take_heap_front_if_earlier() {
    if (!heap_.empty() && (front_ == nullptr || *front_ > heap_.top())) {
      front_ = &heap_.top();
      front_block_ = kInHeap;
    }
  }

  static constexpr uint32_t kInHeap = kBlocks;
  std::array<Block, kBlocks> blocks_;
  uint64_t occupied_ = 0;  // bit b: block b holds an entry
  size_t ring_count_ = 0;
  uint64_t first_block_ = 0;        // the ring holds blocks [first_block_, first_block_ + kBlocks)
  const T* front_ = nullptr;        // the earliest entry, or nullptr: empty
  uint64_t front_cycle_ = kEmpty;   // its cycle, or kEmpty
  uint32_t front_block_ = kInHeap;  // front_'s block in the ring, or kInHeap
  std::priority_queue<T, std::vector<T>, std::greater<T>> heap_;
};

template <class T, uint32_t kBuckets = 64>
class CalendarQueue {
  static_assert(kBuckets <= 64 && (kBuckets & (kBuckets - 1)) == 0, "kBuckets is a power of two, at most 64");

 public:
  // The entries take_due() hands out, in pop_due()'s order.
  struct Taken {
    T* first = nullptr;
    T* last = nullptr;
    T* begin() const { return first; }
    T* end() const { return last; }
    size_t size() const { return static_cast<size_t>(last - first); }
  };

  CalendarQueue() = default;
  // taken_ points at a member: neither copied nor moved.
  CalendarQueue(const CalendarQueue&) = delete;
  CalendarQueue& operator=(const CalendarQueue&) = delete;

  bool empty() const { return occupied_ == 0 && far_.empty(); }
  // False when no entry is due by `cycle`: pop_due() would return false
  // (its caller may skip the call, and the ring's window then moves on at
  // the next one).
  bool may_be_due(uint64_t cycle) const { return no_entry_before_ <= cycle; }
  size_t size() const {
    size_t n = far_.size();
    for (uint32_t at = 0; at < kBuckets; ++at)
      if ((occupied_ >> at) & 1) n += buckets_[at].entries.size() - buckets_[at].head;
    return n;
  }

  // The ring takes cycles [base_, base_ + kBuckets - 1): the bucket of
  // base_ - 1, the cycle take_due() last handed out, takes no entry while
  // its caller works through them (base_ moves on only in take_due() and
  // pop_due()).
  void push(const T& e) {
    if (e.cycle < no_entry_before_) no_entry_before_ = e.cycle;
    if (e.cycle >= base_ && e.cycle - base_ < kBuckets - 1) {
      buckets_[e.cycle % kBuckets].entries.push_back(e);
      occupied_ |= uint64_t{1} << (e.cycle % kBuckets);
      if (e.cycle < cursor_) cursor_ = e.cycle;
    } else {
      far_.push(e);
    }
  }
  // An entry whose seq is below one already pushed: to the far queue,
  // which orders it by (cycle, seq) among the ring's entries too (pop_due()
  // compares the two fronts), where a FIFO would put it after them.
  void push_out_of_seq_order(const T& e) {
    if (e.cycle < no_entry_before_) no_entry_before_ = e.cycle;
    far_.push(e);
  }

  // The earliest entry's cycle (not empty()).
  uint64_t top_cycle() {
    const T* near = near_front();
    return far_.empty() || (near && far_.top() > *near) ? near->cycle : far_.front_cycle();
  }

  // Moves the earliest entry into `out` if it is due by `cycle`; false if
  // none is. Then nothing earlier than cycle + 1 is left, and the ring's
  // window moves on to start there (an entry pushed later for an earlier
  // cycle goes to the far queue). Ends what take_due() handed out.
  bool pop_due(uint64_t cycle, T& out) {
    taken_->clear();
    taken_ = &spill_;
    return pop_one_due(cycle, out);
  }

  // Every entry due by `cycle`, in the order pop_due() would pop them; the
  // queue is left as the last, failing, pop_due() would leave it. They stay
  // where they are, and the caller may change them, until the next
  // take_due() or pop_due(); entries pushed meanwhile (a retry next cycle)
  // are not among them and do not move them. Most calls find the due entries
  // all in the ring, in `cycle`'s own bucket (results written back in the
  // cycle they are due): that bucket's entries are handed out in place,
  // without pop_due()'s search and copy at every entry and for the pop that
  // finds nothing more, and without the swap of the bucket's vector with a
  // batch vector that cost about 15 host instructions a call. (A long-latency
  // load's result comes from the far queue: then take_due_elsewhere().
  // Merging the bucket with the far queue's due entries cost the bench trace
  // 8 M host instructions more when tried.)
  Taken take_due(uint64_t cycle) {
    // What the last call handed out is done with: its storage (a bucket's,
    // which no push reached since, or spill_) is emptied.
    taken_->clear();
    // No ring entry is before the cursor, which is always in the window: at
    // `cycle` the ring's due entries are all in `cycle`'s bucket (the two
    // tests of ring_due_only_in_own_bucket() in one).
    const auto at = static_cast<uint32_t>(cycle % kBuckets);
    Bucket& b = buckets_[at];
    if (cursor_ == cycle && far_.front_cycle() > cycle && b.head == 0)  // else pop_due() took part of it
      return hand_out(cycle, b);
    return take_due_elsewhere(cycle);
  }

 private:
  struct Bucket {
    std::vector<T> entries;
    size_t head = 0;  // entries before it were popped
  };

  // The entries due by `cycle`, all in its bucket b (none popped), handed out.
  Taken hand_out(uint64_t cycle, Bucket& b) {
    taken_ = &b.entries;
    occupied_ &= ~(uint64_t{1} << (cycle % kBuckets));
    moved_past(cycle);
    return {b.entries.data(), b.entries.data() + b.entries.size()};
  }

  // take_due() when the ring's front is not at `cycle` or the far queue has
  // an entry due: nothing due; or the ring's due entries all in `cycle`'s
  // bucket, handed out there; else, with no ring entry due, a loop over
  // the far queue's front, or pop_one_due() at each entry, into spill_. Out
  // of line, as GCC split take_due() before on its own: the writeback
  // inlines the common case only (inlined whole, take_due() left
  // write_results: +24 M on the trace).
  [[gnu::noinline]] Taken take_due_elsewhere(uint64_t cycle) {
    taken_ = &spill_;
    if (no_entry_before_ > cycle) {
      move_window_past(cycle);
      return {};
    }
    const bool ring_due_only_in_own = ring_due_only_in_own_bucket(cycle);
    const auto at = static_cast<uint32_t>(cycle % kBuckets);
    Bucket& b = buckets_[at];
    if (ring_due_only_in_own && far_.front_cycle() > cycle && b.head == 0) return hand_out(cycle, b);
    if (ring_due_only_in_own && !((occupied_ >> at) & 1) && far_.front_cycle() <= cycle) {
      // The far queue's entries alone are due (most often a load's result).
      do {
        spill_.push_back(far_.top());
        far_.pop();
      } while (far_.front_cycle() <= cycle);
      moved_past(cycle);
    } else {
      for (T e; pop_one_due(cycle, e);) spill_.push_back(e);
    }
    return {spill_.data(), spill_.data() + spill_.size()};
  }

  // pop_due() without ending what take_due() handed out.
  bool pop_one_due(uint64_t cycle, T& out) {
    if (no_entry_before_ > cycle) {
      move_window_past(cycle);
      return false;
    }
    const T* near = near_front();
    // The far queue's front is asked first whether it is due: most often it is
    // not (a load's data far ahead), and then the ring's front leaves without
    // the two fronts' (cycle, seq) comparison.
    const bool far_due = far_.front_cycle() <= cycle;
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
      return true;
    }
    // Neither front is due (the far queue's is not, or it would have left).
    no_entry_before_ = near ? near->cycle : kNone;
    if (far_.front_cycle() < no_entry_before_) no_entry_before_ = far_.front_cycle();
    if (cycle + 1 > base_) base_ = cycle + 1;  // the ring's entries are all later
    if (!near) cursor_ = base_;
    return false;
  }

  // Nothing is due by `cycle` (no_entry_before_ > cycle): the window moves on
  // without a search; no ring entry is earlier than no_entry_before_, so none
  // before base_.
  void move_window_past(uint64_t cycle) {
    if (cycle + 1 > base_) base_ = cycle + 1;
    if (cursor_ < base_) cursor_ = base_;
  }

  // Whether the ring's entries due by `cycle` are all in `cycle`'s own
  // bucket: `cycle` is in the window and no bucket before its is occupied
  // (cursor_ is most often at `cycle` itself, the front that made an entry
  // due). An empty ring's window moves to start at `cycle`.
  bool ring_due_only_in_own_bucket(uint64_t cycle) {
    if (cycle - base_ >= kBuckets) {  // also cycle < base_
      if (occupied_ != 0 || cycle < base_) return false;
      base_ = cursor_ = cycle;
      return true;
    }
    if (cursor_ >= cycle) return true;
    // cursor_ >= base_, so cycle - cursor_ < kBuckets: the buckets of cycles
    // [cursor_, cycle), going round from cursor_'s.
    return (occupied_from(static_cast<uint32_t>(cursor_ % kBuckets)) & ((uint64_t{1} << (cycle - cursor_)) - 1)) == 0;
  }

  // The occupied bits going round from bucket `at` (ring_bits_from).
  uint64_t occupied_from(uint32_t at) const { return ring_bits_from<kBuckets>(occupied_, at); }

  // Nothing due by `cycle` is left, and `cycle` was in the window: the window
  // moves on to start at cycle + 1, and the cursor and no_entry_before_ go to
  // the next front, exactly, as after a pop_due() that found nothing due.
  // The ring's entries are at cycles cycle + 1 ... cycle + kBuckets - 1,
  // bucket (cycle + k) % kBuckets holding cycle + k.
  // Each field is stored once, the cursor's in the branch that finds it: with
  // the four stores together GCC paired them into two 16-byte stores, each
  // pair assembled in a vector register (3 host instructions a call more).
  void moved_past(uint64_t cycle) {
    const uint64_t next = cycle + 1;
    const uint64_t far_front = far_.front_cycle();  // kNone when empty
    base_ = next;
    if (occupied_ == 0) {
      cursor_ = next;
      no_entry_before_ = far_front;
      return;
    }
    const uint64_t cursor = next + static_cast<uint64_t>(__builtin_ctzll(occupied_from(static_cast<uint32_t>(next % kBuckets))));
    cursor_ = cursor;
    no_entry_before_ = cursor < far_front ? cursor : far_front;
  }

  // The ring's earliest entry, or nullptr; moves cursor_ to its bucket. The
  // ring holds cycles [base_, base_ + kBuckets - 1), one per bucket, so the first
  // occupied bucket at or after cursor_'s, going round, holds it.
  const T* near_front() {
    if (occupied_ == 0) return nullptr;
    const uint32_t at = static_cast<uint32_t>(cursor_ % kBuckets);
    const uint64_t ahead = occupied_ >> at;  // buckets at, at + 1, ..., kBuckets - 1
    // Most often the cursor's bucket holds it (the cycle being written back).
    if (!(ahead & 1)) cursor_ += ahead ? __builtin_ctzll(ahead) : kBuckets - at + __builtin_ctzll(occupied_);
    const Bucket& b = buckets_[cursor_ % kBuckets];
    return &b.entries[b.head];
  }

  static constexpr uint64_t kNone = ~uint64_t{0};
  // The scalars first, in the object's first line: a cycle with nothing due
  // reads no_entry_before_ alone, and an owner that places the queue right
  // after its own per-cycle fields (SmCore) finds it among them.
  // No entry is earlier than this (a lower bound, exact after a search that
  // found nothing due; kNone: the queue is empty), so that pop_due() in a
  // cycle with nothing due costs a comparison.
  uint64_t no_entry_before_ = kNone;
  uint64_t occupied_ = 0;  // bit b: bucket b holds an entry (none: the ring is empty)
  uint64_t base_ = 0;    // first cycle of the ring's window
  uint64_t cursor_ = 0;  // no ring entry is earlier; base_ <= cursor_ < base_ + kBuckets
  std::array<Bucket, kBuckets> buckets_;
  FarQueue<T, kBuckets> far_;
  // Where take_due()'s entries came from when they are not in a bucket.
  std::vector<T> spill_;
  // The storage take_due() handed out last (a bucket's entries or spill_).
  std::vector<T>* taken_ = &spill_;
};

}  // namespace smshare
