#include "src/analysis/summary.h"

#include <gtest/gtest.h>

#include <algorithm>

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

  SummaryInputs Inputs() { return testing::InputsOf(window, names, pack, units); }
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

// A sampled recording's window (Sampling): 1 step of a decode of 8 steps and 9 tokens stands
// for 1 · 9 / 8 tokens, the divisor of every per-token figure; generated_tokens stays 9.
TEST(SummaryTest, AWindowThatStandsForSomeOfTheTokensDividesByThem) {
  Fixture f;
  f.window.lo = 600000;
  f.window.hi = 800000;
  f.Add("decode_a", 710000, 735000);
  f.Add("decode_b", 735000, 760000);
  SummaryInputs in = f.Inputs();
  in.profiled.generated_tokens = 9;
  in.window_tokens = 1.125;
  in.plain = trace::BenchResults{.decode_tok_s = 8000.0};
  auto s = BuildSummary(in, Attribute(in));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->generated_tokens, 9);
  EXPECT_EQ(s->decode_forward_passes, 8);
  EXPECT_EQ(s->window_tokens, 1.125);
  EXPECT_EQ(WindowTokens(*s), 1.125);
  EXPECT_EQ(s->gpu_ms_per_token, 0.0444);                 // 0.05 ms / 1.125
  EXPECT_EQ(s->host_gap_ms_per_token, 0.1333);            // 0.15 ms / 1.125
  EXPECT_EQ(s->dispatches_per_token, 1.8);                // 2 / 1.125
  EXPECT_EQ(s->plain_host_gap_ms_per_token_est, 0.0806);  // 0.125 − 0.0444
  ASSERT_EQ(s->kernels.size(), 2u);
  EXPECT_EQ(s->kernels[0].calls_per_token, 0.89);  // 1 / 1.125
  EXPECT_EQ(s->role_host_gap_ms_per_token,
            (NamedValues{{"unattributed", 0.0978}, {"tail", 0.0356}}));  // 0.11, 0.04 ms

  // Without window_tokens the window is the whole decode: 9 tokens.
  in.window_tokens.reset();
  auto whole = BuildSummary(in, Attribute(in));
  ASSERT_TRUE(whole.ok());
  EXPECT_FALSE(whole->window_tokens.has_value());
  EXPECT_EQ(WindowTokens(*whole), 9.0);
  EXPECT_EQ(whole->gpu_ms_per_token, 0.0056);
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

// Units that own host time or name classes (docs/packs.md, "Writing units"). Worked by hand:
//   window [0, 1 000 000] ns, 2 tokens, plain 2500 tok/s.
//   qmv_a    100 000–300 000  class qmv,  no role       gap 100 000
//   rope_k   400 000–450 000  class rope, rope_append   gap 100 000
//   copy_gg  450 000–500 000  class copy, rope_append   gap       0
//   qmv_a    600 000–800 000  class qmv,  no role       gap 100 000   (tail 200 000)
//   busy = gpu_sum = 500 000; host gap = wall − busy = 500 000 = 0.25 ms/token.
//   plain wall 1000/2500 = 0.4 ms/token; plain gap est 0.4 − 0.25 = 0.15; scale 0.15/0.25 = 0.6.
// "graph" (no roles, host_gap all): kernel 0, gap 500 000, calls 0
//   gap 0.25 ms/token, 0.0 us/dispatch, wall 50.0 %, gpu ceiling 1/(1−0) = 1.0,
//   wall ceiling 1/(1−0.5) = 2.0, plain (0 + 500 000·0.6)/1e6/2/0.4 = 0.375 → 1/0.625 = 1.6.
// "gemv" (classes [qmv], host_gap roles): kernel 400 000, gap 200 000, 2 calls
//   gap 0.1 ms/token, 100.0 us/dispatch, wall 0.6 → 60.0 %, gpu 1/(1−0.8) = 5.0,
//   wall 1/(1−0.6) = 2.5, plain (400 000 + 120 000)/1e6/2/0.4 = 0.65 → 1/0.35 = 2.86.
// "rope" (roles [rope_append], classes [rope], host_gap all): rope_k holds both and counts
//   once → kernel 100 000, 2 calls, gap = all = 500 000
//   gap 0.25 ms/token, 250.0 us/dispatch, wall 0.6 → 60.0 %, gpu 1/(1−0.2) = 1.25,
//   wall 2.5, plain (100 000 + 300 000)/1e6/2/0.4 = 0.5 → 2.0.
//   Its default reach lists the role only (not "all"): kernel 100 000, gap of the role's own
//   dispatches 100 000 → 0.05 ms/token, 20.0 %, 1.25, 1.25, (160 000)/1e6/2/0.4 = 0.2 → 1.25.
// A graph-capture unit (unless = "graph_replay") is ranked in an eager run and never in a run
// whose steps replay graphs; the other units keep their rank.
TEST(SummaryTest, AGraphReplayingRunIsNeverToldToCaptureAGraph) {
  for (const bool replay : {false, true}) {
    Fixture f;
    Unit graph{"graph", "capture the decode step", {}, {}, HostGapOwnership::kAll};
    graph.unless_graph_replay = true;
    f.units =
        FakeUnits{{graph, Unit{"gemv", "gemv kernel", {}, {0}, HostGapOwnership::kRoles}},
                  {UnitReach{{}, {}, "always", true, false}, UnitReach{{}, {}, "", true, true}}};
    f.window.lo = 0;
    f.window.hi = 1000000;
    f.Add("qmv_a", 100000, 300000);
    f.Add("qmv_a", 600000, 800000);
    SummaryInputs in = f.Inputs();
    in.profiled.generated_tokens = 2;
    in.graph_replay = replay;
    auto s = BuildSummary(in, Attribute(in));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ASSERT_EQ(s->ranked_units.size(), 2u);
    EXPECT_TRUE(s->ranked_units[0].value.has_value());
    EXPECT_EQ(s->units[0].fallback.ceiling_wall, 2.5);  // 60 % of the wall idle; kept
    if (replay) {
      EXPECT_EQ(s->ranked_units[0].id, "gemv");
      EXPECT_EQ(s->ranked_units[1].id, "graph");
      EXPECT_FALSE(s->ranked_units[1].value.has_value());
    } else {
      const auto graph_rank = std::find_if(s->ranked_units.begin(), s->ranked_units.end(),
                                           [](const RankedUnit& r) { return r.id == "graph"; });
      ASSERT_NE(graph_rank, s->ranked_units.end());
      EXPECT_EQ(graph_rank->value, 2.5);
    }
  }
}

// A unit with `requires` counts its classes only in a window holding one of the required
// classes: a MoE unit's gathers (here `copy`) are no MoE work without expert kernels (`rope`).
TEST(SummaryTest, AUnitsClassesCountOnlyWithItsRequiredClasses) {
  for (const bool moe : {false, true}) {
    Fixture f;
    Unit unit{"moe", "fused moe", {}, {2}, HostGapOwnership::kRoles};
    unit.requires_classes = {1};
    f.units = FakeUnits{{unit}, {UnitReach{{}, {}, "", true, true}}};
    f.window.lo = 0;
    f.window.hi = 1000000;
    f.Add("qmv_a", 100000, 300000);
    f.Add("copy_gg", 400000, 500000);
    if (moe) f.Add("rope_k", 600000, 700000);
    SummaryInputs in = f.Inputs();
    in.profiled.generated_tokens = 2;
    auto s = BuildSummary(in, Attribute(in));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ASSERT_EQ(s->units.size(), 1u);
    EXPECT_EQ(s->units[0].fallback_share_pct, moe ? 25.0 : 0.0) << moe;
    EXPECT_EQ(s->units[0].reached_default_share_pct, moe ? 25.0 : 0.0) << moe;
    const auto copy = std::find_if(s->kernels.begin(), s->kernels.end(),
                                   [](const KernelStat& k) { return k.name == "copy_gg"; });
    ASSERT_NE(copy, s->kernels.end());
    EXPECT_EQ(copy->unit_ids, moe ? std::vector<std::string>{"moe"} : std::vector<std::string>{});
  }
}

TEST(SummaryTest, UnitsOwningHostTimeAndNamingClasses) {
  Fixture f;
  f.units = FakeUnits{{Unit{"graph", "capture the decode step", {}, {}, HostGapOwnership::kAll},
                       Unit{"gemv", "gemv kernel", {}, {0}, HostGapOwnership::kRoles},
                       Unit{"rope", "fused rope", {0}, {1}, HostGapOwnership::kAll}},
                      {UnitReach{{}, {}, "always", true, false}, UnitReach{{}, {}, "", true, true},
                       UnitReach{{0}, {0}, "", false, false}}};
  f.window.lo = 0;
  f.window.hi = 1000000;
  f.Add("qmv_a", 100000, 300000);
  f.Add("rope_k", 400000, 450000);
  f.Add("copy_gg", 450000, 500000);
  f.Add("qmv_a", 600000, 800000);
  SummaryInputs in = f.Inputs();
  in.profiled.generated_tokens = 2;
  in.plain = trace::BenchResults{.decode_tok_s = 2500.0};
  auto s = BuildSummary(in, Attribute(in));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->host_gap_ms_per_token, 0.25);
  ASSERT_EQ(s->plain_host_gap_ms_per_token_est, 0.15);
  ASSERT_EQ(s->units.size(), 3u);
  const auto expect = [](const WallFields& w, double gap_ms, double us, double wall_pct, double gpu,
                         double wall, double plain) {
    EXPECT_EQ(w.host_gap_ms_per_token, gap_ms);
    EXPECT_EQ(w.host_gap_us_per_dispatch, us);
    EXPECT_EQ(w.wall_share_pct, wall_pct);
    EXPECT_EQ(w.ceiling_gpu_share, gpu);
    EXPECT_EQ(w.ceiling_wall, wall);
    EXPECT_EQ(w.plain_ceiling_wall_est, plain);
  };
  const UnitSummary& graph = s->units[0];
  EXPECT_EQ(graph.fallback_share_pct, 0.0);
  EXPECT_EQ(graph.fallback_dispatches_per_token, 0.0);
  expect(graph.fallback, 0.25, 0.0, 50.0, 1.0, 2.0, 1.6);
  expect(graph.reached_default, 0.25, 0.0, 50.0, 1.0, 2.0, 1.6);
  expect(graph.reached_optin, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0);  // not reached
  EXPECT_EQ(graph.host_gap, "all");
  EXPECT_TRUE(graph.classes.empty());

  const UnitSummary& gemv = s->units[1];
  EXPECT_EQ(gemv.fallback_share_pct, 80.0);
  EXPECT_EQ(gemv.fallback_dispatches_per_token, 1.0);
  expect(gemv.fallback, 0.1, 100.0, 60.0, 5.0, 2.5, 2.86);
  expect(gemv.reached_optin, 0.1, 100.0, 60.0, 5.0, 2.5, 2.86);
  EXPECT_EQ(gemv.classes, std::vector<std::string>{"qmv"});
  EXPECT_EQ(gemv.host_gap, "");

  const UnitSummary& rope = s->units[2];
  EXPECT_EQ(rope.fallback_share_pct, 20.0);
  EXPECT_EQ(rope.fallback_dispatches_per_token, 1.0);
  expect(rope.fallback, 0.25, 250.0, 60.0, 1.25, 2.5, 2.0);
  EXPECT_EQ(rope.reached_default_share_pct, 20.0);
  expect(rope.reached_default, 0.05, 50.0, 20.0, 1.25, 1.25, 1.25);

  // The kernel table names the units by class too; a class names no role.
  ASSERT_EQ(s->kernels.size(), 3u);
  EXPECT_EQ(s->kernels[0].name, "qmv_a");
  EXPECT_EQ(s->kernels[0].unit_ids, std::vector<std::string>{"gemv"});
  EXPECT_EQ(s->kernels[1].unit_ids, std::vector<std::string>{"rope"});  // rope_k
  EXPECT_EQ(s->kernels[2].unit_ids, std::vector<std::string>{"rope"});  // copy_gg, by role
  // Classes insert nothing into the role tables; "graph" and "gemv" have no roles.
  ASSERT_EQ(s->role_share_pct.size(), 2u);

  // Ranked by the fallback sets' plain wall ceilings, not in table order.
  constexpr auto kPlain = RankFigure::kPlainCeilingWallEst;
  EXPECT_EQ(s->ranked_units,
            (std::vector<RankedUnit>{
                {"gemv", kPlain, 2.86}, {"rope", kPlain, 2.0}, {"graph", kPlain, 1.6}}));
}

TEST(SummaryTest, RoleOnlyUnitsKeepTheSeedSums) {
  // The same role set as a roles-only unit and as a roles+classes unit whose class adds no
  // dispatch: identical fields, so naming classes changes nothing but the dispatches added.
  Fixture f;
  f.units = FakeUnits{{Unit{"a", "seed-style", {0}}, Unit{"b", "with class", {0}, {2}}},
                      {UnitReach{{0}, {0}, ""}, UnitReach{{0}, {0}, ""}}};
  f.window.lo = 0;
  f.window.hi = 1000;
  f.Add("qmv_a", 0, 100);
  f.Add("rope_k", 110, 130);
  f.Add("copy_gg", 140, 150);
  SummaryInputs in = f.Inputs();
  in.profiled.generated_tokens = 1;
  auto s = BuildSummary(in, Attribute(in));
  ASSERT_TRUE(s.ok());
  // copy_gg is class copy (2) and role rope_append: counted once in "b".
  const UnitSummary& a = s->units[0];
  const UnitSummary& b = s->units[1];
  EXPECT_EQ(a.fallback_share_pct, b.fallback_share_pct);
  EXPECT_EQ(a.fallback.host_gap_ms_per_token, b.fallback.host_gap_ms_per_token);
  EXPECT_EQ(a.fallback.ceiling_wall, b.fallback.ceiling_wall);
  EXPECT_EQ(a.fallback_dispatches_per_token, 2.0);
  EXPECT_EQ(b.fallback_dispatches_per_token, 2.0);
  // gaps: rope_k ends 10 ns, copy_gg 10 ns → 20 ns; (30 + 20) / 1000 → 5.0 %.
  EXPECT_EQ(a.fallback.wall_share_pct, 5.0);
  EXPECT_EQ(a.host_gap, "");
}

}  // namespace
}  // namespace decodeprof::analysis
