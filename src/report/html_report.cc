#include "src/report/html_report.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/do_first.h"
#include "src/report/html_plots.h"
#include "src/report/markdown_report.h"
#include "src/report/markdown_table.h"
#include "src/report/rank_table.h"
#include "src/report/run_set.h"
#include "src/report/short_name.h"
#include "src/report/speed_of_light_render.h"
#include "src/report/summary_view.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kHead = R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>decodeprof report</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 72em; }
h1 { font-size: 1.5em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid #eee; text-align: right; }
th { background: #f4f4f4; }
th.l, td.l { text-align: left; }
code { font-family: ui-monospace, monospace; font-size: 0.95em; }
.note { color: #555; }
.wall { display: flex; width: 40em; height: 1.4em; border: 1px solid #888; }
.gpu { background: #4e79a7; }
.gap { background: #f28e2b; }
.key { display: inline-block; width: 0.9em; height: 0.9em; vertical-align: middle; }
.meter { display: inline-block; width: 12em; height: 0.9em; background: #eee; vertical-align: middle; }
.meter span { display: block; height: 100%; background: #2b7bb9; }
.flag { color: #b35900; font-weight: bold; }
</style>
</head>
<body>
<h1>decodeprof report</h1>
)";

// A numeric field as stored, escaped (kNoValue when absent or null).
std::string NumberText(const Json& value) {
  return value.is_null() ? std::string(kNoValue) : HtmlEscape(PyStr(value));
}

// A text field, escaped: kNoValue when absent, null or empty.
std::string TextOf(const Json& value) {
  if (value.is_null()) return std::string(kNoValue);
  const std::string text = PyStr(value);
  return text.empty() ? std::string(kNoValue) : HtmlEscape(text);
}

// The run's name in <code>, escaped.
std::string CodeRunName(const SummaryFile& summary) {
  return "<code>" + HtmlEscape(LabelOf(summary)) + "</code>";
}

// `pct` clamped to [0, 100] as a CSS width with 2 decimals.
std::string Width(double pct) {
  if (!std::isfinite(pct)) pct = 0.0;
  return "width:" + base::FormatFixed(std::clamp(pct, 0.0, 100.0), 2) + "%";
}

std::string Cell(std::string_view text, bool left = false) {
  return std::string(left ? "<td class=\"l\">" : "<td>") + std::string(text) + "</td>";
}

void AppendRunTable(const std::vector<SummaryFile>& summaries, std::string& out) {
  out +=
      "<table>\n<tr><th class=\"l\">run</th><th>plain ms/token</th><th>profiled ms/token</th>"
      "<th>GPU busy ms/token</th><th>host gap ms/token</th><th>dispatches/token</th></tr>\n";
  for (const SummaryFile& summary : summaries) {
    std::string row = "<tr>" + Cell(CodeRunName(summary) + TrustMarkHtml(summary), true) +
                      Cell(PlainMsPerToken(summary)) + Cell(ProfiledMsPerToken(summary));
    const RunView s(summary);
    row += Cell(NumberText(s.gpu_ms_per_token().json())) +
           Cell(NumberText(s.host_gap_ms_per_token().json())) +
           Cell(NumberText(s.dispatches_per_token().json()));
    out += row + "</tr>\n";
  }
  out += "</table>\n";
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i ? std::string(separator) : "") + parts[i];
  return text;
}

// A computed figure, rounded to 4 decimals (full_report.h).
std::string Computed(double value) { return base::FormatFixed(value, 4); }

std::string HtmlPct(double value) { return base::FormatFixed(value, 2) + "%"; }

// The decode wall per token as one stacked bar (html_plots.h): the GPU time of each work unit
// in rank order, the GPU time outside every unit, then the host gap.
void AppendWallBar(const SummaryFile& summary, std::string& out) {
  const RunView s(summary);
  const std::optional<double> gpu = s.gpu_ms_per_token().get();
  const std::optional<double> gap = s.host_gap_ms_per_token().get();
  if (!gpu || !gap || *gpu < 0.0 || *gap < 0.0 || !std::isfinite(*gpu + *gap) ||
      *gpu + *gap <= 0.0) {
    out += "<p class=\"note\">No decode wall bar: GPU busy or host gap ms/token missing.</p>\n";
    return;
  }
  const double wall = *gpu + *gap;
  const double gpu_pct = *gpu / wall * 100.0;
  const double gap_pct = 100.0 - gpu_pct;
  const auto wall_pct = [&](double ms) { return ms / wall * 100.0; };

  std::vector<BarSegment> segments;
  std::vector<std::string> without_gpu;
  const Json& units = PortUnits(summary);
  double used_pct = 0.0;  // of GPU busy, by the units before
  for (const analysis::RankedUnit& r : RankedUnits(summary)) {
    const UnitView unit = s.Unit(r.id);
    const double share = std::clamp(unit.fallback_share_pct().get().value_or(0.0), 0.0, 100.0);
    // Shares that add up to 100 % within rounding fill the bar without a remark.
    double drawn = std::isfinite(share) ? std::min(share, 100.0 - used_pct) : 0.0;
    if (drawn > share - 1e-9) drawn = share;
    // A unit's colour follows its place in port_units (the units file's order), so that runs
    // of one units file colour a unit alike.
    size_t place = 0;
    for (auto it = units.begin(); it != units.end() && it.key() != r.id; ++it) ++place;
    const std::string_view unit_color = kUnitColors[place % std::size(kUnitColors)];
    if (drawn <= 0.0) {
      without_gpu.push_back("<code>#" + HtmlEscape(r.id) + "</code>");
      continue;
    }
    used_pct += drawn;
    const double ms = drawn / 100.0 * *gpu;
    std::string title = "#" + r.id;
    if (const std::optional<std::string> port = unit.port().get()) title += " (" + *port + ")";
    title += ": " + Computed(ms) + " ms/token of GPU time, " + HtmlPct(drawn) + " of GPU busy, " +
             HtmlPct(wall_pct(ms)) + " of the decode wall";
    if (drawn < share - 1e-9) {
      title += "; its fallback share is " + HtmlPct(share) +
               ", the rest is drawn with the units before it";
    }
    segments.push_back({"#" + r.id + " " + Computed(ms) + " ms (" + HtmlPct(wall_pct(ms)) + ")", ms,
                        std::string(unit_color), title});
  }
  if (100.0 - used_pct > 1e-9) {
    const double other_ms = (100.0 - used_pct) / 100.0 * *gpu;
    const std::string what = segments.empty() ? "GPU busy" : "GPU busy outside the units";
    segments.push_back(
        {what + " " + Computed(other_ms) + " ms (" + HtmlPct(wall_pct(other_ms)) + ")", other_ms,
         std::string(segments.empty() ? kGpuBusyColor : kOtherGpuColor),
         what + ": " + Computed(other_ms) + " ms/token, " + HtmlPct(wall_pct(other_ms)) +
             " of the decode wall"});
  }
  segments.push_back(
      {"host gap " + s.host_gap_ms_per_token().Str() + " ms (" + HtmlPct(gap_pct) + ")", *gap,
       std::string(kHostGapColor),
       "host gap (GPU idle inside the decode window): " + s.host_gap_ms_per_token().Str() +
           " ms/token, " + HtmlPct(gap_pct) + " of the decode wall"});

  out += "<h3>Decode wall per token</h3>\n";
  out += StackedBarSvg(segments, "decode wall per token") + "\n";
  out += "<p>GPU busy " + HtmlEscape(s.gpu_ms_per_token().Str()) + " ms (" +
         base::FormatFixed(gpu_pct, 2) + "%) + host gap " +
         HtmlEscape(s.host_gap_ms_per_token().Str()) + " ms (" + base::FormatFixed(gap_pct, 2) +
         "%) = " + Computed(wall) + " ms per token" +
         (gap_pct > 50.0 ? " &mdash; launch-bound: the host gap is most of the decode wall" : "") +
         ". Units in rank order, each with the GPU time of its fallback set" +
         (without_gpu.empty() ? std::string(".")
                              : "; without GPU time here: " + Join(without_gpu, ", ") + ".") +
         "</p>\n";
}

// The GPU-busy timeline of the decode window from the run's dispatch table, or one line
// saying why there is none.
void AppendTimeline(const SummaryFile& summary, const std::optional<DispatchTimeline>& timeline,
                    std::string& out) {
  out += "<h3>GPU busy over the decode window</h3>\n";
  if (!timeline) {
    const std::string path = DispatchCsvPathFor(summary.path);
    const std::string file = path.substr(path.find_last_of('/') + 1);
    out += "<p class=\"note\">No timeline: no <code>" + HtmlEscape(file) +
           "</code> next to the summary (<code>summarize --emit-dispatches</code> writes "
           "it).</p>\n";
    return;
  }
  const std::string file = "<code>" + HtmlEscape(timeline->csv_name) + "</code>";
  const RunView run(summary);
  const std::optional<double> expected = run.decode_dispatches().number();
  if (expected && *expected != static_cast<double>(timeline->dispatches)) {
    out += "<p class=\"note\">No timeline: " + file + " holds " +
           std::to_string(timeline->dispatches) + " dispatches, the summary " +
           HtmlEscape(run.decode_dispatches().Str()) + ": it is not this run's table.</p>\n";
    return;
  }
  if (timeline->bins.empty()) {
    out += "<p class=\"note\">No timeline: " + file + " holds no dispatch of any length.</p>\n";
    return;
  }
  out += BusyTimelineSvg(*timeline, "GPU busy over the decode window") + "\n";
  const int64_t bin_ns = timeline->bins.front().end_ns - timeline->bins.front().start_ns;
  const int decimals = TimelineMsDecimals(timeline->span_ns);
  out += "<p>" + std::to_string(timeline->dispatches) + " dispatches of " + file + " over " +
         base::FormatFixed(static_cast<double>(timeline->span_ns) / 1e6, decimals) +
         " ms, from the first one's start to the last end" +
         (run.decode_wall_ms().get()
              ? " (decode wall " + HtmlEscape(run.decode_wall_ms().Str()) + " ms)"
              : std::string()) +
         ", in " + std::to_string(timeline->bins.size()) + " bins of " +
         base::FormatFixed(static_cast<double>(bin_ns) / 1e6, decimals) +
         " ms; GPU busy (the union of "
         "the dispatches) " +
         base::FormatFixed(static_cast<double>(timeline->busy_ns) /
                               static_cast<double>(timeline->span_ns) * 100.0,
                           2) +
         "% of that span.</p>\n";
}

// The run's units in its rank order (RankedUnits: analysis/ranking.h decides it; this writer
// only prints it).
void AppendUnits(const SummaryFile& summary, std::string& out) {
  const RunView run(summary);
  std::string rows;
  bool any_plain = false;
  for (const analysis::RankedUnit& r : RankedUnits(summary)) {
    const UnitView unit = run.Unit(r.id);
    const std::optional<double> plain = unit.plain_ceiling_wall_est().get();
    const std::optional<double> wall = unit.ceiling_wall().get();
    const std::optional<double> gpu = unit.ceiling_gpu_share().get();
    const std::optional<double> share = unit.fallback_share_pct().get();
    const std::string share_text = NumberText(unit.fallback_share_pct().json());
    any_plain = any_plain || plain.has_value();
    rows += "<tr>" + Cell("<code>#" + HtmlEscape(r.id) + "</code>", true) +
            Cell(TextOf(unit.port().json()), true) +
            Cell("<span class=\"meter\"><span style=\"" + Width(share.value_or(0.0)) +
                     "\"></span></span> " + share_text + "%",
                 true) +
            Cell(CeilingCell(plain, wall, gpu, kNoValue)) + "</tr>\n";
  }
  if (rows.empty()) return;
  out += std::string("<h3>Work units by ") + (any_plain ? "plain " : "") +
         "wall ceiling (fallback set)</h3>\n";
  out +=
      "<table>\n<tr><th class=\"l\">unit</th><th class=\"l\">work item</th>"
      "<th class=\"l\">GPU share %</th><th>ceiling wall (GPU share)</th></tr>\n";
  out += rows;
  out += "</table>\n";
}

// The speed of light (speed_of_light_section.h), for a run that has it: the headline, the
// decomposition, each unit's actual ms/step against its floor (FloorBarsSvg) and the classes'
// bandwidth.
void AppendSpeedOfLight(const SummaryFile& summary, std::string& out) {
  if (!summary.speed_of_light) return;
  const SpeedOfLightSection& s = *summary.speed_of_light;
  out += "<h3>Speed of light</h3>\n";
  const std::string headline = SpeedOfLightHeadline(s);
  out += "<p>" + HtmlEscape(headline.empty() ? "n/a (no floor or wall)" : headline) + "</p>\n";
  if (const std::string line = SpeedOfLightDecompositionLine(s); !line.empty()) {
    out += "<p class=\"note\">Time per decode step: " + HtmlEscape(line) + "</p>\n";
  }
  std::vector<FloorBar> bars;
  double max_ms = 0.0;
  for (const SpeedOfLightUnit* u : UnitsByExcess(s)) {
    if (!u->ms_per_token || !(*u->ms_per_token > 0.0)) continue;
    const double floor = u->floor_ms_per_token.value_or(0.0);
    max_ms = std::max({max_ms, *u->ms_per_token, floor});
    const auto fixed = [](const std::optional<double>& v, int d) {
      return v ? base::FormatFixed(*v, d) : std::string(kNoValue);
    };
    bars.push_back({"#" + u->id, *u->ms_per_token, floor,
                    fixed(u->ms_per_token, 3) + " ms (floor " + fixed(u->floor_ms_per_token, 3) +
                        ", " + fixed(u->ceiling_to_floor, 2) + "x)",
                    "#" + u->id + ": " + fixed(u->ms_per_token, 3) + " ms/step, floor " +
                        fixed(u->floor_ms_per_token, 3) + ", excess " +
                        fixed(u->excess_ms_per_token, 3) + ", to the floor " +
                        fixed(u->ceiling_to_floor, 2) + "x"});
  }
  if (!bars.empty()) {
    out += FloorBarsSvg(bars, max_ms, base::FormatFixed(max_ms, 3) + " ms",
                        "work units: actual ms per decode step against the floor") +
           "\n";
  }
  std::string rows;
  for (const SpeedOfLightClass& c : s.classes) {
    std::string moves;
    for (const std::string& m : c.moves) moves += (moves.empty() ? "" : ", ") + m;
    const auto fixed = [](const std::optional<double>& v, int d) {
      return v ? base::FormatFixed(*v, d) : std::string(kNoValue);
    };
    rows += "<tr>" + Cell(HtmlEscape(c.name), true) + Cell(HtmlEscape(moves), true) +
            Cell(c.bytes_per_token ? base::FormatFixed(*c.bytes_per_token / 1e9, 2)
                                   : std::string(kNoValue)) +
            Cell(fixed(c.ms_per_token, 3)) + Cell(fixed(c.floor_ms_per_token, 3)) +
            Cell(fixed(c.achieved_gbps, 1)) + Cell(fixed(c.pct_of_peak, 1)) + "</tr>\n";
  }
  if (!rows.empty()) {
    out +=
        "<table>\n<tr><th class=\"l\">class</th><th class=\"l\">moves</th><th>GB/step</th>"
        "<th>ms/step</th><th>floor ms/step</th><th>GB/s</th><th>% of peak</th></tr>\n" +
        rows + "</table>\n";
  }
  if (!s.notes.empty()) {
    out += "<ul class=\"note\">\n";
    for (const std::string& note : s.notes) out += "<li>" + HtmlEscape(note) + "</li>\n";
    out += "</ul>\n";
  }
}

// The smallest of 10, 20, 25, 50 and 100 that is at least `max_share` (100 above it).
double ShareScale(double max_share) {
  for (const double scale : {10.0, 20.0, 25.0, 50.0}) {
    if (max_share <= scale) return scale;
  }
  return 100.0;
}

// The top kernels as a bar chart of their shares (labels: KernelLabel; the full name on hover),
// then as a table.
void AppendTopKernels(const SummaryFile& summary, std::string& out) {
  const std::vector<TopKernelEntry> entries = TopKernelEntries(summary);
  if (entries.empty()) return;
  std::vector<std::string> labels;
  for (const TopKernelEntry& e : entries) labels.push_back(KernelLabel(*e.name));
  // Two kernels with one label: the longer short name for each of them, and a number after
  // that when even those are equal.
  std::vector<std::string> resolved = labels;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (std::count(labels.begin(), labels.end(), labels[i]) > 1) {
      resolved[i] = ShortKernelName(*entries[i].name);
    }
  }
  for (size_t i = 0; i < resolved.size(); ++i) {
    const auto same =
        std::count(resolved.begin(), resolved.begin() + static_cast<long>(i), resolved[i]);
    if (same > 0) resolved[i] += " (" + std::to_string(same + 1) + ")";
  }
  std::vector<ChartBar> bars;
  double max_share = 0.0;
  std::string rows;
  for (size_t i = 0; i < entries.size(); ++i) {
    const TopKernelEntry& e = entries[i];
    const TopKernelView& kernel = e.fields;
    const std::optional<double> share = kernel.share_pct().get();
    if (share && std::isfinite(*share)) max_share = std::max(max_share, *share);
    const Json& kernel_class = kernel.class_name().json();
    const auto stored = [](const Json& value) {
      return value.is_null() ? std::string(kNoValue) : PyStr(value);
    };
    std::string title =
        *e.name + "\n" + "share " + stored(kernel.share_pct().json()) + "% of decode GPU time, " +
        stored(kernel.calls_per_token().json()) + " calls/token" +
        (kernel_class.is_string() ? ", class " + kernel_class.get<std::string>() : std::string());
    bars.push_back({resolved[i], share.value_or(0.0),
                    share ? kernel.share_pct().Str() + "%" : std::string(kNoValue),
                    std::move(title)});
    rows += "<tr>" + Cell(std::to_string(i + 1)) +
            Cell("<code title=\"" + HtmlEscape(*e.name) + "\">" +
                     HtmlEscape(ShortKernelName(*e.name)) + "</code>",
                 true) +
            Cell(TextOf(kernel_class), true) + Cell(NumberText(kernel.share_pct().json())) +
            Cell(NumberText(kernel.calls_per_token().json())) + "</tr>\n";
  }
  const double scale = ShareScale(max_share);
  out += "<h3>Top kernels (share of decode GPU time)</h3>\n";
  out += BarChartSvg(bars, scale, base::FormatFixed(scale, 0) + "%", "top kernels by share") + "\n";
  out +=
      "<table>\n<tr><th>#</th>"
      "<th class=\"l\">kernel</th><th class=\"l\">class</th><th>share %</th>"
      "<th>calls/token</th></tr>\n" +
      rows + "</table>\n";
}

// The floor of each model's runs at different contexts (ContextSweeps), as `report`'s
// markdown gives it: the floor moves with the KV cache.
void AppendContextSweeps(const std::vector<SummaryFile>& summaries, std::string& out) {
  const auto fixed = [](const std::optional<double>& v, int digits) {
    return v ? base::FormatFixed(*v, digits) : std::string(kNoValue);
  };
  for (const ContextSweep& sweep : ContextSweeps(summaries)) {
    out += "<h3>Floor vs context: " +
           HtmlEscape(sweep.model.empty() ? std::string("no model") : sweep.model) + "</h3>\n";
    out +=
        "<table>\n<tr><th class=\"l\">run</th><th>context tokens</th><th>KV bytes/step</th>"
        "<th>floor ms/step</th><th>wall ms/step</th><th>MBU %</th></tr>\n";
    for (const size_t r : sweep.runs) {
      const SpeedOfLightSection& s = *summaries[r].speed_of_light;
      out += "<tr>" + Cell(CodeRunName(summaries[r]), true) +
             Cell(s.context_tokens ? base::PyRepr(*s.context_tokens) : std::string(kNoValue)) +
             Cell(fixed(s.kv_bytes_per_token, 0)) + Cell(fixed(s.floor_ms_per_token, 3)) +
             Cell(fixed(s.wall_ms_per_token, 3)) + Cell(fixed(s.mbu_pct, 1)) + "</tr>\n";
    }
    out += "</table>\n";
  }
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderHtmlReport(const std::vector<SummaryFile>& summaries, size_t do_first) {
  return RenderHtmlReport(summaries, std::vector<std::optional<DispatchTimeline>>(), do_first);
}

std::string RenderHtmlReport(const std::vector<SummaryFile>& summaries,
                             const std::vector<std::optional<DispatchTimeline>>& timelines,
                             size_t do_first) {
  std::string out(kHead);
  if (do_first > 0) out += RenderDoFirstHtml(summaries, do_first);
  out += "<p class=\"note\">" + std::to_string(summaries.size()) +
         " run(s). Decode time per token in ms: plain = the run without the profiler, profiled = "
         "decode wall / generated tokens = GPU busy + host gap.</p>\n";
  AppendRunTable(summaries, out);
  AppendContextSweeps(summaries, out);
  for (size_t i = 0; i < summaries.size(); ++i) {
    const SummaryFile& summary = summaries[i];
    out += "<section>\n<h2>" + CodeRunName(summary) + "</h2>\n";
    AppendWallBar(summary, out);
    AppendSpeedOfLight(summary, out);
    AppendTimeline(summary, i < timelines.size() ? timelines[i] : std::nullopt, out);
    AppendUnits(summary, out);
    AppendTopKernels(summary, out);
    out += "</section>\n";
  }
  // The rank tables of multi-rank runs (rank_table.h; `report` refused a broken set before).
  if (const auto tables = BuildRankTables(summaries); tables.ok()) {
    out += RenderRankTablesHtml(*tables);
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace decodeprof::report
