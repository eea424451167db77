#include "src/report/markdown_report.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/py_format.h"
#include "src/report/markdown_table.h"
#include "src/report/run_set.h"
#include "src/report/short_name.h"
#include "src/report/speed_of_light_render.h"
#include "src/report/summary_view.h"

namespace decodeprof::report {
namespace {

using Json = nlohmann::ordered_json;

std::string UnitHeader(std::string_view first_cell, const std::vector<std::string>& unit_ids) {
  std::string header = "| " + std::string(first_cell) + " |";
  for (const std::string& id : unit_ids) header += " #" + id + " |";
  return header;
}

std::string RunRow(const SummaryFile& summary) {
  const RunView s(summary);
  const Json& plain = s.plain_decode_tok_s().json();
  const Json& cost = s.profiler_decode_slowdown_pct().json();
  return MarkdownRow({RunLabel(summary), IsTruthy(plain) ? PyStr(plain) : "-",
                      s.profiled_decode_tok_s().Str(), cost.is_null() ? "-" : PyStr(cost) + "%",
                      s.dispatches_per_token().Str(), s.gpu_ms_per_token().Str(),
                      s.host_gap_ms_per_token().Str(), s.host_gap_pct_of_wall().Str()});
}

std::string ShareRow(const SummaryFile& summary, const std::vector<std::string>& unit_ids) {
  const RunView s(summary);
  std::vector<std::string> cells = {RunLabel(summary)};
  for (const std::string& id : unit_ids) {
    const UnitView unit = s.Unit(id);
    cells.push_back(unit.json().is_null() ? "-"
                                          : unit.reached_default_share_pct().Str() + " (" +
                                                unit.fallback_share_pct().Str() + ")");
  }
  return MarkdownRow(cells);
}

std::string CeilingRow(const SummaryFile& summary, const std::vector<std::string>& unit_ids) {
  const Json& units = PortUnits(summary);
  bool any_plain = false;
  bool any_profiled = false;
  for (const auto& [id, entry] : units.items()) {
    const UnitView unit(entry);
    any_plain = any_plain || !unit.plain_ceiling_wall_est().is_null();
    any_profiled = any_profiled || !unit.ceiling_wall().is_null();
  }
  const char* basis = any_plain ? "plain" : any_profiled ? "profiled" : "summary predates #2148";
  std::vector<std::string> cells = {RunLabel(summary) + " (" + basis + ")"};
  for (const std::string& id : unit_ids) {
    const UnitView unit = RunView(summary).Unit(id);
    cells.push_back(CeilingCell(unit.plain_ceiling_wall_est().get(), unit.ceiling_wall().get(),
                                unit.ceiling_gpu_share().get()));
  }
  return MarkdownRow(cells);
}

void AppendTopKernels(const SummaryFile& summary, std::vector<std::string>& lines) {
  lines.push_back("");
  lines.push_back("Top kernels, " + RunLabel(summary) +
                  " (share of decode GPU time, calls per token):");
  lines.push_back("");
  for (const TopKernelEntry& e : TopKernelEntries(summary)) {
    const TopKernelView& kernel = e.fields;
    lines.push_back("- `" + ShortKernelName(*e.name) + "` " + kernel.share_pct().Str() + "%, " +
                    kernel.calls_per_token().Str());
  }
}

}  // namespace

std::string CeilingCell(std::optional<double> plain_ceiling_wall_est,
                        std::optional<double> ceiling_wall, std::optional<double> ceiling_gpu_share,
                        std::string_view none) {
  const std::optional<double> wall = plain_ceiling_wall_est ? plain_ceiling_wall_est : ceiling_wall;
  if (!wall && !ceiling_gpu_share) return std::string(none);
  const auto cell = [none](std::optional<double> v) {
    return v ? base::FormatFixed(*v, 2) : std::string(none);
  };
  return cell(wall) + " (" + cell(ceiling_gpu_share) + ")";
}

std::string RenderRunGroupsMarkdown(const std::vector<SummaryFile>& summaries) {
  if (summaries.size() < 2) return "";
  const std::vector<RunGroup> groups = GroupRuns(summaries);
  std::string out =
      "## Runs by model and setting\n\n| model | setting | runs | names |\n|---|---|---:|---|\n";
  for (const RunGroup& group : groups) {
    std::string names;
    for (const size_t r : group.runs) {
      if (!names.empty()) names += ", ";
      names += EscapeCell(RunLabel(summaries[r]));
      if (RunView(summaries[r]).workload().get() == "synthetic") {
        names += " (synthetic)";
      }
      if (!TrustFlags(summaries[r]).empty()) names += std::string(" ") + kTrustMark;
    }
    out += MarkdownRow({group.model.empty() ? "no model" : EscapeCell(group.model),
                        EscapeCell(group.setting), std::to_string(group.runs.size()), names}) +
           "\n";
  }
  return out + "\n";
}

std::string RenderMarkdownReport(const std::vector<SummaryFile>& summaries, size_t do_first) {
  if (do_first == 0) return RenderSeedMarkdownReport(summaries);
  return RenderDoFirstMarkdown(summaries, do_first) + RenderRunGroupsMarkdown(summaries) +
         RenderSpeedOfLightMarkdown(summaries) + "## Runs, units and top kernels\n\n" +
         RenderSeedMarkdownReport(summaries);
}

std::string RenderSeedMarkdownReport(const std::vector<SummaryFile>& summaries) {
  const std::vector<std::string> unit_ids = UnitColumns(summaries);
  std::vector<std::string> lines;
  lines.push_back(
      "| Run | plain tok/s | profiled tok/s | profiler cost | dispatches/token | GPU ms/token | "
      "host gap ms/token | host gap % |");
  lines.push_back(MarkdownAlignmentRow(7));
  for (const SummaryFile& summary : summaries) lines.push_back(RunRow(summary));

  // Runs summarized without work units (a pack with no default units) get no unit tables.
  if (!unit_ids.empty()) {
    lines.push_back("");
    lines.push_back(UnitHeader("Run", unit_ids));
    lines.push_back(MarkdownAlignmentRow(unit_ids.size()));
    for (const SummaryFile& summary : summaries) lines.push_back(ShareRow(summary, unit_ids));

    lines.push_back("");
    lines.push_back(UnitHeader("Run: ceiling wall (GPU share)", unit_ids));
    lines.push_back(MarkdownAlignmentRow(unit_ids.size()));
    for (const SummaryFile& summary : summaries) lines.push_back(CeilingRow(summary, unit_ids));
  }

  for (const SummaryFile& summary : summaries) AppendTopKernels(summary, lines);
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace decodeprof::report
