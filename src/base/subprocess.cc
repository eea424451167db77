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
#include <optional>
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

// Everything an exec'd child touches, prepared before fork: argv and the environment as
// C arrays, with an empty slot (pid_slot) for the pid variable the child fills in.
struct ExecPlan {
  std::vector<char*> c_argv;
  std::vector<std::string> env;
  std::vector<char*> c_env;
  size_t pid_slot = 0;
  std::string pid_buffer;
};

ExecPlan PlanExec(const SubprocessOptions& options, bool exec_mode) {
  ExecPlan plan;
  for (const std::string& word : options.argv) {
    plan.c_argv.push_back(const_cast<char*>(word.c_str()));
  }
  plan.c_argv.push_back(nullptr);
  if (exec_mode) {
    plan.env =
        EnvironmentWithSet(options.env ? *options.env : CurrentEnvironment(), options.set_env);
    for (const std::string& entry : plan.env)
      plan.c_env.push_back(const_cast<char*>(entry.c_str()));
    plan.pid_slot = plan.c_env.size();
    plan.c_env.push_back(nullptr);  // the pid entry, filled in by the child
    plan.c_env.push_back(nullptr);
    plan.pid_buffer = options.pid_variable + "=" + std::string(24, '\0');
  }
  return plan;
}

// The descriptors made before fork; -1 where there is none.
struct ChildFds {
  int out_fd = -1;           // the child's stdout: the output file or the capture pipe's write end
  int capture_fd = -1;       // the capture pipe's read end, kept by the parent
  int report[2] = {-1, -1};  // the child writes its exec errno here; EOF means exec succeeded

  // The parent's copies of the child's ends (after fork).
  void CloseChildEnds() {
    for (int* fd : {&report[1], &out_fd}) {
      if (*fd >= 0) ::close(*fd);
      *fd = -1;
    }
  }
  void CloseAll() {
    CloseChildEnds();
    for (int* fd : {&capture_fd, &report[0]}) {
      if (*fd >= 0) ::close(*fd);
      *fd = -1;
    }
  }
};

// The output file or capture pipe, and the exec report pipe (exec mode).
Status OpenChildFds(const SubprocessOptions& options, bool exec_mode, const std::string& what,
                    ChildFds* fds) {
  if (options.out == ChildStream::kFile) {
    // Streamed while the child runs, so no temporary file; only a regular file is opened.
    DP_ASSIGN_OR_RETURN(fds->out_fd, OpenStreamOutput(options.output_file, /*append=*/false));
  } else if (options.out == ChildStream::kCapture) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
      return InternalError(what, std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    fds->capture_fd = pipe_fds[0];
    fds->out_fd = pipe_fds[1];
  }
  if (exec_mode && ::pipe2(fds->report, O_CLOEXEC) != 0) {
    const int err = errno;
    fds->CloseAll();
    return InternalError(what, std::string("cannot create a pipe: ") + std::strerror(err));
  }
  return OkStatus();
}

// Blocks the forwarded signals (into *old_mask) and, when forwarding, installs Forward for
// them. Blocked from before the handlers are in place until the child's pid is known, so no
// signal is lost; the child restores the mask and the dispositions.
void BlockAndInstallForwarding(const Forwarding& forward, bool forwarding, sigset_t* old_mask) {
  const sigset_t forwarded = SetOf(forward.signals);
  ::sigprocmask(SIG_BLOCK, &forwarded, old_mask);
  if (!forwarding) return;
  ClearSaved();
  g_first = 0;
  g_target.store(0);
  g_only_sent_by_kill = forward.only_sent_by_kill ? 1 : 0;
  g_hup_as_term = forward.hup_as_term ? 1 : 0;
  for (const int signo : forward.signals) {
    if (signo <= 0 || signo >= NSIG || g_forwarding_installed[signo]) continue;
    struct sigaction current {};
    ::sigaction(signo, nullptr, &current);
    if (forward.keep_ignored && current.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_sigaction = &Forward;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    ::sigaction(signo, &action, &g_saved[signo]);
    g_forwarding_installed[signo] = true;
  }
}

// In the child: stdin, stdout and stderr as the options say. Async-signal-safe.
bool RedirectStreams(const SubprocessOptions& options, int out_fd) {
  if (options.in == ChildStream::kNull && !Redirect(-1, STDIN_FILENO, O_RDONLY)) return false;
  if (options.out == ChildStream::kNull && !Redirect(-1, STDOUT_FILENO, O_WRONLY)) return false;
  if (out_fd >= 0) {
    if (!Redirect(out_fd, STDOUT_FILENO, O_WRONLY)) return false;
    if (out_fd != STDOUT_FILENO) ::close(out_fd);
  }
  if (options.err == ChildStream::kNull && !Redirect(-1, STDERR_FILENO, O_WRONLY)) return false;
  return options.err != ChildStream::kAsStdout || ::dup2(STDOUT_FILENO, STDERR_FILENO) >= 0;
}

// In the child, exec mode: the pid variable filled in, then exec; an exec failure is
// reported through `report_fd`. Async-signal-safe.
[[noreturn]] void ExecChild(const SubprocessOptions& options, ExecPlan& plan, int report_fd) {
  if (!options.pid_variable.empty()) {
    char* buffer = plan.pid_buffer.data();
    char digits[24];
    const char* text = FormatPid(digits + sizeof digits, ::getpid());
    size_t at = options.pid_variable.size() + 1;
    while (*text != '\0' && at + 1 < plan.pid_buffer.size()) buffer[at++] = *text++;
    buffer[at] = '\0';
    plan.c_env[plan.pid_slot] = buffer;
  }
  if (options.search_path) {
    ::execvpe(plan.c_argv[0], plan.c_argv.data(), plan.c_env.data());
  } else {
    ::execve(plan.c_argv[0], plan.c_argv.data(), plan.c_env.data());
  }
  const int err = errno;
  [[maybe_unused]] const ssize_t n = ::write(report_fd, &err, sizeof err);
  ::_exit(err == ENOENT ? 127 : 126);
}

// The child after fork: signals, process group, terminal and streams, then the body or the
// exec. Only async-signal-safe calls in exec mode.
[[noreturn]] void RunChild(const SubprocessOptions& options, ExecPlan& plan, const ChildFds& fds,
                           bool forwarding, bool take_terminal, const sigset_t& old_mask) {
  if (forwarding) RestoreSaved();
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (fds.report[0] >= 0) ::close(fds.report[0]);
  if (fds.capture_fd >= 0) ::close(fds.capture_fd);
  if (options.own_process_group) ::setpgid(0, 0);
  if (take_terminal) WithoutTtou([] { ::tcsetpgrp(0, ::getpid()); });
  if (options.in_child != nullptr) options.in_child();
  if (!RedirectStreams(options, fds.out_fd)) ::_exit(70);
  if (options.argv.empty()) {
    for (const auto& [name, value] : options.set_env) ::setenv(name.c_str(), value.c_str(), 1);
    if (!options.pid_variable.empty()) {
      ::setenv(options.pid_variable.c_str(), std::to_string(::getpid()).c_str(), 1);
    }
    const int rc = options.body();
    std::fflush(nullptr);
    ::_exit(rc & 0xff);
  }
  ExecChild(options, plan, fds.report[1]);
}

// In the parent: the errno the child reported from a failed exec, read from `fd` (closed
// here); nullopt when exec succeeded (EOF).
std::optional<int> ReadExecErrno(int fd) {
  int err = 0;
  ssize_t n;
  do {
    n = ::read(fd, &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n == static_cast<ssize_t>(sizeof err)) return err;
  return std::nullopt;
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
  ExecPlan plan = PlanExec(options, exec_mode);
  ChildFds fds;
  DP_RETURN_IF_ERROR(OpenChildFds(options, exec_mode, what, &fds));
  const bool forwarding = !options.forward.signals.empty();
  if (forwarding && g_forwarding.exchange(true)) {
    fds.CloseAll();
    return InternalError(what, "another child is forwarding signals");
  }
  sigset_t old_mask;
  BlockAndInstallForwarding(options.forward, forwarding, &old_mask);
  const bool take_terminal = options.own_process_group && options.take_terminal &&
                             ::isatty(0) == 1 && ::tcgetpgrp(0) == ::getpgrp();
  if (options.flush_stdio) std::fflush(nullptr);

  const pid_t pid = ::fork();
  if (pid == 0) RunChild(options, plan, fds, forwarding, take_terminal, old_mask);

  const int fork_errno = errno;
  fds.CloseChildEnds();
  if (pid < 0) {
    if (forwarding) {
      RestoreSaved();
      g_forwarding.store(false);
    }
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    fds.CloseAll();
    return InternalError(what, std::string("cannot fork: ") + std::strerror(fork_errno));
  }
  std::unique_ptr<Subprocess> child(new Subprocess());
  child->pid_ = pid;
  child->group_ = options.own_process_group;
  child->forwarding_ = forwarding;
  child->capture_fd_ = fds.capture_fd;
  child->max_output_bytes_ = options.max_output_bytes;
  if (forwarding) g_target.store(pid);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);  // a pending signal is forwarded now
  if (options.own_process_group) ::setpgid(pid, pid);
  if (take_terminal) WithoutTtou([pid] { ::tcsetpgrp(0, pid); });
  child->has_terminal_ = child->had_terminal_ = take_terminal;
  if (fds.report[0] >= 0) {
    if (const std::optional<int> err = ReadExecErrno(fds.report[0])) {
      child->exec_errno_ = *err;
      child->exec_status_ = IoError(what, std::strerror(*err));
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
