#include "src/report/html_report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace decodeprof::report {
namespace {

SummaryFile Summary(const std::string& text, const std::string& path = "x_summary.json") {
  auto parsed = ParseSummary(path, text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : SummaryFile{};
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A launch-bound run: 1 ms GPU busy + 3 ms host gap per token, two units.
SummaryFile LaunchBound() {
  return Summary(R"({
    "name": "run<1>", "generated_tokens": 8, "decode_wall_ms": 32.0,
    "plain_wall_ms_per_token": 4.5, "gpu_ms_per_token": 1.0, "host_gap_ms_per_token": 3.0,
    "dispatches_per_token": 1280.1,
    "top_kernels": [{"kernel": "nvjet_sm90_tst_64x8", "class": "gemm",
                     "calls_per_token": 56.0, "share_pct": 31.51}],
    "port_units": {
      "gemv": {"port": "GEMV", "fallback_share_pct": 71.12, "ceiling_gpu_share": 3.46,
               "ceiling_wall": 1.22, "plain_ceiling_wall_est": 1.21},
      "cuda_graph": {"port": "graphs", "fallback_share_pct": 0.0, "ceiling_gpu_share": 1.0,
                     "ceiling_wall": 8.13, "plain_ceiling_wall_est": 9.09}}})",
                 "d/run_summary.json");
}

TEST(HtmlEscapeTest, EscapesTheFiveSpecialCharacters) {
  EXPECT_EQ(HtmlEscape(R"(a<b>&"c"'d')"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(HtmlEscape("plain text"), "plain text");
}

TEST(HtmlReportTest, IsOneSelfContainedPage) {
  const auto out = RenderHtmlReport({LaunchBound()});
  EXPECT_EQ(out.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_TRUE(out.ends_with("</body>\n</html>\n"));
  EXPECT_FALSE(Contains(out, "<script"));
  EXPECT_FALSE(Contains(out, "http"));
  EXPECT_FALSE(Contains(out, "<link"));
}

TEST(HtmlReportTest, EscapesEveryTextFromTheSummary) {
  const auto out = RenderHtmlReport({Summary(R"({"name": "a<b>&\"c\"'d'",
    "top_kernels": [{"kernel": "k<&>", "class": "x\"y", "share_pct": 1.0}],
    "port_units": {"u<1>": {"port": "p & q", "fallback_share_pct": 5.0}}})")});
  EXPECT_TRUE(Contains(out, "<code>a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;</code>"));
  EXPECT_TRUE(Contains(out, "<code>k&lt;&amp;&gt;</code>"));
  EXPECT_TRUE(Contains(out, "x&quot;y"));
  EXPECT_TRUE(Contains(out, "<code>#u&lt;1&gt;</code>"));
  EXPECT_TRUE(Contains(out, "p &amp; q"));
  EXPECT_FALSE(Contains(out, "a<b>"));
  EXPECT_FALSE(Contains(out, "k<&>"));
}

TEST(HtmlReportTest, WallBarWidthsAreGpuBusyAndHostGapShares) {
  const auto out = RenderHtmlReport({LaunchBound()});
  EXPECT_TRUE(Contains(out,
                       "<div class=\"wall\"><div class=\"gpu\" style=\"width:25.00%\"></div>"
                       "<div class=\"gap\" style=\"width:75.00%\"></div></div>"));
  EXPECT_TRUE(Contains(out, "launch-bound"));
  // The run line: plain 4.5, profiled 32 / 8 = 4.0, GPU 1.0, gap 3.0, dispatches 1280.1.
  EXPECT_TRUE(Contains(out,
                       "<td class=\"l\"><code>run&lt;1&gt;</code></td><td>4.5</td><td>4.0</td>"
                       "<td>1.0</td><td>3.0</td><td>1280.1</td>"));
}

TEST(HtmlReportTest, UnitsAreRankedByPlainWallCeilingWithShareBars) {
  const auto out = RenderHtmlReport({LaunchBound()});
  EXPECT_TRUE(Contains(out, "Work units by plain wall ceiling"));
  const size_t graph = out.find("#cuda_graph");
  const size_t gemv = out.find("#gemv");
  ASSERT_NE(graph, std::string::npos);
  ASSERT_NE(gemv, std::string::npos);
  EXPECT_LT(graph, gemv);  // 9.09 before 1.21, although gemv comes first in port_units
  EXPECT_TRUE(Contains(out, "<span style=\"width:71.12%\"></span></span> 71.12%"));
  EXPECT_TRUE(Contains(out, "<td>9.09 (1.00)</td>"));
  EXPECT_TRUE(Contains(out, "<td>1.21 (3.46)</td>"));
  EXPECT_TRUE(Contains(out, "<code>nvjet_sm90_tst_64x8</code>"));
}

TEST(HtmlReportTest, UnitsFollowTheStoredRankOrder) {
  SummaryFile run = LaunchBound();
  run.content["ranked_units"] = nlohmann::ordered_json::parse(
      R"([{"id": "gemv", "by": "plain_ceiling_wall_est", "value": 1.21},
          {"id": "cuda_graph", "by": "plain_ceiling_wall_est", "value": 9.09}])");
  const auto out = RenderHtmlReport({run});
  EXPECT_LT(out.find("#gemv"), out.find("#cuda_graph"));  // as stored, not re-ranked
}

TEST(HtmlReportTest, IsDeterministic) {
  const std::vector<SummaryFile> runs = {LaunchBound(), LaunchBound()};
  EXPECT_EQ(RenderHtmlReport(runs), RenderHtmlReport(runs));
}

TEST(HtmlReportTest, RunWithoutUnitsOrPlainRun) {
  const auto out = RenderHtmlReport({Summary(R"({"name": "old", "profiled_decode_tok_s": 8.0,
                                                 "plain_decode_tok_s": 0})")});
  // plain "-", profiled 1000 / 8, the rest absent.
  EXPECT_TRUE(Contains(out,
                       "<td class=\"l\"><code>old</code></td><td>-</td><td>125.0</td><td>-</td>"
                       "<td>-</td><td>-</td>"));
  EXPECT_TRUE(Contains(out, "No decode wall bar"));
  EXPECT_FALSE(Contains(out, "class=\"wall\""));
  EXPECT_FALSE(Contains(out, "Work units"));
  EXPECT_FALSE(Contains(out, "Top kernels"));
}

TEST(HtmlReportTest, ProfiledCeilingBasisWithoutPlainEstimate) {
  const auto out = RenderHtmlReport({Summary(R"({"name": "p",
    "port_units": {"a": {"ceiling_wall": 1.5}, "b": {"ceiling_wall": 2.5}, "c": {}}})")});
  EXPECT_TRUE(Contains(out, "Work units by wall ceiling"));
  const size_t a = out.find("#a<");
  const size_t b = out.find("#b<");
  const size_t c = out.find("#c<");
  ASSERT_NE(c, std::string::npos);
  EXPECT_LT(b, a);
  EXPECT_LT(a, c);  // no ceiling: last
  EXPECT_TRUE(Contains(out, "<td>2.50 (-)</td>"));
}

}  // namespace
}  // namespace decodeprof::report
