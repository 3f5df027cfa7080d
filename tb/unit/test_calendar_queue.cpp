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

// FarQueue::front_cycle() is the front's cycle through pushes and pops of
// the blocks and the heap, and ~0 once the queue is empty (the calendar's
// tests whether a far entry is due read it alone).
TEST(FarQueue, FrontCycleFollowsTheFront) {
  std::mt19937_64 rng(5);
  FarQueue<Entry, 8> q;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ref;
  EXPECT_EQ(q.front_cycle(), ~uint64_t{0});
  uint64_t seq = 0;
  for (int round = 0; round < 2000; ++round) {
    for (int k = static_cast<int>(rng() % 3); k > 0; --k) {
      const Entry e{static_cast<uint64_t>(round) + rng() % (rng() % 4 == 0 ? 400 : 40), seq++};
      q.push(e);
      ref.push(e);
      ASSERT_EQ(q.front_cycle(), ref.top().cycle);
    }
    for (int k = static_cast<int>(rng() % 3); k > 0 && !ref.empty(); --k) {
      ASSERT_EQ(q.top().seq, ref.top().seq);
      q.pop();
      ref.pop();
      ASSERT_EQ(q.front_cycle(), ref.empty() ? ~uint64_t{0} : ref.top().cycle);
    }
  }
  while (!ref.empty()) {
    q.pop();
    ref.pop();
  }
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.front_cycle(), ~uint64_t{0});
}

// take_due() hands over what pop_due() would pop, in its order, and leaves
// the queue as pop_due() would: the same random writeback loop, each cycle
// taking its due entries in one batch (retries pushed while the batch is
// gone through, as the SM does), checked against a priority queue and
// against a second queue driven by pop_due() alone. Entries for cycles
// skipped by the caller (a lagging window), heap entries due beside the
// ring's, and an empty ring far behind the cycle all occur.
TEST(CalendarQueue, TakeDueMatchesPopDue) {
  std::mt19937_64 rng(11);
  CalendarQueue<Entry, 16> q, by_pop;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ref;
  uint64_t seq = 0, taken = 0, batches = 0;
  std::vector<Entry> retried;  // pushed while a batch is gone through: ref takes them after it
  auto push = [&](uint64_t cycle) {
    q.push({cycle, seq});
    by_pop.push({cycle, seq});
    ref.push({cycle, seq});
    ++seq;
  };
  for (uint64_t now = 0; now < 60000; now += 1 + rng() % 3 * (rng() % 5 == 0 ? 40 : 1)) {
    ASSERT_EQ(q.may_be_due(now), by_pop.may_be_due(now));
    CalendarQueue<Entry, 16>::Taken due;
    std::vector<Entry> popped;
    if (q.may_be_due(now)) {  // as the SM asks (and pop_due() is not asked otherwise)
      due = q.take_due(now);
      for (Entry e; by_pop.pop_due(now, e);) popped.push_back(e);
    }
    ASSERT_EQ(due.size(), popped.size());
    size_t i = 0;
    for (const Entry& e : due) {
      ASSERT_FALSE(ref.empty());
      ASSERT_EQ(e.cycle, ref.top().cycle);
      ASSERT_EQ(e.seq, ref.top().seq);
      ASSERT_EQ(popped[i++].seq, e.seq);
      ref.pop();
      if (rng() % 4 == 0) {
        by_pop.push({now + 1, seq});  // a write port was busy: next cycle
        q.push({now + 1, seq});
        retried.push_back({now + 1, seq});
        ++seq;
      }
    }
    for (const Entry& e : retried) ref.push(e);
    retried.clear();
    taken += due.size();
    batches += due.size() > 1;
    ASSERT_TRUE(ref.empty() || ref.top().cycle > now);
    ASSERT_FALSE(q.may_be_due(now));
    if (!ref.empty()) {
      ASSERT_EQ(q.top_cycle(), ref.top().cycle);
    }
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) {
      const uint64_t r = rng() % 10;
      push(r < 6 ? now + 1 + rng() % 12 : r < 9 ? now + 20 + rng() % 400 : now - std::min<uint64_t>(now, rng() % 2));
    }
    ASSERT_EQ(q.size(), ref.size());
  }
  EXPECT_GT(taken, 10000u);
  EXPECT_GT(batches, 1000u);
}

// take_due() hands a cycle's entries out where they lie (its bucket of the
// ring): entries pushed while they are gone through, for any cycle the ring
// then takes (the next cycle up to the window's end) or beyond it, must
// neither overwrite nor move them, and leave after them in order.
TEST(CalendarQueue, EntriesTakenStayPutWhileMoreArePushed) {
  CalendarQueue<Entry, 8> q;
  q.push({3, 0});
  q.push({3, 1});
  const auto due = q.take_due(3);
  ASSERT_EQ(due.size(), 2u);
  uint64_t seq = 2;
  std::vector<Entry> pushed;
  for (const Entry& e : due) {
    for (uint64_t cycle = 4; cycle <= 3 + 8 + 1; ++cycle) {  // 11 is the taken bucket's next cycle
      q.push({cycle, seq});
      pushed.push_back({cycle, seq++});
    }
    EXPECT_EQ(e.cycle, 3u);
  }
  EXPECT_EQ(due.first[0].seq, 0u);
  EXPECT_EQ(due.first[1].seq, 1u);
  std::sort(pushed.begin(), pushed.end(), [](const Entry& a, const Entry& b) { return b > a; });
  std::vector<uint64_t> seqs, expected;
  for (Entry e; q.pop_due(100, e);) seqs.push_back(e.seq);
  for (const Entry& e : pushed) expected.push_back(e.seq);
  EXPECT_EQ(seqs, expected);
}

}  // namespace
}  // namespace smshare
