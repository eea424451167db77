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

}  // namespace decodeprof::analysis
