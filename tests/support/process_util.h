// Helpers for tests that run processes and watch files: time, polling, text files and
// process liveness. Shared by the CLI tests of the guard and of profile.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>

namespace decodeprof::testing {

double Now();  // CLOCK_MONOTONIC seconds
void SleepSecs(double secs);
std::string ReadText(const std::string& path);  // "" when missing
bool Exists(const std::string& path);
void WriteText(const std::string& path, const std::string& text);
// Occurrences of `needle` in `text` (overlapping ones counted).
int Count(const std::string& text, const std::string& needle);
// Gone = no such process, or a zombie.
bool ProcessGone(pid_t pid);

// The decodeprof binary: $DECODEPROF_CLI, else DECODEPROF_CLI_PATH compiled into the test.
std::string CliPath();

struct RunResult {
  int status = -1;  // exit code, or 128 + signal; -1 when it had to be killed
  std::string out;
  std::string err;
  double secs = 0;  // wall time from start to exit
};

// One started process whose stdout/stderr go to files.
class Started {
 public:
  Started(pid_t pid, std::string out_path, std::string err_path, double start)
      : pid_(pid), out_path_(std::move(out_path)), err_path_(std::move(err_path)), start_(start) {}
  pid_t pid() const { return pid_; }
  // Waits (at most `timeout_secs`, then SIGKILL and status -1) and reads the outputs.
  RunResult Wait(double timeout_secs = 60);
  // The stderr written so far.
  std::string ErrSoFar() const;

 private:
  pid_t pid_;
  std::string out_path_;
  std::string err_path_;
  double start_;
};

// Polls `predicate` every 20 ms for at most `timeout_secs`.
template <typename Fn>
bool WaitFor(Fn predicate, double timeout_secs) {
  const double deadline = Now() + timeout_secs;
  while (Now() < deadline) {
    if (predicate()) return true;
    SleepSecs(0.02);
  }
  return predicate();
}

}  // namespace decodeprof::testing
