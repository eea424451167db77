// The HTML report's plots (html_report.h): inline SVG, built as text. Each builder returns
// one `<svg ...>...</svg>` element (no XML declaration, no namespace attribute: HTML5 parses
// inline SVG without one) that needs nothing else: colours, fonts (generic families only) and
// sizes are attributes, hover texts are SVG <title> elements, no script, nothing loaded.
//
// The output is deterministic: numbers are printed with 2 decimals from integer hundredths of a
// pixel, so the same input gives the same bytes, widths of a stacked bar sum exactly to the
// bar's width, and no NaN or infinity is ever printed (a value that is not finite, or negative,
// counts as 0). Every text is HTML-escaped (HtmlEscape), which is also valid XML.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/report/dispatch_timeline.h"

namespace decodeprof::report {

// Width of every plot, in px.
inline constexpr int64_t kPlotWidthPx = 800;

// Colours: host gap, GPU busy, GPU time outside every unit, and the units' palette (used in
// rank order, from the first again after the last).
inline constexpr std::string_view kHostGapColor = "#f28e2b";
inline constexpr std::string_view kGpuBusyColor = "#4e79a7";
inline constexpr std::string_view kOtherGpuColor = "#bab0ac";
inline constexpr std::string_view kUnitColors[] = {"#4e79a7", "#59a14f", "#b07aa1", "#76b7b2",
                                                   "#edc948", "#e15759", "#9c755f", "#ff9da7"};

// `total` split in proportion to `values` (largest remainder: each part is the floor of its
// exact share, and the parts with the largest remainders, the earlier first on ties, get one
// more), so the parts sum to `total` exactly. Values that are negative or not finite count as
// 0; when all are 0, every part is 0.
std::vector<int64_t> SplitProportionally(const std::vector<double>& values, int64_t total);

// Hundredths as a decimal with 2 digits: 1234 → "12.34", -5 → "-0.05".
std::string FormatHundredths(int64_t hundredths);

// Decimals of the ms a timeline of `span_ns` prints: 1 from 100 ms on, 3 from 1 ms on, else 6.
int TimelineMsDecimals(int64_t span_ns);

// One part of a stacked bar.
struct BarSegment {
  std::string label;  // legend text, e.g. "gemv 4.45 ms (7.87%)"
  double value = 0;   // the part's size, in any unit shared by all segments
  std::string color;  // a CSS colour
  std::string title;  // hover text
};

// A horizontal bar kPlotWidthPx wide whose segments take widths in proportion to their values
// (SplitProportionally), left to right in the given order, each a <rect> inside a <g> with its
// <title>; segments of width 0 are left out. Below it a legend: one line per drawn segment, a
// colour key and its label. `aria_label` names the plot. No segment with a positive value: a
// bar without segments.
std::string StackedBarSvg(const std::vector<BarSegment>& segments, std::string_view aria_label);

// One bar of a bar chart.
struct ChartBar {
  std::string label;       // at the bar's left, e.g. a kernel's short name
  double value = 0;        // the bar's length in units of `scale_max`
  std::string value_text;  // printed after the bar, e.g. "31.02%"
  std::string title;       // hover text, e.g. the kernel's full name
};

// Horizontal bars, one row each in the given order: the label right-aligned in a column as
// wide as the longest label needs (monospace, 6.6 px a character), the bar (kGpuBusyColor)
// from that column, `value / scale_max` of the space left for bars (clamped to [0, 1]), then
// its value text. Each row is a <g> with its <title>. `scale_max` <= 0 or not finite: every
// bar has length 0. Below the bars, the scale: "0" and `scale_text` at its two ends.
std::string BarChartSvg(const std::vector<ChartBar>& bars, double scale_max,
                        std::string_view scale_text, std::string_view aria_label);

// Colour of a floor (speed of light: the time a unit would take at the peak bandwidth); a dark
// green outside kUnitColors, so that it is not read as a unit.
inline constexpr std::string_view kFloorColor = "#1b5e20";

// One row of FloorBarsSvg: a unit's actual time and its floor, in ms per token.
struct FloorBar {
  std::string label;       // at the bar's left, e.g. "#gemv"
  double actual = 0;       // ms/token
  double floor = 0;        // ms/token at the peak bandwidth
  std::string value_text;  // printed after the bar, e.g. "5.300 ms (floor 3.100)"
  std::string title;       // hover text
};

// Horizontal bars like BarChartSvg, one row each: the actual time (kGpuBusyColor) with the
// floor drawn over it from the same left edge (kFloorColor, thinner), both `value /
// scale_max` of the space for bars (clamped to [0, 1]), then the value text. Below, the scale
// ("0" and `scale_text`) and a legend of the two colours. `scale_max` <= 0 or not finite:
// every bar has length 0.
std::string FloorBarsSvg(const std::vector<FloorBar>& bars, double scale_max,
                         std::string_view scale_text, std::string_view aria_label);

// The decode window's timeline: one column per bin, as wide as its time (SplitProportionally
// over the bins' lengths), the GPU-busy fraction of the bin from the bottom (kGpuBusyColor)
// and the idle rest above it (kHostGapColor), each column a <g> with a <title> giving its time
// range and percentages. A y axis (0% to 100% GPU busy), the time at start, middle and end of
// the span in ms (TimelineMsDecimals), and a legend. `timeline.bins` empty: an empty plot area.
std::string BusyTimelineSvg(const DispatchTimeline& timeline, std::string_view aria_label);

}  // namespace decodeprof::report
