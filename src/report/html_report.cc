#include "src/report/html_report.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/markdown_report.h"
#include "src/report/markdown_table.h"
#include "src/report/short_name.h"

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
.gpu { background: #2b7bb9; }
.gap { background: #e8833a; }
.key { display: inline-block; width: 0.9em; height: 0.9em; vertical-align: middle; }
.meter { display: inline-block; width: 12em; height: 0.9em; background: #eee; vertical-align: middle; }
.meter span { display: block; height: 100%; background: #2b7bb9; }
</style>
</head>
<body>
<h1>decodeprof report</h1>
)";

// A numeric field as stored, escaped ("-" when absent or null).
std::string NumberText(const Json& object, std::string_view key) {
  const Json& value = JsonGet(object, key);
  return value.is_null() ? std::string("-") : HtmlEscape(PyStr(value));
}

// A text field, escaped: "-" when absent, null or empty.
std::string TextOf(const Json& value) {
  if (value.is_null()) return "-";
  const std::string text = PyStr(value);
  return text.empty() ? "-" : HtmlEscape(text);
}

// The run's name in <code>, escaped.
std::string RunName(const SummaryFile& summary) {
  return "<code>" + HtmlEscape(PyStr(JsonGet(summary.content, "name"))) + "</code>";
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
    std::string row = "<tr>" + Cell(RunName(summary), true) + Cell(PlainMsPerToken(summary)) +
                      Cell(ProfiledMsPerToken(summary));
    for (const char* key : {"gpu_ms_per_token", "host_gap_ms_per_token", "dispatches_per_token"}) {
      row += Cell(NumberText(summary.content, key));
    }
    out += row + "</tr>\n";
  }
  out += "</table>\n";
}

void AppendWallBar(const SummaryFile& summary, std::string& out) {
  const Json& s = summary.content;
  const std::optional<double> gpu = OptionalNumber(s, "gpu_ms_per_token");
  const std::optional<double> gap = OptionalNumber(s, "host_gap_ms_per_token");
  if (!gpu || !gap || *gpu < 0.0 || *gap < 0.0 || !std::isfinite(*gpu + *gap) ||
      *gpu + *gap <= 0.0) {
    out += "<p class=\"note\">No decode wall bar: GPU busy or host gap ms/token missing.</p>\n";
    return;
  }
  const double gpu_pct = *gpu / (*gpu + *gap) * 100.0;
  const double gap_pct = 100.0 - gpu_pct;
  out += "<h3>Decode wall per token</h3>\n";
  out += "<div class=\"wall\"><div class=\"gpu\" style=\"" + Width(gpu_pct) +
         "\"></div><div class=\"gap\" style=\"" + Width(gap_pct) + "\"></div></div>\n";
  out += "<p><span class=\"key gpu\"></span> GPU busy " +
         HtmlEscape(PyStr(JsonGet(s, "gpu_ms_per_token"))) + " ms (" +
         base::FormatFixed(gpu_pct, 2) + "%) &nbsp; <span class=\"key gap\"></span> host gap " +
         HtmlEscape(PyStr(JsonGet(s, "host_gap_ms_per_token"))) + " ms (" +
         base::FormatFixed(gap_pct, 2) + "%)" +
         (gap_pct > 50.0 ? " &mdash; launch-bound: the host gap is most of the decode wall" : "") +
         "</p>\n";
}

// The run's units in its rank order (RankedUnits: analysis/ranking.h decides it; this writer
// only prints it).
void AppendUnits(const SummaryFile& summary, std::string& out) {
  const Json& units = PortUnits(summary);
  std::string rows;
  bool any_plain = false;
  for (const analysis::RankedUnit& r : RankedUnits(summary)) {
    const Json& unit = JsonGet(units, r.id);
    const std::optional<double> plain = OptionalNumber(unit, "plain_ceiling_wall_est");
    const std::optional<double> wall = OptionalNumber(unit, "ceiling_wall");
    const std::optional<double> gpu = OptionalNumber(unit, "ceiling_gpu_share");
    const std::optional<double> share = OptionalNumber(unit, "fallback_share_pct");
    const std::string share_text = NumberText(unit, "fallback_share_pct");
    any_plain = any_plain || plain.has_value();
    rows += "<tr>" + Cell("<code>#" + HtmlEscape(r.id) + "</code>", true) +
            Cell(TextOf(JsonGet(unit, "port")), true) +
            Cell("<span class=\"meter\"><span style=\"" + Width(share.value_or(0.0)) +
                     "\"></span></span> " + share_text + "%",
                 true) +
            Cell(CeilingCell(plain, wall, gpu)) + "</tr>\n";
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

void AppendTopKernels(const SummaryFile& summary, std::string& out) {
  const std::vector<TopKernelEntry> entries = TopKernelEntries(summary);
  std::string rows;
  for (size_t i = 0; i < entries.size(); ++i) {
    const TopKernelEntry& e = entries[i];
    rows += "<tr>" + Cell(std::to_string(i + 1)) +
            Cell("<code>" + HtmlEscape(ShortKernelName(*e.name)) + "</code>", true) +
            Cell(TextOf(JsonGet(*e.fields, "class")), true) +
            Cell(NumberText(*e.fields, "share_pct")) +
            Cell(NumberText(*e.fields, "calls_per_token")) + "</tr>\n";
  }
  if (rows.empty()) return;
  out +=
      "<h3>Top kernels (share of decode GPU time)</h3>\n<table>\n<tr><th>#</th>"
      "<th class=\"l\">kernel</th><th class=\"l\">class</th><th>share %</th>"
      "<th>calls/token</th></tr>\n" +
      rows + "</table>\n";
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

std::string RenderHtmlReport(const std::vector<SummaryFile>& summaries) {
  std::string out(kHead);
  out += "<p class=\"note\">" + std::to_string(summaries.size()) +
         " run(s). Decode time per token in ms: plain = the run without the profiler, profiled = "
         "decode wall / generated tokens = GPU busy + host gap.</p>\n";
  AppendRunTable(summaries, out);
  for (const SummaryFile& summary : summaries) {
    out += "<section>\n<h2>" + RunName(summary) + "</h2>\n";
    AppendWallBar(summary, out);
    AppendUnits(summary, out);
    AppendTopKernels(summary, out);
    out += "</section>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace decodeprof::report
