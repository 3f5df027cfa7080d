// Jatala Sec. III/IV: seating CTAs as unshared or shared pairs, ownership and
// its transfer when the owner finishes; OWF's priority order.
#include <gtest/gtest.h>

#include "hw/sharing/jatala/pair_table.hpp"
#include "hw/sm/scheduler_policy.hpp"

namespace smshare::jatala {
namespace {

TEST(JatalaPairTable, UnsharedSeatsFirstThenPairs) {
  PairTable t(/*unshared=*/2, /*pairs=*/1, /*cta_slots=*/8);
  Seat s;
  ASSERT_TRUE(t.place(0, s));
  EXPECT_FALSE(s.shared);
  ASSERT_TRUE(t.place(1, s));
  EXPECT_FALSE(s.shared);
  ASSERT_TRUE(t.place(2, s));
  EXPECT_TRUE(s.shared);
  EXPECT_EQ(s.member, 0);
  ASSERT_TRUE(t.place(3, s));
  EXPECT_TRUE(s.shared);
  EXPECT_EQ(s.member, 1);
  EXPECT_FALSE(t.place(4, s));
  EXPECT_EQ(t.partner_slot(2), 3u);
  EXPECT_EQ(t.partner_slot(0), PairTable::kNone);
  // An unshared CTA finishes: its replacement is unshared.
  t.remove(1);
  ASSERT_TRUE(t.place(1, s));
  EXPECT_FALSE(s.shared);
}

TEST(JatalaPairTable, OwnershipPassesWhenTheOwnerFinishes) {
  PairTable t(0, 1, 8);
  Seat s;
  ASSERT_TRUE(t.place(4, s));  // member 0, arrived first
  ASSERT_TRUE(t.place(5, s));  // member 1
  const bool none[2] = {false, false};
  EXPECT_EQ(t.owner(0, none), 0);  // nobody holds the shared part: the older CTA
  const bool second_holds[2] = {false, true};
  EXPECT_EQ(t.owner(0, second_holds), 1);  // the holder owns
  // The owner (slot 4) finishes; the partner becomes owner and the CTA
  // launched into the freed seat is the new non-owner.
  t.remove(4);
  EXPECT_EQ(t.owner(0, none), 1);
  ASSERT_TRUE(t.place(6, s));
  EXPECT_TRUE(s.shared);
  EXPECT_EQ(s.member, 0);
  EXPECT_EQ(t.owner(0, none), 1);
  EXPECT_EQ(t.partner_slot(6), 5u);
  t.remove(5);
  t.remove(6);
  EXPECT_EQ(t.owner(0, none), -1);
}

TEST(JatalaOwf, OwnerThenUnsharedThenNonOwnerOldestFirst) {
  auto owf = make_scheduler_policy("owf", 8);
  EXPECT_EQ(owf->name(), "owf");
  std::vector<WarpView> v(6);
  // slot, age, class: non-owner old, unshared, owner young, owner old, invalid, unshared old
  const uint32_t cls[6] = {2, 1, 0, 0, 0, 1};
  const uint64_t age[6] = {1, 7, 9, 5, 0, 3};
  for (uint32_t i = 0; i < 6; ++i) {
    v[i].slot = i * 2;
    v[i].age = age[i];
    v[i].valid = i != 4;
    v[i].priority_class = static_cast<uint8_t>(cls[i]);
  }
  std::vector<uint32_t> order;
  owf->order(v, order);
  EXPECT_EQ(order, (std::vector<uint32_t>{6, 4, 10, 2, 0}));
  owf->issued(0);  // not greedy: issuing does not change the order
  owf->order(v, order);
  EXPECT_EQ(order, (std::vector<uint32_t>{6, 4, 10, 2, 0}));
}

}  // namespace
}  // namespace smshare::jatala
