#include "src/report/full_report.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/do_first.h"
#include "src/report/markdown_report.h"
#include "src/report/markdown_table.h"
#include "src/report/short_name.h"
#include "src/report/summary_view.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;
using Lines = std::vector<std::string>;

namespace schema = summary_schema;

// A numeric field as stored (kNoValue when absent or null).
std::string NumberCell(const Json& value) {
  return value.is_null() ? std::string(kNoValue) : PyStr(value);
}
template <typename T>
std::string NumberCell(const SummaryValue<T>& field) {
  return NumberCell(field.json());
}

// A text field: kNoValue when absent, null or empty; other values as PyStr.
std::string TextCell(const Json& value) {
  if (value.is_null()) return std::string(kNoValue);
  const std::string text = PyStr(value);
  return text.empty() ? std::string(kNoValue) : EscapeCell(text);
}

// profiler_decode_slowdown_pct as stored, with a word when it is flagged (do_first.h): a
// negative cost never prints bare.
std::string ProfilerCostCell(const RunView& summary) {
  std::string cell = NumberCell(summary.profiler_decode_slowdown_pct());
  const std::optional<double> cost = summary.profiler_decode_slowdown_pct().get();
  if (cost && *cost < -kPlainSlowerNoisePct) cell += " (plain run slower)";
  if (cost && *cost < 0.0 && *cost >= -kPlainSlowerNoisePct) cell += " (plain run slower: noise)";
  if (cost && *cost > kProfilerCostFlagPct) cell += " (high)";
  return cell;
}

// "|---|---:|" from "lr": one column per letter, `l` left-aligned, anything else right.
std::string Alignment(std::string_view columns) {
  std::string row = "|";
  for (const char c : columns) row += c == 'l' ? "---|" : "---:|";
  return row;
}

// Appends a section: blank line, heading, blank line, header, alignment row (`columns` as
// for Alignment), rows. Nothing when there are no rows.
void AppendTable(const std::string& heading, const std::vector<std::string>& header,
                 std::string_view columns, const Lines& rows, Lines& lines) {
  if (rows.empty()) return;
  lines.push_back("");
  lines.push_back(heading);
  lines.push_back("");
  lines.push_back(MarkdownRow(header));
  lines.push_back(Alignment(columns));
  lines.insert(lines.end(), rows.begin(), rows.end());
}

void AppendRunSetup(const std::vector<SummaryFile>& summaries, Lines& lines) {
  Lines rows;
  for (const SummaryFile& summary : summaries) {
    const RunView s(summary);
    std::vector<std::string> cells = {RunLabel(summary), TextCell(s.model_type().json())};
    for (const SummaryField* field :
         {&schema::run::temperature, &schema::run::prompt_tokens, &schema::run::generated_tokens,
          &schema::run::decode_forward_passes}) {
      cells.push_back(NumberCell(s.Get(*field)));
    }
    for (const SummaryField* field :
         {&schema::run::clock, &schema::run::pack, &schema::run::units_file}) {
      cells.push_back(TextCell(s.Get(*field)));
    }
    rows.push_back(MarkdownRow(cells));
  }
  AppendTable(
      "Run setup (per-token figures divide by generated tokens; the decode window holds one "
      "forward pass fewer):",
      {"Run", "model", "temperature", "prompt tokens", "generated tokens", "forward passes",
       "clock", "pack", "units"},
      "llrrrrlll", rows, lines);
}

void AppendDecodeTime(const std::vector<SummaryFile>& summaries, Lines& lines) {
  Lines rows;
  for (const SummaryFile& summary : summaries) {
    std::vector<std::string> cells = {RunLabel(summary), PlainMsPerToken(summary),
                                      ProfiledMsPerToken(summary)};
    const RunView s(summary);
    for (const SummaryField* field :
         {&schema::run::gpu_ms_per_token, &schema::run::host_gap_ms_per_token,
          &schema::run::plain_host_gap_ms_per_token_est, &schema::run::dispatches_per_token}) {
      cells.push_back(NumberCell(s.Get(*field)));
    }
    cells.push_back(ProfilerCostCell(s));
    rows.push_back(MarkdownRow(cells));
  }
  AppendTable(
      "Decode time per token (ms; plain = the run without the profiler, profiled = decode wall "
      "/ generated tokens = GPU busy + host gap):",
      {"Run", "plain ms/token", "profiled ms/token", "GPU busy ms/token", "host gap ms/token",
       "plain gap ms/token", "dispatches/token", "profiler cost %"},
      "lrrrrrrr", rows, lines);
}

// class_share_pct / role_share_pct: rows = names, columns = runs (header doc, sections 3-4).
void AppendShareMatrix(const std::vector<SummaryFile>& summaries, const SummaryField& field,
                       const std::string& first_header, const std::string& heading, Lines& lines) {
  std::vector<NumberMapView> maps;
  std::vector<std::string> names;
  for (const SummaryFile& summary : summaries) {
    const NumberMapView map = RunView(summary).Map(field);
    for (std::string& name : map.Names()) {
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(std::move(name));
      }
    }
    maps.push_back(map);
  }
  if (names.empty()) return;
  const NumberMapView& first = maps.front();
  const auto share = [&first](const std::string& name) { return first.At(name).get(); };
  std::stable_sort(names.begin(), names.end(),
                   [&share](const std::string& a, const std::string& b) {
                     const std::optional<double> sa = share(a);
                     const std::optional<double> sb = share(b);
                     if (sa.has_value() != sb.has_value()) return sa.has_value();
                     if (sa && *sa != *sb) return *sa > *sb;
                     return a < b;
                   });
  std::vector<std::string> header = {first_header};
  for (const SummaryFile& summary : summaries) header.push_back(RunLabel(summary));
  Lines rows;
  for (const std::string& name : names) {
    std::vector<std::string> cells = {EscapeCell(name)};
    for (const NumberMapView& map : maps) {
      const SummaryValue<double> value = map.At(name);
      cells.push_back(value.is_null() ? std::string(kNoValue) : value.Str());
    }
    rows.push_back(MarkdownRow(cells));
  }
  AppendTable(heading, header, "l" + std::string(summaries.size(), 'r'), rows, lines);
}

std::vector<std::string> UnitRow(const SummaryFile& summary, const std::string& id,
                                 const UnitView& unit) {
  std::vector<std::string> cells = {RunLabel(summary), EscapeCell("#" + id),
                                    NumberCell(unit.fallback_share_pct())};
  const std::optional<double> share_pct = unit.fallback_share_pct().get();
  const std::optional<double> gpu_sum_ms = RunView(summary).decode_gpu_sum_ms().get();
  const std::optional<double> tokens = WindowTokens(summary.content);
  std::optional<double> gpu_ms;
  if (share_pct && gpu_sum_ms) gpu_ms = Quotient(*share_pct * *gpu_sum_ms / 100.0, tokens);
  cells.push_back(DerivedText(gpu_ms));
  for (const SummaryField* field :
       {&schema::unit::fallback_dispatches_per_token, &schema::unit::fallback_host_gap_ms_per_token,
        &schema::unit::fallback_wall_share_pct, &schema::unit::plain_ceiling_wall_est,
        &schema::unit::ceiling_wall, &schema::unit::ceiling_gpu_share}) {
    cells.push_back(NumberCell(unit.Get(*field)));
  }
  return cells;
}

void AppendUnits(const std::vector<SummaryFile>& summaries, Lines& lines) {
  const std::vector<std::string> unit_ids = UnitColumns(summaries);
  Lines legend;
  for (const std::string& id : unit_ids) {
    for (const SummaryFile& summary : summaries) {
      const UnitView unit = RunView(summary).Unit(id);
      if (unit.json().is_null()) continue;
      legend.push_back(MarkdownRow({EscapeCell("#" + id), TextCell(unit.port().json())}));
      break;
    }
  }
  AppendTable("Units (what each would build):", {"Unit", "work item"}, "ll", legend, lines);

  Lines rows;
  for (const SummaryFile& summary : summaries) {
    const RunView run(summary);
    for (const std::string& id : unit_ids) {
      const UnitView unit = run.Unit(id);
      if (unit.json().is_null()) continue;
      rows.push_back(MarkdownRow(UnitRow(summary, id, unit)));
    }
  }
  AppendTable(
      "Units per run (fallback set: every dispatch the unit names; GPU ms/token = share / 100 * "
      "decode GPU sum / generated tokens; ceilings are speedup bounds):",
      {"Run", "Unit", "share %", "GPU ms/token", "dispatches/token", "host gap ms/token",
       "wall share %", "plain wall ceiling", "wall ceiling", "GPU-share ceiling"},
      "llrrrrrrrr", rows, lines);
}

void AppendTopKernelsWithClass(const SummaryFile& summary, Lines& lines) {
  const std::vector<TopKernelEntry> entries = TopKernelEntries(summary);
  bool any_class = false;
  Lines rows;
  for (size_t i = 0; i < entries.size(); ++i) {
    const TopKernelEntry& e = entries[i];
    const TopKernelView& kernel = e.fields;
    any_class = any_class || kernel.class_name().json().is_string();
    rows.push_back(
        MarkdownRow({std::to_string(i + 1), "`" + EscapeCell(ShortKernelName(*e.name)) + "`",
                     TextCell(kernel.class_name().json()), NumberCell(kernel.share_pct()),
                     NumberCell(kernel.calls_per_token())}));
  }
  if (!any_class) return;
  AppendTable("Top kernels with class, " + RunLabel(summary) +
                  " (share of decode GPU time, calls per token):",
              {"#", "kernel", "class", "share %", "calls/token"}, "rllrr", rows, lines);
}

void AppendChecks(const std::vector<SummaryFile>& summaries, Lines& lines) {
  Lines rows;
  for (const SummaryFile& summary : summaries) {
    const RunView run(summary);
    const ChecksView checks = run.Checks();
    std::vector<std::string> cells = {
        RunLabel(summary), NumberCell(checks.kernels_straddling_decode_start()),
        NumberCell(checks.host_gap_attribution_residual_ns()),
        NumberCell(checks.idle_gap_before_first_decode_dispatch_us())};
    const Json& warnings = run.warnings().json();
    std::string text;
    for (const Json& warning : warnings) {
      if (!text.empty()) text += "; ";
      text += TextCell(warning);
    }
    cells.push_back(!text.empty() ? text : warnings.is_array() ? "none" : std::string(kNoValue));
    std::string flags;
    for (const TrustFlag& flag : TrustFlags(summary)) {
      flags += (flags.empty() ? std::string(kTrustMark) + " " : std::string("; ")) + flag.label;
    }
    cells.push_back(flags.empty() ? "none" : EscapeCell(flags));
    rows.push_back(MarkdownRow(cells));
  }
  AppendTable(
      "Checks (0 straddling kernels and a 0 ns gap residual are expected; trust flags as in Do "
      "first):",
      {"Run", "straddling kernels", "gap residual ns", "idle before decode us", "warnings",
       "trust flags"},
      "lrrrll", rows, lines);
}

}  // namespace

std::string RenderFullReportSections(const std::vector<SummaryFile>& summaries) {
  Lines lines;
  AppendRunSetup(summaries, lines);
  AppendDecodeTime(summaries, lines);
  AppendShareMatrix(summaries, schema::run::class_share_pct, "Class",
                    "Kernel classes (share of decode GPU time, %):", lines);
  AppendShareMatrix(summaries, schema::run::role_share_pct, "Role",
                    "Roles (share of decode GPU time, %):", lines);
  AppendUnits(summaries, lines);
  for (const SummaryFile& summary : summaries) AppendTopKernelsWithClass(summary, lines);
  AppendChecks(summaries, lines);
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

std::string RenderFullMarkdownReport(const std::vector<SummaryFile>& summaries, size_t do_first) {
  return RenderMarkdownReport(summaries, do_first) + RenderFullReportSections(summaries);
}

}  // namespace decodeprof::report
