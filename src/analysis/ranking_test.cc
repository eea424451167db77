#include "src/analysis/ranking.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace decodeprof::analysis {
namespace {

constexpr auto kPlain = RankFigure::kPlainCeilingWallEst;
constexpr auto kWall = RankFigure::kCeilingWall;

TEST(RankUnitsTest, ByPlainWallCeilingElseWallCeilingLargestFirst) {
  const std::vector<UnitCeilings> units = {
      {"gemv", 1.21, 1.22},
      {"cuda_graph", 9.09, 8.13},
      {"no_plain", std::nullopt, 2.0},  // ranks by its wall ceiling among the plain ones
      {"attention", 2.49, 2.44},
  };
  EXPECT_EQ(RankUnits(units), (std::vector<RankedUnit>{{"cuda_graph", kPlain, 9.09},
                                                       {"attention", kPlain, 2.49},
                                                       {"no_plain", kWall, 2.0},
                                                       {"gemv", kPlain, 1.21}}));
}

TEST(RankUnitsTest, UnitsWithoutCeilingsComeLastAndTiesKeepTableOrder) {
  const std::vector<UnitCeilings> units = {
      {"none_a", std::nullopt, std::nullopt},
      {"one_a", 1.0, 1.0},
      {"none_b", std::nullopt, std::nullopt},
      {"one_b", 1.0, 1.5},
      {"two", std::nullopt, 2.0},
  };
  EXPECT_EQ(RankUnits(units), (std::vector<RankedUnit>{{"two", kWall, 2.0},
                                                       {"one_a", kPlain, 1.0},
                                                       {"one_b", kPlain, 1.0},
                                                       {"none_a", kWall, std::nullopt},
                                                       {"none_b", kWall, std::nullopt}}));
}

TEST(RankUnitsTest, NoUnits) { EXPECT_TRUE(RankUnits({}).empty()); }

// A unit's figure in run `run`: its ceiling (by the plain wall), share, reach and trust.
RunUnitFigure Fig(size_t run, std::optional<double> plain, double share = 0.0, bool reached = true,
                  bool trusted = true) {
  return {run, {"", kPlain, plain}, share, reached, trusted};
}

TEST(RankUnitsAcrossRunsTest, TheLargestCeilingOverTheRunsAUnitReaches) {
  const std::vector<UnitAcrossRuns> units = {
      {"gemv", {Fig(0, 1.21, 69.9), Fig(1, 3.5, 80.0), Fig(2, 1.3, 60.0)}},
      {"cuda_graph", {Fig(0, 9.08, 0.0), Fig(1, 1.08, 0.0), Fig(2, 8.5, 0.0)}},
      // Not reached in run 1, where its fallback set would bound the wall at 5.0.
      {"sampler", {Fig(0, 1.0, 0.0, false), Fig(1, 5.0, 2.0, false), Fig(2, 1.4, 1.0)}},
  };
  const std::vector<CrossRunRankedUnit> ranked = RankUnitsAcrossRuns(units);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0], (CrossRunRankedUnit{"cuda_graph", 0, kPlain, 9.08, 0.0, true, false}));
  EXPECT_EQ(ranked[1], (CrossRunRankedUnit{"gemv", 1, kPlain, 3.5, 80.0, true, false}));
  EXPECT_EQ(ranked[2], (CrossRunRankedUnit{"sampler", 2, kPlain, 1.4, 1.0, true, false}));
}

TEST(RankUnitsAcrossRunsTest, FlaggedRunsCountOnlyWhenNoSoundRunReachesTheUnit) {
  const std::vector<UnitAcrossRuns> units = {
      // Run 1 has a trust flag: its 12.0 does not count while run 0 reaches the unit.
      {"cuda_graph", {Fig(0, 9.0), Fig(1, 12.0, 0.0, true, false)}},
      // Reached only by the flagged run: its figure counts, and the unit is marked.
      {"mamba", {Fig(0, 1.0, 0.0, false), Fig(1, 10.0, 30.0, true, false)}},
  };
  const std::vector<CrossRunRankedUnit> ranked = RankUnitsAcrossRuns(units);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0], (CrossRunRankedUnit{"mamba", 1, kPlain, 10.0, 30.0, true, true}));
  EXPECT_EQ(ranked[1], (CrossRunRankedUnit{"cuda_graph", 0, kPlain, 9.0, 0.0, true, false}));
}

TEST(RankUnitsAcrossRunsTest, UnitsNoRunReachesComeAfterTheReachedOnes) {
  const std::vector<UnitAcrossRuns> units = {
      {"moe", {Fig(0, 1.32, 25.4, false), Fig(1, 1.1, 10.0, false)}},
      {"norm", {Fig(0, 1.03, 1.7), Fig(1, std::nullopt, 2.8)}},
  };
  const std::vector<CrossRunRankedUnit> ranked = RankUnitsAcrossRuns(units);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0], (CrossRunRankedUnit{"norm", 0, kPlain, 1.03, 1.7, true, false}));
  // Its ceiling comes from every run that holds it.
  EXPECT_EQ(ranked[1], (CrossRunRankedUnit{"moe", 0, kPlain, 1.32, 25.4, false, false}));
}

TEST(RankUnitsAcrossRunsTest, TiesByGpuShareThenTheUnitsFileOrder) {
  const std::vector<UnitAcrossRuns> units = {
      {"a", {Fig(0, 1.0, 0.0)}},
      {"b", {Fig(0, 1.0, 5.0)}},
      {"c", {Fig(0, 1.0, 0.0)}},
      {"none", {Fig(0, std::nullopt, 50.0)}},
      {"empty", {}},
      // The same ceiling in two runs: the one with the larger share, then the earlier run.
      {"two", {Fig(0, 2.0, 1.0), Fig(1, 2.0, 3.0), Fig(2, 2.0, 3.0)}},
  };
  const std::vector<CrossRunRankedUnit> ranked = RankUnitsAcrossRuns(units);
  std::vector<std::string> ids;
  for (const CrossRunRankedUnit& unit : ranked) ids.push_back(unit.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"two", "b", "a", "c", "none", "empty"}));
  EXPECT_EQ(ranked[0].best_run, 1u);
  EXPECT_EQ(ranked[4].value, std::nullopt);
  EXPECT_FALSE(ranked[5].best_run.has_value());
  EXPECT_FALSE(ranked[5].reached);
}

}  // namespace
}  // namespace decodeprof::analysis
