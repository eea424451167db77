#include "src/analysis/summary.h"

#include <gtest/gtest.h>

#include "src/analysis/test_pack.h"

namespace decodeprof::analysis {
namespace {

using testing::FakePack;
using testing::FakeUnits;
using trace::Dispatch;

struct Fixture {
  trace::StringPool names;
  DecodeWindow window;
  FakePack pack{{"qmv", "rope", "copy"},
                {"rope_append", "ssm_step", "sampler_tail"},
                {{"rope_k", "rope_append"}, {"copy_gg", "rope_append"}}};
  FakeUnits units{{Unit{"2063", "fused rope", {0}}, Unit{"2067", "ssm update", {1}}},
                  {UnitReach{{0}, {0}, "llama note"}, UnitReach{{}, {}, "no Mamba2 layer"}}};

  SummaryInputs Inputs() {
    SummaryInputs in;
    in.name = "t";
    in.window = &window;
    in.names = &names;
    in.pack = &pack;
    in.units = &units;
    return in;
  }
  void Add(const char* name, int64_t start, int64_t end) {
    window.dispatches.push_back(Dispatch{.start = start, .end = end, .name = names.Intern(name)});
  }
};

// The seed's WindowTests.test_summarize_cuts_the_decode_window_by_the_phase_marks, past the
// window cut: two decode dispatches of 25 us each, 110 us after decode_start, 2 tokens.
TEST(SummaryTest, SeedWindowExample) {
  Fixture f;
  f.names.Intern("warm");
  f.window.lo = 600000;
  f.window.hi = 800000;
  f.Add("decode_a", 710000, 735000);
  f.Add("decode_b", 735000, 760000);
  f.window.last_before = Dispatch{.start = 500000, .end = 600000, .name = f.names.Intern("pre")};
  SummaryInputs in = f.Inputs();
  in.profiled.generated_tokens = 2;
  in.plain = trace::BenchResults{.decode_tok_s = 8000.0};
  const Attribution attribution = Attribute(in);
  auto s = BuildSummary(in, attribution);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->decode_dispatches, 2);
  EXPECT_EQ(s->decode_gpu_busy_ms, 0.05);
  EXPECT_EQ(s->kernels_straddling_decode_start, 0);
  EXPECT_EQ(s->idle_gap_before_first_decode_dispatch_us, 110.0);
  EXPECT_EQ(s->last_dispatch_before_decode, "pre");
  EXPECT_EQ(s->host_gap_attribution_residual_ns, 0);
  EXPECT_EQ(s->role_host_gap_ms_per_token, (NamedValues{{"unattributed", 0.055}, {"tail", 0.02}}));
  EXPECT_EQ(s->plain_wall_ms_per_token, 0.125);
  EXPECT_EQ(s->plain_host_gap_ms_per_token_est, 0.1);
  EXPECT_EQ(s->decode_forward_passes, 1);
  ASSERT_EQ(s->units.size(), 2u);
  for (const UnitSummary& u : s->units) {
    for (const WallFields* w : {&u.fallback, &u.reached_default}) {
      EXPECT_EQ(w->host_gap_ms_per_token, 0.0);
      EXPECT_EQ(w->host_gap_us_per_dispatch, 0.0);
      EXPECT_EQ(w->wall_share_pct, 0.0);
      EXPECT_EQ(w->ceiling_gpu_share, 1.0);
      EXPECT_EQ(w->ceiling_wall, 1.0);
      EXPECT_EQ(w->plain_ceiling_wall_est, 1.0);
    }
  }
}

TEST(SummaryTest, SharesOrderingAndTheDefaultDictSideEffect) {
  Fixture f;
  f.window.lo = 0;
  f.window.hi = 1000;
  f.Add("qmv_a", 0, 100);      // qmv, no role
  f.Add("rope_k", 110, 130);   // rope_append
  f.Add("copy_gg", 130, 150);  // rope_append
  f.Add("qmv_a", 160, 260);
  f.Add("other_k", 300, 305);
  f.Add("other_k", 310, 316);
  SummaryInputs in = f.Inputs();
  in.profiled.generated_tokens = 4;
  auto s = BuildSummary(in, Attribute(in));
  ASSERT_TRUE(s.ok());
  // role_share_pct: occurring roles by ns, then the unit table's missing fallback role (0).
  ASSERT_EQ(s->role_share_pct.size(), 3u);
  EXPECT_EQ(s->role_share_pct[0].first, "unattributed");
  EXPECT_EQ(s->role_share_pct[1].first, "rope_append");
  EXPECT_EQ(s->role_share_pct[2], (std::pair<std::string, std::optional<double>>{"ssm_step", 0.0}));
  // role_dispatches_per_token keeps insertion order: first appearance, then unit zeros.
  ASSERT_EQ(s->role_dispatches_per_token.size(), 3u);
  EXPECT_EQ(s->role_dispatches_per_token[0].first, "unattributed");
  EXPECT_EQ(s->role_dispatches_per_token[0].second, 1.0);  // 4 calls / 4 tokens
  EXPECT_EQ(s->role_dispatches_per_token[2].first, "ssm_step");
  // role_host_gap_ms_per_token holds only occurring roles plus tail.
  EXPECT_EQ(s->role_host_gap_ms_per_token.size(), 3u);
  // Kernel table by total ns, stable.
  ASSERT_EQ(s->kernels.size(), 4u);
  EXPECT_EQ(s->kernels[0].name, "qmv_a");
  EXPECT_EQ(s->kernels[0].class_name, "qmv");
  EXPECT_EQ(s->kernels[0].calls_per_token, 0.5);
  EXPECT_TRUE(s->kernels[0].roles.empty());
  EXPECT_EQ(s->kernels[1].name, "rope_k");  // 20 ns, inserted before copy_gg's 20 ns
  EXPECT_EQ(s->kernels[1].unit_ids, std::vector<std::string>{"2063"});
  EXPECT_EQ(s->kernels[2].name, "copy_gg");
  EXPECT_EQ(s->kernels[3].avg_ns, 6);  // (5 + 6) / 2 = 5.5 → 6 (half to even)
  // gpu_sum = 251; unit 2063 = 40 ns → 15.94 %
  EXPECT_EQ(s->units[0].fallback_share_pct, 15.94);
  EXPECT_EQ(s->units[0].reached_default_share_pct, 15.94);
  EXPECT_EQ(s->units[1].fallback_share_pct, 0.0);
  EXPECT_EQ(s->class_share_pct[0].first, "qmv");
}

TEST(SummaryTest, ZeroTokensGiveNullPerTokenFields) {
  Fixture f;
  f.window.lo = 0;
  f.window.hi = 100;
  f.Add("qmv_a", 10, 20);
  SummaryInputs in = f.Inputs();
  auto s = BuildSummary(in, Attribute(in));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->gpu_ms_per_token, std::nullopt);
  EXPECT_EQ(s->dispatches_per_token, std::nullopt);
  EXPECT_EQ(s->kernels[0].calls_per_token, std::nullopt);
  EXPECT_EQ(s->role_host_gap_ms_per_token[0].second, std::nullopt);
  EXPECT_EQ(s->host_gap_pct_of_wall, 90.0);
}

TEST(SummaryTest, ZeroGpuTimeGivesNullSharesInsteadOfACrash) {
  Fixture f;
  f.window.lo = 0;
  f.window.hi = 100;
  f.Add("qmv_a", 10, 10);
  SummaryInputs in = f.Inputs();
  in.profiled.generated_tokens = 1;
  auto s = BuildSummary(in, Attribute(in));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kernels[0].share_pct, std::nullopt);
  EXPECT_EQ(s->units[0].fallback_share_pct, std::nullopt);
  EXPECT_EQ(s->units[0].fallback.ceiling_gpu_share, std::nullopt);
}

TEST(SummaryTest, ZeroWallGivesNullWallFields) {
  Fixture f;
  f.window.lo = 50;
  f.window.hi = 50;
  f.Add("qmv_a", 50, 60);
  SummaryInputs in = f.Inputs();
  in.profiled.generated_tokens = 1;
  auto s = BuildSummary(in, Attribute(in));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->host_gap_pct_of_wall, std::nullopt);
  EXPECT_EQ(s->units[0].fallback.wall_share_pct, std::nullopt);
  EXPECT_EQ(s->units[0].fallback.ceiling_wall, std::nullopt);
}

}  // namespace
}  // namespace decodeprof::analysis
