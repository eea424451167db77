#include "src/guard/clock.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "src/guard/messages.h"

namespace decodeprof::guard {
namespace {

// Written only by the handlers (and Install), read by the main thread.
volatile sig_atomic_t g_caught = 0;
volatile sig_atomic_t g_child = 0;
int g_pipe[2] = {-1, -1};
bool g_sigpipe_was_default = false;

void OnSignal(int signo) {
  const int saved = errno;
  if (signo == SIGCHLD) {
    g_child = 1;
  } else if (g_caught == 0) {
    g_caught = signo;
  }
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &byte, 1);
  errno = saved;
}

void DrainPipe() {
  char buffer[64];
  while (::read(g_pipe[0], buffer, sizeof buffer) > 0) {
  }
}

}  // namespace

namespace signals {

base::Status Install() {
  if (g_pipe[0] >= 0) return base::OkStatus();
  if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    return base::InternalError("", std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (const int signo : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    ::sigaction(signo, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // ignored at start stays ignored (POSIX shells)
    ::sigaction(signo, &action, nullptr);
  }
  action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  ::sigaction(SIGCHLD, &action, nullptr);
  struct sigaction pipe_action {};
  ::sigaction(SIGPIPE, nullptr, &pipe_action);
  if (pipe_action.sa_handler == SIG_DFL) {
    g_sigpipe_was_default = true;
    ::signal(SIGPIPE, SIG_IGN);
  }
  return base::OkStatus();
}

void RestoreForExec() {
  if (g_sigpipe_was_default) ::signal(SIGPIPE, SIG_DFL);
}

int Caught() { return g_caught; }

const char* Name(int signo) { return signo == SIGINT ? "INT" : "TERM"; }

int ExitCode(int signo) { return signo == SIGINT ? kExitSigInt : kExitSigTerm; }

}  // namespace signals

double RealClock::Now() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string RealClock::Timestamp() {
  const time_t now = ::time(nullptr);
  tm local{};
  ::localtime_r(&now, &local);
  char buffer[64];
  const size_t n = ::strftime(buffer, sizeof buffer, kTimestampFormat, &local);
  return std::string(buffer, n);
}

Wake RealClock::SleepUntil(double deadline) {
  for (;;) {
    if (g_caught != 0) return Wake::kInterrupted;
    if (g_child != 0) {
      g_child = 0;
      return Wake::kChild;
    }
    const double left = deadline - Now();
    if (left <= 0) return Wake::kDeadline;
    if (g_pipe[0] < 0) {
      // No handlers installed (unit tests): a plain sleep, of at most an hour at a time
      // (a far deadline must not overflow time_t).
      const double slice = std::min(left, 3600.0);
      const double whole = std::floor(slice);
      timespec ts{static_cast<time_t>(whole), static_cast<long>((slice - whole) * 1e9)};
      ::nanosleep(&ts, nullptr);
      continue;
    }
    pollfd fd{g_pipe[0], POLLIN, 0};
    const int timeout_ms = static_cast<int>(std::ceil(std::min(left, 3600.0) * 1000.0));
    if (::poll(&fd, 1, timeout_ms) > 0) DrainPipe();
  }
}

}  // namespace decodeprof::guard
