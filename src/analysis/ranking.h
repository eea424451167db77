// Ranking a run's work units: which one to do first (ARCHITECTURE.md, data flow: "ranking").
// The rank is decided here, once; the summary JSON stores it (`ranked_units`) and every
// report writer that ranks units reads it back (report::RankedUnits) instead of sorting.
//
// The rule: the speedup bound of the unit's fallback set, largest first —
// plain_ceiling_wall_est when the unit has one (the bound to compare a port's measured
// speedup against, seed spec 2.9), else ceiling_wall (the same bound over the profiled
// wall); units with neither come last; ties keep unit-table order.
//
// Why this rule: before it lived here, the writers did not agree. The seed's Markdown tables
// and `report --full` list units in unit-table order (a column layout shared by every run,
// which the seed spec fixes; not a ranking), `diff` took the BEFORE run's largest ceiling for
// its speedup check, and the HTML report ranked "Work units by wall ceiling" with exactly
// this rule. The HTML rule is the report's answer to "what to do first"; it ranks by what a
// port can gain on the wall, so a unit of zero GPU share that removes host gaps (a CUDA-graph
// capture) comes first where it belongs, and its first unit with a plain ceiling is the one
// `diff` took on its plain basis.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace decodeprof::analysis {

// The ceiling a unit is ranked by.
enum class RankFigure {
  kPlainCeilingWallEst,  // the fallback set's plain_ceiling_wall_est
  kCeilingWall,          // the fallback set's ceiling_wall
};

// The figures of one unit that the rule looks at (its fallback set's ceilings).
struct UnitCeilings {
  std::string id;
  std::optional<double> plain_ceiling_wall_est;
  std::optional<double> ceiling_wall;
};

struct RankedUnit {
  std::string id;
  RankFigure by = RankFigure::kCeilingWall;
  std::optional<double> value;  // the figure `by` names; nullopt when the unit has neither
  // With several plain runs and `by` the plain ceiling: the lowest and highest value of it
  // over the fastest and slowest plain run (how much the plain runs' spread could move it).
  std::optional<std::pair<double, double>> value_range;
  bool operator==(const RankedUnit&) const = default;
};

// `units` (in unit-table order) ranked by the rule above.
std::vector<RankedUnit> RankUnits(std::span<const UnitCeilings> units);

// Ranking ONCE across several runs (the "Do first" of `decodeprof report`, report/do_first.h).
// A unit's figure in one run is its RankUnits figure there; the runs combine so:
//   * the pool of runs a unit's ceiling is taken from: the runs it reaches (the run's shipped
//     defaults reach some of its work) that are `trusted` (no trust flag of the report doubts
//     their ceilings); when there is none, the runs it reaches (the unit is then
//     `flagged_only`); when it reaches no run, every run that holds it;
//   * its ceiling: the largest figure over the pool (a run with a figure before one without;
//     ties by the larger GPU share, then the earlier run);
//   * the order: units that some run reaches first; then by ceiling, largest first, units
//     without one last; ties by the GPU share in the run the ceiling comes from; then the
//     order of `units` (the units file's).
// Why: the largest ceiling is where a unit pays off most, and the ranking names that run; a
// run the report flags (a disturbed plain run inflates plain ceilings) must not decide the
// rank while a sound run exists; a port the shipped code path never calls gains nothing
// until its caller is built, so it comes after the ones that are reached.

// One unit in one run, as the cross-run rule sees it.
struct RunUnitFigure {
  size_t run = 0;          // the run's index in the report
  RankedUnit rank;         // the unit's RankUnits figure in that run
  double gpu_share = 0.0;  // its fallback_share_pct there (0 when unknown)
  bool reached = true;     // the run's shipped defaults reach some of its work
  bool trusted = true;     // no trust flag doubts the run's ceilings
};

// A unit with its figures in every run that holds it (in run order).
struct UnitAcrossRuns {
  std::string id;
  std::vector<RunUnitFigure> runs;
};

struct CrossRunRankedUnit {
  std::string id;
  std::optional<size_t> best_run;  // the run its ceiling comes from; nullopt without runs
  RankFigure by = RankFigure::kCeilingWall;
  std::optional<double> value;  // its ceiling (the figure `by` names in best_run)
  double gpu_share = 0.0;       // its GPU share in best_run
  bool reached = false;         // some run reaches it
  bool flagged_only = false;    // it is reached only by runs that are not `trusted`
  bool operator==(const CrossRunRankedUnit&) const = default;
};

// `units` (in the units file's order) ranked across their runs by the rule above.
std::vector<CrossRunRankedUnit> RankUnitsAcrossRuns(std::span<const UnitAcrossRuns> units);

}  // namespace decodeprof::analysis
