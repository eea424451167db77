// decodeprof::base — starting a child process, forwarding signals to it, waiting for it.
//
// The one fork/exec of the project: the guard's command (guard/child.h), profile's forked
// steps and captured commands (profile/process.h), the recorded command and rocprofv3's
// --help (record/launcher.h, record/rocprofv3_runner.h) all start here. Each caller's needs
// are options of SubprocessOptions: where the child's standard streams go, its environment,
// a process group of its own and the terminal's foreground, which signals this process
// forwards to it while it runs, and a time limit.
//
// Everything the child needs is built before fork; after it the child makes only
// async-signal-safe calls (except in `body` mode, which runs C++ in the forked copy). Every
// descriptor opened here is close-on-exec (pipe2 O_CLOEXEC, open O_CLOEXEC); the child
// inherits only its standard streams and what this process itself inherited. An exec
// failure is reported to the parent through a close-on-exec pipe (EOF = exec succeeded):
// exec_status() is then a kIo Status naming argv[0], and the child exits 127 (not found)
// or 126 (found but not executable).
//
// Signal forwarding (Forwarding): handlers are installed before fork (with the signals
// blocked until the child's pid is known, so none is lost between fork and the handler)
// and the previous dispositions are restored when the child has been reaped. One child at
// a time may forward (the handler's target is process-global state).
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::base {

// The shell-style status of a waitpid() status: the exit code, or 128 + the signal that
// killed it; 70 (EX_SOFTWARE) for anything else.
int ShellStatus(int wait_status);

// This process's environment as NAME=VALUE entries.
std::vector<std::string> CurrentEnvironment();

// `env` with NAME set to VALUE for each of `set` (an earlier NAME=... entry is removed, the
// new ones are appended in order).
std::vector<std::string> EnvironmentWithSet(
    std::vector<std::string> env, const std::vector<std::pair<std::string, std::string>>& set);

// Where a standard stream of the child goes.
enum class ChildStream {
  kInherit,   // this process's
  kNull,      // /dev/null
  kCapture,   // stdout only: a pipe, read by Wait() into ExitStatus::output
  kFile,      // stdout only: SubprocessOptions::output_file (created or truncated)
  kAsStdout,  // stderr only: wherever stdout goes (`2>&1`)
};

// Signals caught in this process while the child runs and sent on to it.
struct Forwarding {
  std::vector<int> signals;
  // Forward only signals sent to this process alone with kill() (si_code <= 0); a terminal's
  // ^C goes to the whole foreground process group, the child included, and is not sent twice.
  bool only_sent_by_kill = false;
  // Send SIGTERM for a SIGHUP (a SIGHUP would kill a child that only stops in order on TERM).
  bool hup_as_term = false;
  // A signal this process ignores (a shell leaves SIGINT ignored for background jobs) stays
  // ignored and is not forwarded.
  bool keep_ignored = false;
};

struct SubprocessOptions {
  // The command: argv[0] is searched in PATH (of `env` when given) unless search_path is
  // false. Exactly one of `argv` and `body` is given.
  std::vector<std::string> argv;
  bool search_path = true;
  // Instead of exec: runs `body` in the forked child, which exits with its value (& 0xff)
  // after flushing stdio. The environment additions are made with setenv() first.
  std::function<int()> body;

  // The child's environment: `env` (NAME=VALUE entries; nullopt = this process's) with
  // `set_env` applied (EnvironmentWithSet), and, when pid_variable is not empty,
  // `<pid_variable>=<the child's own pid>` appended (an entry of that name already in the
  // environment is kept, and comes first for getenv(): callers leave it out to use the pid).
  std::optional<std::vector<std::string>> env;
  std::vector<std::pair<std::string, std::string>> set_env;
  std::string pid_variable;

  ChildStream in = ChildStream::kInherit;             // kInherit or kNull
  ChildStream out = ChildStream::kInherit;            // kInherit, kNull, kCapture or kFile
  ChildStream err = ChildStream::kInherit;            // kInherit, kNull or kAsStdout
  std::string output_file;                            // for out = kFile: a regular file, streamed
  size_t max_output_bytes = static_cast<size_t>(-1);  // kCapture keeps at most this much

  // The child leads a process group of its own (both sides call setpgid, so it is in place
  // whichever runs first); Stop() then signals the whole group.
  bool own_process_group = false;
  // With own_process_group: when this process's group has the terminal's foreground (stdin
  // is a terminal), the child's group gets it while it runs, and it is taken back when the
  // child has been reaped.
  bool take_terminal = false;
  // Flush this process's stdio buffers before fork (so a `body` child does not write them
  // again, and what this process printed comes before what the child prints).
  bool flush_stdio = false;
  // Called in the child after fork, before its streams are set up and exec (or body) runs;
  // must be async-signal-safe in exec mode.
  void (*in_child)() = nullptr;

  Forwarding forward;
};

struct ExitStatus {
  int status = 0;            // ShellStatus: exit code, or 128 + the signal that killed it
  int term_signal = 0;       // the signal that killed it, 0 when it exited
  int forwarded_signal = 0;  // the first signal forwarded to it, 0 when none
  bool timed_out = false;    // Wait's time limit ran out and the child was killed (SIGKILL)
  std::string output;        // with out = kCapture: what it wrote (at most max_output_bytes)
};

class Subprocess {
 public:
  // Forks and execs (or runs body). Returns once exec has succeeded or failed (exec_status).
  // Errors: kUsage when neither or both of argv and body are given; kIo (where =
  // output_file) when the output file cannot be created; kInternal when a pipe or fork
  // fails, or another child is forwarding signals.
  static StatusOr<std::unique_ptr<Subprocess>> Start(const SubprocessOptions& options);
  // A child not reaped yet is stopped (Stop(2.0)).
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  // OK when exec succeeded (or body mode); else kIo, where = argv[0], message = strerror.
  const Status& exec_status() const { return exec_status_; }
  int exec_errno() const { return exec_errno_; }
  // Whether the child's group had the terminal's foreground from the start.
  bool had_terminal() const { return had_terminal_; }

  // Reaps without blocking; true once the child has exited (and stays true).
  bool Poll();
  // Reads the captured output (when out = kCapture) and waits for the child. With
  // `timeout_secs`, a child still running (or its output still open) after that long is
  // killed with SIGKILL, reaped, and timed_out is set. Restores the forwarded signals'
  // dispositions. Errors: kInternal when waitpid fails.
  StatusOr<ExitStatus> Wait(std::optional<double> timeout_secs = std::nullopt);
  // After Poll() or Wait(): how it ended (output is not kept here).
  ExitStatus exit_status() const;
  // SIGTERM (to the group with own_process_group, and to the pid), then SIGKILL if the child
  // is still there after `grace_secs`; reaps it. Returns true when SIGKILL was needed.
  bool Stop(double grace_secs);

 private:
  Subprocess() = default;
  void Reaped(int wait_status);
  void ReturnTerminal();
  void EndForwarding();

  pid_t pid_ = -1;
  bool group_ = false;
  bool has_terminal_ = false;
  bool had_terminal_ = false;
  bool forwarding_ = false;
  bool exited_ = false;
  int wait_status_ = 0;
  int forwarded_signal_ = 0;
  int capture_fd_ = -1;
  size_t max_output_bytes_ = 0;
  int exec_errno_ = 0;
  Status exec_status_;
};

}  // namespace decodeprof::base
