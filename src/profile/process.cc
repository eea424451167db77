#include "src/profile/process.h"

#include <signal.h>

#include <iterator>
#include <memory>

#include "src/base/subprocess.h"

namespace decodeprof::profile {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr size_t kSignalCount = sizeof kSignals / sizeof kSignals[0];

// The only process-global state of the module: what the handler needs.
volatile sig_atomic_t g_caught = 0;
bool g_installed = false;
struct sigaction g_original[kSignalCount];

void OnSignal(int signo) {
  if (g_caught == 0) g_caught = signo;
}

// While a child runs, base::Subprocess catches these signals and forwards them (SIGHUP as
// SIGTERM: SIGHUP would kill the guard without stopping its command; TERM stops both).
base::Forwarding Forwarding() {
  base::Forwarding forward;
  forward.signals.assign(std::begin(kSignals), std::end(kSignals));
  forward.hup_as_term = true;
  forward.keep_ignored = true;  // as Install leaves them
  return forward;
}

// The shell-style status of a finished child (70 when it could not be waited for); a signal
// forwarded to it is latched as if the handler had caught it.
int Ended(const base::StatusOr<base::ExitStatus>& ended) {
  if (!ended.ok()) return 70;
  if (g_caught == 0 && ended->forwarded_signal != 0) g_caught = ended->forwarded_signal;
  return ended->status;
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
  g_caught = 0;
  const sigset_t set = HandledSet();
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
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
  base::SubprocessOptions options;
  options.body = body;
  options.set_env = setup.env;
  if (!setup.output.empty()) {
    options.out = base::ChildStream::kFile;
    options.err = base::ChildStream::kAsStdout;
    options.output_file = setup.output;
  }
  options.flush_stdio = true;  // the child must not write this process's buffered output again
  options.in_child = &RestoreInChild;
  if (g_installed) options.forward = Forwarding();
  DP_ASSIGN_OR_RETURN(std::unique_ptr<base::Subprocess> child, base::Subprocess::Start(options));
  const base::StatusOr<base::ExitStatus> ended = child->Wait();
  return Ended(ended);
}

base::StatusOr<Captured> CaptureOutput(const std::vector<std::string>& argv) {
  base::SubprocessOptions options;
  options.argv = argv;
  options.in = base::ChildStream::kNull;
  options.out = base::ChildStream::kCapture;
  options.err = base::ChildStream::kNull;
  options.flush_stdio = true;
  options.in_child = &RestoreInChild;
  DP_ASSIGN_OR_RETURN(std::unique_ptr<base::Subprocess> child, base::Subprocess::Start(options));
  base::StatusOr<base::ExitStatus> ended = child->Wait();
  Captured captured;
  captured.status = child->exec_errno() != 0 ? 127 : Ended(ended);
  if (ended.ok()) captured.out = std::move(ended->output);
  return captured;
}

}  // namespace decodeprof::profile
