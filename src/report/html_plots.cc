#include "src/report/html_plots.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/html_report.h"

namespace decodeprof::report {
namespace {

constexpr int64_t kHundredths = 100;
constexpr std::string_view kFont = "sans-serif";
constexpr std::string_view kMonoFont = "monospace";

double Clean(double value) { return std::isfinite(value) && value > 0.0 ? value : 0.0; }

// A px position or size given in whole px.
std::string Px(int64_t px) { return std::to_string(px); }

size_t CodePoints(std::string_view text) {
  size_t chars = 0;
  for (const char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return chars;
}

// The <svg> start tag. `crisp`: edges snap to device pixels, so that columns of fractional
// widths side by side show no seams.
std::string SvgOpen(int64_t height, std::string_view aria_label, bool crisp = false) {
  return "<svg width=\"" + Px(kPlotWidthPx) + "\" height=\"" + Px(height) + "\" viewBox=\"0 0 " +
         Px(kPlotWidthPx) + " " + Px(height) + "\" role=\"img\" aria-label=\"" +
         HtmlEscape(aria_label) + "\"" + (crisp ? " shape-rendering=\"crispEdges\"" : "") + ">\n";
}

// <rect> with positions in hundredths of a px.
std::string Rect(int64_t x, int64_t y, int64_t width, int64_t height, std::string_view color) {
  return "<rect x=\"" + FormatHundredths(x) + "\" y=\"" + FormatHundredths(y) + "\" width=\"" +
         FormatHundredths(width) + "\" height=\"" + FormatHundredths(height) + "\" fill=\"" +
         HtmlEscape(color) + "\"/>";
}

// <text> at (x, y) in hundredths of a px.
std::string Text(int64_t x, int64_t y, std::string_view text, std::string_view anchor = "start",
                 std::string_view font = kFont, int font_px = 12) {
  return "<text x=\"" + FormatHundredths(x) + "\" y=\"" + FormatHundredths(y) +
         "\" font-family=\"" + std::string(font) + "\" font-size=\"" + std::to_string(font_px) +
         "\" text-anchor=\"" + std::string(anchor) + "\" fill=\"#222\">" + HtmlEscape(text) +
         "</text>";
}

std::string Title(std::string_view text) { return "<title>" + HtmlEscape(text) + "</title>"; }

std::string Ms(int64_t ns, int decimals) {
  return base::FormatFixed(static_cast<double>(ns) / 1e6, decimals);
}

// Legend lines: a key of `color` and `label`, from y (px) on, 18 px apart.
std::string LegendLine(int64_t y_px, std::string_view color, std::string_view label) {
  return Rect(0, y_px * kHundredths, 12 * kHundredths, 12 * kHundredths, color) +
         Text(18 * kHundredths, (y_px + 10) * kHundredths, label) + "\n";
}

}  // namespace

std::vector<int64_t> SplitProportionally(const std::vector<double>& values, int64_t total) {
  std::vector<int64_t> parts(values.size(), 0);
  double sum = 0.0;
  for (const double v : values) sum += Clean(v);
  if (!(sum > 0.0) || !std::isfinite(sum) || total <= 0) return parts;
  std::vector<double> remainders(values.size(), 0.0);
  int64_t given = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const double exact = Clean(values[i]) / sum * static_cast<double>(total);
    parts[i] = std::min(total, static_cast<int64_t>(std::floor(exact)));
    remainders[i] = exact - static_cast<double>(parts[i]);
    given += parts[i];
  }
  // Rounding may give a little more than total: take it back from the largest parts.
  while (given > total) {
    const auto largest = std::max_element(parts.begin(), parts.end());
    --*largest;
    --given;
  }
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return remainders[a] > remainders[b]; });
  for (size_t k = 0; given < total && !order.empty(); k = (k + 1) % order.size()) {
    if (Clean(values[order[k]]) > 0.0) {
      ++parts[order[k]];
      ++given;
    }
  }
  return parts;
}

int TimelineMsDecimals(int64_t span_ns) {
  return span_ns >= 100'000'000 ? 1 : span_ns >= 1'000'000 ? 3 : 6;
}

std::string FormatHundredths(int64_t hundredths) {
  const bool negative = hundredths < 0;
  const uint64_t magnitude =
      negative ? 0 - static_cast<uint64_t>(hundredths) : static_cast<uint64_t>(hundredths);
  const uint64_t cents = magnitude % 100;
  return std::string(negative ? "-" : "") + std::to_string(magnitude / 100) + "." +
         (cents < 10 ? "0" : "") + std::to_string(cents);
}

std::string StackedBarSvg(const std::vector<BarSegment>& segments, std::string_view aria_label) {
  constexpr int64_t kBarHeight = 28;
  constexpr int64_t kLegendTop = 38;
  std::vector<double> values;
  values.reserve(segments.size());
  for (const BarSegment& s : segments) values.push_back(s.value);
  const std::vector<int64_t> widths = SplitProportionally(values, kPlotWidthPx * kHundredths);
  const int64_t drawn =
      std::count_if(widths.begin(), widths.end(), [](int64_t w) { return w > 0; });

  std::string out = SvgOpen(kLegendTop + drawn * 18, aria_label, /*crisp=*/true);
  int64_t x = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    if (widths[i] <= 0) continue;
    out += "<g>" + Title(segments[i].title) +
           Rect(x, 0, widths[i], kBarHeight * kHundredths, segments[i].color) + "</g>\n";
    x += widths[i];
  }
  int64_t line = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    if (widths[i] <= 0) continue;
    out += LegendLine(kLegendTop + line * 18, segments[i].color, segments[i].label);
    ++line;
  }
  out += "</svg>";
  return out;
}

namespace {

constexpr int64_t kBarRow = 20;  // px a bar's row takes

// The layout of a horizontal bar chart: labels right-aligned in a column as wide as the
// longest (at most `max_chars`), bars from 0 to `scale_max` across what is left beside a value
// column of `value_column` (hundredths of a px).
struct BarLayout {
  int64_t label_w = 0;
  int64_t bar_area = 0;
  double scale_max = 0;
  bool scaled = false;

  // The width of a bar of `value` (clamped to the bar area; 0 without a scale).
  int64_t Width(double value) const {
    const double fraction = scaled ? std::clamp(Clean(value) / scale_max, 0.0, 1.0) : 0.0;
    return std::clamp(static_cast<int64_t>(std::llround(fraction * static_cast<double>(bar_area))),
                      int64_t{0}, bar_area);
  }
  // Row `i`'s label.
  std::string Label(int64_t i, std::string_view label) const {
    return Text(label_w - 6 * kHundredths, i * kBarRow * kHundredths + 14 * kHundredths, label,
                "end", kMonoFont, 11);
  }
  // Row `i`'s value text, after a bar of `width`.
  std::string Value(int64_t i, int64_t width, std::string_view text) const {
    return Text(label_w + width + 4 * kHundredths, i * kBarRow * kHundredths + 14 * kHundredths,
                text, "start", kFont, 11);
  }
  // The axis under `rows` rows: a line from 0 to the scale's end, and their texts.
  std::string Axis(int64_t rows, std::string_view scale_text) const {
    const int64_t axis = rows * kBarRow * kHundredths + 2 * kHundredths;
    return Rect(label_w, axis, bar_area, 1 * kHundredths, "#888") + "\n" +
           Text(label_w, axis + 14 * kHundredths, "0", "start", kFont, 11) +
           Text(label_w + bar_area, axis + 14 * kHundredths, scale_text, "end", kFont, 11) + "\n";
  }
};

template <typename Bar>
BarLayout LayoutBars(const std::vector<Bar>& bars, size_t max_chars, int64_t value_column,
                     double scale_max) {
  size_t chars = 1;
  for (const Bar& bar : bars) chars = std::max(chars, CodePoints(bar.label));
  chars = std::min(chars, max_chars);
  BarLayout l;
  l.label_w = static_cast<int64_t>(chars) * 660 + 8 * kHundredths;
  l.bar_area = kPlotWidthPx * kHundredths - l.label_w - value_column;
  l.scale_max = scale_max;
  l.scaled = std::isfinite(scale_max) && scale_max > 0.0;
  return l;
}

}  // namespace

std::string BarChartSvg(const std::vector<ChartBar>& bars, double scale_max,
                        std::string_view scale_text, std::string_view aria_label) {
  const BarLayout l = LayoutBars(bars, 60, 70 * kHundredths, scale_max);
  const int64_t rows = static_cast<int64_t>(bars.size());
  std::string out = SvgOpen(rows * kBarRow + 22, aria_label);
  for (int64_t i = 0; i < rows; ++i) {
    const ChartBar& bar = bars[static_cast<size_t>(i)];
    const int64_t width = l.Width(bar.value);
    const int64_t top = i * kBarRow * kHundredths;
    out += "<g>" + Title(bar.title) + l.Label(i, bar.label) +
           Rect(l.label_w, top + 3 * kHundredths, width, 14 * kHundredths, kGpuBusyColor) +
           l.Value(i, width, bar.value_text) + "</g>\n";
  }
  out += l.Axis(rows, scale_text);
  out += "</svg>";
  return out;
}

std::string FloorBarsSvg(const std::vector<FloorBar>& bars, double scale_max,
                         std::string_view scale_text, std::string_view aria_label) {
  const BarLayout l = LayoutBars(bars, 40, 160 * kHundredths, scale_max);
  const int64_t rows = static_cast<int64_t>(bars.size());
  std::string out = SvgOpen(rows * kBarRow + 22 + int64_t{2} * 18, aria_label);
  for (int64_t i = 0; i < rows; ++i) {
    const FloorBar& bar = bars[static_cast<size_t>(i)];
    const int64_t actual = l.Width(bar.actual);
    const int64_t top = i * kBarRow * kHundredths;
    out +=
        "<g>" + Title(bar.title) + l.Label(i, bar.label) +
        Rect(l.label_w, top + 3 * kHundredths, actual, 14 * kHundredths, kGpuBusyColor) +
        Rect(l.label_w, top + 7 * kHundredths, l.Width(bar.floor), 6 * kHundredths, kFloorColor) +
        l.Value(i, actual, bar.value_text) + "</g>\n";
  }
  out += l.Axis(rows, scale_text);
  const int64_t legend = rows * kBarRow + 24;
  out += LegendLine(legend, kGpuBusyColor, "actual ms/token");
  out += LegendLine(legend + 18, kFloorColor, "floor ms/token (its bytes at the peak bandwidth)");
  out += "</svg>";
  return out;
}

std::string BusyTimelineSvg(const DispatchTimeline& timeline, std::string_view aria_label) {
  constexpr int64_t kLeft = 44;
  constexpr int64_t kTop = 6;
  constexpr int64_t kHeight = 100;
  constexpr int64_t kWidth = kPlotWidthPx - kLeft - 4;
  const int decimals = TimelineMsDecimals(timeline.span_ns);

  std::string out = SvgOpen(kTop + kHeight + 46, aria_label, /*crisp=*/true);
  out += Rect(kLeft * kHundredths, kTop * kHundredths, kWidth * kHundredths, kHeight * kHundredths,
              "#f4f4f4") +
         "\n";
  std::vector<double> lengths;
  lengths.reserve(timeline.bins.size());
  for (const TimelineBin& bin : timeline.bins) {
    lengths.push_back(static_cast<double>(bin.end_ns - bin.start_ns));
  }
  const std::vector<int64_t> widths = SplitProportionally(lengths, kWidth * kHundredths);
  int64_t x = kLeft * kHundredths;
  for (size_t i = 0; i < timeline.bins.size(); ++i) {
    const TimelineBin& bin = timeline.bins[i];
    const int64_t length = bin.end_ns - bin.start_ns;
    const double fraction =
        length > 0
            ? std::clamp(static_cast<double>(bin.busy_ns) / static_cast<double>(length), 0.0, 1.0)
            : 0.0;
    const int64_t busy_h = std::llround(fraction * static_cast<double>(kHeight * kHundredths));
    const int64_t idle_h = kHeight * kHundredths - busy_h;
    out += "<g>" +
           Title(Ms(bin.start_ns, decimals) + "\u2013" + Ms(bin.end_ns, decimals) +
                 " ms: GPU busy " + base::FormatFixed(fraction * 100.0, 1) + "%, idle " +
                 base::FormatFixed(100.0 - fraction * 100.0, 1) + "%") +
           Rect(x, kTop * kHundredths, widths[i], idle_h, kHostGapColor) +
           Rect(x, kTop * kHundredths + idle_h, widths[i], busy_h, kGpuBusyColor) + "</g>\n";
    x += widths[i];
  }
  const int64_t bottom = (kTop + kHeight) * kHundredths;
  out += Text((kLeft - 4) * kHundredths, (kTop + 9) * kHundredths, "100%", "end", kFont, 11) +
         Text((kLeft - 4) * kHundredths, bottom, "0%", "end", kFont, 11) + "\n";
  const int64_t label_y = bottom + 14 * kHundredths;
  out += Text(kLeft * kHundredths, label_y, "0 ms", "start", kFont, 11) +
         Text((kLeft + kWidth / 2) * kHundredths, label_y,
              Ms(timeline.span_ns / 2, decimals) + " ms", "middle", kFont, 11) +
         Text((kLeft + kWidth) * kHundredths, label_y, Ms(timeline.span_ns, decimals) + " ms",
              "end", kFont, 11) +
         "\n";
  const int64_t legend_y = kTop + kHeight + 26;
  out += Rect(kLeft * kHundredths, legend_y * kHundredths, 12 * kHundredths, 12 * kHundredths,
              kGpuBusyColor) +
         Text((kLeft + 18) * kHundredths, (legend_y + 10) * kHundredths,
              "GPU busy (union of the dispatches)") +
         Rect((kLeft + 260) * kHundredths, legend_y * kHundredths, 12 * kHundredths,
              12 * kHundredths, kHostGapColor) +
         Text((kLeft + 278) * kHundredths, (legend_y + 10) * kHundredths, "GPU idle (host gap)") +
         "\n";
  out += "</svg>";
  return out;
}

}  // namespace decodeprof::report
