#include "src/report/report_json.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "src/base/json_writer.h"
#include "src/report/do_first.h"
#include "src/report/run_set.h"
#include "src/report/speed_of_light_render.h"
#include "src/report/summary_json.h"
#include "src/report/summary_view.h"

namespace decodeprof::report {
namespace {

using base::JsonValue;

// The kind's name in the JSON: its code in the diagnostics list where it has one of its own
// (source report), else a name of the kind.
std::string KindName(TrustFlagKind kind) {
  if (const std::optional<trace::Diag> code = TrustFlagCode(kind);
      code && trace::Describe(*code).source == trace::DiagSource::kReport) {
    return std::string(trace::Describe(*code).name);
  }
  switch (kind) {
    case TrustFlagKind::kStraddlingKernels:
      return "straddling_kernels";
    case TrustFlagKind::kGapResidual:
      return "gap_residual";
    case TrustFlagKind::kWarnings:
      return "warnings";
    case TrustFlagKind::kRecordsLost:
      return "records_lost";
    case TrustFlagKind::kPlainSlower:
    case TrustFlagKind::kHighProfilerCost:
    case TrustFlagKind::kNoisyPlainRuns:
    case TrustFlagKind::kFewTokens:
    case TrustFlagKind::kNoTokenCount:
      break;  // a code of the list (above)
  }
  return "";
}

JsonValue UnitJson(const std::vector<SummaryFile>& summaries, const DoFirstRanking& ranking,
                   const CrossRunUnit& unit) {
  JsonValue out = JsonValue::MakeObject();
  out.Add("unit", JsonValue::Str(unit.id));
  out.Add("port", JsonValue::Str(unit.port));
  out.Add("ceiling", JsonValue::OptFloat(unit.ceiling));
  out.Add("by",
          unit.ceiling ? JsonValue::Str(std::string(RankFigureField(unit.by))) : JsonValue::Null());
  if (unit.ceiling_range) {
    JsonValue& range = out.Add("ceiling_range", JsonValue::MakeArray());
    range.Push(JsonValue::Float(unit.ceiling_range->first));
    range.Push(JsonValue::Float(unit.ceiling_range->second));
  } else {
    out.Add("ceiling_range", JsonValue::Null());
  }
  out.Add("run",
          unit.best_run ? JsonValue::Str(LabelOf(summaries[*unit.best_run])) : JsonValue::Null());
  out.Add("gpu_share_pct", JsonValue::OptFloat(unit.gpu_share));
  out.Add("reached_runs", JsonValue::Int(static_cast<int64_t>(unit.reached.size())));
  out.Add("holding_runs", JsonValue::Int(static_cast<int64_t>(unit.holding.size())));
  out.Add("left_out_only",
          JsonValue::Bool(unit.best_run.has_value() && ranking.left_out[*unit.best_run]));
  return out;
}

}  // namespace

std::string RenderReportJson(const std::vector<SummaryFile>& summaries, const RankTables& ranks,
                             size_t top) {
  const DoFirstRanking ranking = RankForReport(summaries, top);
  JsonValue doc = JsonValue::MakeObject();
  doc.Add("report_version", JsonValue::Int(kReportJsonVersion));

  JsonValue& runs = doc.Add("runs", JsonValue::MakeArray());
  for (size_t r = 0; r < summaries.size(); ++r) {
    const SummaryFile& summary = summaries[r];
    JsonValue& run = runs.Push(JsonValue::MakeObject());
    run.Add("label", JsonValue::Str(LabelOf(summary)));
    const RunView fields(summary);
    run.Add("name", JsonValueOf(fields.name().json()));
    run.Add("path", JsonValue::Str(summary.path));
    run.Add("model", JsonValue::OptStr(fields.model_type().get()));
    run.Add("setting", JsonValue::Str(SettingOf(summary)));
    run.Add("synthetic", JsonValue::OptStr(ranking.synthetic[r]));
    JsonValue& flags = run.Add("flags", JsonValue::MakeArray());
    JsonValue because = JsonValue::MakeArray();
    if (ranking.synthetic[r]) because.Push(JsonValue::Str("synthetic workload"));
    for (const TrustFlag& flag : ranking.flags[r]) {
      JsonValue& f = flags.Push(JsonValue::MakeObject());
      f.Add("kind", JsonValue::Str(KindName(flag.kind)));
      f.Add("label", JsonValue::Str(flag.label));
      f.Add("detail", JsonValue::Str(flag.detail));
      f.Add("doubts_ceilings", JsonValue::Bool(flag.doubts_ceilings));
      because.Push(JsonValue::Str(flag.label));
    }
    run.Add("headline", JsonValue::Bool(!ranking.left_out[r]));
    run.Add("left_out_because", std::move(because));
    // Only for runs that carry it: the report of older summaries stays as it was.
    if (summary.speed_of_light) {
      run.Add("speed_of_light", SpeedOfLightRunJson(*summary.speed_of_light));
    }
  }

  JsonValue& groups = doc.Add("groups", JsonValue::MakeArray());
  for (const RunGroup& group : GroupRuns(summaries)) {
    JsonValue& g = groups.Push(JsonValue::MakeObject());
    g.Add("model", group.model.empty() ? JsonValue::Null() : JsonValue::Str(group.model));
    g.Add("setting", JsonValue::Str(group.setting));
    JsonValue& labels = g.Add("runs", JsonValue::MakeArray());
    for (const size_t r : group.runs) labels.Push(JsonValue::Str(LabelOf(summaries[r])));
  }

  JsonValue& do_first = doc.Add("do_first", JsonValue::MakeObject());
  do_first.Add("provisional", JsonValue::Bool(ranking.provisional));
  // Built apart and added whole: a reference into an object does not survive its next Add.
  JsonValue listed = JsonValue::MakeArray();
  JsonValue others = JsonValue::MakeArray();
  for (size_t i = 0; i < ranking.units.size(); ++i) {
    bool in_list = false;
    for (const size_t l : ranking.listed) in_list = in_list || l == i;
    (in_list ? listed : others).Push(UnitJson(summaries, ranking, ranking.units[i]));
  }
  do_first.Add("listed", std::move(listed));
  do_first.Add("others", std::move(others));

  JsonValue& rank = doc.Add("ranks", JsonValue::MakeObject());
  JsonValue& tables = rank.Add("tables", JsonValue::MakeArray());
  for (const RankTable& table : ranks.tables) {
    JsonValue& t = tables.Push(JsonValue::MakeObject());
    t.Add("run", JsonValue::Str(table.run));
    JsonValue& labels = t.Add("ranks", JsonValue::MakeArray());
    for (const std::vector<std::string>& row : table.rows) labels.Push(JsonValue::Str(row[1]));
    t.Add("note", JsonValue::Str(table.note));
  }
  JsonValue& notes = rank.Add("notes", JsonValue::MakeArray());
  for (const std::string& note : ranks.notes) notes.Push(JsonValue::Str(note));

  if (!ContextSweeps(summaries).empty()) doc.Add("context_sweeps", ContextSweepsJson(summaries));

  JsonValue& contents = doc.Add("summaries", JsonValue::MakeArray());
  for (const SummaryFile& summary : summaries) contents.Push(JsonValueOf(summary.content));
  return doc.Dump() + "\n";
}

}  // namespace decodeprof::report
