#include "src/analysis/speed_of_light.h"

#include <gtest/gtest.h>

#include "src/analysis/test_pack.h"

namespace decodeprof::analysis {
namespace {

using testing::FakePack;
using testing::FakeUnits;
using trace::Dispatch;

constexpr int64_t kMs = 1'000'000;

// A pack whose gemv kernels move the dense weights and whose attention kernels move the KV
// cache; elementwise kernels move nothing the ledger counts.
class MovingPack : public FakePack {
 public:
  MovingPack() : FakePack({"gemv", "attention", "elementwise"}, {}, {}) {}
  const std::vector<std::vector<std::string>>& class_moves() const override { return moves_; }

 private:
  std::vector<std::vector<std::string>> moves_ = {{"dense_weights"}, {"kv_cache"}, {}, {}};
};

struct SolFixture {
  trace::StringPool names;
  DecodeWindow window;
  MovingPack pack;
  FakeUnits units{{Unit{.id = "gemv", .port = "", .fallback_roles = {}, .classes = {0}},
                   Unit{.id = "attention", .port = "", .fallback_roles = {}, .classes = {1}}},
                  {UnitReach{}, UnitReach{}}};
  Attribution attribution;

  SolFixture() {
    // Two steps of 5 ms: a 1.5 ms GEMV, a 0.5 ms attention, a 0.25 ms elementwise kernel.
    for (int64_t step = 0; step < 2; ++step) {
      const int64_t at = step * 5 * kMs;
      Add("gemv_kernel", at, at + 3 * kMs / 2, 0);
      Add("attention_kernel", at + 2 * kMs, at + 5 * kMs / 2, 1);
      Add("elementwise_kernel", at + 3 * kMs, at + 13 * kMs / 4, 2);
    }
    window.lo = 0;
    window.hi = 10 * kMs;
  }
  void Add(const char* name, int64_t start, int64_t end, ClassId c) {
    window.dispatches.push_back(Dispatch{.start = start, .end = end, .name = names.Intern(name)});
    attribution.classes.push_back(c);
    attribution.roles.push_back(kNoRole);
  }
  SummaryInputs Inputs() {
    SummaryInputs in;
    in.window = &window;
    in.names = &names;
    in.pack = &pack;
    in.units = &units;
    return in;
  }
  static SpeedOfLightInputs Model() {
    SpeedOfLightInputs m;
    m.bytes_by_kind = {{"dense_weights", 1e6}, {"kv_cache", 2e5}};
    m.weight_bytes = 1e6;
    m.kv_bytes = 2e5;
    m.peak_gbps = 1;  // 1e9 bytes a second: 1e6 a millisecond
    m.peak_detail = "test";
    m.steps = 2;
    return m;
  }
};

TEST(SpeedOfLightTest, TheFloorTheClassesTheUnitsAndADecompositionThatAddsUp) {
  SolFixture f;
  const auto l = ComputeSpeedOfLight(SolFixture::Model(), f.Inputs(), f.attribution);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_DOUBLE_EQ(l->bytes_per_token, 1.2e6);
  EXPECT_DOUBLE_EQ(l->floor_ms_per_token, 1.2);
  EXPECT_DOUBLE_EQ(l->wall_ms_per_token, 5.0);
  EXPECT_DOUBLE_EQ(l->mbu_pct, 24.0);
  EXPECT_NEAR(l->achieved_gbps, 0.24, 1e-12);
  EXPECT_NEAR(l->to_the_floor, 5.0 / 1.2, 1e-12);
  ASSERT_EQ(l->classes.size(), 2u);  // elementwise moves nothing: absent
  EXPECT_EQ(l->classes[0].name, "gemv");
  EXPECT_DOUBLE_EQ(l->classes[0].ms_per_token, 1.5);
  EXPECT_DOUBLE_EQ(l->classes[0].floor_ms_per_token, 1.0);
  EXPECT_NEAR(*l->classes[0].achieved_gbps, 1.0 / 1.5, 1e-12);
  EXPECT_NEAR(*l->classes[0].pct_of_peak, 100.0 / 1.5, 1e-9);
  EXPECT_DOUBLE_EQ(l->classes[1].floor_ms_per_token, 0.2);
  ASSERT_EQ(l->units.size(), 2u);
  EXPECT_DOUBLE_EQ(l->units[0].excess_ms_per_token, 0.5);
  EXPECT_NEAR(l->units[0].ceiling_to_floor, 5.0 / 4.5, 1e-12);
  EXPECT_NEAR(l->units[1].excess_ms_per_token, 0.3, 1e-12);
  EXPECT_NEAR(l->other_kernels, 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(l->overlap, 0.0);
  EXPECT_DOUBLE_EQ(l->host_gap, 2.75);
  double sum = l->floor + l->other_kernels + l->overlap + l->host_gap;
  for (const auto& [id, excess] : l->unit_excess) sum += excess;
  EXPECT_NEAR(sum, l->wall_ms_per_token, 1e-12);
}

TEST(SpeedOfLightTest, BytesAClassSharesAreSplitByTimeAndUnclaimedBytesAreNoted) {
  SolFixture f;
  SpeedOfLightInputs m = SolFixture::Model();
  m.bytes_by_kind.emplace_back("state", 5e5);  // no class of the pack moves the state
  m.state_bytes = 5e5;
  const auto l = ComputeSpeedOfLight(m, f.Inputs(), f.attribution);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_DOUBLE_EQ(l->floor_ms_per_token, 1.7);
  ASSERT_FALSE(l->notes.empty());
  EXPECT_NE(l->notes[0].find("state"), std::string::npos) << l->notes[0];
  double sum = l->floor + l->other_kernels + l->overlap + l->host_gap;
  for (const auto& [id, excess] : l->unit_excess) sum += excess;
  EXPECT_NEAR(sum, l->wall_ms_per_token, 1e-12);  // the unclaimed floor comes out of "other"
}

TEST(SpeedOfLightTest, AFloorAboveTheWallIsRefused) {
  SolFixture f;
  SpeedOfLightInputs m = SolFixture::Model();
  m.peak_gbps = 0.1;  // 12 ms of floor in a 5 ms step
  const auto l = ComputeSpeedOfLight(m, f.Inputs(), f.attribution);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().kind(), base::ErrorKind::kData);
  EXPECT_NE(l.status().message().find("above the peak"), std::string::npos);
}

TEST(SpeedOfLightTest, NoStepsOrNoPeakIsRefused) {
  SolFixture f;
  SpeedOfLightInputs m = SolFixture::Model();
  m.steps = 0;
  EXPECT_FALSE(ComputeSpeedOfLight(m, f.Inputs(), f.attribution).ok());
  m = SolFixture::Model();
  m.peak_gbps = 0;
  EXPECT_FALSE(ComputeSpeedOfLight(m, f.Inputs(), f.attribution).ok());
}

TEST(SpeedOfLightTest, MovableKindsAreKnownByName) {
  EXPECT_TRUE(IsMovableBytes("kv_cache"));
  EXPECT_FALSE(IsMovableBytes("weights"));
  EXPECT_NE(MovableBytesList().find("expert_weights"), std::string::npos);
}

}  // namespace
}  // namespace decodeprof::analysis
