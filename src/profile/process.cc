#include "src/profile/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "src/base/file_io.h"

namespace decodeprof::profile {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr size_t kSignalCount = sizeof kSignals / sizeof kSignals[0];

// The only process-global state of the module: what the handler needs.
volatile sig_atomic_t g_caught = 0;
volatile sig_atomic_t g_child = 0;  // the pid of the running child, 0 when none
bool g_installed = false;
struct sigaction g_original[kSignalCount];

void OnSignal(int signo) {
  if (g_caught == 0) g_caught = signo;
  const pid_t child = g_child;
  // SIGHUP would kill the guard without stopping its command; TERM stops both.
  if (child > 0) ::kill(child, signo == SIGHUP ? SIGTERM : signo);
}

int ShellStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 70;
}

sigset_t HandledSet() {
  sigset_t set;
  sigemptyset(&set);
  for (const int signo : kSignals) sigaddset(&set, signo);
  return set;
}

// In a forked child: the dispositions the process started with, and no blocked signal.
void RestoreInChild() {
  if (g_installed) {
    for (size_t i = 0; i < kSignalCount; ++i) ::sigaction(kSignals[i], &g_original[i], nullptr);
  }
  g_child = 0;
  g_caught = 0;
  const sigset_t set = HandledSet();
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

int WaitFor(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 70;
  }
  return ShellStatus(status);
}

}  // namespace

namespace signals {

void Install() {
  if (g_installed) return;
  for (size_t i = 0; i < kSignalCount; ++i) {
    ::sigaction(kSignals[i], nullptr, &g_original[i]);
    if (g_original[i].sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a wait returns EINTR and looks again
    ::sigaction(kSignals[i], &action, nullptr);
  }
  g_installed = true;
}

int Caught() { return g_caught; }

int ExitCode(int signo) { return 128 + signo; }

const char* Name(int signo) {
  switch (signo) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

}  // namespace signals

base::StatusOr<int> RunForked(const ChildSetup& setup, const std::function<int()>& body) {
  if (g_caught != 0) return signals::ExitCode(g_caught);
  int out_fd = -1;
  if (!setup.output.empty()) {
    // Streamed while the child runs, so no temporary file; only a regular file is opened.
    DP_ASSIGN_OR_RETURN(out_fd, base::OpenStreamOutput(setup.output, /*append=*/false));
  }
  std::fflush(nullptr);  // the child must not write this process's buffered output again
  // Blocked from before the fork until the child's pid is known, so none is lost.
  const sigset_t set = HandledSet();
  sigset_t old;
  ::sigprocmask(SIG_BLOCK, &set, &old);
  const pid_t pid = ::fork();
  if (pid == 0) {
    RestoreInChild();
    if (out_fd >= 0) {
      if (::dup2(out_fd, 1) < 0 || ::dup2(out_fd, 2) < 0) ::_exit(70);
      ::close(out_fd);
    }
    for (const auto& [name, value] : setup.env) ::setenv(name.c_str(), value.c_str(), 1);
    const int rc = body();
    std::fflush(nullptr);
    ::_exit(rc & 0xff);
  }
  const int fork_errno = errno;
  if (out_fd >= 0) ::close(out_fd);
  if (pid < 0) {
    ::sigprocmask(SIG_SETMASK, &old, nullptr);
    return base::InternalError("fork", std::strerror(fork_errno));
  }
  g_child = pid;
  ::sigprocmask(SIG_SETMASK, &old, nullptr);  // a pending signal is forwarded now
  const int status = WaitFor(pid);
  g_child = 0;
  return status;
}

base::StatusOr<Captured> CaptureOutput(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return base::InternalError("pipe", std::strerror(errno));
  }
  std::vector<char*> c_argv;
  for (const std::string& word : argv) c_argv.push_back(const_cast<char*>(word.c_str()));
  c_argv.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    RestoreInChild();
    const int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
      ::dup2(null_fd, 0);
      ::dup2(null_fd, 2);
    }
    ::dup2(fds[1], 1);
    ::execvp(c_argv[0], c_argv.data());
    ::_exit(127);
  }
  const int fork_errno = errno;
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    return base::InternalError("fork", std::strerror(fork_errno));
  }
  Captured captured;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n > 0) {
      captured.out.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  captured.status = WaitFor(pid);
  return captured;
}

}  // namespace decodeprof::profile
