// CalendarQueue must pop exactly what a std::priority_queue on (cycle, seq)
// pops, whatever mix of near, far and already-due entries it is given.
#include "hw/common/calendar_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <queue>
#include <random>
#include <vector>

namespace smshare {
namespace {

struct Entry {
  uint64_t cycle;
  uint64_t seq;
  bool operator>(const Entry& o) const { return cycle != o.cycle ? cycle > o.cycle : seq > o.seq; }
};

TEST(CalendarQueue, SameCycleEntriesLeaveInPushOrderAcrossRingAndHeap) {
  CalendarQueue<Entry, 8> q;
  q.push({100, 0});  // beyond the ring's window [0, 8): the far queue
  Entry e{};
  EXPECT_FALSE(q.pop_due(94, e));  // nothing due: the window is now [95, 103)
  q.push({100, 1});  // in the ring, after the far queue's entry of the same cycle
  q.push({96, 2});
  q.push({90, 3});  // already due: the far queue
  std::vector<uint64_t> seqs;
  while (q.pop_due(1000, e)) seqs.push_back(e.seq);
  EXPECT_EQ(seqs, (std::vector<uint64_t>{3, 2, 0, 1}));
}

TEST(CalendarQueue, TheWindowNeverMovesPastAnEntryItHolds) {
  CalendarQueue<Entry, 8> q;
  q.push({5, 0});
  Entry e{};
  EXPECT_FALSE(q.pop_due(4, e));  // the window starts at 5 at the latest
  q.push({13, 1});  // 13 - 5 >= 8: the far queue, not bucket 13 % 8 = 5, which holds cycle 5
  q.push({11, 2});  // the ring: bucket 3
  q.push({3, 3});   // already due: the far queue
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(q.top_cycle(), 3u);
  for (uint64_t expected : {3u, 0u, 2u, 1u}) {
    ASSERT_TRUE(q.pop_due(13, e));
    EXPECT_EQ(e.seq, expected);
  }
  EXPECT_TRUE(q.empty());
}

// A load finished after its tick (on the host threads) comes in with the seq
// it took when sent, below those of completions pushed since: it must leave
// before them in its cycle, as it would have if pushed at once (push() would
// put it at the end of the cycle's FIFO).
TEST(CalendarQueue, AnEntryPushedOutOfSeqOrderLeavesInSeqOrder) {
  CalendarQueue<Entry, 8> q;
  q.push({4, 11});
  q.push({4, 12});
  q.push({6, 13});
  q.push_out_of_seq_order({4, 10});  // in the ring's window, below 11 and 12
  q.push_out_of_seq_order({6, 5});
  q.push_out_of_seq_order({5, 9});
  std::vector<uint64_t> seqs;
  for (Entry e; q.pop_due(100, e);) seqs.push_back(e.seq);
  EXPECT_EQ(seqs, (std::vector<uint64_t>{10, 11, 12, 9, 5, 13}));
}

// A writeback loop in the SM's shape: each cycle pops what is due (retrying
// some one cycle later), advances, and pushes new entries at random distances.
// Like the SM, it skips pop_due() when may_be_due() says nothing is due, and
// checks that it is right to.
TEST(CalendarQueue, MatchesAPriorityQueueOnARandomWritebackLoop) {
  std::mt19937_64 rng(7);
  CalendarQueue<Entry, 16> q;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ref;
  uint64_t seq = 0, popped = 0;
  auto push = [&](uint64_t cycle) {
    q.push({cycle, seq});
    ref.push({cycle, seq});
    ++seq;
  };
  for (uint64_t now = 0; now < 60000; now += 1 + rng() % 3 * (rng() % 5 == 0 ? 40 : 1)) {
    if (!q.may_be_due(now)) {
      ASSERT_TRUE(ref.empty() || ref.top().cycle > now) << "may_be_due() said no with an entry due at " << now;
    }
    for (Entry e; q.may_be_due(now) && q.pop_due(now, e);) {
      ASSERT_FALSE(ref.empty());
      ASSERT_EQ(e.cycle, ref.top().cycle);
      ASSERT_EQ(e.seq, ref.top().seq);
      ref.pop();
      ++popped;
      if (rng() % 4 == 0) push(now + 1);  // a write port was busy: next cycle
    }
    ASSERT_TRUE(ref.empty() || ref.top().cycle > now);  // pop_due said nothing is due
    if (!ref.empty()) {
      ASSERT_EQ(q.top_cycle(), ref.top().cycle);
    }
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) {
      const uint64_t r = rng() % 10;
      push(r < 6 ? now + 1 + rng() % 12 : r < 9 ? now + 20 + rng() % 400 : now - std::min<uint64_t>(now, rng() % 2));
    }
    ASSERT_EQ(q.size(), ref.size());
  }
  EXPECT_GT(popped, 10000u);
}

// The entries beyond the ring go to its FarQueue: a ring of sorted blocks
// (here 8 blocks of 8 cycles) and a heap beyond it. Long-latency results at
// random distances (many within a block of each other, some beyond the
// blocks' reach), entries already due, and some pushed out of seq order a few
// cycles after their seq was taken, against a priority queue.
TEST(CalendarQueue, FarEntriesLeaveInOrderThroughBlocksAndHeap) {
  std::mt19937_64 rng(13);
  CalendarQueue<Entry, 8> q;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ref;
  std::vector<Entry> held;  // seqs taken, pushed later by push_out_of_seq_order()
  uint64_t seq = 0, popped = 0;
  auto both = [&](const Entry& e, bool in_seq_order) {
    if (in_seq_order) q.push(e);
    else q.push_out_of_seq_order(e);
    ref.push(e);
  };
  for (uint64_t now = 0; now < 40000; now += 1 + rng() % 2) {
    for (Entry e; q.pop_due(now, e);) {
      ASSERT_FALSE(ref.empty());
      ASSERT_EQ(e.cycle, ref.top().cycle);
      ASSERT_EQ(e.seq, ref.top().seq);
      ref.pop();
      ++popped;
    }
    ASSERT_TRUE(ref.empty() || ref.top().cycle > now);
    if (!held.empty() && rng() % 3 == 0) {
      both(held.back(), false);
      held.pop_back();
    }
    for (int k = static_cast<int>(rng() % 3); k > 0; --k) {
      const uint64_t r = rng() % 10;
      const uint64_t cycle = r < 2 ? now + 1 + rng() % 8 : r < 8 ? now + 9 + rng() % 60 : r < 9 ? now + 70 + rng() % 500 : now;
      const Entry e{cycle, seq++};
      if (rng() % 8 == 0) held.push_back(e);
      else both(e, true);
    }
    ASSERT_EQ(q.size(), ref.size());
  }
  EXPECT_GT(popped, 10000u);
}

// take_due() hands over what pop_due() would pop, in its order, and leaves
// the queue as pop_due() would: the same random writeback loop, half of the
// cycles taking their due entries in one batch (retries pushed after the
// batch, as the SM does), checked against a priority queue and against a
// second queue driven by pop_due() alone. Entries for cycles skipped by the
// caller (a lagging window), heap entries due beside the ring's, and an
// empty ring far behind the cycle all occur.
TEST(CalendarQueue, TakeDueMatchesPopDue) {
  std::mt19937_64 rng(11);
  CalendarQueue<Entry, 16> q, by_pop;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ref;
  uint64_t seq = 0, taken = 0, batches = 0;
  auto push = [&](uint64_t cycle) {
    q.push({cycle, seq});
    by_pop.push({cycle, seq});
    ref.push({cycle, seq});
    ++seq;
  };
  std::vector<Entry> due;
  for (uint64_t now = 0; now < 60000; now += 1 + rng() % 3 * (rng() % 5 == 0 ? 40 : 1)) {
    ASSERT_EQ(q.may_be_due(now), by_pop.may_be_due(now));
    due.clear();
    std::vector<Entry> popped;
    if (q.may_be_due(now)) {  // as the SM asks (and pop_due() is not asked otherwise)
      q.take_due(now, due);
      for (Entry e; by_pop.pop_due(now, e);) popped.push_back(e);
    }
    ASSERT_EQ(due.size(), popped.size());
    for (size_t i = 0; i < due.size(); ++i) {
      ASSERT_FALSE(ref.empty());
      ASSERT_EQ(due[i].cycle, ref.top().cycle);
      ASSERT_EQ(due[i].seq, ref.top().seq);
      ASSERT_EQ(popped[i].seq, due[i].seq);
      ref.pop();
    }
    taken += due.size();
    batches += due.size() > 1;
    ASSERT_TRUE(ref.empty() || ref.top().cycle > now);
    ASSERT_FALSE(q.may_be_due(now));
    if (!ref.empty()) {
      ASSERT_EQ(q.top_cycle(), ref.top().cycle);
    }
    for (size_t i = 0; i < due.size(); ++i)
      if (rng() % 4 == 0) push(now + 1);  // a write port was busy: next cycle
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) {
      const uint64_t r = rng() % 10;
      push(r < 6 ? now + 1 + rng() % 12 : r < 9 ? now + 20 + rng() % 400 : now - std::min<uint64_t>(now, rng() % 2));
    }
    ASSERT_EQ(q.size(), ref.size());
  }
  EXPECT_GT(taken, 10000u);
  EXPECT_GT(batches, 1000u);
}

}  // namespace
}  // namespace smshare
