// decodeprof::report — the writers that turn analysis results into files and text: summary
// JSON, kernel/dispatch CSV, Markdown, ... (style 7.1). Writers depend on base and
// analysis; they never read traces (io) and the analysis never knows about them.
//
// This header: the Markdown report of `decodeprof report DIR` (seed spec 2.11), built from
// the summaries that `summarize` wrote.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/report/do_first.h"
#include "src/report/summary_reader.h"

namespace decodeprof::report {

// The seed's ceiling_cell (seed spec 2.9): wall = plain_ceiling_wall_est when present, else
// ceiling_wall; gpu = ceiling_gpu_share. Both absent → "-"; otherwise
// "<wall:.2f> (<gpu:.2f>)" with an absent side printed "-", e.g. "1.50 (1.42)", "1.60 (-)".
// `none` replaces "-" for writers that spell "no value" otherwise (the HTML page: kNoValue).
std::string CeilingCell(std::optional<double> plain_ceiling_wall_est,
                        std::optional<double> ceiling_wall, std::optional<double> ceiling_gpu_share,
                        std::string_view none = "-");

// "## Runs by model and setting" and a table | model | setting | runs | names | with one row
// per group of GroupRuns (run_set.h): model_type ("no model" without one), the setting, the
// count and the runs' labels, " (synthetic)" after those whose `workload` says so and
// kTrustMark after a flagged one's; then a blank line. "" for a report of fewer than two runs.
std::string RenderRunGroupsMarkdown(const std::vector<SummaryFile>& summaries);

// The Markdown report of `decodeprof report`: the "Do first" section (do_first.h: at most
// `do_first` ranked units, the legend, the trust flags, the unit key), the runs by model and
// setting (RenderRunGroupsMarkdown), the speed-of-light section of the runs that have one
// (RenderSpeedOfLightMarkdown, speed_of_light_render.h; nothing without) and the heading "## Runs,
// units and top kernels", then RenderSeedMarkdownReport unchanged. `do_first` = 0 leaves out the
// sections and the heading: the seed's report exactly.
std::string RenderMarkdownReport(const std::vector<SummaryFile>& summaries,
                                 size_t do_first = kDoFirstUnits);

// The seed's report of spec 2.11 for `summaries` (in the given order, normally
// ReadSummaries'): lines joined with "\n" plus a final "\n".
//   1. runs: | Run | plain tok/s | profiled tok/s | profiler cost | dispatches/token |
//      GPU ms/token | host gap ms/token | host gap % |
//   2. unit shares: "<reached_default_share_pct> (<fallback_share_pct>)" per unit;
//   3. ceilings: row `<name>` (plain | profiled | summary predates #2148), CeilingCell of
//      each unit's fallback-set ceilings;
//   4. per run, its top kernels as "- `<ShortKernelName>` <share_pct>%, <calls_per_token>".
// Values are Python's str() of the stored JSON values (PyStr); a missing field reads as
// null ("None"); plain tok/s prints "-" when null or 0, profiler cost "-" when null.
// Unit columns (headers "#<id>"): the ids of the first summary's `port_units` in their
// order, then ids that only later summaries have, in order of first appearance; a summary
// without a unit gets "-" in that column. Summaries written before #2148 (no ceiling
// fields) are accepted: basis "summary predates #2148", cells "-". The fields' types were
// checked by ParseSummary (summary_validation.h); the report itself cannot fail.
std::string RenderSeedMarkdownReport(const std::vector<SummaryFile>& summaries);

}  // namespace decodeprof::report
