#include "src/guard/child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/guard/clock.h"
#include "src/guard/messages.h"
#include "src/guard/time_math.h"

extern char** environ;

namespace decodeprof::guard {
namespace {

// Runs `fn` with SIGTTOU blocked: tcsetpgrp() from a background process group would
// otherwise stop the caller.
template <typename Fn>
void WithoutTtou(Fn fn) {
  sigset_t block;
  sigset_t old;
  sigemptyset(&block);
  sigaddset(&block, SIGTTOU);
  ::sigprocmask(SIG_BLOCK, &block, &old);
  fn();
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
}

double MonotonicNow() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

base::StatusOr<std::unique_ptr<Child>> Child::Start(const std::vector<std::string>& argv,
                                                    const std::vector<std::string>& env) {
  if (argv.empty()) return base::InternalError("", "empty command");
  // Everything the child touches is prepared before fork: after it only async-signal-safe
  // calls are made.
  std::vector<char*> c_argv;
  for (const std::string& word : argv) c_argv.push_back(const_cast<char*>(word.c_str()));
  c_argv.push_back(nullptr);
  std::vector<char*> c_env;
  for (const std::string& entry : env) c_env.push_back(const_cast<char*>(entry.c_str()));
  c_env.push_back(nullptr);

  int report[2];  // the child writes its exec errno here; EOF means exec succeeded
  if (::pipe2(report, O_CLOEXEC) != 0) {
    return base::InternalError("", std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  const bool take_terminal = ::isatty(0) == 1 && ::tcgetpgrp(0) == ::getpgrp();

  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(report[0]);
    ::setpgid(0, 0);
    signals::RestoreForExec();
    if (take_terminal) WithoutTtou([] { ::tcsetpgrp(0, ::getpid()); });
    ::execvpe(c_argv[0], c_argv.data(), c_env.data());
    const int err = errno;
    [[maybe_unused]] const ssize_t n = ::write(report[1], &err, sizeof err);
    ::_exit(err == ENOENT ? kExitNotFound : kExitCannotExec);
  }
  ::close(report[1]);
  if (pid < 0) {
    const int err = errno;
    ::close(report[0]);
    return base::InternalError("", std::string("cannot fork: ") + std::strerror(err));
  }
  // Both sides set the group, so it is in place whichever runs first.
  ::setpgid(pid, pid);
  if (take_terminal) WithoutTtou([pid] { ::tcsetpgrp(0, pid); });
  std::unique_ptr<Child> child(new Child(pid, take_terminal));
  int err = 0;
  ssize_t n;
  do {
    n = ::read(report[0], &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof err)) child->exec_error_ = std::strerror(err);
  return child;
}

Child::~Child() {
  if (!exited_) Stop(2.0);
  ReturnTerminal();
}

bool Child::Exited() {
  if (exited_) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_ || (r < 0 && errno == ECHILD)) {
    exited_ = true;
    status_ = r == pid_ ? status : 0;
    ReturnTerminal();
  }
  return exited_;
}

int Child::ExitCode() const {
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) return 128 + WTERMSIG(status_);
  return 0;
}

int Child::InterruptedAtTerminal() const {
  return had_terminal_ && WIFSIGNALED(status_) && WTERMSIG(status_) == SIGINT ? SIGINT : 0;
}

bool Child::Stop(double grace_secs) {
  // The whole group: children of the command are stopped too. A process group outlives
  // its reaped leader while members remain, and its id is not reused before it is empty.
  ::kill(-pid_, SIGTERM);
  if (!exited_) ::kill(pid_, SIGTERM);
  const double deadline = DeadlineAfter(MonotonicNow(), grace_secs);
  while (!Exited() && MonotonicNow() < deadline) {
    timespec ts{0, 20'000'000};
    ::nanosleep(&ts, nullptr);
  }
  if (Exited()) return false;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  exited_ = true;
  status_ = status;
  ReturnTerminal();
  return true;
}

void Child::ReturnTerminal() {
  if (!has_terminal_) return;
  has_terminal_ = false;
  WithoutTtou([] { ::tcsetpgrp(0, ::getpgrp()); });
}

std::vector<std::string> EnvironmentWith(const std::string& name,
                                         const std::optional<std::string>& value) {
  std::vector<std::string> env;
  const std::string prefix = name + "=";
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    if (value && text.compare(0, prefix.size(), prefix) == 0) continue;
    env.push_back(text);
  }
  if (value) env.push_back(prefix + *value);
  return env;
}

}  // namespace decodeprof::guard
