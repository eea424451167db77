#include "src/analysis/ranking.h"

#include <algorithm>

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

}  // namespace decodeprof::analysis
