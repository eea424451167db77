// `<name>_summary.json`: the seed's keys in the seed's order (seed spec 2.10, 2.14), Python
// json.dumps(indent=2) layout and number spelling, then decodeprof's own fields.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "src/analysis/summary.h"
#include "src/base/json_writer.h"

namespace decodeprof::report {

base::JsonValue SummaryToJson(const analysis::Summary& summary);

// The `port_units` field (of the fallback set) that a ranking figure names, as `ranked_units`
// spells it in "by": "plain_ceiling_wall_est" or "ceiling_wall".
std::string_view RankFigureField(analysis::RankFigure figure);

// The figure whose RankFigureField is `field`; nullopt for any other text.
std::optional<analysis::RankFigure> RankFigureNamed(std::string_view field);

// The file's whole text, with the trailing newline.
std::string SummaryJsonText(const analysis::Summary& summary);

}  // namespace decodeprof::report
