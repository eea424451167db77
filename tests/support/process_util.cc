#include "tests/support/process_util.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

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

ChildLeakChecksOff::ChildLeakChecksOff() {
  const char* now = std::getenv("ASAN_OPTIONS");
  if (now != nullptr) saved_ = now;
  const std::string off =
      saved_ && !saved_->empty() ? *saved_ + ":detect_leaks=0" : "detect_leaks=0";
  ::setenv("ASAN_OPTIONS", off.c_str(), 1);
}

ChildLeakChecksOff::~ChildLeakChecksOff() {
  if (saved_) {
    ::setenv("ASAN_OPTIONS", saved_->c_str(), 1);
  } else {
    ::unsetenv("ASAN_OPTIONS");
  }
}

Started StartProcess(const Spawn& spawn) {
  // Everything the child needs is built before fork.
  std::vector<char*> c_argv;
  for (const std::string& word : spawn.argv) c_argv.push_back(const_cast<char*>(word.c_str()));
  c_argv.push_back(nullptr);
  std::vector<char*> c_env;
  if (spawn.env) {
    for (const std::string& entry : *spawn.env) c_env.push_back(const_cast<char*>(entry.c_str()));
    c_env.push_back(nullptr);
  }
  char** const env = spawn.env ? c_env.data() : environ;
  const double start = Now();
  // posix_spawn first: it neither copies this process's page tables nor leaves its pages to be
  // copied on write, which under the sanitizers costs a test that starts hundreds of programs
  // more than the programs do. Where a stream, the directory or the exec fails it reports the
  // error and reaps its child; fork then gives the documented exit codes.
  {
    posix_spawn_file_actions_t actions;
    if (::posix_spawn_file_actions_init(&actions) == 0) {
      bool ok = ::posix_spawn_file_actions_addopen(&actions, 0, spawn.stdin_path.c_str(), O_RDONLY,
                                                   0) == 0 &&
                ::posix_spawn_file_actions_addopen(&actions, 1, spawn.out_path.c_str(),
                                                   O_WRONLY | O_CREAT | O_TRUNC, 0644) == 0 &&
                ::posix_spawn_file_actions_addopen(&actions, 2, spawn.err_path.c_str(),
                                                   O_WRONLY | O_CREAT | O_TRUNC, 0644) == 0;
      if (ok && !spawn.cwd.empty()) {
        ok = ::posix_spawn_file_actions_addchdir_np(&actions, spawn.cwd.c_str()) == 0;
      }
      pid_t spawned = -1;
      if (ok) ok = ::posix_spawnp(&spawned, c_argv[0], &actions, nullptr, c_argv.data(), env) == 0;
      ::posix_spawn_file_actions_destroy(&actions);
      if (ok) return Started(spawned, spawn.out_path, spawn.err_path, start);
    }
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int in = ::open(spawn.stdin_path.c_str(), O_RDONLY | O_CLOEXEC);
    const int out = ::open(spawn.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int err = ::open(spawn.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (in < 0 || out < 0 || err < 0) ::_exit(125);
    if (!spawn.cwd.empty() && ::chdir(spawn.cwd.c_str()) != 0) ::_exit(125);
    // dup2 clears close-on-exec on the copy; a descriptor already in place keeps it.
    const auto onto = [](int fd, int target) {
      return fd == target ? ::fcntl(fd, F_SETFD, 0) == 0 : ::dup2(fd, target) >= 0;
    };
    if (!onto(in, 0) || !onto(out, 1) || !onto(err, 2)) ::_exit(125);
    ::execvpe(c_argv[0], c_argv.data(), env);
    ::_exit(124);
  }
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  return Started(pid, spawn.out_path, spawn.err_path, start);
}

RunResult Started::Wait(double timeout_secs) {
  RunResult result;
  const double deadline = Now() + timeout_secs;
  int status = 0;
  if (std::isinf(timeout_secs)) {
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    result.status = ShellStatus(status);
    result.secs = Now() - start_;
    result.out = ReadText(out_path_);
    result.err = ReadText(err_path_);
    return result;
  }
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
