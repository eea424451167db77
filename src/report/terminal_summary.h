// The few lines `summarize` prints on the terminal after its one-line result (unless
// --quiet): how the window was found, GPU busy and host gap per token, the top units with
// their wall ceilings and the top kernels — what to look at first, without opening a report.
#pragma once

#include <string>

#include "src/analysis/summary.h"
#include "src/report/speed_of_light_section.h"

namespace decodeprof::report {

// `top` units and kernels at most. Every line starts with two spaces; ends with "\n". With the
// summary's speed-of-light ledger (summary.speed_of_light), its lines follow the per-token
// line (SpeedOfLightSectionOf and SpeedOfLightTerminalText, speed_of_light_render.h).
std::string TerminalSummaryText(const analysis::Summary& summary, size_t top = 5);

// The same, with the speed-of-light lines (SpeedOfLightTerminalText, speed_of_light_render.h)
// right after the per-token line when `speed_of_light` is not null.
std::string TerminalSummaryText(const analysis::Summary& summary, size_t top,
                                const SpeedOfLightSection* speed_of_light);

}  // namespace decodeprof::report
