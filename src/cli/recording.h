// Recording a command, shared by the subcommands that do it (`record`, `kernels -- CMD`): the
// recorder run, its warnings, the trace's one-line summary and the checks of the recording,
// printed on stderr as `decodeprof: <subcommand>: ...` (stdout belongs to CMD).
#pragma once

#include <string>
#include <string_view>

#include "src/record/launcher.h"

namespace decodeprof::cli {

// The directory of the running decodeprof binary ("." when /proc/self/exe cannot be read).
std::string ExeDir();

struct RecordingOutcome {
  // What `decodeprof record` exits with: CMD's own status when it failed (127 when it could
  // not run), else the check's exit code when the trace is unusable, else 0.
  int status = 0;
  bool command_ran = false;  // CMD started (no recorder error, no exec failure)
  int command_status = 0;    // its status when it ran (128 + signal when killed)
  bool trace_ok = false;     // the trace was written and is usable (record::CheckRecording)
};

// Records options.command with options.backend, as `decodeprof record` does, printing the
// recorder's warnings and errors, the trace's summary line and its problems under
// `subcommand`.
RecordingOutcome RecordCommand(std::string_view subcommand, const record::RecordOptions& options);

}  // namespace decodeprof::cli
