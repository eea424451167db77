#include "src/report/full_report.h"
#include "src/report/testing/summary_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/report/markdown_report.h"

namespace decodeprof::report {
namespace {

using test_support::Summary;

// Two runs: `a` with every field, `b` an older summary with most of them missing.
std::vector<SummaryFile> TwoRuns() {
  return {Summary(R"({
    "name": "a", "model_type": "llama", "temperature": 0.7, "prompt_tokens": 128,
    "generated_tokens": 16, "profiled_decode_tok_s": 22.01, "plain_decode_tok_s": 20.81,
    "profiler_decode_slowdown_pct": -5.45, "dispatches_per_token": 1371.6,
    "decode_wall_ms": 727.0, "decode_gpu_sum_ms": 93.791, "gpu_ms_per_token": 5.8506,
    "host_gap_ms_per_token": 39.5869, "plain_wall_ms_per_token": 48.0538,
    "plain_host_gap_ms_per_token_est": 42.2032,
    "checks": {"kernels_straddling_decode_start": 0, "host_gap_attribution_residual_ns": 0,
               "idle_gap_before_first_decode_dispatch_us": 153.3},
    "top_kernels": [{"kernel": "nvjet_sm90_x", "class": "gemm", "calls_per_token": 60.0,
                     "share_pct": 32.12}],
    "class_share_pct": {"gemm": 71.01, "copy": 7.2, "index": 7.2},
    "role_share_pct": {"unattributed": 100.0},
    "port_units": {"gemv": {"port": "GEMV | batch 1", "fallback_share_pct": 71.01,
                            "fallback_dispatches_per_token": 337.8,
                            "fallback_host_gap_ms_per_token": 4.1302,
                            "fallback_wall_share_pct": 18.1, "ceiling_gpu_share": 3.46,
                            "ceiling_wall": 1.22, "plain_ceiling_wall_est": 1.21}},
    "decode_forward_passes": 15, "clock": "boottime", "pack": "pytorch-cuda",
    "units_file": "h200-decode", "warnings": ["no grid", "two\nlines"]})",
                  "d/a_summary.json"),
          Summary(R"({"name": "b", "profiled_decode_tok_s": 8.0, "plain_decode_tok_s": 0,
                      "class_share_pct": {"attention": 50.0, "gemm": 40.0},
                      "top_kernels": [{"kernel": "k", "share_pct": 1.0}]})",
                  "d/b_summary.json")};
}

TEST(FullReportTest, ExactSectionsOfTwoRuns) {
  const auto out = RenderFullReportSections(TwoRuns());
  EXPECT_EQ(out,
            "\n"
            "Run setup (per-token figures divide by generated tokens; the decode window holds "
            "one forward pass fewer):\n"
            "\n"
            "| Run | model | temperature | prompt tokens | generated tokens | forward passes | "
            "clock | pack | units |\n"
            "|---|---|---:|---:|---:|---:|---|---|---|\n"
            "| `a` | llama | 0.7 | 128 | 16 | 15 | boottime | pytorch-cuda | h200-decode |\n"
            "| `b` | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |\n"
            "\n"
            "Decode time per token (ms; plain = the run without the profiler, profiled = decode "
            "wall / generated tokens = GPU busy + host gap):\n"
            "\n"
            "| Run | plain ms/token | profiled ms/token | GPU busy ms/token | host gap ms/token | "
            "plain gap ms/token | dispatches/token | profiler cost % |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|\n"
            "| `a` | 48.0538 | 45.4375 | 5.8506 | 39.5869 | 42.2032 | 1371.6 | "
            "-5.45 (plain run slower) |\n"
            "| `b` | n/a | 125.0 | n/a | n/a | n/a | n/a | n/a |\n"
            "\n"
            "Kernel classes (share of decode GPU time, %):\n"
            "\n"
            "| Class | `a` | `b` |\n"
            "|---|---:|---:|\n"
            "| gemm | 71.01 | 40.0 |\n"
            "| copy | 7.2 | n/a |\n"
            "| index | 7.2 | n/a |\n"
            "| attention | n/a | 50.0 |\n"
            "\n"
            "Roles (share of decode GPU time, %):\n"
            "\n"
            "| Role | `a` | `b` |\n"
            "|---|---:|---:|\n"
            "| unattributed | 100.0 | n/a |\n"
            "\n"
            "Units (what each would build):\n"
            "\n"
            "| Unit | work item |\n"
            "|---|---|\n"
            "| #gemv | GEMV \\| batch 1 |\n"
            "\n"
            "Units per run (fallback set: every dispatch the unit names; GPU ms/token = share / "
            "100 * decode GPU sum / generated tokens; ceilings are speedup bounds):\n"
            "\n"
            "| Run | Unit | share % | GPU ms/token | dispatches/token | host gap ms/token | "
            "wall share % | plain wall ceiling | wall ceiling | GPU-share ceiling |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
            "| `a` | #gemv | 71.01 | 4.1626 | 337.8 | 4.1302 | 18.1 | 1.21 | 1.22 | 3.46 |\n"
            "\n"
            "Top kernels with class, `a` (share of decode GPU time, calls per token):\n"
            "\n"
            "| # | kernel | class | share % | calls/token |\n"
            "|---:|---|---|---:|---:|\n"
            "| 1 | `nvjet_sm90_x` | gemm | 32.12 | 60.0 |\n"
            "\n"
            "Checks (0 straddling kernels and a 0 ns gap residual are expected; trust flags as "
            "in Do first):\n"
            "\n"
            "| Run | straddling kernels | gap residual ns | idle before decode us | warnings | "
            "trust flags |\n"
            "|---|---:|---:|---:|---|---|\n"
            "| `a` | 0 | 0 | 153.3 | no grid; two lines | "
            "⚠ plain run slower than profiled; summarize warned |\n"
            "| `b` | n/a | n/a | n/a | n/a | ⚠ no generated-token count |\n");
}

TEST(FullReportTest, FullReportIsTheSeedReportFollowedByTheSections) {
  const std::vector<SummaryFile> runs = TwoRuns();
  const std::string full = RenderFullMarkdownReport(runs);
  EXPECT_EQ(full, RenderMarkdownReport(runs) + RenderFullReportSections(runs));
  EXPECT_TRUE(full.starts_with("## Do first\n"));
  EXPECT_EQ(RenderFullMarkdownReport(runs, 0),
            RenderSeedMarkdownReport(runs) + RenderFullReportSections(runs));
}

TEST(FullReportTest, ClassRowsFollowTheFirstRunThenNames) {
  const auto out = RenderFullReportSections(
      {Summary(R"({"name": "a", "class_share_pct": {"z": 1.0, "y": 5.0, "x": 1.0, "n": null}})"),
       Summary(R"({"name": "b", "class_share_pct": {"c": 9.0, "b": 9.0}})")});
  EXPECT_NE(out.find("| Class | `a` | `b` |\n"
                     "|---|---:|---:|\n"
                     "| y | 5.0 | n/a |\n"
                     "| x | 1.0 | n/a |\n"
                     "| z | 1.0 | n/a |\n"
                     "| b | n/a | 9.0 |\n"
                     "| c | n/a | 9.0 |\n"
                     "| n | n/a | n/a |\n"),
            std::string::npos)
      << out;
}

TEST(FullReportTest, DerivedTimesFallBackAndRoundToFourDecimals) {
  const auto out = RenderFullReportSections(
      {Summary(R"({"name": "a", "plain_decode_tok_s": 3, "generated_tokens": 0,
                   "decode_wall_ms": 10.0, "profiled_decode_tok_s": 7})"),
       Summary(R"({"name": "b", "generated_tokens": 3, "decode_wall_ms": 1})"),
       Summary(R"({"name": "c", "plain_wall_ms_per_token": 12, "profiled_decode_tok_s": 0.0})")});
  EXPECT_NE(out.find("| `a` | 333.3333 | 142.8571 | n/a |"), std::string::npos) << out;
  EXPECT_NE(out.find("| `b` | n/a | 0.3333 | n/a |"), std::string::npos) << out;
  EXPECT_NE(out.find("| `c` | 12 | n/a | n/a |"), std::string::npos) << out;
}

// A sampled recording (3 of 96 steps): its window's totals stand for window_tokens =
// 3 · 97 / 96 tokens, and the derived figures divide by them (over the 97 generated tokens
// they would read 0.3125 and 0.1094); the run setup keeps the decode's 97 tokens.
TEST(FullReportTest, ASampledRunsDerivedFiguresDivideByItsWindowTokens) {
  const auto out = RenderFullReportSections({Summary(R"({"name": "s", "generated_tokens": 97,
      "decode_forward_passes": 96, "window_tokens": 3.03125, "decode_wall_ms": 30.3125,
      "decode_gpu_sum_ms": 15.15625, "gpu_ms_per_token": 5.0, "host_gap_ms_per_token": 5.0,
      "port_units": {"gemv": {"port": "GEMV", "fallback_share_pct": 70.0}}})")});
  EXPECT_NE(out.find("| `s` | n/a | n/a | n/a | 97 | 96 |"), std::string::npos) << out;
  EXPECT_NE(out.find("| `s` | n/a | 10.0 | 5.0 | 5.0 |"), std::string::npos) << out;
  EXPECT_NE(out.find("| `s` | #gemv | 70.0 | 3.5 |"), std::string::npos) << out;
}

// A negative profiler cost never prints bare: the noise of one pair of runs, or a flag.
TEST(FullReportTest, ProfilerCostCellsSayWhatANegativeOrHighCostMeans) {
  const auto out =
      RenderFullReportSections({Summary(R"({"name": "a", "profiler_decode_slowdown_pct": -40.66})"),
                                Summary(R"({"name": "b", "profiler_decode_slowdown_pct": -0.29})"),
                                Summary(R"({"name": "c", "profiler_decode_slowdown_pct": 29.14})"),
                                Summary(R"({"name": "d", "profiler_decode_slowdown_pct": 6.99})")});
  EXPECT_NE(out.find("| n/a | -40.66 (plain run slower) |"), std::string::npos) << out;
  EXPECT_NE(out.find("| n/a | -0.29 (plain run slower: noise) |"), std::string::npos) << out;
  EXPECT_NE(out.find("| n/a | 29.14 (high) |"), std::string::npos) << out;
  EXPECT_NE(out.find("| n/a | 6.99 |"), std::string::npos) << out;
}

TEST(FullReportTest, ChecksSayNoneForAnEmptyListAndNameTheTrustFlags) {
  const auto out = RenderFullReportSections({Summary(R"({"name": "a", "generated_tokens": 128,
      "warnings": [], "checks": {"kernels_straddling_decode_start": 3}})")});
  EXPECT_NE(out.find("| `a` | 3 | n/a | n/a | none | ⚠ kernels straddle decode_start |"),
            std::string::npos)
      << out;
}

TEST(FullReportTest, EmptySectionsAreLeftOut) {
  const auto out =
      RenderFullReportSections({Summary(R"({"name": "a", "port_units": {}, "class_share_pct": {},
                   "top_kernels": [{"kernel": "k", "share_pct": 1.0}]})")});
  EXPECT_NE(out.find("Run setup"), std::string::npos);
  EXPECT_NE(out.find("Checks"), std::string::npos);
  EXPECT_EQ(out.find("Kernel classes"), std::string::npos) << out;
  EXPECT_EQ(out.find("Roles"), std::string::npos) << out;
  EXPECT_EQ(out.find("Units"), std::string::npos) << out;
  EXPECT_EQ(out.find("Top kernels with class"), std::string::npos) << out;
}

}  // namespace
}  // namespace decodeprof::report
