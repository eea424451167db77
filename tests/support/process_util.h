// Helpers for tests that run processes and watch files: starting a program with its output
// in files, time, polling, text files and process liveness. Shared by the CLI tests (the
// guard's, profile's and tests/cli_runner.h's).
#pragma once

#include <sys/types.h>

#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
  // Waits (at most `timeout_secs`, then SIGKILL and status -1; an infinite one blocks) and
  // reads the outputs.
  RunResult Wait(double timeout_secs = 60);
  // The stderr written so far.
  std::string ErrSoFar() const;

 private:
  pid_t pid_;
  std::string out_path_;
  std::string err_path_;
  double start_;
};

// While alive, the programs this (single-threaded) test starts skip the sanitizer's leak check
// at exit (ASAN_OPTIONS gets detect_leaks=0; restored after). For a test that runs one path
// hundreds of times with different values: the first run of each kind keeps the check, and the
// check costs about 40 % of a sanitized run.
class ChildLeakChecksOff {
 public:
  ChildLeakChecksOff();
  ~ChildLeakChecksOff();
  ChildLeakChecksOff(const ChildLeakChecksOff&) = delete;
  ChildLeakChecksOff& operator=(const ChildLeakChecksOff&) = delete;

 private:
  std::optional<std::string> saved_;
};

// How to start a program in a test.
struct Spawn {
  std::vector<std::string> argv;                // argv[0] is searched in PATH when it has no '/'
  std::optional<std::vector<std::string>> env;  // "K=V" entries; nullopt: this process's
  std::string stdin_path = "/dev/null";
  std::string out_path = "/dev/null";  // created or truncated
  std::string err_path = "/dev/null";
  std::string cwd;  // "" = this process's
};

// Starts `spawn` (posix_spawn; where that fails, fork + exec). In the child, a stream or cwd
// that cannot be set up exits 125 and an exec failure 124. Throws std::runtime_error when fork
// fails.
Started StartProcess(const Spawn& spawn);

// Waits without a time limit.
inline constexpr double kNoTimeout = std::numeric_limits<double>::infinity();

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
