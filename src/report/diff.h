// `decodeprof diff BEFORE AFTER`: what changed between two runs, read from their
// `<name>_summary.json` files — typically a run before and after an optimization (e.g. the
// decode step captured in a CUDA graph), and whether the measured speedup matches the unit
// ceiling the BEFORE run predicted (seed spec 2.9: `plain_ceiling_wall_est` is "the bound to
// compare a port's measured speedup against").
//
// DiffSummaries compares; RenderDiffMarkdown / RenderDiffJson print the comparison. Values
// are read as the report reads them (summary_reader.h): a field that is absent or null is
// "missing" (printed "-" / null) and never an error, so summaries of older versions and runs
// without a plain (unprofiled) run compare fine.
//
// Figures (all per generated token, like the report's; seed spec 2.4):
//   * a stored figure is the summary's value as is (printed as Python's str());
//   * a derived figure is computed from stored values and rounded to 4 decimals (PyRound);
//   * change = after − before, rounded to 4 decimals; missing when either side is;
//   * ratio = how many times better AFTER is, rounded to 2 decimals: before / after for per-token
//     costs (ms, dispatches), after / before for rates (tok/s); missing unless both sides are
//     > 0. Changes and ratios are computed from the figures as printed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/report/summary_reader.h"

namespace decodeprof::report {

// One figure of one run. `value` is nullopt when the figure is missing; `integer` is set when
// the summary stores an integer (printed without ".0", written to JSON as an integer).
struct DiffFigure {
  std::optional<double> value;
  std::optional<int64_t> integer;
};

// One row of the per-token table.
struct DiffRow {
  std::string key;    // JSON name, e.g. "plain_ms_per_token"
  std::string label;  // Markdown label, e.g. "plain ms/token"
  DiffFigure before;
  DiffFigure after;
  std::optional<double> change;  // after − before
  std::optional<double> ratio;   // speedup of AFTER (see the file comment)
};

// One kernel class: its share of decode GPU time (class_share_pct, %) and the GPU time it
// stands for, share / 100 × decode_gpu_sum_ms / generated_tokens (ms per token, derived;
// window_tokens for a sampled recording, WindowTokens in summary_reader.h). A
// class that a run lacks while that run has class_share_pct counts as 0.0 there (summaries
// list only the classes that ran); without class_share_pct the run's side is missing.
struct DiffClass {
  std::string name;
  DiffFigure before_share_pct;
  DiffFigure after_share_pct;
  DiffFigure before_gpu_ms_per_token;
  DiffFigure after_gpu_ms_per_token;
  std::optional<double> change;  // of GPU ms per token
};

// A unit's fallback set (every dispatch it names) in one run; every figure missing when the
// run lacks the unit.
struct DiffUnitSide {
  bool present = false;
  DiffFigure share_pct;               // fallback_share_pct
  DiffFigure gpu_ms_per_token;        // share / 100 × decode_gpu_sum_ms / generated_tokens
  DiffFigure host_gap_ms_per_token;   // fallback_host_gap_ms_per_token (the gaps it owns)
  DiffFigure plain_ceiling_wall_est;  // speedup bound on the plain run
  DiffFigure ceiling_wall;            // speedup bound on the profiled run
};

struct DiffUnit {
  std::string id;    // port_units key; printed "#<id>"
  std::string port;  // what the unit would build (BEFORE's `port`, else AFTER's; "" if none)
  DiffUnitSide before;
  DiffUnitSide after;
};

// The measured speedup against the ceiling BEFORE predicted for one unit.
//   basis "plain":    measured = plain ms/token before / after, ceiling = BEFORE's
//                     plain_ceiling_wall_est of the unit;
//   basis "profiled": measured = profiled ms/token before / after, ceiling = ceiling_wall —
//                     used when a run has no plain ms/token or BEFORE has no plain ceilings.
// The unit is DiffOptions::unit, else the first unit in BEFORE's rank order (RankedUnits,
// summary_reader.h) that has a ceiling on the basis: on the plain basis that is BEFORE's
// largest plain_ceiling_wall_est (the first in port_units order on ties), and so it is on
// the profiled basis when BEFORE has no plain ceilings (its rank is then by ceiling_wall);
// "" when BEFORE has no unit with such a ceiling.
struct DiffSpeedupCheck {
  std::string unit;
  std::string basis;                       // "plain" or "profiled"
  std::optional<double> measured_speedup;  // rounded to 2 decimals
  DiffFigure predicted_ceiling;
};

// A kernel of a run's top_kernels (matched across runs by its full name).
struct DiffKernel {
  std::string kernel;      // full name as stored
  std::string short_name;  // ShortKernelName(kernel)
  DiffFigure before_share_pct;
  DiffFigure after_share_pct;
  DiffFigure before_calls_per_token;
  DiffFigure after_calls_per_token;
  std::optional<double> share_change;  // percentage points
  std::optional<double> calls_change;
};

// At most this many of the kernels in both top lists are shown for each ranking (see
// SummaryDiff::common_kernels).
inline constexpr size_t kDiffCommonKernelsPerRanking = 5;

// A unit in both runs' speed_of_light.units: its time above its floor before and after.
struct DiffSolUnit {
  std::string id;
  DiffFigure before_excess_ms_per_token;
  DiffFigure after_excess_ms_per_token;
  std::optional<double> change;  // of the excess
  DiffFigure before_ceiling_to_floor;
  DiffFigure after_ceiling_to_floor;
};

// The speed-of-light figures of both runs (speed_of_light_section.h), present when either
// run has the section. `figures` (DiffRow, as the per-token table; a side without the figure
// missing): mbu_pct "MBU %" (ratio after / before), floor_ms_per_token "floor ms/token" (the
// floor moves with the context and the model), wall_ms_per_token "wall ms/token",
// to_the_floor "to the floor (x)", achieved_gbps "achieved GB/s" (after / before),
// context_tokens "context tokens", bytes_per_token "bytes/token", peak_bandwidth_gbps
// "peak GB/s" (the last three without ratio). `units`: the units both runs list, in BEFORE's
// order.
struct DiffSpeedOfLight {
  std::vector<DiffRow> figures;
  std::vector<DiffSolUnit> units;
};

struct SummaryDiff {
  std::string before_path;
  std::string after_path;
  std::string before_name;  // the `name` field as Python's str() prints it
  std::string after_name;
  // plain ms/token (plain_wall_ms_per_token, else 1000 / plain_decode_tok_s), profiled
  // ms/token (decode_wall_ms / generated_tokens, or window_tokens; else
  // 1000 / profiled_decode_tok_s), GPU busy
  // ms/token (gpu_ms_per_token), host gap ms/token (host_gap_ms_per_token), plain gap
  // ms/token (plain_host_gap_ms_per_token_est), dispatches/token (dispatches_per_token),
  // plain tok/s (plain_decode_tok_s; 0 = no plain run = missing), profiled tok/s
  // (profiled_decode_tok_s) — in this order.
  std::vector<DiffRow> per_token;
  // When either run has a speed_of_light section; nullopt otherwise (nothing printed).
  std::optional<DiffSpeedOfLight> speed_of_light;
  // Every class of either run, by |change| descending (missing changes last), then name
  // (bytewise).
  std::vector<DiffClass> classes;
  // Every unit of either run, in UnitColumns order (BEFORE's, then AFTER-only ones).
  std::vector<DiffUnit> units;
  DiffSpeedupCheck speedup_check;
  // Top kernels in one run's top_kernels only, in that list's order (being out of the other
  // run's top list does not mean the kernel did not run there).
  std::vector<DiffKernel> only_before;
  std::vector<DiffKernel> only_after;
  // Kernels in both top lists: the kDiffCommonKernelsPerRanking largest |share change|
  // together with the kDiffCommonKernelsPerRanking largest non-zero |calls change|, ordered
  // by |share change| descending, then |calls change| descending, then short and full name.
  std::vector<DiffKernel> common_kernels;
  size_t common_kernels_left_out = 0;  // kernels in both lists not shown
};

struct DiffOptions {
  // The unit of the speedup check ("#" prefix allowed); empty = the largest ceiling.
  std::string unit;
};

// Compares two parsed summaries (ParseSummary checked their fields, summary_validation.h: a
// file that `report` accepts compares too). Errors: kUsage when options.unit names no unit of
// BEFORE's port_units (the hint lists them).
base::StatusOr<SummaryDiff> DiffSummaries(const SummaryFile& before, const SummaryFile& after,
                                          const DiffOptions& options);

// The default of `diff --fail-on regression`: a figure more than this many % worse fails.
// Above the run-to-run noise of one plain and one profiled process (kPlainSlowerNoisePct, 5 %,
// do_first.h) and at the spread that flags several plain runs (kPlainSpreadFlagPct, 10 %).
inline constexpr double kDefaultRegressionPct = 10.0;

// A figure of AFTER worse than BEFORE's by more than the limit.
struct DiffRegression {
  std::string what;  // "plain ms/token", "#attention GPU ms/token", "kernel `x` calls/token"
  double before = 0.0;
  double after = 0.0;
  double change_pct = 0.0;  // (after − before) / before × 100, rounded to 2 decimals
};

// The figures of `diff` (of `before` and `after`) that got worse by more than `pct` %: every
// per-token row (a cost that rose, a tok/s that fell; both sides present, BEFORE's above 0);
// each unit of both runs: its GPU ms/token and its host gap ms/token; each kernel of both
// top lists: its GPU ms/token (share / 100 × decode_gpu_sum_ms / tokens) and calls/token. In
// that order (units in UnitColumns order, kernels in BEFORE's top-list order).
std::vector<DiffRegression> FindRegressions(const SummaryFile& before, const SummaryFile& after,
                                            const SummaryDiff& diff, double pct);

// The Markdown comparison: the runs, then blank-line separated sections, each a one-line
// heading, a blank line and a table — per token (| Metric | before | after | change | ratio |),
// the speed of light (when SummaryDiff::speed_of_light: the same columns, then the units'
// excess over their floor),
// kernel classes, units followed by the speedup line
// "measured speedup 8.12x vs predicted ceiling 10.04 (#cuda_graph)", top kernels in one run
// only, top kernels in both runs. Kernel names are ShortKernelName's; a change prints with
// its sign ("+0.9012", "-56.0281", "0.0"), a ratio as "8.12x", a missing value as "-". Empty
// tables are left out. Lines joined with "\n" plus a final "\n". Deterministic.
std::string RenderDiffMarkdown(const SummaryDiff& diff);

// The same content as one JSON object ("speed_of_light": {"figures": [...], "units": [...]}
// after "per_token", only when SummaryDiff::speed_of_light; key order fixed, 2-space indent,
// ASCII-only strings, missing values null, a trailing newline).
std::string RenderDiffJson(const SummaryDiff& diff);

}  // namespace decodeprof::report
