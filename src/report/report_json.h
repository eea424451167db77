// `decodeprof report --format json`: one JSON object with the report's runs (labels, groups,
// synthetic evidence, trust flags, whether each sets the headline), the "Do first" ranking,
// the rank tables and the summaries themselves (docs/user-guide.md, "report --format json").
//
//   {
//     "report_version": 2,
//     "runs": [{"label", "name", "path", "model", "setting", "synthetic" (the evidence, or
//               null), "flags": [{"kind", "label", "detail", "doubts_ceilings"}],
//               "headline" (false: left out), "left_out_because" (list of strings),
//               "speed_of_light" (only for a run whose summary has the section:
//               SpeedOfLightRunJson, speed_of_light_render.h)}],
//     "groups": [{"model" (null without one), "setting", "runs": [label, ...]}],
//     "do_first": {"provisional", "listed": [unit], "others": [unit]}, each unit
//               {"unit", "port", "ceiling", "by" (the summary field: plain_ceiling_wall_est or
//               ceiling_wall), "ceiling_range", "run" (label of the run it comes from, or
//               null), "gpu_share_pct", "reached_runs", "holding_runs", "left_out_only"},
//     "ranks": {"tables": [{"run", "ranks": [label, ...], "note"}], "notes": [...]},
//     "context_sweeps": [...] (only when a model's runs differ in context: ContextSweepsJson),
//     "summaries": [<each summary's content, as in report_version 1's array>]
//   }
// Version 1 (before) printed the summaries' array alone: its elements are "summaries" now.
// Written as Python's json.dumps(obj, indent=2) plus a newline, like the summaries.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "src/report/rank_table.h"
#include "src/report/summary_reader.h"

namespace decodeprof::report {

inline constexpr int kReportJsonVersion = 2;

// The object above; `top` is the length of the Do-first list (`--do-first`).
std::string RenderReportJson(const std::vector<SummaryFile>& summaries, const RankTables& ranks,
                             size_t top);

}  // namespace decodeprof::report
