#include "tests/support/process_util.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace decodeprof::testing {
namespace {

int ShellStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

std::string CliPath() {
  const char* env = std::getenv("DECODEPROF_CLI");
  if (env != nullptr && *env != '\0') return env;
  return DECODEPROF_CLI_PATH;
}

RunResult Started::Wait(double timeout_secs) {
  RunResult result;
  const double deadline = Now() + timeout_secs;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      result.status = ShellStatus(status);
      break;
    }
    if (Now() > deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      result.status = -1;
      break;
    }
    SleepSecs(0.01);
  }
  result.secs = Now() - start_;
  result.out = ReadText(out_path_);
  result.err = ReadText(err_path_);
  return result;
}

std::string Started::ErrSoFar() const { return ReadText(err_path_); }

double Now() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void SleepSecs(double secs) {
  const auto whole = static_cast<time_t>(secs);
  timespec ts{whole, static_cast<long>((secs - static_cast<double>(whole)) * 1e9)};
  while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

bool ProcessGone(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  const std::string stat = ReadText("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return stat.empty() ||
         (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z');
}

}  // namespace decodeprof::testing
