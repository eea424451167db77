// decodeprof::profile — the processes the harness starts, and its signals.
//
// Every long step of a profile (a guarded run, a summarize) runs in a forked child, so the
// profile process itself only waits: a SIGINT, SIGTERM or SIGHUP that reaches it is latched
// and forwarded to the child at once (SIGHUP as SIGTERM, which the guard turns into an
// orderly stop of its command), and the profile then finishes its exit path — scrubbing the
// published logs — instead of dying with a half-written guard.log.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::profile {

namespace signals {
// Catches SIGINT, SIGTERM and SIGHUP (each one that was not ignored when the process
// started; a shell leaves them ignored for background jobs) in this process. Idempotent.
void Install();
// The first of those signals caught so far, or 0.
int Caught();
// The exit status after signal `signo`: 128 + signo (130, 143, 129).
int ExitCode(int signo);
// "SIGINT", "SIGTERM", "SIGHUP".
const char* Name(int signo);
}  // namespace signals

struct ChildSetup {
  // When not empty: the child's stdout and stderr go to this file (created or truncated),
  // as a shell's `>FILE 2>&1`.
  std::string output;
  // Variables set in the child's environment before `body` runs (NAME, VALUE).
  std::vector<std::pair<std::string, std::string>> env;
};

// Runs `body` in a forked child with the signal dispositions this process started with,
// waits for it and returns its shell-style status (its return value, or 128 + the signal
// that killed it). Signals caught meanwhile are forwarded to it (see above). When a signal
// was caught before the call, nothing is started and 128 + that signal is returned.
// Errors: kIo (where = setup.output) when the output file cannot be created; kInternal when
// fork fails.
base::StatusOr<int> RunForked(const ChildSetup& setup, const std::function<int()>& body);

struct Captured {
  int status = 0;   // exit code, or 128 + signal; 127 when argv[0] could not be run
  std::string out;  // everything it wrote to stdout
};

// Runs `argv` (argv[0] searched in PATH) with stdin and stderr on /dev/null and captures its
// stdout. Errors: kInternal when the pipe or fork fails.
base::StatusOr<Captured> CaptureOutput(const std::vector<std::string>& argv);

}  // namespace decodeprof::profile
