#include "src/analysis/ranking.h"

#include <gtest/gtest.h>

#include <optional>
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

}  // namespace
}  // namespace decodeprof::analysis
