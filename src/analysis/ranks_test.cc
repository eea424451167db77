#include "src/analysis/ranks.h"

#include <gtest/gtest.h>

#include <vector>

namespace decodeprof::analysis {
namespace {

RankCollectives Rank(int32_t rank, std::vector<CollectiveInterval> c) {
  return RankCollectives{rank, std::move(c)};
}

TEST(AnalyzeCollectivesTest, TheEarlierRankWaitsForTheLaterOne) {
  // Collective 0: rank 1 arrives 300 ns after rank 0; collective 1: rank 0 arrives 50 ns
  // late; collective 2: both at once. Both finish together.
  const std::vector<RankCollectives> ranks = {
      Rank(0, {{1000, 1500}, {2050, 2200}, {3000, 3100}}),
      Rank(1, {{1300, 1500}, {2000, 2200}, {3000, 3100}}),
  };
  const CrossRankCollectives r = AnalyzeCollectives(ranks);
  ASSERT_TRUE(r.matched);
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[0].count, 3);
  EXPECT_EQ(r.ranks[0].total_ns, 500 + 150 + 100);
  EXPECT_EQ(r.ranks[0].wait_ns, 300);
  EXPECT_EQ(r.ranks[0].transfer_ns, 750 - 300);
  EXPECT_EQ(r.ranks[1].total_ns, 200 + 200 + 100);
  EXPECT_EQ(r.ranks[1].wait_ns, 50);
  EXPECT_EQ(r.ranks[1].transfer_ns, 450);
  EXPECT_EQ(r.slowest_rank, 1);  // the others waited 300 ns for it, it 50 ns for them
}

TEST(AnalyzeCollectivesTest, WaitIsClippedToTheCollectivesDuration) {
  // Rank 1 starts after rank 0's collective already ended (clocks a little apart, or a
  // collective that does not wait): rank 0's wait is at most its 100 ns.
  const std::vector<RankCollectives> ranks = {Rank(0, {{1000, 1100}}), Rank(1, {{5000, 5100}})};
  const CrossRankCollectives r = AnalyzeCollectives(ranks);
  EXPECT_EQ(r.ranks[0].wait_ns, 100);
  EXPECT_EQ(r.ranks[0].transfer_ns, 0);
  EXPECT_EQ(r.ranks[1].wait_ns, 0);
}

TEST(AnalyzeCollectivesTest, TiesGoToTheLowestRankWhateverTheInputOrder) {
  const std::vector<RankCollectives> ranks = {Rank(3, {{10, 20}}), Rank(1, {{10, 20}})};
  const CrossRankCollectives r = AnalyzeCollectives(ranks);
  EXPECT_EQ(r.ranks[0].rank, 3);  // input order kept
  EXPECT_EQ(r.ranks[0].wait_ns, 0);
  EXPECT_EQ(r.slowest_rank, 1);
}

TEST(AnalyzeCollectivesTest, DifferentCountsGiveNoWait) {
  const std::vector<RankCollectives> ranks = {Rank(0, {{0, 10}, {20, 30}}), Rank(1, {{0, 10}})};
  const CrossRankCollectives r = AnalyzeCollectives(ranks);
  EXPECT_FALSE(r.matched);
  EXPECT_EQ(r.mismatch, "rank 0: 2 collectives, rank 1: 1 collectives");
  EXPECT_EQ(r.ranks[0].total_ns, 20);
  EXPECT_EQ(r.ranks[1].count, 1);
  EXPECT_FALSE(r.ranks[0].wait_ns.has_value());
  EXPECT_FALSE(r.ranks[1].transfer_ns.has_value());
  EXPECT_FALSE(r.slowest_rank.has_value());
}

TEST(AnalyzeCollectivesTest, NoCollectivesNoSlowestRank) {
  const std::vector<RankCollectives> ranks = {Rank(0, {}), Rank(1, {})};
  const CrossRankCollectives r = AnalyzeCollectives(ranks);
  EXPECT_TRUE(r.matched);
  EXPECT_EQ(r.ranks[1].wait_ns, 0);
  EXPECT_FALSE(r.slowest_rank.has_value());
  EXPECT_TRUE(AnalyzeCollectives({}).ranks.empty());
}

}  // namespace
}  // namespace decodeprof::analysis
