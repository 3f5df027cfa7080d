// A map from sector addresses to a small value, for the L1 data cache's
// fills in flight: one flat table with open addressing (linear probing,
// backward-shift deletion), so that recording a fill allocates nothing
// (std::unordered_map allocates a node per entry, and the L1 records one
// or more per miss). Keys are sector addresses (multiples of 32), so ~0 is
// free to mark an empty slot. Iteration order is the table's: only for
// pruning, which does not depend on it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hw/common/bit_words.hpp"

namespace smshare {

template <typename Value>
class SectorMap {
 public:
  SectorMap() { clear(); }

  size_t size() const { return size_; }
  size_t slots() const { return keys_.size(); }
  bool empty() const { return size_ == 0; }
  void clear() {
    keys_.assign(size_t{1} << kInitialBits, kEmpty);
    values_.assign(keys_.size(), Value{});
    shift_ = 64 - kInitialBits;
    size_ = 0;
  }

  // The value of `key`, or null.
  Value* find(uint64_t key) {
    for (size_t i = home(key);; i = next(i)) {
      if (keys_[i] == key) return &values_[i];
      if (keys_[i] == kEmpty) return nullptr;
    }
  }
  void set(uint64_t key, Value value) {
    // Kept at most half full, so probe runs stay short.
    if (2 * (size_ + 1) > keys_.size()) grow();
    size_t i = home(key);
    for (; keys_[i] != kEmpty; i = next(i))
      if (keys_[i] == key) {
        values_[i] = value;
        return;
      }
    keys_[i] = key;
    values_[i] = value;
    ++size_;
  }
  void erase(uint64_t key) {
    for (size_t i = home(key); keys_[i] != kEmpty; i = next(i))
      if (keys_[i] == key) {
        erase_slot(i);
        return;
      }
  }
  // Erases the value `found` points to (a find() answer, no set() or erase() since).
  void erase_found(Value* found) { erase_slot(static_cast<size_t>(found - values_.data())); }
  // Erases every entry whose value satisfies `drop` (the L1 drops the fills
  // that have arrived, most of the table): the others are put into a
  // cleared table of the fewest slots (64 at least) that holds them at most
  // half full. (Erasing in place shifted a probe run back at every erase.)
  // The table shrinks with what is kept because it is probed at random:
  // left at the size it once grew to, most of its lines are out of the
  // host's caches at the next lookup.
  template <typename Drop>
  void erase_if(Drop drop) {
    size_t kept = 0;
    for (size_t i = 0; i < keys_.size(); ++i) kept += keys_[i] != kEmpty && !drop(values_[i]);
    const uint32_t bits = std::max(kInitialBits, ceil_log2(2 * kept));
    shift_ = 64 - bits;
    rebuild(size_t{1} << bits, [&drop](const Value& v) { return !drop(v); });
  }

 private:
  static constexpr uint64_t kEmpty = ~0ull;
  static constexpr uint32_t kInitialBits = 6;  // 64 slots

  // Fibonacci hashing of the sector number: the top bits of its product
  // with 2^64 / golden ratio index the table.
  size_t home(uint64_t key) const { return static_cast<size_t>(((key >> 5) * 0x9E3779B97F4A7C15ull) >> shift_); }
  size_t next(size_t i) const { return (i + 1) & (keys_.size() - 1); }

  void erase_slot(size_t hole) {
    // Backward shift: a later entry of the same probe run moves into the
    // hole unless its home lies after the hole (it would become unreachable).
    const size_t mask = keys_.size() - 1;
    for (size_t j = next(hole); keys_[j] != kEmpty; j = next(j)) {
      if (((j - home(keys_[j])) & mask) < ((j - hole) & mask)) continue;
      keys_[hole] = keys_[j];
      values_[hole] = values_[j];
      hole = j;
    }
    keys_[hole] = kEmpty;
    --size_;
  }
  void grow() {
    --shift_;  // home() in the doubled table
    rebuild(2 * keys_.size(), [](const Value&) { return true; });
  }
  // Puts the entries whose value `keep` accepts into a cleared table of
  // `slots` slots (shift_ already set for it; they fit in it).
  template <typename Keep>
  void rebuild(size_t slots, Keep keep) {
    std::vector<uint64_t> keys(slots, kEmpty);
    std::vector<Value> values(slots);
    keys.swap(keys_);
    values.swap(values_);
    size_ = 0;
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != kEmpty && keep(values[i])) set(keys[i], values[i]);
  }

  std::vector<uint64_t> keys_;
  std::vector<Value> values_;
  size_t size_ = 0;
  uint32_t shift_ = 0;  // 64 - log2(slots)
};

}  // namespace smshare
