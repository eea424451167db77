// `decodeprof report --format html DIR`: one self-contained HTML5 page over the summaries
// that `summarize` wrote — inline CSS, no JavaScript, no external resources, the same bytes
// for the same input.
//
// The page holds:
//   1. a title and a table with one row per run (in the given order): name, plain and
//      profiled decode ms/token, GPU busy and host gap ms/token, dispatches/token — the
//      fields and fallbacks of `report --full`'s "Decode time per token" (full_report.h);
//   2. per run, a section with
//      a. a horizontal stacked bar of the decode wall: GPU busy (gpu_ms_per_token) next to
//         host gap (host_gap_ms_per_token), each a <div> whose width is its share of the sum
//         in % with 2 decimals ("width:12.30%"); no bar (a note instead) when either is
//         absent or negative, or their sum is not positive; the legend marks the run
//         launch-bound when the host gap is more than half of the sum;
//      b. the run's work units in its rank order (RankedUnits, summary_reader.h: by wall
//         ceiling, largest first — plain_ceiling_wall_est, else ceiling_wall; units without
//         either come last; ties keep port_units order): the unit, its work item (`port`), a
//         bar of its GPU share (fallback_share_pct clamped to [0, 100]) with the share
//         printed, and its CeilingCell (markdown_report.h); left out when the run has no units;
//      c. its top kernels: rank, ShortKernelName, `class`, share_pct, calls_per_token.
// Stored values print as Python's str() (PyStr), "-" when absent or null; derived values as
// in full_report.h (rounded to 4 decimals). Every text taken from a summary is HTML-escaped
// (HtmlEscape).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/report/summary_reader.h"

namespace decodeprof::report {

// `text` with & < > " ' replaced by &amp; &lt; &gt; &quot; &#39; (safe in element content and
// in quoted attribute values). Other bytes are kept as they are.
std::string HtmlEscape(std::string_view text);

// The HTML page described above, ending in "\n". The fields' types were checked by
// ParseSummary (summary_validation.h); the page itself cannot fail.
std::string RenderHtmlReport(const std::vector<SummaryFile>& summaries);

}  // namespace decodeprof::report
