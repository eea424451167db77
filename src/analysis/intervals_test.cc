#include "src/analysis/intervals.h"

#include <gtest/gtest.h>

#include <vector>

namespace decodeprof::analysis {
namespace {

using trace::Dispatch;

std::vector<Dispatch> Spans(std::initializer_list<std::pair<int64_t, int64_t>> spans) {
  std::vector<Dispatch> out;
  for (const auto& [s, e] : spans) out.push_back(Dispatch{.start = s, .end = e});
  return out;
}

// Seed WindowTests.test_busy_is_the_union_of_overlapping_dispatches.
TEST(BusyUnionTest, IsTheUnionOfOverlappingDispatches) {
  const auto d = Spans({{0, 10}, {5, 15}, {20, 30}});
  EXPECT_EQ(BusyUnion(d, 0, 100), 25);
  EXPECT_EQ(BusyUnion(d, 8, 25), 12);
}

TEST(BusyUnionTest, TouchingIntervalsMergeAndEmptyOnesAreSkipped) {
  EXPECT_EQ(BusyUnion(Spans({{0, 10}, {10, 20}}), 0, 100), 20);
  EXPECT_EQ(BusyUnion(Spans({{5, 5}, {200, 300}}), 0, 100), 0);
  EXPECT_EQ(BusyUnion({}, 0, 100), 0);
}

// Seed GapTests: the two attribute_gaps cases.
TEST(AttributeGapsTest, ChargesEachIdleStretchToTheDispatchThatEndsIt) {
  const RoleId kSsm = 0, kRope = 1;
  const auto d = Spans({{10, 20}, {15, 30}, {40, 50}, {45, 48}, {60, 70}});
  const std::vector<RoleId> roles = {kSsm, kRope, kNoRole, kSsm, kRope};
  auto gaps = AttributeGaps(d, roles, 0, 100);
  ASSERT_TRUE(gaps.ok());
  ASSERT_EQ(gaps->per_role.size(), 3u);
  EXPECT_EQ(gaps->per_role[0], (std::pair<RoleId, int64_t>{kSsm, 10}));
  EXPECT_EQ(gaps->per_role[1], (std::pair<RoleId, int64_t>{kRope, 10}));
  EXPECT_EQ(gaps->per_role[2], (std::pair<RoleId, int64_t>{kNoRole, 10}));
  EXPECT_EQ(gaps->tail, 30);
  EXPECT_EQ(gaps->total(), 100 - BusyUnion(d, 0, 100));
}

TEST(AttributeGapsTest, ADispatchRunningPastTheEndLeavesNoTail) {
  const RoleId kSampler = 0, kSsm = 1;
  const auto d = Spans({{5, 10}, {95, 130}});
  auto gaps = AttributeGaps(d, std::vector<RoleId>{kSampler, kSsm}, 0, 100);
  ASSERT_TRUE(gaps.ok());
  EXPECT_EQ(gaps->per_role[0].second, 5);
  EXPECT_EQ(gaps->per_role[1].second, 85);
  EXPECT_EQ(gaps->tail, 0);
}

TEST(AttributeGapsTest, LengthMismatchIsAnError) {
  const auto d = Spans({{5, 10}});
  auto gaps = AttributeGaps(d, std::vector<RoleId>{}, 0, 100);
  ASSERT_FALSE(gaps.ok());
  EXPECT_EQ(gaps.status().message(), "1 dispatches but 0 roles");
}

TEST(GapEndedByEachTest, MatchesAttributeGapsPerDispatch) {
  // AttributeGaps' seed example: the tail (30) is in no entry; 10 + 10 + 10 + 30 = 100 − 40.
  const auto d = Spans({{10, 20}, {15, 30}, {40, 50}, {45, 48}, {60, 70}});
  EXPECT_EQ(GapEndedByEach(d, 0, 100), (std::vector<trace::DurationNs>{10, 0, 10, 0, 10}));
  // A dispatch starting after hi ends nothing; one running past hi leaves no tail.
  EXPECT_EQ(GapEndedByEach(Spans({{5, 10}, {95, 130}}), 0, 100),
            (std::vector<trace::DurationNs>{5, 85}));
}

}  // namespace
}  // namespace decodeprof::analysis
