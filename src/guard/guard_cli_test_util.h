// Test helpers for running the real `decodeprof guard` binary end to end: a private
// temporary directory with a fake KFD process directory, a private lock, a log path and a
// compiler pattern that never matches (seed spec section 3, the GuardTests fixture).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace decodeprof::guard::testing {

// The decodeprof binary: $DECODEPROF_CLI, else the path CMake compiled in.
std::string CliPath();

struct RunResult {
  int status = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
  double secs = 0;  // wall time from start to exit
};

// One started process: stdout/stderr go to files in the fixture's directory.
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

class GuardFixture {
 public:
  GuardFixture();
  ~GuardFixture();

  const std::string& dir() const { return dir_; }
  std::string kfd() const { return dir_ + "/kfd"; }
  std::string lock() const { return dir_ + "/guard.lock"; }
  std::string log() const { return dir_ + "/guard.log"; }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // Environment of every run: this process's, minus DECODEPROF_GUARD_LOCK_HELD, plus the
  // fixture's KFD dir, lock and never-matching compiler pattern, plus `extra` ("K=V").
  std::vector<std::string> Env(const std::vector<std::string>& extra = {}) const;

  // Starts `decodeprof guard <args>` (stdin from `stdin_path`, default /dev/null).
  Started Start(const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env = {},
                const std::string& stdin_path = "/dev/null");
  RunResult Run(const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env = {},
                const std::string& stdin_path = "/dev/null", double timeout_secs = 60);

  // Registers pid as a GPU holder (creates <kfd>/<pid>).
  void AddHolder(const std::string& pid) const;

  // Takes the fixture's lock in this process (close-on-exec descriptor) until ReleaseLock.
  void HoldLock();
  void ReleaseLock();

 private:
  std::string dir_;
  int lock_fd_ = -1;
  int runs_ = 0;
};

// Helpers.
double Now();
std::string ReadText(const std::string& path);  // "" when missing
bool Exists(const std::string& path);
void WriteText(const std::string& path, const std::string& text);
void SleepSecs(double secs);
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
// Gone = no such process, or a zombie.
bool ProcessGone(pid_t pid);
// Starts a plain helper process (e.g. {"sleep", "30"}); kill it with KillAndReap.
pid_t SpawnHelper(const std::vector<std::string>& argv);
void KillAndReap(pid_t pid);
// The pid of a child that has already exited and been reaped.
pid_t ReapedPid();
// Occurrences of `needle` in `text`.
int Count(const std::string& text, const std::string& needle);
// Direct children of `pid` right now.
std::vector<pid_t> ChildrenOf(pid_t pid);

}  // namespace decodeprof::guard::testing
