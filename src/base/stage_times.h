// Where a long run spends its time, for performance work: with the environment variable
// DECODEPROF_STAGE_TIMES set (to anything but "" or "0"), StartStages starts a clock and each
// MarkStage writes one line to standard error: the stage's wall time since the previous mark
// and the CPU time of the calling thread in that span, which on many CPUs is the part no other
// thread can take over, then that of all the process's threads, the process's resident memory
// at the mark and its peak RSS so far (docs/performance.md, "Stage times"). Importers mark their
// own phases (e.g. "rocpd dispatches"): "import" is what is left.
// Without the variable a mark reads the environment and returns.
#pragma once

#include <cstdio>
#include <string_view>

namespace decodeprof::base {

// Whether DECODEPROF_STAGE_TIMES asks for stage times.
bool StageTimesOn();

// Starts the clock: the first stage's time counts from here.
void StartStages();

// Ends the stage named `stage` and begins the next; before StartStages it only starts the
// clock. `out` is for tests.
void MarkStage(std::string_view stage, std::FILE* out = stderr);

}  // namespace decodeprof::base
