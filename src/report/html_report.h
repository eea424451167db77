// `decodeprof report --format html DIR`: one self-contained HTML5 page over the summaries
// that `summarize` wrote — inline CSS, no JavaScript, no external resources, the same bytes
// for the same input.
//
// The page holds:
//   0. a title, then the "Do first" section (do_first.h, RenderDoFirstHtml: the same content
//      as the Markdown report's), unless `do_first` is 0;
//   1. a table with one row per run (in the given order): name, plain and
//      profiled decode ms/token, GPU busy and host gap ms/token, dispatches/token — the
//      fields and fallbacks of `report --full`'s "Decode time per token" (full_report.h); a
//      run with trust flags has the trust mark after its name (TrustMarkHtml);
//   2. per run, a section with
//      a. the decode wall per token as one stacked bar (an inline SVG, html_plots.h), the
//         segments left to right: each work unit in the run's rank order (RankedUnits,
//         summary_reader.h) with the GPU time of its fallback set, fallback_share_pct
//         (clamped to [0, 100]) of gpu_ms_per_token — where the units' shares add up to more
//         than 100 %, a unit gets only what the units before it left; then the GPU busy time
//         outside every unit; then the host gap (host_gap_ms_per_token). Widths are in
//         proportion to ms/token and sum to the bar's width; each segment's <title> gives its
//         ms/token and shares, the legend its ms and % of the wall. A line under it gives GPU
//         busy + host gap, marks the run launch-bound when the host gap is more than half of
//         the wall, and names the units without GPU time in the run. No bar (a note instead)
//         when either figure is absent or negative, or their sum is not positive;
//      b. "GPU busy over the decode window": the run's DispatchTimeline (dispatch_timeline.h)
//         as a timeline of kTimelineBins bins (BusyTimelineSvg) with a line on its span, bins
//         and overall busy fraction; instead, one line: when the run has no timeline (no
//         `<name>_decode_dispatches.csv`, DispatchCsvPathFor), when its row count differs from
//         the summary's decode_dispatches (the table of another run), or when its span is 0;
//      c. the run's work units in its rank order (RankedUnits: by wall
//         ceiling, largest first — plain_ceiling_wall_est, else ceiling_wall; units without
//         either come last; ties keep port_units order): the unit, its work item (`port`), a
//         bar of its GPU share (fallback_share_pct clamped to [0, 100]) with the share
//         printed, and its CeilingCell (markdown_report.h); left out when the run has no units;
//      d. its top kernels: a bar chart of share_pct (BarChartSvg; scale: the smallest of 10,
//         20, 25, 50, 100 % that holds the largest share) labelled with KernelLabel
//         (short_name.h; kernels that share a label get their ShortKernelName instead, and
//         " (2)", " (3)", ... when those are equal too), the full name, share, calls/token and
//         class on hover; then a table: rank, ShortKernelName (the full name as its title),
//         `class`, share_pct, calls_per_token.
//   3. the rank tables of multi-rank runs (rank_table.h), when a summary has a `rank`.
// Stored values print as Python's str() (PyStr), kNoValue ("n/a") when absent or null; derived
// values as in full_report.h (rounded to 4 decimals). Every text taken from a summary is
// HTML-escaped (HtmlEscape).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/report/dispatch_timeline.h"
#include "src/report/do_first.h"
#include "src/report/summary_reader.h"

namespace decodeprof::report {

// `text` with & < > " ' replaced by &amp; &lt; &gt; &quot; &#39; (safe in element content and
// in quoted attribute values). Other bytes are kept as they are.
std::string HtmlEscape(std::string_view text);

// The HTML page described above, ending in "\n". The fields' types were checked by
// ParseSummary (summary_validation.h); the page itself cannot fail.
// Every run without a timeline.
std::string RenderHtmlReport(const std::vector<SummaryFile>& summaries,
                             size_t do_first = kDoFirstUnits);

// `timelines[i]` is the timeline of `summaries[i]` (nullopt, or missing at the end: none).
std::string RenderHtmlReport(const std::vector<SummaryFile>& summaries,
                             const std::vector<std::optional<DispatchTimeline>>& timelines,
                             size_t do_first = kDoFirstUnits);

}  // namespace decodeprof::report
