#include "src/analysis/ceilings.h"

#include <gtest/gtest.h>

namespace decodeprof::analysis {
namespace {

TEST(CeilingTest, OneOverOneMinusTheShare) {
  EXPECT_EQ(Ceiling(0.3), 1.43);
  EXPECT_EQ(Ceiling(0.0), 1.0);
  EXPECT_EQ(Ceiling(-0.5), 1.0);  // clamped at 0
  EXPECT_EQ(Ceiling(1.0), std::nullopt);
  EXPECT_EQ(Ceiling(std::nullopt), std::nullopt);
}

TEST(GapScaleTest, SeedCases) {
  EXPECT_EQ(GapScale(std::nullopt, 1.0), std::nullopt);
  EXPECT_EQ(GapScale(1.0, std::nullopt), std::nullopt);
  EXPECT_EQ(GapScale(1.0, 2.0), 0.5);
  EXPECT_EQ(GapScale(-1.0, 2.0), 0.0);  // negative plain gap → 0
  EXPECT_EQ(GapScale(1.0, 0.0), 0.0);   // zero traced gap → 0
}

// Seed GapTests: the wall_fields worked example.
TEST(WallFieldsTest, WorkedExample) {
  const WallFields w = ComputeWallFields({.kernel_ns = 3'000'000,
                                          .gap_ns = 2'000'000,
                                          .calls = 4,
                                          .gpu_sum_ns = 10'000'000,
                                          .wall_ns = 20'000'000,
                                          .tokens = 1,
                                          .scale = 0.5,
                                          .plain_wall_ms_per_token = 12.0});
  EXPECT_EQ(w.host_gap_ms_per_token, 2.0);
  EXPECT_EQ(w.host_gap_us_per_dispatch, 500.0);
  EXPECT_EQ(w.wall_share_pct, 25.0);
  EXPECT_EQ(w.ceiling_gpu_share, 1.43);
  EXPECT_EQ(w.ceiling_wall, 1.33);
  EXPECT_EQ(w.plain_ceiling_wall_est, 1.5);
}

// Seed GapTests: a role set owning the whole run with zero tokens has no finite ceiling.
TEST(WallFieldsTest, FullShareAndZeroTokensGiveNulls) {
  const WallFields w = ComputeWallFields({.kernel_ns = 10,
                                          .gap_ns = 10,
                                          .calls = 1,
                                          .gpu_sum_ns = 10,
                                          .wall_ns = 20,
                                          .tokens = 0,
                                          .scale = 1.0,
                                          .plain_wall_ms_per_token = 1.0});
  EXPECT_EQ(w.ceiling_gpu_share, std::nullopt);
  EXPECT_EQ(w.ceiling_wall, std::nullopt);
  EXPECT_EQ(w.host_gap_ms_per_token, std::nullopt);
  EXPECT_EQ(w.plain_ceiling_wall_est, std::nullopt);
}

TEST(WallFieldsTest, NoCallsGiveZeroGapPerDispatch) {
  const WallFields w = ComputeWallFields({.gpu_sum_ns = 10, .wall_ns = 20, .tokens = 2});
  EXPECT_EQ(w.host_gap_us_per_dispatch, 0.0);
  EXPECT_EQ(w.host_gap_ms_per_token, 0.0);
  EXPECT_EQ(w.wall_share_pct, 0.0);
  EXPECT_EQ(w.ceiling_gpu_share, 1.0);
  EXPECT_EQ(w.ceiling_wall, 1.0);
  EXPECT_EQ(w.plain_ceiling_wall_est, std::nullopt);  // no scale
}

}  // namespace
}  // namespace decodeprof::analysis
