// The rank table of `decodeprof report`: for the summaries of a multi-rank run (those with a
// `rank` object, docs/multi-gpu.md), one table per run with one row per rank.
//
// Runs are the groups of summaries with the same rank.group (`summarize --ranks`' --name),
// else the same rank.run_id (the recorder's), in order of first appearance; ranks in a run by
// rank number. Columns, each the stored value as Python's str() (PyStr), kNoValue when absent
// or null:
//   rank            rank.rank
//   run             the summary's name
//   device          device
//   GPU busy ms/token, host gap ms/token   gpu_ms_per_token, host_gap_ms_per_token
//   collectives     collectives.count
//   collective ms/token, collective % of wall   collectives.total_ms_per_token, .pct_of_wall
//   wait ms/token   collectives.wait_ms_per_token: the rank's wait for the slowest rank
//   transfer ms/token   collectives.transfer_ms_per_token
// Under each table one line: which rank the others wait for (collectives.slowest_rank of the
// first rank), that the ranks' collective counts differ (collectives.matched false), or that
// the summaries carry no cross-rank figures (no `collectives`: summarized one by one).
#pragma once

#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/report/summary_reader.h"

namespace decodeprof::report {

struct RankTable {
  std::string run;                             // rank.group, else rank.run_id, else ""
  std::vector<std::vector<std::string>> rows;  // cells as above, not escaped
  std::string note;                            // the line under the table
};

// The column headers, in order.
const std::vector<std::string>& RankTableHeader();

// The tables of `summaries`; empty when none has a `rank`. Errors (kData, where = the later
// summary's path): a rank twice in one run ("rank 1 of run `tp` again (also <path>)"),
// world sizes that differ within a run.
base::StatusOr<std::vector<RankTable>> BuildRankTables(const std::vector<SummaryFile>& summaries);

// "" without tables; else "\n## Ranks\n" and per run a blank line, "Run `<run>`:", a blank
// line, the Markdown table, a blank line and the note; lines joined by "\n" plus a final "\n".
std::string RenderRankTablesMarkdown(const std::vector<RankTable>& tables);

// "" without tables; else a <section> with an <h2>Ranks</h2> and per run a table and the note
// (every text HTML-escaped).
std::string RenderRankTablesHtml(const std::vector<RankTable>& tables);

}  // namespace decodeprof::report
