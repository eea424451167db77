#include "src/base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>

#include "src/base/file_io.h"

extern char** environ;

namespace decodeprof::base {
namespace {

// The forwarding handler's state: one forwarding child at a time.
std::atomic<pid_t> g_target{0};
std::atomic<bool> g_forwarding{false};
volatile sig_atomic_t g_first = 0;
volatile sig_atomic_t g_only_sent_by_kill = 0;
volatile sig_atomic_t g_hup_as_term = 0;
struct sigaction g_saved[NSIG];
bool g_forwarding_installed[NSIG];

void Forward(int signo, siginfo_t* info, void*) {
  const int saved_errno = errno;
  // si_code > 0: sent by the kernel (a terminal's signal to the whole process group, the
  // child included); <= 0 (SI_USER, SI_QUEUE, SI_TKILL): sent to this process by kill().
  if (g_only_sent_by_kill != 0 && (info == nullptr || info->si_code > 0)) return;
  if (g_first == 0) g_first = signo;
  const pid_t child = g_target.load();
  if (child > 0) ::kill(child, g_hup_as_term != 0 && signo == SIGHUP ? SIGTERM : signo);
  errno = saved_errno;
}

sigset_t SetOf(const std::vector<int>& signals) {
  sigset_t set;
  sigemptyset(&set);
  for (const int signo : signals) sigaddset(&set, signo);
  return set;
}

// Puts back the dispositions Forward replaced.
void RestoreSaved() {
  for (int signo = 1; signo < NSIG; ++signo) {
    if (g_forwarding_installed[signo]) ::sigaction(signo, &g_saved[signo], nullptr);
  }
}

void ClearSaved() {
  for (bool& installed : g_forwarding_installed) installed = false;
}

// Runs `fn` with SIGTTOU blocked: tcsetpgrp() from a background process group would
// otherwise stop the caller. Async-signal-safe.
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

// `now` + `secs`, saturating: NaN or negative is now, an overflow the largest double.
double DeadlineAfter(double now, double secs) {
  if (!(secs > 0.0)) return now;
  const double deadline = now + secs;
  return std::isfinite(deadline) ? deadline : std::numeric_limits<double>::max();
}

void SleepSecs(double secs) {
  timespec ts{static_cast<time_t>(secs), static_cast<long>((secs - std::floor(secs)) * 1e9)};
  ::nanosleep(&ts, nullptr);
}

// Async-signal-safe decimal formatting, writing backwards from `end`.
char* FormatPid(char* end, pid_t pid) {
  *--end = '\0';
  auto value = static_cast<unsigned long>(pid);
  do {
    *--end = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  return end;
}

std::string_view NameOf(std::string_view entry) { return entry.substr(0, entry.find('=')); }

// In the child: `fd` onto `target`, or /dev/null when `fd` < 0. Async-signal-safe.
bool Redirect(int fd, int target, int null_flags) {
  // dup2 clears close-on-exec on the copy; a descriptor already in place keeps it.
  if (fd == target) return ::fcntl(fd, F_SETFD, 0) == 0;
  if (fd >= 0) return ::dup2(fd, target) >= 0;
  const int null_fd = ::open("/dev/null", null_flags | O_CLOEXEC);
  if (null_fd < 0) return false;
  if (null_fd == target) return ::fcntl(null_fd, F_SETFD, 0) == 0;
  const bool ok = ::dup2(null_fd, target) >= 0;
  ::close(null_fd);
  return ok;
}

}  // namespace

int ShellStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 70;
}

std::vector<std::string> CurrentEnvironment() {
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    env.emplace_back(*entry);
  }
  return env;
}

std::vector<std::string> EnvironmentWithSet(
    std::vector<std::string> env, const std::vector<std::pair<std::string, std::string>>& set) {
  for (const std::pair<std::string, std::string>& variable : set) {
    const std::string& name = variable.first;  // clang 14 cannot capture a structured binding
    std::erase_if(env, [&name](const std::string& entry) { return NameOf(entry) == name; });
    env.push_back(name + "=" + variable.second);
  }
  return env;
}

StatusOr<std::unique_ptr<Subprocess>> Subprocess::Start(const SubprocessOptions& options) {
  const bool exec_mode = !options.argv.empty();
  if (exec_mode == static_cast<bool>(options.body)) {
    return UsageError("a child process needs a command or a body, not both");
  }
  const std::string what = exec_mode ? options.argv[0] : "fork";

  // Everything the child touches is prepared before fork.
  std::vector<char*> c_argv;
  for (const std::string& word : options.argv) c_argv.push_back(const_cast<char*>(word.c_str()));
  c_argv.push_back(nullptr);
  std::vector<std::string> env;
  std::vector<char*> c_env;
  size_t pid_slot = 0;
  std::string pid_buffer;
  if (exec_mode) {
    env = EnvironmentWithSet(options.env ? *options.env : CurrentEnvironment(), options.set_env);
    for (const std::string& entry : env) c_env.push_back(const_cast<char*>(entry.c_str()));
    pid_slot = c_env.size();
    c_env.push_back(nullptr);  // the pid entry, filled in by the child
    c_env.push_back(nullptr);
    pid_buffer = options.pid_variable + "=" + std::string(24, '\0');
  }

  int out_fd = -1;  // the child's stdout: the output file or the capture pipe's write end
  int capture_fd = -1;
  if (options.out == ChildStream::kFile) {
    // Streamed while the child runs, so no temporary file; only a regular file is opened.
    DP_ASSIGN_OR_RETURN(out_fd, OpenStreamOutput(options.output_file, /*append=*/false));
  } else if (options.out == ChildStream::kCapture) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      return InternalError(what, std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    capture_fd = fds[0];
    out_fd = fds[1];
  }
  int report[2] = {-1, -1};  // the child writes its exec errno here; EOF means exec succeeded
  if (exec_mode && ::pipe2(report, O_CLOEXEC) != 0) {
    const int err = errno;
    if (out_fd >= 0) ::close(out_fd);
    if (capture_fd >= 0) ::close(capture_fd);
    return InternalError(what, std::string("cannot create a pipe: ") + std::strerror(err));
  }
  const auto close_all = [&] {
    for (const int fd : {out_fd, capture_fd, report[0], report[1]}) {
      if (fd >= 0) ::close(fd);
    }
  };

  const bool forwarding = !options.forward.signals.empty();
  if (forwarding && g_forwarding.exchange(true)) {
    close_all();
    return InternalError(what, "another child is forwarding signals");
  }
  // Blocked from before the handlers are in place until the child's pid is known, so no
  // signal is lost; the child restores the mask and the dispositions.
  const sigset_t forwarded = SetOf(options.forward.signals);
  sigset_t old_mask;
  ::sigprocmask(SIG_BLOCK, &forwarded, &old_mask);
  if (forwarding) {
    ClearSaved();
    g_first = 0;
    g_target.store(0);
    g_only_sent_by_kill = options.forward.only_sent_by_kill ? 1 : 0;
    g_hup_as_term = options.forward.hup_as_term ? 1 : 0;
    for (const int signo : options.forward.signals) {
      if (signo <= 0 || signo >= NSIG || g_forwarding_installed[signo]) continue;
      struct sigaction current {};
      ::sigaction(signo, nullptr, &current);
      if (options.forward.keep_ignored && current.sa_handler == SIG_IGN) continue;
      struct sigaction action {};
      action.sa_sigaction = &Forward;
      sigemptyset(&action.sa_mask);
      action.sa_flags = SA_SIGINFO | SA_RESTART;
      ::sigaction(signo, &action, &g_saved[signo]);
      g_forwarding_installed[signo] = true;
    }
  }
  const bool take_terminal = options.own_process_group && options.take_terminal &&
                             ::isatty(0) == 1 && ::tcgetpgrp(0) == ::getpgrp();
  if (options.flush_stdio) std::fflush(nullptr);

  const pid_t pid = ::fork();
  if (pid == 0) {
    // The child: only async-signal-safe calls in exec mode.
    if (forwarding) RestoreSaved();
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    if (report[0] >= 0) ::close(report[0]);
    if (capture_fd >= 0) ::close(capture_fd);
    if (options.own_process_group) ::setpgid(0, 0);
    if (take_terminal) WithoutTtou([] { ::tcsetpgrp(0, ::getpid()); });
    if (options.in_child != nullptr) options.in_child();
    if (options.in == ChildStream::kNull && !Redirect(-1, STDIN_FILENO, O_RDONLY)) ::_exit(70);
    if (options.out == ChildStream::kNull && !Redirect(-1, STDOUT_FILENO, O_WRONLY)) ::_exit(70);
    if (out_fd >= 0) {
      if (!Redirect(out_fd, STDOUT_FILENO, O_WRONLY)) ::_exit(70);
      if (out_fd != STDOUT_FILENO) ::close(out_fd);
    }
    if (options.err == ChildStream::kNull && !Redirect(-1, STDERR_FILENO, O_WRONLY)) ::_exit(70);
    if (options.err == ChildStream::kAsStdout && ::dup2(STDOUT_FILENO, STDERR_FILENO) < 0) {
      ::_exit(70);
    }
    if (!exec_mode) {
      for (const auto& [name, value] : options.set_env) ::setenv(name.c_str(), value.c_str(), 1);
      if (!options.pid_variable.empty()) {
        ::setenv(options.pid_variable.c_str(), std::to_string(::getpid()).c_str(), 1);
      }
      const int rc = options.body();
      std::fflush(nullptr);
      ::_exit(rc & 0xff);
    }
    if (!options.pid_variable.empty()) {
      char* buffer = pid_buffer.data();
      char digits[24];
      const char* text = FormatPid(digits + sizeof digits, ::getpid());
      size_t at = options.pid_variable.size() + 1;
      while (*text != '\0' && at + 1 < pid_buffer.size()) buffer[at++] = *text++;
      buffer[at] = '\0';
      c_env[pid_slot] = buffer;
    }
    if (options.search_path) {
      ::execvpe(c_argv[0], c_argv.data(), c_env.data());
    } else {
      ::execve(c_argv[0], c_argv.data(), c_env.data());
    }
    const int err = errno;
    [[maybe_unused]] const ssize_t n = ::write(report[1], &err, sizeof err);
    ::_exit(err == ENOENT ? 127 : 126);
  }

  const int fork_errno = errno;
  if (report[1] >= 0) ::close(report[1]);
  if (out_fd >= 0) ::close(out_fd);
  if (pid < 0) {
    if (forwarding) {
      RestoreSaved();
      g_forwarding.store(false);
    }
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    if (report[0] >= 0) ::close(report[0]);
    if (capture_fd >= 0) ::close(capture_fd);
    return InternalError(what, std::string("cannot fork: ") + std::strerror(fork_errno));
  }
  std::unique_ptr<Subprocess> child(new Subprocess());
  child->pid_ = pid;
  child->group_ = options.own_process_group;
  child->forwarding_ = forwarding;
  child->capture_fd_ = capture_fd;
  child->max_output_bytes_ = options.max_output_bytes;
  if (forwarding) g_target.store(pid);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);  // a pending signal is forwarded now
  if (options.own_process_group) ::setpgid(pid, pid);
  if (take_terminal) WithoutTtou([pid] { ::tcsetpgrp(0, pid); });
  child->has_terminal_ = child->had_terminal_ = take_terminal;
  if (report[0] >= 0) {
    int err = 0;
    ssize_t n;
    do {
      n = ::read(report[0], &err, sizeof err);
    } while (n < 0 && errno == EINTR);
    ::close(report[0]);
    if (n == static_cast<ssize_t>(sizeof err)) {
      child->exec_errno_ = err;
      child->exec_status_ = IoError(what, std::strerror(err));
    }
  }
  return child;
}

Subprocess::~Subprocess() {
  if (!exited_) Stop(2.0);
  if (capture_fd_ >= 0) ::close(capture_fd_);
  ReturnTerminal();
  EndForwarding();
}

void Subprocess::Reaped(int wait_status) {
  exited_ = true;
  wait_status_ = wait_status;
  ReturnTerminal();
  EndForwarding();
}

bool Subprocess::Poll() {
  if (exited_) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_ || (r < 0 && errno == ECHILD)) Reaped(r == pid_ ? status : 0);
  return exited_;
}

StatusOr<ExitStatus> Subprocess::Wait(std::optional<double> timeout_secs) {
  const double deadline = timeout_secs ? DeadlineAfter(MonotonicNow(), *timeout_secs)
                                       : std::numeric_limits<double>::max();
  ExitStatus result;
  bool timed_out = false;
  if (capture_fd_ >= 0) {
    char buffer[4096];
    for (;;) {
      const double left = deadline - MonotonicNow();
      if (left <= 0) {
        timed_out = true;
        break;
      }
      pollfd p{capture_fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::ceil(std::min(left, 3600.0) * 1e3)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0) break;
      if (ready == 0) continue;  // the deadline is looked at again
      const ssize_t n = ::read(capture_fd_, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      const size_t room = max_output_bytes_ - std::min(max_output_bytes_, result.output.size());
      result.output.append(buffer, std::min(static_cast<size_t>(n), room));
    }
    ::close(capture_fd_);
    capture_fd_ = -1;
  }
  if (!exited_ && timeout_secs && !timed_out) {
    while (!Poll() && MonotonicNow() < deadline) SleepSecs(0.02);
    timed_out = !exited_;
  }
  if (timed_out && !exited_) ::kill(pid_, SIGKILL);
  if (!exited_) {
    int status = 0;
    pid_t waited;
    while ((waited = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
    if (waited < 0) {
      const int err = errno;
      exited_ = true;  // nothing left to wait for
      ReturnTerminal();
      EndForwarding();
      return InternalError(std::to_string(pid_),
                           std::string("waitpid failed: ") + std::strerror(err));
    }
    Reaped(status);
  }
  ExitStatus ended = exit_status();
  ended.timed_out = timed_out;
  ended.output = std::move(result.output);
  return ended;
}

ExitStatus Subprocess::exit_status() const {
  ExitStatus result;
  result.status = ShellStatus(wait_status_);
  result.term_signal = WIFSIGNALED(wait_status_) ? WTERMSIG(wait_status_) : 0;
  result.forwarded_signal = forwarded_signal_;
  return result;
}

bool Subprocess::Stop(double grace_secs) {
  // The whole group: children of the command are stopped too. A process group outlives its
  // reaped leader while members remain, and its id is not reused before it is empty.
  if (group_) ::kill(-pid_, SIGTERM);
  if (!exited_) ::kill(pid_, SIGTERM);
  const double deadline = DeadlineAfter(MonotonicNow(), grace_secs);
  while (!Poll() && MonotonicNow() < deadline) SleepSecs(0.02);
  if (Poll()) return false;
  if (group_) ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  Reaped(status);
  return true;
}

void Subprocess::ReturnTerminal() {
  if (!has_terminal_) return;
  has_terminal_ = false;
  WithoutTtou([] { ::tcsetpgrp(0, ::getpgrp()); });
}

void Subprocess::EndForwarding() {
  if (!forwarding_) return;
  forwarding_ = false;
  forwarded_signal_ = g_first;
  RestoreSaved();
  ClearSaved();
  g_target.store(0);
  g_forwarding.store(false);
}

}  // namespace decodeprof::base
