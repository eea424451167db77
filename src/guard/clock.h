// decodeprof::guard — time, sleeping and signals.
//
// Clock is the guard's only source of time. Every wait of the guard (lock wait, idle wait,
// monitor) is a SleepUntil() that returns early when SIGINT/SIGTERM arrives or a child
// changes state, so INT/TERM stop every wait at once (seed spec 1.8). Tests use a fake
// clock whose SleepUntil() just advances time.
//
// Times are seconds (double) on CLOCK_MONOTONIC: the 1 Hz schedule counts wall seconds and
// is immune to clock steps. Timestamp() is the local time of a log line.
#pragma once

#include <string>

#include "src/base/status.h"

namespace decodeprof::guard {

enum class Wake {
  kDeadline,     // the deadline passed
  kInterrupted,  // SIGINT or SIGTERM was caught (now or earlier); it stays latched
  kChild,        // SIGCHLD: a child may have exited
};

class Clock {
 public:
  virtual ~Clock() = default;
  // Seconds on a monotonic clock.
  virtual double Now() = 0;
  // Local wall time as strftime(kTimestampFormat), e.g. 2026-09-30T19:36:18+0900.
  virtual std::string Timestamp() = 0;
  // Sleeps until Now() >= deadline; returns early (see Wake). Returns kInterrupted at once
  // when a signal was caught before the call.
  virtual Wake SleepUntil(double deadline) = 0;
};

// Signal handling: SIGINT and SIGTERM are caught (unless they were ignored when the guard
// started, as a shell leaves them for background jobs) and latched; SIGCHLD wakes sleepers.
// The handlers write a byte to a close-on-exec, non-blocking self-pipe; this is the only
// process-global state of the guard.
namespace signals {
// Installs the handlers, and ignores SIGPIPE (a closed stderr must not kill the guard
// while its command runs). Idempotent. kInternal error when the pipe cannot be made.
base::Status Install();
// In a forked child before exec: gives SIGPIPE back the disposition the guard started
// with. Async-signal-safe.
void RestoreForExec();
// The first SIGINT/SIGTERM caught (SIGINT or SIGTERM), or 0.
int Caught();
// "INT" or "TERM" for a caught signal.
const char* Name(int signo);
// The guard's exit status after that signal (130, 143).
int ExitCode(int signo);
}  // namespace signals

// CLOCK_MONOTONIC, localtime, and sleeps that poll the self-pipe of signals::Install().
class RealClock final : public Clock {
 public:
  double Now() override;
  std::string Timestamp() override;
  Wake SleepUntil(double deadline) override;
};

}  // namespace decodeprof::guard
