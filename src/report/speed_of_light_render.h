// Printing the speed-of-light section (speed_of_light_section.h) in `summarize`'s terminal
// lines, `report`'s Markdown and JSON, and the context sweeps of a report over several runs
// (docs/speed-of-light.md, "Reading the speed-of-light figures"). A run without the section
// prints nothing here: summaries written before it existed give the same output as before.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "src/analysis/speed_of_light_types.h"
#include "src/base/json_writer.h"
#include "src/report/speed_of_light_section.h"
#include "src/report/summary_reader.h"

namespace decodeprof::report {

// The ledger `summarize` computed (analysis/speed_of_light_types.h) as the section its summary
// holds: the same members, rounded as summary_json.cc writes them (ms to 4 places, GB/s to 1,
// percentages to 2, speedups to 3, the context to 1), so that the terminal lines print what
// the summary says.
SpeedOfLightSection SpeedOfLightSectionOf(const analysis::SpeedOfLight& ledger);

// The lines `summarize` prints after its per-token line (every line starts with two spaces
// and ends with "\n"):
//   "  speed of light: <SpeedOfLightHeadline>"
//   "  above the floor: (excess ms/token over the unit's floor; the decode's speedup if it ran
//   at its floor)" and up to `top` units with an excess above 0, largest first:
//   "    #gemv  5.300 ms/token, floor 3.100, excess 2.200  1.53x"
//   "  bandwidth by class: gemv 2745.1 GB/s (57.2 % of peak), ..." (classes with a figure).
// "" when the section has neither wall nor floor.
std::string SpeedOfLightTerminalText(const SpeedOfLightSection& section, size_t top = 5);

// The runs of one model whose speed-of-light context differs: `runs` (indices into the
// summaries) sorted by context_tokens ascending, then given order.
struct ContextSweep {
  std::string model;  // speed_of_light.model, else model_type, else ""
  std::vector<size_t> runs;
};

// Every model with at least two runs that carry speed_of_light with context_tokens and
// differ in it, in the order of each model's first run.
std::vector<ContextSweep> ContextSweeps(const std::vector<SummaryFile>& summaries);

// `report`'s Markdown section, "" when no run has speed_of_light:
//   "## Speed of light\n\n" and a one-line legend; per run with the section:
//   "### `<label>`", the headline, the model line (model, architecture, weight format,
//   context and its source), the decomposition line, a table of units
//   | unit | ms/token | floor ms/token | excess ms/token | to the floor | (UnitsByExcess
//   order), a table of classes | class | moves | GB/token | ms/token | floor ms/token |
//   GB/s | % of peak |, the notes as a list; then per ContextSweep a table
//   "### Floor vs context: <model>" | run | context tokens | KV bytes/token | floor ms/token |
//   wall ms/token | MBU % |. Ends with a blank line.
std::string RenderSpeedOfLightMarkdown(const std::vector<SummaryFile>& summaries);

// One run's figures for `report --format json` (runs[i].speed_of_light): model,
// context_tokens, bytes_per_token, kv_bytes_per_token, peak_bandwidth_gbps, peak_source,
// floor_ms_per_token, wall_ms_per_token, achieved_gbps, mbu_pct, to_the_floor (null when
// absent) and "units": [{"unit", "ms_per_token", "floor_ms_per_token", "excess_ms_per_token",
// "ceiling_to_floor"}] in UnitsByExcess order.
base::JsonValue SpeedOfLightRunJson(const SpeedOfLightSection& section);

// The report's sweeps as JSON: [{"model", "runs": [{"run" (label), "context_tokens",
// "kv_bytes_per_token", "floor_ms_per_token", "wall_ms_per_token", "mbu_pct"}]}].
base::JsonValue ContextSweepsJson(const std::vector<SummaryFile>& summaries);

}  // namespace decodeprof::report
