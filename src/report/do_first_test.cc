#include "src/report/do_first.h"
#include "src/report/testing/summary_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/report/html_report.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;

using test_support::Summary;

// A run that deserves no flag: 128 tokens, a profiler cost of 4 %, clean checks, empty
// warnings and diagnostics. Fields are patched in per test.
Json CleanRun(const std::string& name = "clean") {
  return Json::parse(R"({
    "name": ")" + name +
                     R"(", "generated_tokens": 128, "decode_forward_passes": 127,
    "profiler_decode_slowdown_pct": 4.0, "decode_wall_ms": 1280.0, "decode_gpu_sum_ms": 640.0,
    "gpu_ms_per_token": 5.0, "host_gap_ms_per_token": 5.0,
    "checks": {"kernels_straddling_decode_start": 0, "host_gap_attribution_residual_ns": 0,
               "idle_gap_before_first_decode_dispatch_us": 100.0},
    "warnings": [], "diagnostics": []})");
}

SummaryFile Parsed(const Json& content, const std::string& path = "x_summary.json") {
  return Summary(content.dump(), path);
}

std::vector<TrustFlagKind> Kinds(const SummaryFile& summary) {
  std::vector<TrustFlagKind> kinds;
  for (const TrustFlag& flag : TrustFlags(summary)) kinds.push_back(flag.kind);
  return kinds;
}

TEST(TrustFlagsTest, ACleanRunHasNone) {
  EXPECT_TRUE(TrustFlags(Parsed(CleanRun())).empty());
  // Figures at the thresholds are not flagged: -5 %, 25 %, 16 tokens; info diagnostics.
  Json edge = CleanRun();
  edge["profiler_decode_slowdown_pct"] = -5.0;
  edge["generated_tokens"] = 16;
  edge["diagnostics"] = Json::parse(
      R"([{"code": "events_skipped", "severity": "info", "count": 3, "meaning": "m"}])");
  EXPECT_TRUE(TrustFlags(Parsed(edge)).empty());
  edge["profiler_decode_slowdown_pct"] = 25.0;
  EXPECT_TRUE(TrustFlags(Parsed(edge)).empty());
  // A summary without a plain run (no profiler cost) is not flagged for it.
  edge["profiler_decode_slowdown_pct"] = nullptr;
  EXPECT_TRUE(TrustFlags(Parsed(edge)).empty());
}

TEST(TrustFlagsTest, PlainRunSlowerThanProfiled) {
  Json run = CleanRun();
  run["profiler_decode_slowdown_pct"] = -40.66;
  const std::vector<TrustFlag> flags = TrustFlags(Parsed(run));
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].kind, TrustFlagKind::kPlainSlower);
  EXPECT_EQ(flags[0].label, "plain run slower than profiled");
  EXPECT_EQ(flags[0].detail, "profiler cost -40.66 %");  // never the bare figure
  EXPECT_NE(flags[0].reason.find("cannot make a run faster"), std::string::npos);
  EXPECT_NE(flags[0].fix.find("decodeprof profile"), std::string::npos);
  EXPECT_TRUE(flags[0].doubts_ceilings);
  // Within the noise of one pair of runs: no flag.
  run["profiler_decode_slowdown_pct"] = -0.29;
  EXPECT_TRUE(TrustFlags(Parsed(run)).empty());
}

TEST(TrustFlagsTest, HighProfilerCost) {
  Json run = CleanRun();
  run["profiler_decode_slowdown_pct"] = 29.14;
  const std::vector<TrustFlag> flags = TrustFlags(Parsed(run));
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].kind, TrustFlagKind::kHighProfilerCost);
  EXPECT_EQ(flags[0].label, "profiler cost above 25 %");
  EXPECT_EQ(flags[0].detail, "profiler cost 29.14 %");
  EXPECT_NE(flags[0].fix.find("plain_ceiling_wall_est"), std::string::npos);
  EXPECT_FALSE(flags[0].doubts_ceilings);  // the plain-wall ceilings re-scale it away
}

TEST(TrustFlagsTest, FewTokensAndNoTokenCount) {
  Json run = CleanRun();
  run["generated_tokens"] = 8;
  run["decode_forward_passes"] = 7;
  std::vector<TrustFlag> flags = TrustFlags(Parsed(run));
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].kind, TrustFlagKind::kFewTokens);
  EXPECT_EQ(flags[0].detail, "8 generated tokens (7 forward passes), fewer than 16");
  EXPECT_NE(flags[0].fix.find("--tokens 128"), std::string::npos);
  EXPECT_TRUE(flags[0].doubts_ceilings);

  run["generated_tokens"] = 15;
  run.erase("decode_forward_passes");
  flags = TrustFlags(Parsed(run));
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].detail, "15 generated tokens (14 forward passes), fewer than 16");

  run["generated_tokens"] = nullptr;
  EXPECT_EQ(Kinds(Parsed(run)), std::vector<TrustFlagKind>{TrustFlagKind::kNoTokenCount});
  run["generated_tokens"] = 0;
  flags = TrustFlags(Parsed(run));
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].kind, TrustFlagKind::kNoTokenCount);
  EXPECT_EQ(flags[0].detail, "generated_tokens 0");
  EXPECT_NE(flags[0].fix.find("--generated-tokens N"), std::string::npos);
}

TEST(TrustFlagsTest, KernelsStraddlingDecodeStart) {
  Json run = CleanRun();
  run["checks"]["kernels_straddling_decode_start"] = 3;
  // Its diagnostic is the same finding: one flag, not two.
  run["diagnostics"] = Json::parse(R"([{"code": "straddling_decode_start",
      "severity": "warning", "count": 3, "meaning": "kernels that started before"}])");
  const std::vector<TrustFlag> flags = TrustFlags(Parsed(run));
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].kind, TrustFlagKind::kStraddlingKernels);
  EXPECT_EQ(flags[0].detail, "3 straddling kernels");
  EXPECT_NE(flags[0].fix.find("synchronize"), std::string::npos);
}

TEST(TrustFlagsTest, HostGapAttributionResidual) {
  Json run = CleanRun();
  run["checks"]["host_gap_attribution_residual_ns"] = 1250;
  run["diagnostics"] = Json::parse(R"([{"code": "host_gap_residual", "severity": "warning",
      "count": 1, "meaning": "host gap the attribution could not place"}])");
  const std::vector<TrustFlag> flags = TrustFlags(Parsed(run));
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].kind, TrustFlagKind::kGapResidual);
  EXPECT_EQ(flags[0].detail, "1250 ns unattributed");
  EXPECT_TRUE(flags[0].doubts_ceilings);
}

TEST(TrustFlagsTest, WarningsAndWarningDiagnostics) {
  Json run = CleanRun();
  run["warnings"] = Json::parse(R"(["the trace has no grid sizes"])");
  std::vector<TrustFlag> flags = TrustFlags(Parsed(run));
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].kind, TrustFlagKind::kWarnings);
  EXPECT_EQ(flags[0].detail, "the trace has no grid sizes");
  EXPECT_FALSE(flags[0].doubts_ceilings);

  run["warnings"] = Json::array();
  run["diagnostics"] = Json::parse(R"([{"code": "role_rule_warning", "severity": "warning",
      "count": 2, "meaning": "the pack's role rules doubt their labels on this trace"}])");
  flags = TrustFlags(Parsed(run));
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].kind, TrustFlagKind::kWarnings);
  EXPECT_EQ(flags[0].detail,
            "diagnostic role_rule_warning ×2 (the pack's role rules doubt their labels on this "
            "trace)");
}

TEST(TrustFlagsTest, RecordsLost) {
  Json run = CleanRun();
  run["diagnostics"] = Json::parse(R"j([{"code": "cupti_dropped_records", "severity": "data-loss",
      "count": 12, "meaning": "CUPTI dropped activity records (its buffers were full)"}])j");
  // summarize's warning of the same loss is not repeated as a second flag.
  run["warnings"] = Json::parse(R"(["the recorder lost 12 records: the figures undercount"])");
  const std::vector<TrustFlag> flags = TrustFlags(Parsed(run));
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].kind, TrustFlagKind::kRecordsLost);
  EXPECT_EQ(flags[0].detail,
            "cupti_dropped_records ×12 (CUPTI dropped activity records (its buffers were full))");
  EXPECT_TRUE(flags[0].doubts_ceilings);
  // Without the diagnostics (an older summary) the warning still flags the run.
  run["diagnostics"] = nullptr;
  EXPECT_EQ(Kinds(Parsed(run)), std::vector<TrustFlagKind>{TrustFlagKind::kWarnings});
}

TEST(TrustFlagsTest, SeveralFlagsInKindOrder) {
  Json run = CleanRun();
  run["profiler_decode_slowdown_pct"] = -12.0;
  run["generated_tokens"] = 4;
  run["diagnostics"] = Json::parse(
      R"([{"code": "trace_incomplete", "severity": "data-loss", "count": 1, "meaning": "m"}])");
  EXPECT_EQ(Kinds(Parsed(run)),
            (std::vector<TrustFlagKind>{TrustFlagKind::kPlainSlower, TrustFlagKind::kFewTokens,
                                        TrustFlagKind::kRecordsLost}));
}

// ---------------------------------------------------------------------------------------

// A unit entry: its share, host gap and plain-wall ceiling; reached unless told otherwise.
Json Unit(const std::string& port, double share, double gap, double plain, bool reached = true) {
  Json unit = Json::object();
  unit["port"] = port;
  unit["fallback_share_pct"] = share;
  unit["fallback_dispatches_per_token"] = 10.0;
  unit["reached_default_share_pct"] = reached ? share : 0.0;
  unit["reached_default_dispatches_per_token"] = reached ? 10.0 : 0.0;
  unit["fallback_host_gap_ms_per_token"] = gap;
  unit["fallback_host_gap_us_per_dispatch"] = gap * 100.0;
  unit["fallback_wall_share_pct"] = (share / 100.0 * 5.0 + gap) / 10.0 * 100.0;
  unit["ceiling_gpu_share"] = 1.0;
  unit["ceiling_wall"] = plain;
  unit["plain_ceiling_wall_est"] = plain;
  unit["reached_default_host_gap_ms_per_token"] = reached ? gap : 0.0;
  return unit;
}

std::vector<std::vector<TrustFlag>> FlagsOf(const std::vector<SummaryFile>& runs) {
  std::vector<std::vector<TrustFlag>> flags;
  for (const SummaryFile& run : runs) flags.push_back(TrustFlags(run));
  return flags;
}

TEST(RankUnitsAcrossRunsTest, OnceOverAllRunsWithTheBestReachedCeiling) {
  Json a = CleanRun("a");
  a["port_units"]["gemv"] = Unit("GEMV", 70.0, 1.0, 1.3);
  a["port_units"]["graph"] = Unit("graphs", 0.0, 5.0, 2.0);
  Json b = CleanRun("b");
  b["port_units"]["gemv"] = Unit("GEMV", 60.0, 1.0, 2.5);
  b["port_units"]["graph"] = Unit("graphs", 0.0, 4.0, 1.8);
  b["port_units"]["moe"] = Unit("MoE", 40.0, 1.0, 9.0, /*reached=*/false);
  // A run with plain slower than profiled: its 20.0 does not count while a and b exist.
  Json c = CleanRun("c");
  c["profiler_decode_slowdown_pct"] = -30.0;
  c["port_units"]["graph"] = Unit("graphs", 0.0, 9.0, 20.0);
  const std::vector<SummaryFile> runs = {Parsed(a), Parsed(b), Parsed(c)};
  const std::vector<CrossRunUnit> ranked = RankUnitsAcrossRuns(runs, FlagsOf(runs));
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].id, "gemv");
  EXPECT_EQ(ranked[0].ceiling, 2.5);
  EXPECT_EQ(ranked[0].best_run, 1u);
  EXPECT_EQ(ranked[0].gpu_share, 60.0);
  EXPECT_EQ(ranked[0].port, "GEMV");
  EXPECT_EQ(ranked[0].by, analysis::RankFigure::kPlainCeilingWallEst);
  EXPECT_EQ(ranked[1].id, "graph");
  EXPECT_EQ(ranked[1].ceiling, 2.0);
  EXPECT_EQ(ranked[1].best_run, 0u);
  EXPECT_EQ(ranked[1].reached, (std::vector<size_t>{0, 1, 2}));
  EXPECT_FALSE(ranked[1].flagged_only);
  // Not reached anywhere: last, although its fallback ceiling is the largest.
  EXPECT_EQ(ranked[2].id, "moe");
  EXPECT_TRUE(ranked[2].reached.empty());
  EXPECT_EQ(ranked[2].holding, std::vector<size_t>{1});
  EXPECT_EQ(ranked[2].ceiling, 9.0);
}

TEST(RankUnitsAcrossRunsTest, AFlaggedRunCountsWhenItAloneReachesTheUnit) {
  Json a = CleanRun("a");
  a["generated_tokens"] = 8;  // few tokens: doubts its ceilings
  a["port_units"]["graph"] = Unit("graphs", 0.0, 5.0, 6.0);
  Json b = CleanRun("b");
  b["port_units"]["graph"] = Unit("graphs", 0.0, 5.0, 3.0);
  b["port_units"]["gemv"] = Unit("GEMV", 50.0, 1.0, 1.5);
  const std::vector<SummaryFile> runs = {Parsed(a), Parsed(b)};
  const std::vector<CrossRunUnit> ranked = RankUnitsAcrossRuns(runs, FlagsOf(runs));
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].id, "graph");
  EXPECT_EQ(ranked[0].ceiling, 3.0);  // b's: a's few tokens leave its 6.0 out
  EXPECT_EQ(ranked[0].best_run, 1u);
  EXPECT_FALSE(ranked[0].flagged_only);

  // Any flag leaves a run out of the headline, one that leaves its ceilings standing too (a
  // high profiler cost): with both runs flagged, the largest ceiling over them is marked.
  b["profiler_decode_slowdown_pct"] = 40.0;
  const std::vector<SummaryFile> both = {Parsed(a), Parsed(b)};
  const std::vector<CrossRunUnit> flagged = RankUnitsAcrossRuns(both, FlagsOf(both));
  EXPECT_EQ(flagged[0].ceiling, 6.0);
  EXPECT_TRUE(flagged[0].flagged_only);

  const std::vector<SummaryFile> only_a = {Parsed(a)};
  const std::vector<CrossRunUnit> alone = RankUnitsAcrossRuns(only_a, FlagsOf(only_a));
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].ceiling, 6.0);
  EXPECT_TRUE(alone[0].flagged_only);
}

TEST(UnitEvidenceTest, AHostGapUnitOwnsTheHostGap) {
  Json run = CleanRun();
  run["gpu_ms_per_token"] = 2.1;
  run["decode_wall_ms"] = 5.4 * 128;
  Json unit = Unit("graphs", 0.0, 3.3, 2.5);
  unit["host_gap"] = "all";
  run["port_units"]["cuda_graph"] = unit;
  EXPECT_EQ(UnitEvidence(Parsed(run), "cuda_graph"),
            "owns 61.1 % of the decode wall as host gap: GPU busy only 2.10 of 5.40 ms/token; "
            "it replaces no kernel (0.0 % of GPU time), so its whole ceiling is host gap that a "
            "captured step removes");
}

TEST(UnitEvidenceTest, ASmallGpuShareWithALargeWallCeilingSaysWhy) {
  Json run = CleanRun();
  run["port_units"]["attention"] = Unit("SDPA", 2.0, 4.0, 1.8);
  EXPECT_EQ(UnitEvidence(Parsed(run), "attention"),
            "2.0 % of decode GPU time (0.10 ms/token), yet 4.00 ms/token of host gap in front of "
            "its 10.0 dispatches/token (400.0 us each): 41.0 % of the decode wall, mostly host "
            "gap — a small GPU share bounds the wall high because the idle time before its "
            "launches counts as its own");
  // A small wall ceiling needs no explanation.
  run["port_units"]["attention"] = Unit("SDPA", 2.0, 0.5, 1.05);
  EXPECT_EQ(UnitEvidence(Parsed(run), "attention"),
            "2.0 % of decode GPU time (0.10 ms/token) and 0.50 ms/token of host gap in front of "
            "its 10.0 dispatches/token (50.0 us each): 6.0 % of the decode wall, mostly host gap");
}

TEST(UnitEvidenceTest, AKernelUnitAndAnOldSummary) {
  Json run = CleanRun();
  run["port_units"]["gemv"] = Unit("GEMV", 70.0, 1.0, 1.8);
  EXPECT_EQ(UnitEvidence(Parsed(run), "gemv"),
            "70.0 % of decode GPU time (3.50 ms/token) plus 1.00 ms/token of host gap in front "
            "of its 10.0 dispatches/token (100.0 us each): 45.0 % of the decode wall");
  const SummaryFile old = Summary(R"({"name": "old", "generated_tokens": 128,
      "decode_gpu_sum_ms": 640.0, "port_units": {"2065": {"fallback_share_pct": 46.79}}})");
  EXPECT_EQ(UnitEvidence(old, "2065"),
            "46.8 % of decode GPU time (2.34 ms/token); the summary has no host-gap figures (it "
            "predates #2148)");
}

// A sampled recording's window holds 3 of the decode's 96 steps: its totals stand for
// window_tokens = 3 · 97 / 96 tokens, not for the 97 generated ones. The figures are those of
// AKernelUnitAndAnOldSummary's and AHostGapUnitOwnsTheHostGap's runs, whose windows hold
// their whole decodes (over 97 tokens they would read 0.11 and 0.31 ms/token).
TEST(UnitEvidenceTest, ASampledRunDividesTheWindowByTheTokensItStandsFor) {
  Json run = CleanRun();
  run["generated_tokens"] = 97;
  run["decode_forward_passes"] = 96;
  run["window_tokens"] = 3.03125;
  run["decode_gpu_sum_ms"] = 5.0 * 3.03125;
  run["decode_wall_ms"] = 10.0 * 3.03125;
  run["port_units"]["gemv"] = Unit("GEMV", 70.0, 1.0, 1.8);
  EXPECT_EQ(UnitEvidence(Parsed(run), "gemv"),
            "70.0 % of decode GPU time (3.50 ms/token) plus 1.00 ms/token of host gap in front "
            "of its 10.0 dispatches/token (100.0 us each): 45.0 % of the decode wall");
  run["gpu_ms_per_token"] = 2.1;
  run["decode_wall_ms"] = 5.4 * 3.03125;
  Json graphs = Unit("graphs", 0.0, 3.3, 2.5);
  graphs["host_gap"] = "all";
  run["port_units"]["cuda_graph"] = graphs;
  EXPECT_EQ(UnitEvidence(Parsed(run), "cuda_graph"),
            "owns 61.1 % of the decode wall as host gap: GPU busy only 2.10 of 5.40 ms/token; "
            "it replaces no kernel (0.0 % of GPU time), so its whole ceiling is host gap that a "
            "captured step removes");
  // The token count itself stays the decode's: 97 tokens raise no few-tokens flag.
  EXPECT_TRUE(Kinds(Parsed(run)).empty());
}

// ---------------------------------------------------------------------------------------

std::vector<SummaryFile> SixUnits() {
  Json a = CleanRun("a");
  const double ceilings[] = {1.9, 1.8, 1.7, 1.6, 1.5, 1.4, 1.0};
  for (int i = 0; i < 7; ++i) {
    a["port_units"]["u" + std::to_string(i)] =
        Unit("unit " + std::to_string(i), 10.0, 1.0, ceilings[i]);
  }
  return {Parsed(a)};
}

TEST(RenderDoFirstMarkdownTest, ListsTheTopUnitsAndNamesTheRest) {
  const std::string out = RenderDoFirstMarkdown(SixUnits(), 5);
  EXPECT_TRUE(out.starts_with("## Do first\n\n")) << out;
  EXPECT_NE(out.find("Top 5 of 7 units:\n\n1. **#u0**: unit 0 — **1.90×** plain wall\n"
                     "   - runs: reaches the run; ceiling from `a`\n   - evidence: "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("5. **#u4**: unit 4 — **1.50×** plain wall\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("6. "), std::string::npos) << out;
  EXPECT_NE(out.find("\nAlso ranked: `#u5` 1.40×, `#u6` 1.00×. A ceiling of 1.00× means nothing "
                     "to gain on these runs.\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\nCeilings are speedup bounds"), std::string::npos) << out;
  EXPECT_NE(out.find("\nTrust flags: none."), std::string::npos) << out;
  EXPECT_NE(out.find("\n- `#u6`: unit 6\n\n"), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("\n\n")) << out;
  // A unit with nothing to gain (1.00×) is never in the list, whatever the count asks.
  const std::string all = RenderDoFirstMarkdown(SixUnits(), 10);
  EXPECT_NE(all.find("6. **#u5**"), std::string::npos) << all;
  EXPECT_EQ(all.find("7. "), std::string::npos) << all;
}

// Several plain runs (summarize --plain-log repeated): a spread above 10 % is flagged, and the
// ceiling's range over the fastest and slowest plain run is printed next to it.
TEST(RenderDoFirstMarkdownTest, NoisyPlainRunsAreFlaggedAndCeilingsGiveTheirRange) {
  Json run = CleanRun("noisy");
  run["plain_runs"] = Json::parse(
      R"({"count": 3, "decode_tok_s": [30.0, 40.0, 52.0], "used": 1, "spread_pct": 55.0})");
  run["port_units"]["graph"] = Unit("graphs", 0.0, 5.0, 2.56);
  run["ranked_units"] = Json::parse(
      R"([{"id": "graph", "by": "plain_ceiling_wall_est", "value": 2.56,
           "value_range": [2.1, 3.62]}])");
  const std::vector<SummaryFile> runs = {Parsed(run)};
  const std::vector<TrustFlag> flags = TrustFlags(runs[0]);
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].kind, TrustFlagKind::kNoisyPlainRuns);
  EXPECT_EQ(flags[0].detail, "3 plain runs, decode tok/s 55.0 % apart (the median run is used)");
  EXPECT_FALSE(flags[0].doubts_ceilings);
  const std::string out = RenderDoFirstMarkdown(runs, 5);
  EXPECT_NE(out.find("**#graph**: graphs — **2.56×** plain wall (2.10–3.62× over the plain "
                     "runs)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("**plain runs disagree**"), std::string::npos) << out;
  // At 10 % or less: no flag.
  run["plain_runs"]["spread_pct"] = 10.0;
  EXPECT_TRUE(TrustFlags(Parsed(run)).empty());
}

TEST(RenderDoFirstMarkdownTest, TrustFlagsByKindWithTheRunsNextToTheirMark) {
  Json a = CleanRun("a");
  a["profiler_decode_slowdown_pct"] = -40.66;
  Json b = CleanRun("b");
  b["profiler_decode_slowdown_pct"] = -11.7;
  b["generated_tokens"] = 8;
  const std::string out = RenderDoFirstMarkdown({Parsed(a), Parsed(b), Parsed(CleanRun("c"))}, 5);
  EXPECT_NE(out.find("These summaries have no work units"), std::string::npos) << out;
  EXPECT_NE(out.find("Trust flags (2 of 3 runs, ⚠ next to their names"), std::string::npos) << out;
  EXPECT_NE(out.find("- **plain run slower than profiled**: `a` ⚠ profiler cost -40.66 %; `b` ⚠ "
                     "profiler cost -11.7 %. A profiler cannot make a run faster"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("- **few tokens**: `b` ⚠ 8 generated tokens"), std::string::npos) << out;
  EXPECT_EQ(out.find("`c` ⚠"), std::string::npos) << out;
}

TEST(RenderDoFirstHtmlTest, SameContentEscaped) {
  Json a = CleanRun("a<b>");
  a["generated_tokens"] = 8;
  a["port_units"]["g&h"] = Unit("graphs <all>", 0.0, 5.0, 2.0);
  const std::vector<SummaryFile> runs = {Parsed(a)};
  const std::string out = RenderDoFirstHtml(runs, 5);
  EXPECT_TRUE(out.starts_with("<section id=\"do-first\">\n<h2>Do first</h2>\n")) << out;
  EXPECT_NE(out.find("<li><strong>#g&amp;h</strong>: graphs &lt;all&gt; — <strong>2.00×</strong> "
                     "plain wall"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("<code>a&lt;b&gt;</code> ⚠ 8 generated tokens"), std::string::npos) << out;
  EXPECT_NE(out.find("(<code>decodeprof profile --tokens 128</code>)"), std::string::npos) << out;
  EXPECT_EQ(out.find("<b>"), std::string::npos) << out;
  EXPECT_EQ(TrustMarkHtml(runs[0]), " <span class=\"flag\" title=\"few tokens\">⚠</span>");
  EXPECT_EQ(TrustMarkHtml(Parsed(CleanRun())), "");
}

// Every flag kind is a code of the diagnostics list or reads codes of it; the five of source
// report state the thresholds the flags use, and report --format json names them by code.
TEST(TrustFlagsTest, EachKindIsACodeOfTheDiagnosticsList) {
  const auto meaning = [](TrustFlagKind kind) {
    return std::string(trace::Describe(*TrustFlagCode(kind)).meaning);
  };
  const auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  for (const TrustFlagKind kind :
       {TrustFlagKind::kPlainSlower, TrustFlagKind::kHighProfilerCost,
        TrustFlagKind::kNoisyPlainRuns, TrustFlagKind::kFewTokens, TrustFlagKind::kNoTokenCount}) {
    ASSERT_TRUE(TrustFlagCode(kind).has_value());
    EXPECT_EQ(trace::Describe(*TrustFlagCode(kind)).source, trace::DiagSource::kReport);
    EXPECT_EQ(trace::Describe(*TrustFlagCode(kind)).severity, trace::Severity::kWarning);
  }
  EXPECT_TRUE(has(meaning(TrustFlagKind::kPlainSlower),
                  "more than " + std::to_string(static_cast<int>(kPlainSlowerNoisePct)) + " %"));
  EXPECT_TRUE(has(meaning(TrustFlagKind::kHighProfilerCost),
                  "more than " + std::to_string(static_cast<int>(kProfilerCostFlagPct)) + " %"));
  EXPECT_TRUE(has(meaning(TrustFlagKind::kNoisyPlainRuns),
                  "more than " + std::to_string(static_cast<int>(kPlainSpreadFlagPct)) + " %"));
  EXPECT_TRUE(has(meaning(TrustFlagKind::kFewTokens),
                  "fewer than " + std::to_string(kMinGeneratedTokens) + " generated tokens"));
  EXPECT_EQ(TrustFlagCode(TrustFlagKind::kStraddlingKernels), trace::Diag::kStraddlingDecodeStart);
  EXPECT_EQ(TrustFlagCode(TrustFlagKind::kGapResidual), trace::Diag::kHostGapResidual);
  EXPECT_FALSE(TrustFlagCode(TrustFlagKind::kWarnings).has_value());
  EXPECT_FALSE(TrustFlagCode(TrustFlagKind::kRecordsLost).has_value());
}

}  // namespace
}  // namespace decodeprof::report
