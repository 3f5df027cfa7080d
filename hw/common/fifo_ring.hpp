// A first-in first-out queue in a ring that grows by doubling. std::deque
// allocates a block every few elements pushed and frees it once they are
// popped, so a queue that keeps a few elements while many pass through it
// (a DRAM channel's door under a full request queue, an L2 slice's held
// input) paid an allocation and a free every eight requests; the ring
// allocates only when it holds more than ever before.
#pragma once

#include <cstddef>
#include <vector>

namespace smshare {

// Doubles a ring (a power of two long, or empty) holding `count` elements
// from index `head` on, the oldest first: they move to the start of the
// bigger ring, and `head` becomes 0. FifoRing and SortedTimes grow so.
template <typename T>
void grow_ring(std::vector<T>& ring, size_t& head, size_t count) {
  std::vector<T> bigger(ring.empty() ? 16 : ring.size() * 2);
  for (size_t i = 0; i < count; ++i) bigger[i] = ring[(head + i) & (ring.size() - 1)];
  ring.swap(bigger);
  head = 0;
}

template <typename T>
class FifoRing {
 public:
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  // The oldest element (not empty()).
  T& front() { return ring_[head_]; }
  const T& front() const { return ring_[head_]; }

  void push_back(const T& v) {
    // Rare: only when more elements are held than ever before.
    if (count_ == ring_.size()) grow_ring(ring_, head_, count_);
    ring_[(head_ + count_) & (ring_.size() - 1)] = v;
    ++count_;
  }
  // Forgets the oldest element (not empty()).
  void pop_front() {
    head_ = (head_ + 1) & (ring_.size() - 1);
    --count_;
  }

 private:
  std::vector<T> ring_;  // a power of two long (or empty)
  size_t head_ = 0;      // the oldest element's index
  size_t count_ = 0;
};

}  // namespace smshare
