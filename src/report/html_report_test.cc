#include "src/report/html_report.h"
#include "src/report/testing/summary_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace decodeprof::report {
namespace {

using test_support::Summary;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The page after the "Do first" section: the run table and the runs' sections.
std::string AfterDoFirst(const std::string& page) {
  const size_t end = page.find("</section>\n");
  return end == std::string::npos ? page : page.substr(end);
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
  EXPECT_FALSE(Contains(out, "nan"));
  EXPECT_FALSE(Contains(out, "inf"));
}

TEST(HtmlReportTest, EscapesEveryTextFromTheSummary) {
  const auto out = RenderHtmlReport({Summary(R"({"name": "a<b>&\"c\"'d'",
    "top_kernels": [{"kernel": "k<&>", "class": "x\"y", "share_pct": 1.0}],
    "port_units": {"u<1>": {"port": "p & q", "fallback_share_pct": 5.0}}})")});
  EXPECT_TRUE(Contains(out, "<code>a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;</code>"));
  EXPECT_TRUE(Contains(out, "<code title=\"k&lt;&amp;&gt;\">k&lt;&amp;&gt;</code>"));
  EXPECT_TRUE(Contains(out, "<title>k&lt;&amp;&gt;\nshare 1.0% of decode GPU time"));
  EXPECT_TRUE(Contains(out, "x&quot;y"));
  EXPECT_TRUE(Contains(out, "<code>#u&lt;1&gt;</code>"));
  EXPECT_TRUE(Contains(out, "p &amp; q"));
  EXPECT_FALSE(Contains(out, "a<b>"));
  EXPECT_FALSE(Contains(out, "k<&>"));
}

TEST(HtmlReportTest, WallBarStacksTheUnitsOtherGpuTimeAndTheHostGap) {
  const auto out = RenderHtmlReport({LaunchBound()});
  // 1 ms GPU + 3 ms host gap = 4 ms on 800 px: gemv 71.12 % of the GPU (0.7112 ms, 142.24 px),
  // the GPU outside every unit (0.2888 ms, 57.76 px), the host gap (600 px). cuda_graph,
  // ranked first, has no GPU time: not drawn, named under the bar.
  EXPECT_TRUE(Contains(out, "<svg width=\"800\" height=\"92\""));
  EXPECT_TRUE(Contains(out,
                       "<rect x=\"0.00\" y=\"0.00\" width=\"142.24\" height=\"28.00\" "
                       "fill=\"#4e79a7\"/>"));
  EXPECT_TRUE(Contains(out,
                       "<rect x=\"142.24\" y=\"0.00\" width=\"57.76\" height=\"28.00\" "
                       "fill=\"#bab0ac\"/>"));
  EXPECT_TRUE(Contains(out,
                       "<rect x=\"200.00\" y=\"0.00\" width=\"600.00\" height=\"28.00\" "
                       "fill=\"#f28e2b\"/>"));
  EXPECT_TRUE(Contains(out,
                       "<title>#gemv (GEMV): 0.7112 ms/token of GPU time, 71.12% of GPU busy, "
                       "17.78% of the decode wall</title>"));
  EXPECT_TRUE(Contains(out, ">#gemv 0.7112 ms (17.78%)</text>"));
  EXPECT_TRUE(Contains(out, ">host gap 3.0 ms (75.00%)</text>"));
  EXPECT_TRUE(Contains(out, "launch-bound"));
  EXPECT_TRUE(Contains(out, "without GPU time here: <code>#cuda_graph</code>."));
  // The run line: plain 4.5, profiled 32 / 8 = 4.0, GPU 1.0, gap 3.0, dispatches 1280.1.
  EXPECT_TRUE(Contains(out,
                       "<td class=\"l\"><code>run&lt;1&gt;</code> <span class=\"flag\" "
                       "title=\"few tokens\">⚠</span></td><td>4.5</td><td>4.0</td>"
                       "<td>1.0</td><td>3.0</td><td>1280.1</td>"));
}

TEST(HtmlReportTest, UnitsThatOverlapGetOnlyWhatTheUnitsBeforeThemLeft) {
  const auto out = RenderHtmlReport({Summary(R"({"name": "o", "gpu_ms_per_token": 2.0,
    "host_gap_ms_per_token": 2.0,
    "port_units": {"a": {"fallback_share_pct": 70.0, "ceiling_wall": 2.0},
                   "b": {"fallback_share_pct": 50.0, "ceiling_wall": 1.5}}})")});
  // a: 1.4 ms (280 px); b: the 30 % left, 0.6 ms (120 px); no GPU time outside the units.
  EXPECT_TRUE(Contains(out, "width=\"280.00\" height=\"28.00\" fill=\"#4e79a7\""));
  EXPECT_TRUE(Contains(out, "width=\"120.00\" height=\"28.00\" fill=\"#59a14f\""));
  EXPECT_TRUE(Contains(out,
                       "its fallback share is 50.00%, the rest is drawn with the units "
                       "before it"));
  EXPECT_FALSE(Contains(out, "fill=\"#bab0ac\""));
  EXPECT_TRUE(Contains(out, "width=\"400.00\" height=\"28.00\" fill=\"#f28e2b\""));
}

TEST(HtmlReportTest, TimelineFromTheDispatchTable) {
  SummaryFile run = LaunchBound();
  run.content["decode_dispatches"] = 3;
  TimelineBuilder builder;
  ASSERT_TRUE(builder.Add(1'000'000, 1'500'000).ok());
  ASSERT_TRUE(builder.Add(1'400'000, 2'000'000).ok());
  ASSERT_TRUE(builder.Add(4'000'000, 5'000'000).ok());
  const DispatchTimeline timeline = builder.Finish("run_decode_dispatches.csv");
  const auto out = RenderHtmlReport({run}, {timeline});
  EXPECT_TRUE(Contains(out, "<h3>GPU busy over the decode window</h3>\n<svg "));
  EXPECT_TRUE(Contains(out,
                       "<p>3 dispatches of <code>run_decode_dispatches.csv</code> over 4.000 ms, "
                       "from the first one's start to the last end (decode wall 32.0 ms), in 100 "
                       "bins of 0.040 ms; GPU busy (the union of the dispatches) 50.00% of that "
                       "span.</p>"));
  EXPECT_TRUE(Contains(out, "<title>0.000\u20130.040 ms: GPU busy 100.0%, idle 0.0%</title>"));
  EXPECT_TRUE(Contains(out, "<title>1.000\u20131.040 ms: GPU busy 0.0%, idle 100.0%</title>"));

  run.content["decode_dispatches"] = 4;  // another run's table
  const auto stale = RenderHtmlReport({run}, {timeline});
  EXPECT_TRUE(Contains(stale,
                       "No timeline: <code>run_decode_dispatches.csv</code> holds 3 dispatches, "
                       "the summary 4: it is not this run's table."));
  EXPECT_FALSE(Contains(stale, "GPU busy 100.0%"));

  const auto none = RenderHtmlReport({run});
  EXPECT_TRUE(Contains(none,
                       "No timeline: no <code>run_decode_dispatches.csv</code> next to the "
                       "summary"));
}

TEST(HtmlReportTest, TopKernelChartWithReadableLabels) {
  const auto out = RenderHtmlReport({Summary(R"json({"name": "k", "top_kernels": [
    {"kernel": "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, std::array<char*, 3ul> >(int, at::native::AddFunctor<float>, std::array<char*, 3ul>)",
     "class": "elementwise", "share_pct": 12.5, "calls_per_token": 2.0},
    {"kernel": "nvjet_sm90_tst_64x8_64x16_2x1_v_bz_TNT", "share_pct": 8.0},
    {"kernel": "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", "share_pct": 4.0},
    {"kernel": "nvjet_sm90_tst_128x8_64x12_2x1_v_bz_TNT", "share_pct": 1.0}]})json")});
  EXPECT_TRUE(Contains(out, ">elementwise: AddFunctor f32</text>"));
  // Two nvjet kernels share the label `gemm nvjet_sm90_tst_64x8…`: their names instead.
  EXPECT_TRUE(Contains(out, ">nvjet_sm90_tst_64x8_64x16_2x1_v_bz_TNT</text>"));
  EXPECT_TRUE(Contains(out, ">nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT</text>"));
  EXPECT_TRUE(Contains(out, ">gemm nvjet_sm90_tst_128x8\u2026</text>"));
  // The full name and the figures on hover; the scale holds the largest share (12.5 → 20 %).
  EXPECT_TRUE(Contains(out, "<title>void at::native::vectorized_elementwise_kernel&lt;4, "));
  EXPECT_TRUE(Contains(out,
                       "share 12.5% of decode GPU time, 2.0 calls/token, class "
                       "elementwise</title>"));
  EXPECT_TRUE(Contains(out, "share 8.0% of decode GPU time, n/a calls/token</title>"));
  EXPECT_TRUE(Contains(out, ">20%</text>"));
}

TEST(HtmlReportTest, UnitsAreRankedByPlainWallCeilingWithShareBars) {
  const auto out = AfterDoFirst(RenderHtmlReport({LaunchBound()}));
  EXPECT_TRUE(Contains(out, "Work units by plain wall ceiling"));
  const size_t table = out.find("Work units by");
  const size_t graph = out.find("#cuda_graph", table);
  const size_t gemv = out.find("#gemv", table);
  ASSERT_NE(graph, std::string::npos);
  ASSERT_NE(gemv, std::string::npos);
  EXPECT_LT(graph, gemv);  // 9.09 before 1.21, although gemv comes first in port_units
  EXPECT_TRUE(Contains(out, "<span style=\"width:71.12%\"></span></span> 71.12%"));
  EXPECT_TRUE(Contains(out, "<td>9.09 (1.00)</td>"));
  EXPECT_TRUE(Contains(out, "<td>1.21 (3.46)</td>"));
  EXPECT_TRUE(Contains(out, "<code title=\"nvjet_sm90_tst_64x8\">nvjet_sm90_tst_64x8</code>"));
}

TEST(HtmlReportTest, UnitsFollowTheStoredRankOrder) {
  SummaryFile run = LaunchBound();
  run.content["ranked_units"] = nlohmann::ordered_json::parse(
      R"([{"id": "gemv", "by": "plain_ceiling_wall_est", "value": 1.21},
          {"id": "cuda_graph", "by": "plain_ceiling_wall_est", "value": 9.09}])");
  const auto out = AfterDoFirst(RenderHtmlReport({run}));
  const size_t table = out.find("Work units by");
  EXPECT_LT(out.find("#gemv", table), out.find("#cuda_graph", table));  // as stored
  // The wall bar follows the same order: gemv's segment is drawn first.
  EXPECT_LT(out.find("<title>#gemv"), out.find("GPU busy outside the units"));
}

TEST(HtmlReportTest, IsDeterministic) {
  const std::vector<SummaryFile> runs = {LaunchBound(), LaunchBound()};
  EXPECT_EQ(RenderHtmlReport(runs), RenderHtmlReport(runs));
}

TEST(HtmlReportTest, RunWithoutUnitsOrPlainRun) {
  const auto out = RenderHtmlReport({Summary(R"({"name": "old", "profiled_decode_tok_s": 8.0,
                                                 "plain_decode_tok_s": 0})")});
  // plain n/a, profiled 1000 / 8, the rest absent.
  EXPECT_TRUE(Contains(out,
                       "<td class=\"l\"><code>old</code> <span class=\"flag\" title=\"no "
                       "generated-token count\">⚠</span></td><td>n/a</td><td>125.0</td>"
                       "<td>n/a</td><td>n/a</td><td>n/a</td>"));
  EXPECT_TRUE(Contains(out, "No decode wall bar"));
  EXPECT_FALSE(Contains(out, "aria-label=\"decode wall per token\""));
  EXPECT_TRUE(Contains(out, "No timeline: no <code>x_decode_dispatches.csv</code>"));
  EXPECT_FALSE(Contains(out, "Work units"));
  EXPECT_FALSE(Contains(out, "Top kernels"));
}

TEST(HtmlReportTest, ProfiledCeilingBasisWithoutPlainEstimate) {
  const auto out = AfterDoFirst(RenderHtmlReport({Summary(R"({"name": "p",
    "port_units": {"a": {"ceiling_wall": 1.5}, "b": {"ceiling_wall": 2.5}, "c": {}}})")}));
  EXPECT_TRUE(Contains(out, "Work units by wall ceiling"));
  const size_t a = out.find("#a<");
  const size_t b = out.find("#b<");
  const size_t c = out.find("#c<");
  ASSERT_NE(c, std::string::npos);
  EXPECT_LT(b, a);
  EXPECT_LT(a, c);  // no ceiling: last
  EXPECT_TRUE(Contains(out, "<td>2.50 (n/a)</td>"));
}

// "Do first" opens the page, before the run table, with the same content as the Markdown
// report's; the host-gap unit shows the wall it owns, not an empty share bar.
TEST(HtmlReportTest, DoFirstOpensThePage) {
  SummaryFile run = LaunchBound();
  run.content["port_units"]["cuda_graph"]["fallback_host_gap_ms_per_token"] = 3.0;
  run.content["port_units"]["cuda_graph"]["host_gap"] = "all";
  run.content["decode_gpu_sum_ms"] = 8.0;
  const auto out = RenderHtmlReport({run});
  const size_t do_first = out.find("<section id=\"do-first\">\n<h2>Do first</h2>");
  ASSERT_NE(do_first, std::string::npos);
  EXPECT_LT(do_first, out.find("<table>"));
  EXPECT_LT(out.find("<h1>decodeprof report</h1>"), do_first);
  EXPECT_TRUE(Contains(out,
                       "<li><strong>#cuda_graph</strong>: graphs — <strong>9.09×</strong> "
                       "plain wall"));
  EXPECT_TRUE(Contains(out, "owns 75.0 % of the decode wall as host gap"));
  EXPECT_TRUE(Contains(out,
                       "<div class=\"gpu\" style=\"width:0.00%\"></div><div class=\"gap\" "
                       "style=\"width:75.00%\"></div>"));
  EXPECT_TRUE(Contains(out,
                       "<strong>few tokens</strong>: <code>run&lt;1&gt;</code> ⚠ 8 "
                       "generated tokens"));
  EXPECT_FALSE(Contains(RenderHtmlReport({LaunchBound()}, 0), "Do first"));
}

}  // namespace
}  // namespace decodeprof::report
