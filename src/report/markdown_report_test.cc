#include "src/report/markdown_report.h"
#include "src/report/testing/summary_text.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace decodeprof::report {
namespace {

using test_support::Summary;

// Seed spec section 3, GapTests: ceiling_cell.
TEST(CeilingCellTest, SeedCases) {
  EXPECT_EQ(CeilingCell(1.5, 1.33, 1.42), "1.50 (1.42)");
  EXPECT_EQ(CeilingCell(std::nullopt, 1.6, std::nullopt), "1.60 (-)");
  EXPECT_EQ(CeilingCell(std::nullopt, std::nullopt, std::nullopt), "-");
}

TEST(CeilingCellTest, PrefersThePlainEstimateAndRoundsTheBinaryValue) {
  EXPECT_EQ(CeilingCell(1.6, 1.65, 1.45), "1.60 (1.45)");
  EXPECT_EQ(CeilingCell(std::nullopt, 1.65, 1.45), "1.65 (1.45)");
  EXPECT_EQ(CeilingCell(std::nullopt, std::nullopt, 1.26), "- (1.26)");
  EXPECT_EQ(CeilingCell(1.0, 1.0, 1.0), "1.00 (1.00)");
  EXPECT_EQ(CeilingCell(1.005, std::nullopt, 2.675), "1.00 (2.67)");  // both just below .xx5
}

// Seed spec section 3, WindowTests: the report of the summary `t` whose units all have
// ceilings 1.0.
TEST(MarkdownReportTest, WindowTestsSummaryT) {
  std::string units;
  for (const char* id : {"2063", "2064", "2065", "2067", "2068"}) {
    if (!units.empty()) units += ", ";
    units += std::string("\"") + id +
             "\": {\"fallback_share_pct\": 0.0, \"reached_default_share_pct\": 0.0, "
             "\"ceiling_gpu_share\": 1.0, \"ceiling_wall\": 1.0, "
             "\"plain_ceiling_wall_est\": 1.0}";
  }
  const std::string report = RenderSeedMarkdownReport({Summary(
      "{\"name\": \"t\", \"plain_decode_tok_s\": 8000.0, \"port_units\": {" + units + "}}")});
  EXPECT_NE(report.find("| Run: ceiling wall (GPU share) |"), std::string::npos) << report;
  EXPECT_NE(report.find("| `t` (plain) | 1.00 (1.00) |"), std::string::npos) << report;
  EXPECT_NE(report.find("| Run | #2063 | #2064 | #2065 | #2067 | #2068 |\n"
                        "|---|---:|---:|---:|---:|---:|\n"),
            std::string::npos)
      << report;
}

TEST(MarkdownReportTest, ExactLayoutOfOneRun) {
  const std::string report = RenderSeedMarkdownReport({Summary(R"({
    "name": "m", "plain_decode_tok_s": 0.0, "profiled_decode_tok_s": 39.78,
    "profiler_decode_slowdown_pct": -6.79, "dispatches_per_token": 491.6,
    "gpu_ms_per_token": 23.34, "host_gap_ms_per_token": 1.8, "host_gap_pct_of_wall": 7.15,
    "top_kernels": [{"kernel": "Cijk_Alik", "class": "gemm", "calls_per_token": 2.0,
                     "share_pct": 0.5}],
    "port_units": {"7": {"fallback_share_pct": 1.66, "reached_default_share_pct": 0.0,
                         "ceiling_gpu_share": 1.02, "ceiling_wall": 1.03,
                         "plain_ceiling_wall_est": null}}})")});
  EXPECT_EQ(report,
            "| Run | plain tok/s | profiled tok/s | profiler cost | dispatches/token | "
            "GPU ms/token | host gap ms/token | host gap % |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|\n"
            "| `m` | - | 39.78 | -6.79% | 491.6 | 23.34 | 1.8 | 7.15 |\n"
            "\n"
            "| Run | #7 |\n"
            "|---|---:|\n"
            "| `m` | 0.0 (1.66) |\n"
            "\n"
            "| Run: ceiling wall (GPU share) | #7 |\n"
            "|---|---:|\n"
            "| `m` (profiled) | 1.03 (1.02) |\n"
            "\n"
            "Top kernels, `m` (share of decode GPU time, calls per token):\n"
            "\n"
            "- `Cijk_* (Tensile GEMM)` 0.5%, 2.0\n");
}

// Integers stay integers, floats print as repr (values of other types are rejected by
// ParseSummary: summary_reader_consistency_test.cc).
TEST(MarkdownReportTest, PrintsPythonStrOfTheStoredValues) {
  const std::string report = RenderMarkdownReport({Summary(R"({
    "name": "5", "plain_decode_tok_s": 12, "profiled_decode_tok_s": 1e-05,
    "profiler_decode_slowdown_pct": 1.5e16, "dispatches_per_token": 0,
    "gpu_ms_per_token": -0.0, "host_gap_ms_per_token": 123456789012,
    "host_gap_pct_of_wall": 12.0})")});
  EXPECT_NE(report.find("| `5` | 12 | 1e-05 | 1.5e+16% | 0 | -0.0 | 123456789012 | "
                        "12.0 |\n"),
            std::string::npos)
      << report;
}

TEST(MarkdownReportTest, SummaryPredating2148HasDashCells) {
  const std::string report = RenderMarkdownReport({Summary(
      R"({"name": "old", "port_units": {"2063": {"fallback_share_pct": 2.82,
          "reached_default_share_pct": 0.0}}})")});
  EXPECT_NE(report.find("| `old` (summary predates #2148) | - |\n"), std::string::npos) << report;
  EXPECT_NE(report.find("| `old` | 0.0 (2.82) |\n"), std::string::npos) << report;
}

TEST(MarkdownReportTest, UnitColumnsFollowTheFirstSummaryThenNewIds) {
  const auto report =
      RenderMarkdownReport({Summary(R"({"name": "a", "port_units": {"9": {}, "3": {}}})"),
                            Summary(R"({"name": "b", "port_units": {"4": {}, "3": {}}})")});
  EXPECT_NE(report.find("| Run | #9 | #3 | #4 |\n"), std::string::npos) << report;
  EXPECT_NE(report.find("| `a` | None (None) | None (None) | - |\n"), std::string::npos) << report;
  EXPECT_NE(report.find("| `b` | - | None (None) | None (None) |\n"), std::string::npos) << report;
}

// The report opens with "Do first"; the seed's sections follow byte for byte, and
// --do-first 0 gives the seed's report alone.
TEST(MarkdownReportTest, DoFirstThenTheSeedReportUnchanged) {
  const std::vector<SummaryFile> runs = {Summary(R"({"name": "a", "generated_tokens": 128,
      "port_units": {"2063": {"port": "fused norm", "fallback_share_pct": 2.82,
                              "reached_default_share_pct": 2.82, "ceiling_wall": 1.2}}})")};
  const std::string report = RenderMarkdownReport(runs);
  EXPECT_EQ(report, RenderDoFirstMarkdown(runs, kDoFirstUnits) +
                        "## Runs, units and top kernels\n\n" + RenderSeedMarkdownReport(runs));
  EXPECT_TRUE(report.starts_with("## Do first\n\n")) << report;
  EXPECT_NE(report.find("1. **#2063**: fused norm — **1.20×** profiled wall\n"), std::string::npos)
      << report;
  EXPECT_EQ(RenderMarkdownReport(runs, 0), RenderSeedMarkdownReport(runs));
}

}  // namespace
}  // namespace decodeprof::report
