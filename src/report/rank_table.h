// The rank table of `decodeprof report`: for the summaries of a multi-rank run (those with a
// `rank` object, docs/multi-gpu.md), one table per run with one row per rank.
//
// Which ranks are real. A summary's `rank` object says which process of a torch.distributed
// job it is, but a trace's rank alone does not make several summaries one multi-rank run
// (every process of a one-GPU engine is "rank 0", and so is the first process of each
// tensor-parallel run). Summaries are ranks of one run, and get a table, when the evidence
// says so:
//   * the same non-empty rank.run_id (the recorder's id of the job, `decodeprof record
//     --follow-fork`) and the same rank.group (`summarize --ranks`' --name): one table per
//     (group, run_id), whatever its size; a rank twice or two world sizes in one such run is
//     contradictory data (an error);
//   * without a run id (torch.profiler's distributedInfo gives rank and world_size only): the
//     summaries of one rank.group (else those without one) and one world_size above 1, when
//     they are at least two and no rank repeats, are taken as the ranks of one job.
// Every other summary with a `rank` (a world of 1; a lone rank of a larger world; ranks that
// repeat without a run id: separate runs) stays a run of its own, and the section says so in
// one note per kind, naming the runs.
// Runs come in order of first appearance; ranks in a run by rank number; a run is named by
// rank.group, else rank.run_id, else "world of <W>". Columns, each the stored value as Python's
// str() (PyStr), kNoValue when absent or null:
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

struct RankTables {
  std::vector<RankTable> tables;
  // The summaries with a `rank` that no table holds, one line per kind (see above).
  std::vector<std::string> notes;
};

// The tables of `summaries`; empty when none has a `rank`. Errors (kData, where = the later
// summary's path), only for runs with a run id: a rank twice in one run ("rank 1 of run `tp`
// again (also <path>)"), world sizes that differ within a run.
base::StatusOr<RankTables> BuildRankTables(const std::vector<SummaryFile>& summaries);

// "" without tables and notes; else "\n## Ranks\n" and per run a blank line, "Run
// `<run>`:", a blank line, the Markdown table, a blank line and the note; then a blank line
// and the notes, each a line "- <note>"; lines joined by "\n" plus a final "\n".
std::string RenderRankTablesMarkdown(const RankTables& tables);

// "" without tables and notes; else a <section> with an <h2>Ranks</h2>, per run a table and
// its note, then the notes (every text HTML-escaped).
std::string RenderRankTablesHtml(const RankTables& tables);

}  // namespace decodeprof::report
