// The few lines `summarize` prints on the terminal after its one-line result (unless
// --quiet): how the window was found, GPU busy and host gap per token, the top units with
// their wall ceilings and the top kernels — what to look at first, without opening a report.
#pragma once

#include <string>

#include "src/analysis/summary.h"

namespace decodeprof::report {

// `top` units and kernels at most. Every line starts with two spaces; ends with "\n".
std::string TerminalSummaryText(const analysis::Summary& summary, size_t top = 5);

}  // namespace decodeprof::report
