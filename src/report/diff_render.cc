// RenderDiffMarkdown and RenderDiffJson (diff.h): printing a SummaryDiff.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/base/py_format.h"
#include "src/report/diff.h"
#include "src/report/markdown_table.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;
using Lines = std::vector<std::string>;

// ---- Markdown ----------------------------------------------------------------------------

std::string Text(const DiffFigure& figure) {
  if (figure.integer) return std::to_string(*figure.integer);
  return figure.value ? base::PyRepr(*figure.value) : "-";
}

std::string ChangeText(std::optional<double> change) {
  if (!change) return "-";
  return (*change > 0.0 ? "+" : "") + base::PyRepr(*change);
}

std::string RatioText(std::optional<double> ratio) {
  return ratio ? base::FormatFixed(*ratio, 2) + "x" : "-";
}

std::string KernelCell(const DiffKernel& kernel) {
  return "`" + EscapeCell(kernel.short_name) + "`";
}

// Blank line, heading, blank line, header, alignment, rows; nothing when there are no rows.
// The first column is left-aligned, the others right-aligned except those `left_columns`
// names by index.
void AppendTable(const std::string& heading, const std::vector<std::string>& header,
                 const Lines& rows, Lines& lines, std::vector<size_t> left_columns = {}) {
  if (rows.empty()) return;
  lines.push_back("");
  lines.push_back(heading);
  lines.push_back("");
  lines.push_back(MarkdownRow(header));
  std::string alignment = "|---|";
  for (size_t i = 1; i < header.size(); ++i) {
    const bool left = std::find(left_columns.begin(), left_columns.end(), i) != left_columns.end();
    alignment += left ? "---|" : "---:|";
  }
  lines.push_back(alignment);
  lines.insert(lines.end(), rows.begin(), rows.end());
}

void AppendPerToken(const SummaryDiff& diff, Lines& lines) {
  Lines rows;
  for (const DiffRow& row : diff.per_token) {
    rows.push_back(MarkdownRow({row.label, Text(row.before), Text(row.after),
                                ChangeText(row.change), RatioText(row.ratio)}));
  }
  AppendTable(
      "Decode per token (plain = the run without the profiler; change = after - before; ratio = "
      "how many times better after is: before / after for ms and dispatches, after / before "
      "for tok/s):",
      {"Metric", "before", "after", "change", "ratio"}, rows, lines);
}

void AppendSpeedOfLight(const SummaryDiff& diff, Lines& lines) {
  if (!diff.speed_of_light) return;
  Lines rows;
  for (const DiffRow& row : diff.speed_of_light->figures) {
    rows.push_back(MarkdownRow({row.label, Text(row.before), Text(row.after),
                                ChangeText(row.change), RatioText(row.ratio)}));
  }
  AppendTable(
      "Speed of light (floor = bytes per token / peak bandwidth: it moves with the context and "
      "the model; MBU = floor / wall; to the floor = wall / floor):",
      {"Metric", "before", "after", "change", "ratio"}, rows, lines);
  Lines units;
  for (const DiffSolUnit& unit : diff.speed_of_light->units) {
    units.push_back(
        MarkdownRow({EscapeCell("#" + unit.id), Text(unit.before_excess_ms_per_token),
                     Text(unit.after_excess_ms_per_token), ChangeText(unit.change),
                     Text(unit.before_ceiling_to_floor), Text(unit.after_ceiling_to_floor)}));
  }
  AppendTable(
      "Units above their floor (excess = the unit's ms/token above its own floor; to the floor "
      "= the decode's speedup if the unit ran at its floor):",
      {"Unit", "excess ms/token before", "excess ms/token after", "change", "to the floor before",
       "to the floor after"},
      units, lines);
}

void AppendClasses(const SummaryDiff& diff, Lines& lines) {
  Lines rows;
  for (const DiffClass& row : diff.classes) {
    rows.push_back(MarkdownRow({EscapeCell(row.name), Text(row.before_gpu_ms_per_token),
                                Text(row.after_gpu_ms_per_token), ChangeText(row.change),
                                Text(row.before_share_pct), Text(row.after_share_pct)}));
  }
  AppendTable(
      "Kernel classes (GPU ms/token = share / 100 * decode_gpu_sum_ms / generated_tokens; "
      "largest change first):",
      {"Class", "before ms/token", "after ms/token", "change", "before share %", "after share %"},
      rows, lines);
}

std::string SpeedupLine(const DiffSpeedupCheck& check) {
  return "measured speedup " + RatioText(check.measured_speedup) + " vs predicted ceiling " +
         Text(check.predicted_ceiling) + " (" +
         (check.unit.empty() ? "no unit ceiling in the before run" : "#" + EscapeCell(check.unit)) +
         ")";
}

void AppendUnits(const SummaryDiff& diff, Lines& lines) {
  Lines rows;
  for (const DiffUnit& unit : diff.units) {
    rows.push_back(MarkdownRow(
        {EscapeCell("#" + unit.id), Text(unit.before.share_pct), Text(unit.after.share_pct),
         Text(unit.before.gpu_ms_per_token), Text(unit.after.gpu_ms_per_token),
         Text(unit.before.host_gap_ms_per_token), Text(unit.after.host_gap_ms_per_token),
         Text(unit.before.plain_ceiling_wall_est), Text(unit.after.plain_ceiling_wall_est)}));
  }
  AppendTable(
      "Units (fallback set: every dispatch the unit names; GPU ms/token as for classes; host gap "
      "= the launch gaps the unit owns; plain wall ceiling = the speedup bound on the plain run):",
      {"Unit", "share % before", "share % after", "GPU ms/token before", "GPU ms/token after",
       "host gap ms/token before", "host gap ms/token after", "plain wall ceiling before",
       "plain wall ceiling after"},
      rows, lines);
  lines.push_back("");
  lines.push_back(
      diff.speedup_check.basis == "plain"
          ? "Speedup against the before run's prediction (measured = plain ms/token before / "
            "after; ceiling = the unit's plain wall ceiling in the before run):"
          : "Speedup against the before run's prediction, on the profiled runs (a run has no "
            "plain ms/token or the before run no plain ceiling; measured = profiled ms/token "
            "before / after; ceiling = the unit's wall ceiling in the before run):");
  lines.push_back("");
  lines.push_back(SpeedupLine(diff.speedup_check));
}

void AppendKernels(const SummaryDiff& diff, Lines& lines) {
  Lines single;
  for (const auto& [kernels, run] :
       {std::pair(&diff.only_before, "before"), std::pair(&diff.only_after, "after")}) {
    for (const DiffKernel& kernel : *kernels) {
      const bool before = kernels == &diff.only_before;
      single.push_back(MarkdownRow(
          {KernelCell(kernel), run, Text(before ? kernel.before_share_pct : kernel.after_share_pct),
           Text(before ? kernel.before_calls_per_token : kernel.after_calls_per_token)}));
    }
  }
  AppendTable(
      "Top kernels of one run only (share of decode GPU time, calls per token; a kernel out of "
      "the other run's top list may still run there):",
      {"Kernel", "run", "share %", "calls/token"}, single, lines, {1});

  Lines common;
  for (const DiffKernel& kernel : diff.common_kernels) {
    common.push_back(MarkdownRow(
        {KernelCell(kernel), Text(kernel.before_share_pct), Text(kernel.after_share_pct),
         ChangeText(kernel.share_change), Text(kernel.before_calls_per_token),
         Text(kernel.after_calls_per_token), ChangeText(kernel.calls_change)}));
  }
  AppendTable("Top kernels of both runs (largest share or calls/token change first):",
              {"Kernel", "share % before", "share % after", "share change", "calls/token before",
               "calls/token after", "calls/token change"},
              common, lines);
  if (!common.empty() && diff.common_kernels_left_out > 0) {
    lines.push_back("");
    lines.push_back("(" + std::to_string(diff.common_kernels_left_out) +
                    " more top kernels of both runs changed less.)");
  }
}

// ---- JSON --------------------------------------------------------------------------------

Json FigureJson(const DiffFigure& figure) {
  if (figure.integer) return Json(*figure.integer);
  if (figure.value) return Json(*figure.value);
  return Json(nullptr);
}

Json OptionalJson(std::optional<double> value) { return value ? Json(*value) : Json(nullptr); }

Json RunJson(const std::string& path, const std::string& name) {
  Json run = Json::object();
  run["path"] = path;
  run["name"] = name;
  return run;
}

Json UnitSideJson(const DiffUnitSide& side) {
  if (!side.present) return Json(nullptr);
  Json out = Json::object();
  out["share_pct"] = FigureJson(side.share_pct);
  out["gpu_ms_per_token"] = FigureJson(side.gpu_ms_per_token);
  out["host_gap_ms_per_token"] = FigureJson(side.host_gap_ms_per_token);
  out["plain_ceiling_wall_est"] = FigureJson(side.plain_ceiling_wall_est);
  out["ceiling_wall"] = FigureJson(side.ceiling_wall);
  return out;
}

Json KernelJson(const DiffKernel& kernel, bool before, bool after) {
  Json out = Json::object();
  out["kernel"] = kernel.kernel;
  out["short_name"] = kernel.short_name;
  if (before && after) {
    out["before_share_pct"] = FigureJson(kernel.before_share_pct);
    out["after_share_pct"] = FigureJson(kernel.after_share_pct);
    out["share_change"] = OptionalJson(kernel.share_change);
    out["before_calls_per_token"] = FigureJson(kernel.before_calls_per_token);
    out["after_calls_per_token"] = FigureJson(kernel.after_calls_per_token);
    out["calls_per_token_change"] = OptionalJson(kernel.calls_change);
  } else {
    out["share_pct"] = FigureJson(before ? kernel.before_share_pct : kernel.after_share_pct);
    out["calls_per_token"] =
        FigureJson(before ? kernel.before_calls_per_token : kernel.after_calls_per_token);
  }
  return out;
}

// Figure rows as JSON objects: figure, label, before, after, change, ratio.
Json RowsJson(const std::vector<DiffRow>& rows) {
  Json out = Json::array();
  for (const DiffRow& row : rows) {
    Json item = Json::object();
    item["figure"] = row.key;
    item["label"] = row.label;
    item["before"] = FigureJson(row.before);
    item["after"] = FigureJson(row.after);
    item["change"] = OptionalJson(row.change);
    item["ratio"] = OptionalJson(row.ratio);
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace

std::string RenderDiffMarkdown(const SummaryDiff& diff) {
  Lines lines = {"Before: `" + diff.before_name + "` (" + diff.before_path + ")",
                 "After: `" + diff.after_name + "` (" + diff.after_path + ")"};
  AppendPerToken(diff, lines);
  AppendSpeedOfLight(diff, lines);
  AppendClasses(diff, lines);
  AppendUnits(diff, lines);
  AppendKernels(diff, lines);
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

std::string RenderDiffJson(const SummaryDiff& diff) {
  Json out = Json::object();
  out["before"] = RunJson(diff.before_path, diff.before_name);
  out["after"] = RunJson(diff.after_path, diff.after_name);
  // ordered_json keeps its members in a vector: build each member whole, then add it.
  out["per_token"] = RowsJson(diff.per_token);
  if (diff.speed_of_light) {
    Json figures = RowsJson(diff.speed_of_light->figures);
    Json units = Json::array();
    for (const DiffSolUnit& unit : diff.speed_of_light->units) {
      Json item = Json::object();
      item["unit"] = unit.id;
      item["before_excess_ms_per_token"] = FigureJson(unit.before_excess_ms_per_token);
      item["after_excess_ms_per_token"] = FigureJson(unit.after_excess_ms_per_token);
      item["excess_change"] = OptionalJson(unit.change);
      item["before_ceiling_to_floor"] = FigureJson(unit.before_ceiling_to_floor);
      item["after_ceiling_to_floor"] = FigureJson(unit.after_ceiling_to_floor);
      units.push_back(std::move(item));
    }
    Json sol = Json::object();
    sol["figures"] = std::move(figures);
    sol["units"] = std::move(units);
    out["speed_of_light"] = std::move(sol);
  }
  Json classes = Json::array();
  for (const DiffClass& row : diff.classes) {
    Json item = Json::object();
    item["class"] = row.name;
    item["before_gpu_ms_per_token"] = FigureJson(row.before_gpu_ms_per_token);
    item["after_gpu_ms_per_token"] = FigureJson(row.after_gpu_ms_per_token);
    item["gpu_ms_per_token_change"] = OptionalJson(row.change);
    item["before_share_pct"] = FigureJson(row.before_share_pct);
    item["after_share_pct"] = FigureJson(row.after_share_pct);
    classes.push_back(std::move(item));
  }
  out["kernel_classes"] = std::move(classes);
  Json units = Json::array();
  for (const DiffUnit& unit : diff.units) {
    Json item = Json::object();
    item["unit"] = unit.id;
    item["port"] = unit.port;
    item["before"] = UnitSideJson(unit.before);
    item["after"] = UnitSideJson(unit.after);
    units.push_back(std::move(item));
  }
  out["units"] = std::move(units);
  Json check = Json::object();
  check["unit"] = diff.speedup_check.unit.empty() ? Json(nullptr) : Json(diff.speedup_check.unit);
  check["basis"] = diff.speedup_check.basis;
  check["measured_speedup"] = OptionalJson(diff.speedup_check.measured_speedup);
  check["predicted_ceiling"] = FigureJson(diff.speedup_check.predicted_ceiling);
  out["speedup_check"] = std::move(check);
  Json only_before = Json::array();
  for (const DiffKernel& k : diff.only_before) only_before.push_back(KernelJson(k, true, false));
  Json only_after = Json::array();
  for (const DiffKernel& k : diff.only_after) only_after.push_back(KernelJson(k, false, true));
  Json both = Json::array();
  for (const DiffKernel& k : diff.common_kernels) both.push_back(KernelJson(k, true, true));
  Json kernels = Json::object();
  kernels["only_before"] = std::move(only_before);
  kernels["only_after"] = std::move(only_after);
  kernels["both"] = std::move(both);
  kernels["both_left_out"] = diff.common_kernels_left_out;
  out["top_kernels"] = std::move(kernels);
  // ASCII-only like the other JSON outputs; bytes that are not UTF-8 become U+FFFD instead of
  // making nlohmann throw.
  return out.dump(2, ' ', true, Json::error_handler_t::replace) + "\n";
}

}  // namespace decodeprof::report
