// The "Do first" section that opens `decodeprof report` (Markdown and HTML, issue 13): the
// work units of every run ranked ONCE across all runs of the report, the legend of the
// ceilings, the trust flags of the runs and the key of the unit columns.
//
// Ranking across runs. A unit's figure in one run is the analysis ranking's
// (analysis/ranking.h, read back by RankedUnits): the fallback set's plain_ceiling_wall_est,
// else its ceiling_wall. Several runs combine so:
//   * the runs a unit reaches are those whose shipped defaults reach some of its work:
//     reached_default_dispatches_per_token, reached_default_host_gap_ms_per_token or
//     reached_default_share_pct positive (a unit whose entry has none of these fields counts
//     as reached);
//   * its ceiling is the largest figure over the runs it reaches that are not left out of the
//     headline (LeftOutOfHeadline: a synthetic workload, run_set.h, or a run with any trust
//     flag); over the left-out ones when every run it reaches is one (the unit is then
//     marked); over every run that holds it when no run reaches it;
//   * units that some run reaches come first, then by that ceiling, largest first (units
//     without any ceiling after those with one), ties by the GPU share (fallback_share_pct)
//     in the run the ceiling comes from, then in the units file's order (UnitColumns);
//   * the section lists the first `top` units whose ceiling is above 1.00 (or, without a
//     ceiling, whose GPU share is positive) and comes from a run of the headline, and names
//     the others in one line (a unit worth listing whose ceiling comes from a left-out run
//     marked "(left-out runs)"): a synthetic or flagged run never heads the list. When every
//     run is left out, the list is the same ranking over them, as bullets, marked
//     provisional;
//   * a line before the list says which runs are left out and why (synthetic, or the label
//     of their first flag), with counts and at most kNamedRuns names each.
// Runs are named by their labels (run_set.h); where the section names the runs a unit
// reaches or a flag flags, it names at most kNamedRuns and counts the rest.
//
// Trust flags (at most one per kind and run, TrustFlags): plain run slower than profiled
// (profiler cost below -kPlainSlowerNoisePct), profiler cost above kProfilerCostFlagPct,
// fewer than kMinGeneratedTokens generated tokens, no token count, kernels straddling
// decode_start, a host-gap attribution residual, the summary's warnings and its diagnostics
// of warning severity, records lost (diagnostics of data-loss or error severity). The section
// lists them by kind, each with the runs it flags (and their figures), the reason and the
// fix; a flagged run carries kTrustMark next to its name wherever the section names it.
//
// "No value" is spelled kNoValue (markdown_table.h) in everything this section prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/ranking.h"
#include "src/report/summary_reader.h"
#include "src/trace/diagnostics.h"

namespace decodeprof::report {

// A profiler cost (profiler_decode_slowdown_pct) above this is flagged.
inline constexpr double kProfilerCostFlagPct = 25.0;
// A profiler cost below minus this is flagged (plain run slower than profiled); a smaller
// negative cost is run-to-run noise of one plain and one profiled process, and every writer
// that prints it says so (full_report.h).
inline constexpr double kPlainSlowerNoisePct = 5.0;
// Plain runs whose decode tok/s spread ((fastest − slowest) / median) exceeds this are flagged.
inline constexpr double kPlainSpreadFlagPct = 10.0;
// A run with fewer generated tokens than this is flagged.
inline constexpr int64_t kMinGeneratedTokens = 16;
// The units the section lists unless told otherwise (`report --do-first N`).
inline constexpr size_t kDoFirstUnits = 5;
// The most runs the section names in one place; the others are counted ("and 36 more").
inline constexpr size_t kNamedRuns = 3;
// The mark of a run with a trust flag, next to its name.
inline constexpr const char* kTrustMark = "⚠";

enum class TrustFlagKind {
  kPlainSlower,        // profiler_decode_slowdown_pct < -kPlainSlowerNoisePct
  kHighProfilerCost,   // profiler_decode_slowdown_pct > kProfilerCostFlagPct
  kNoisyPlainRuns,     // plain_runs.spread_pct > kPlainSpreadFlagPct
  kFewTokens,          // 0 < generated_tokens < kMinGeneratedTokens
  kNoTokenCount,       // generated_tokens absent, null or 0
  kStraddlingKernels,  // checks.kernels_straddling_decode_start > 0
  kGapResidual,        // checks.host_gap_attribution_residual_ns != 0
  kWarnings,           // `warnings`, diagnostics of warning severity
  kRecordsLost,        // diagnostics of data-loss (or error) severity
};

// The flag's code in the one diagnostics list (trace/diagnostics_list.h: severity, meaning,
// docs): a code of source report for the five flags that no summary diagnostic stands for
// (plain_slower, high_profiler_cost, noisy_plain_runs, few_tokens, no_token_count), the
// diagnostic the flag reads for kStraddlingKernels and kGapResidual (straddling_decode_start,
// host_gap_residual); none for kWarnings and kRecordsLost, which gather every code of warning
// and of data-loss or error severity.
std::optional<trace::Diag> TrustFlagCode(TrustFlagKind kind);

struct TrustFlag {
  TrustFlagKind kind;
  std::string label;   // a few words, the same for every run: "plain run slower than profiled"
  std::string detail;  // this run's figures: "profiler cost -40.66 %"
  std::string reason;  // why it matters (the same for every run of the kind)
  std::string fix;     // what to do about it (idem); `backticks` mark code
  bool doubts_ceilings = false;  // the run's ceilings are in doubt (the ranking avoids the run)
  bool operator==(const TrustFlag&) const = default;
};

// The run's trust flags, in TrustFlagKind order; none for a clean run. Doubting the
// ceilings: plain slower, few tokens, no token count, straddling kernels, gap residual,
// records lost; not: a high profiler cost (the plain-wall ceilings re-scale it away) and
// warnings (the figures stand).
std::vector<TrustFlag> TrustFlags(const SummaryFile& summary);

// Some flag of `flags` doubts the run's ceilings.
bool DoubtsCeilings(const std::vector<TrustFlag>& flags);

// The run never sets a headline ceiling: it is a synthetic workload (SyntheticEvidence,
// run_set.h) or `flags` (its TrustFlags) is not empty.
bool LeftOutOfHeadline(const SummaryFile& summary, const std::vector<TrustFlag>& flags);

// One unit of the cross-run ranking.
struct CrossRunUnit {
  std::string id;
  std::string port;                // its work item (`port`), from the first run that names it
  std::vector<size_t> holding;     // the runs (indices into the summaries) whose port_units hold it
  std::vector<size_t> reached;     // of those, the runs it reaches
  std::optional<size_t> best_run;  // the run its ceiling comes from
  std::optional<double> ceiling;   // the analysis ranking's figure in best_run
  // Its lowest and highest value over best_run's fastest and slowest plain run (the spread of
  // several plain runs), when the summary gives it.
  std::optional<std::pair<double, double>> ceiling_range;
  analysis::RankFigure by = analysis::RankFigure::kCeilingWall;
  std::optional<double> gpu_share;  // fallback_share_pct in best_run
  bool flagged_only = false;        // every run it reaches is left out of the headline
};

// Every unit of `summaries`, ranked across the runs as described above. `flags` holds the
// runs' trust flags, one entry per summary (TrustFlags); a run without an entry counts as
// unflagged.
std::vector<CrossRunUnit> RankUnitsAcrossRuns(const std::vector<SummaryFile>& summaries,
                                              const std::vector<std::vector<TrustFlag>>& flags);

// The unit of the section's list: a ceiling above 1.00, or no ceiling and a positive share.
bool WorthListing(const CrossRunUnit& unit);

// The section's ranking as data (`report --format json`).
struct DoFirstRanking {
  std::vector<std::vector<TrustFlag>> flags;          // per run
  std::vector<std::optional<std::string>> synthetic;  // per run: SyntheticEvidence
  std::vector<bool> left_out;                         // per run: LeftOutOfHeadline
  std::vector<CrossRunUnit> units;                    // every unit, ranked
  std::vector<size_t> listed;                         // indices into units: the list
  bool provisional = false;                           // every run is left out
};
DoFirstRanking RankForReport(const std::vector<SummaryFile>& summaries, size_t top);

// The evidence sentence of `unit_id` in `run` (its GPU share, the host gap it owns, and why
// its wall ceiling is large when its GPU share is small), without a final period.
std::string UnitEvidence(const SummaryFile& run, const std::string& unit_id);

// The section in Markdown: "## Do first", the ranked units (at most `top`), the legend, the
// trust flags and the unit key, then a blank line. The caller prints the seed's tables after
// it.
std::string RenderDoFirstMarkdown(const std::vector<SummaryFile>& summaries, size_t top);

// The same content as HTML (<section id="do-first">...</section>), for the top of the page.
std::string RenderDoFirstHtml(const std::vector<SummaryFile>& summaries, size_t top);

// Next to a run's name in the HTML run table: " <span ...>⚠</span>" with the flags' labels as
// its title; "" for a run without flags.
std::string TrustMarkHtml(const SummaryFile& summary);

}  // namespace decodeprof::report
