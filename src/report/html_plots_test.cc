#include "src/report/html_plots.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <regex>
#include <string>
#include <vector>

namespace decodeprof::report {
namespace {

// Checks that `svg` is well-formed XML as far as these builders write it: every tag closed in
// order (or self-closed), attribute values in double quotes, `&` only in entities, `<` only
// starting a tag. Returns the problem, empty when none.
std::string XmlProblem(const std::string& svg) {
  std::vector<std::string> open;
  for (size_t pos = 0; pos < svg.size();) {
    if (svg[pos] == '&') {
      static const std::regex kEntity("^&(amp|lt|gt|quot|#[0-9]+);");
      if (!std::regex_search(svg.substr(pos, 12), kEntity))
        return "bare & at " + std::to_string(pos);
      ++pos;
      continue;
    }
    if (svg[pos] == '>') return "bare > at " + std::to_string(pos);
    if (svg[pos] != '<') {
      ++pos;
      continue;
    }
    const size_t close = svg.find('>', pos);
    if (close == std::string::npos) return "unclosed tag at " + std::to_string(pos);
    const std::string tag = svg.substr(pos + 1, close - pos - 1);
    pos = close + 1;
    if (tag.find('<') != std::string::npos) return "< inside tag " + tag;
    if (tag.starts_with('/')) {
      if (open.empty() || open.back() != tag.substr(1)) return "unbalanced </" + tag.substr(1);
      open.pop_back();
      continue;
    }
    static const std::regex kTag(R"(^([a-z]+)( [a-zA-Z-]+="[^"<>]*")*( ?/)?$)");
    std::smatch m;
    if (!std::regex_match(tag, m, kTag)) return "malformed tag <" + tag + ">";
    if (!m[3].matched) open.push_back(m[1]);
  }
  return open.empty() ? std::string() : "unclosed <" + open.back() + ">";
}

bool HasNanOrInf(const std::string& svg) {
  std::string lower;
  for (const char c : svg) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("nan") != std::string::npos || lower.find("inf") != std::string::npos;
}

// The values of attribute `name` of every <rect> whose fill is `color` (empty: every rect).
std::vector<double> RectAttr(const std::string& svg, const std::string& name,
                             const std::string& color = "") {
  std::vector<double> values;
  static const std::regex kRect(R"(<rect [^>]*/>)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kRect); it != std::sregex_iterator();
       ++it) {
    const std::string rect = it->str();
    if (!color.empty() && rect.find("fill=\"" + color + "\"") == std::string::npos) continue;
    const std::regex attr(" " + name + "=\"([-0-9.]+)\"");
    std::smatch m;
    if (std::regex_search(rect, m, attr)) values.push_back(std::stod(m[1]));
  }
  return values;
}

size_t Count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t pos = text.find(part); pos != std::string::npos; pos = text.find(part, pos + 1)) ++n;
  return n;
}

TEST(SplitProportionallyTest, PartsSumToTheTotal) {
  EXPECT_EQ(SplitProportionally({1, 1, 1}, 100), (std::vector<int64_t>{34, 33, 33}));
  EXPECT_EQ(SplitProportionally({1, 3}, 80000), (std::vector<int64_t>{20000, 60000}));
  EXPECT_EQ(SplitProportionally({2, 1, 2}, 7), (std::vector<int64_t>{3, 1, 3}));
  const std::vector<double> odd = {0.1, 0.2, 0.3, 1e-9, 7.7, 1e6};
  const auto parts = SplitProportionally(odd, 80000);
  EXPECT_EQ(std::accumulate(parts.begin(), parts.end(), int64_t{0}), 80000);
}

TEST(SplitProportionallyTest, NegativeAndNonFiniteValuesCountAsZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(SplitProportionally({nan, 1.0, -inf, -3.0, inf}, 10),
            (std::vector<int64_t>{0, 10, 0, 0, 0}));
  EXPECT_EQ(SplitProportionally({0.0, nan}, 10), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(SplitProportionally({}, 10), (std::vector<int64_t>{}));
  EXPECT_EQ(SplitProportionally({1.0}, 0), (std::vector<int64_t>{0}));
}

TEST(FormatHundredthsTest, TwoDecimals) {
  EXPECT_EQ(FormatHundredths(0), "0.00");
  EXPECT_EQ(FormatHundredths(5), "0.05");
  EXPECT_EQ(FormatHundredths(1234), "12.34");
  EXPECT_EQ(FormatHundredths(80000), "800.00");
  EXPECT_EQ(FormatHundredths(-5), "-0.05");
}

std::vector<BarSegment> WallSegments() {
  return {{"#gemv 4.4478 ms (7.87%)", 4.4478, "#4e79a7", "#gemv: GPU time"},
          {"#empty 0 ms", 0.0, "#59a14f", "never drawn"},
          {"other <GPU> & more", 1.9, "#bab0ac", "a \"quoted\" 'title'"},
          {"host gap 50.1337 ms (88.73%)", 50.1337, "#f28e2b", "host gap"}};
}

TEST(StackedBarSvgTest, WellFormedWidthsSumToTheBar) {
  const std::string svg = StackedBarSvg(WallSegments(), "decode wall");
  EXPECT_EQ(XmlProblem(svg), "") << svg;
  EXPECT_FALSE(HasNanOrInf(svg));
  EXPECT_TRUE(
      svg.starts_with("<svg width=\"800\" height=\"92\" viewBox=\"0 0 800 92\" role=\"img\" "
                      "aria-label=\"decode wall\" shape-rendering=\"crispEdges\">\n"));
  EXPECT_TRUE(svg.ends_with("</svg>"));
  // The bar's rects are 28 px high; the legend keys 12 px.
  std::vector<double> widths;
  const std::vector<double> heights = RectAttr(svg, "height");
  const std::vector<double> all_widths = RectAttr(svg, "width");
  for (size_t i = 0; i < heights.size(); ++i) {
    if (heights[i] == 28.0) widths.push_back(all_widths[i]);
  }
  ASSERT_EQ(widths.size(), 3u);  // the segment of value 0 is left out
  EXPECT_DOUBLE_EQ(std::accumulate(widths.begin(), widths.end(), 0.0), 800.0);
  EXPECT_EQ(Count(svg, "<title>"), 3u);
  EXPECT_EQ(svg.find("never drawn"), std::string::npos);
  // Left to right in order: x of each segment is the sum of the widths before it.
  const std::vector<double> xs = RectAttr(svg, "x");
  EXPECT_DOUBLE_EQ(xs[0], 0.0);
  EXPECT_DOUBLE_EQ(xs[1], widths[0]);
  EXPECT_DOUBLE_EQ(xs[2], widths[0] + widths[1]);
  // Texts escaped.
  EXPECT_NE(svg.find("other &lt;GPU&gt; &amp; more"), std::string::npos);
  EXPECT_NE(svg.find("a &quot;quoted&quot; &#39;title&#39;"), std::string::npos);
}

TEST(StackedBarSvgTest, DeterministicAndNeverNan) {
  EXPECT_EQ(StackedBarSvg(WallSegments(), "w"), StackedBarSvg(WallSegments(), "w"));
  std::vector<BarSegment> bad = WallSegments();
  bad[0].value = std::numeric_limits<double>::quiet_NaN();
  bad[2].value = -std::numeric_limits<double>::infinity();
  bad[3].value = std::numeric_limits<double>::infinity();
  const std::string svg = StackedBarSvg(bad, "w");
  EXPECT_EQ(XmlProblem(svg), "");
  EXPECT_FALSE(HasNanOrInf(svg));
  EXPECT_EQ(Count(svg, "<rect"), 0u);
  EXPECT_EQ(XmlProblem(StackedBarSvg({}, "empty")), "");
}

TEST(BarChartSvgTest, BarsScaleToTheirValues) {
  const std::vector<ChartBar> bars = {
      {"gemm nvjet_sm90_tst_64x8\u2026", 31.02, "31.02%", "nvjet_sm90_tst_64x8_64x16_2x1_v_bz_TNT"},
      {"elementwise: add bf16", 15.51, "15.51%", "void at::native::k<a<b>>(int)"},
      {"x", 0.0, "0.0%", "zero"},
      {"too much", 1e9, "1e9%", "clamped"}};
  const std::string svg = BarChartSvg(bars, 50.0, "50%", "top kernels");
  EXPECT_EQ(XmlProblem(svg), "") << svg;
  EXPECT_FALSE(HasNanOrInf(svg));
  const std::vector<double> widths = RectAttr(svg, "width", "#4e79a7");
  ASSERT_EQ(widths.size(), 4u);
  // The label column: the longest label (25 characters) at 6.6 px + 8 px; 70 px for values.
  const double bar_area = 800.0 - (25 * 6.6 + 8.0) - 70.0;
  EXPECT_NEAR(widths[0], bar_area * 31.02 / 50.0, 0.01);
  EXPECT_NEAR(widths[1], bar_area * 15.51 / 50.0, 0.01);
  EXPECT_DOUBLE_EQ(widths[2], 0.0);
  EXPECT_NEAR(widths[3], bar_area, 0.001);
  EXPECT_NE(svg.find("void at::native::k&lt;a&lt;b&gt;&gt;(int)"), std::string::npos);
  EXPECT_EQ(Count(svg, "<title>"), 4u);
  EXPECT_EQ(svg, BarChartSvg(bars, 50.0, "50%", "top kernels"));
  for (const double scale : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
    const std::string flat = BarChartSvg(bars, scale, "?", "flat");
    EXPECT_FALSE(HasNanOrInf(flat));
    for (const double w : RectAttr(flat, "width", "#4e79a7")) EXPECT_EQ(w, 0.0);
  }
}

DispatchTimeline Timeline(std::vector<int64_t> busy_per_bin, int64_t bin_ns) {
  DispatchTimeline t;
  t.csv_name = "r_decode_dispatches.csv";
  t.span_ns = bin_ns * static_cast<int64_t>(busy_per_bin.size());
  for (size_t i = 0; i < busy_per_bin.size(); ++i) {
    const int64_t start = static_cast<int64_t>(i) * bin_ns;
    t.bins.push_back({start, start + bin_ns, busy_per_bin[i]});
    t.busy_ns += busy_per_bin[i];
  }
  return t;
}

TEST(BusyTimelineSvgTest, OneColumnPerBinBusyBelowIdle) {
  std::vector<int64_t> busy(100);
  for (size_t i = 0; i < busy.size(); ++i) busy[i] = static_cast<int64_t>(i) * 720'000 / 99;
  const std::string svg = BusyTimelineSvg(Timeline(busy, 720'000), "timeline");
  EXPECT_EQ(XmlProblem(svg), "") << svg;
  EXPECT_FALSE(HasNanOrInf(svg));
  EXPECT_EQ(Count(svg, "<g>"), 100u);
  const std::vector<double> busy_w = RectAttr(svg, "width", "#4e79a7");
  const std::vector<double> busy_h = RectAttr(svg, "height", "#4e79a7");
  const std::vector<double> idle_h = RectAttr(svg, "height", "#f28e2b");
  ASSERT_EQ(busy_w.size(), 101u);  // 100 columns and the legend key
  ASSERT_EQ(idle_h.size(), 101u);
  EXPECT_NEAR(std::accumulate(busy_w.begin(), busy_w.end() - 1, 0.0), 752.0, 1e-9);
  for (size_t i = 0; i < 100; ++i) EXPECT_NEAR(busy_h[i] + idle_h[i], 100.0, 1e-9) << i;
  EXPECT_DOUBLE_EQ(busy_h[0], 0.0);
  EXPECT_DOUBLE_EQ(busy_h[99], 100.0);
  // 72 ms in all: 3 decimals; the first column's hover text.
  EXPECT_NE(svg.find("<title>0.000\u20130.720 ms: GPU busy 0.0%, idle 100.0%</title>"),
            std::string::npos);
  EXPECT_NE(svg.find(">72.000 ms</text>"), std::string::npos);
  EXPECT_EQ(svg, BusyTimelineSvg(Timeline(busy, 720'000), "timeline"));
}

TEST(BusyTimelineSvgTest, UnevenAndEmpty) {
  DispatchTimeline t = Timeline({1, 2, 0}, 3);
  t.bins[2].end_ns = 10;  // bins of 3, 3 and 4 ns
  t.span_ns = 10;
  const std::string svg = BusyTimelineSvg(t, "t");
  EXPECT_EQ(XmlProblem(svg), "");
  const std::vector<double> w = RectAttr(svg, "width", "#4e79a7");
  ASSERT_EQ(w.size(), 4u);
  EXPECT_NEAR(w[0] + w[1] + w[2], 752.0, 1e-9);
  EXPECT_NEAR(w[2], 752.0 * 0.4, 0.011);
  const std::string empty = BusyTimelineSvg(DispatchTimeline{}, "none");
  EXPECT_EQ(XmlProblem(empty), "");
  EXPECT_FALSE(HasNanOrInf(empty));
  EXPECT_EQ(Count(empty, "<g>"), 0u);
}

}  // namespace
}  // namespace decodeprof::report
