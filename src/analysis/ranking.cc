#include "src/analysis/ranking.h"

#include <algorithm>
#include <vector>

namespace decodeprof::analysis {

std::vector<RankedUnit> RankUnits(std::span<const UnitCeilings> units) {
  std::vector<RankedUnit> ranked;
  ranked.reserve(units.size());
  for (const UnitCeilings& unit : units) {
    if (unit.plain_ceiling_wall_est) {
      ranked.push_back({unit.id, RankFigure::kPlainCeilingWallEst, unit.plain_ceiling_wall_est});
    } else {
      ranked.push_back({unit.id, RankFigure::kCeilingWall, unit.ceiling_wall});
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const RankedUnit& a, const RankedUnit& b) {
    if (a.value.has_value() != b.value.has_value()) return a.value.has_value();
    return a.value && *a.value > *b.value;
  });
  return ranked;
}

namespace {

// a before b in a pool: a figure first, then the larger figure, then the larger share.
bool BetterFigure(const RunUnitFigure& a, const RunUnitFigure& b) {
  if (a.rank.value.has_value() != b.rank.value.has_value()) return a.rank.value.has_value();
  if (a.rank.value && *a.rank.value != *b.rank.value) return *a.rank.value > *b.rank.value;
  return a.gpu_share > b.gpu_share;
}

CrossRunRankedUnit Combine(const UnitAcrossRuns& unit) {
  CrossRunRankedUnit out{.id = unit.id};
  std::vector<const RunUnitFigure*> reached;
  std::vector<const RunUnitFigure*> trusted;
  for (const RunUnitFigure& run : unit.runs) {
    if (!run.reached) continue;
    reached.push_back(&run);
    if (run.trusted) trusted.push_back(&run);
  }
  std::vector<const RunUnitFigure*> pool = !trusted.empty() ? trusted : reached;
  if (pool.empty()) {
    for (const RunUnitFigure& run : unit.runs) pool.push_back(&run);
  }
  out.reached = !reached.empty();
  out.flagged_only = !reached.empty() && trusted.empty();
  const RunUnitFigure* best = nullptr;
  for (const RunUnitFigure* run : pool) {
    if (best == nullptr || BetterFigure(*run, *best)) best = run;  // ties: the earlier run
  }
  if (best != nullptr) {
    out.best_run = best->run;
    out.by = best->rank.by;
    out.value = best->rank.value;
    out.gpu_share = best->gpu_share;
  }
  return out;
}

}  // namespace

std::vector<CrossRunRankedUnit> RankUnitsAcrossRuns(std::span<const UnitAcrossRuns> units) {
  std::vector<CrossRunRankedUnit> ranked;
  ranked.reserve(units.size());
  for (const UnitAcrossRuns& unit : units) ranked.push_back(Combine(unit));
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const CrossRunRankedUnit& a, const CrossRunRankedUnit& b) {
                     if (a.reached != b.reached) return a.reached;
                     if (a.value.has_value() != b.value.has_value()) return a.value.has_value();
                     if (a.value && *a.value != *b.value) return *a.value > *b.value;
                     return a.gpu_share > b.gpu_share;
                   });
  return ranked;
}

}  // namespace decodeprof::analysis
