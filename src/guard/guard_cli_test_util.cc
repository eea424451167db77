#include "src/guard/guard_cli_test_util.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace decodeprof::guard::testing {

GuardFixture::GuardFixture() : temp_("dp-guard-"), dir_(temp_.path()) {
  std::filesystem::create_directory(kfd());
}

GuardFixture::~GuardFixture() { ReleaseLock(); }  // then temp_ removes the directory

std::vector<std::string> GuardFixture::Env(const std::vector<std::string>& extra) const {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    if (text.rfind("DECODEPROF_GUARD_", 0) == 0) continue;
    env.push_back(text);
  }
  env.push_back("DECODEPROF_GUARD_KFD_DIR=" + kfd());
  env.push_back("DECODEPROF_GUARD_LOCK=" + lock());
  env.push_back("DECODEPROF_GUARD_COMPILER_RE=^no-such-compiler-for-tests$");
  // Inner guards started by a test command find the binary here.
  env.push_back("DP=" + CliPath());
  for (const std::string& entry : extra) {
    const std::string key = entry.substr(0, entry.find('=') + 1);
    std::erase_if(env, [&](const std::string& e) { return e.rfind(key, 0) == 0; });
    env.push_back(entry);
  }
  return env;
}

Started GuardFixture::Start(const std::vector<std::string>& args,
                            const std::vector<std::string>& extra_env,
                            const std::string& stdin_path) {
  std::vector<std::string> argv = {CliPath(), "guard"};
  argv.insert(argv.end(), args.begin(), args.end());
  const int n = ++runs_;
  const std::string out = Path("run" + std::to_string(n) + ".out");
  const std::string err = Path("run" + std::to_string(n) + ".err");
  Spawn spawn;
  spawn.argv = std::move(argv);
  spawn.env = Env(extra_env);
  spawn.stdin_path = stdin_path;
  spawn.out_path = out;
  spawn.err_path = err;
  return StartProcess(spawn);
}

RunResult GuardFixture::Run(const std::vector<std::string>& args,
                            const std::vector<std::string>& extra_env,
                            const std::string& stdin_path, double timeout_secs) {
  return Start(args, extra_env, stdin_path).Wait(timeout_secs);
}

void GuardFixture::AddHolder(const std::string& pid) const { WriteText(kfd() + "/" + pid, ""); }

void GuardFixture::HoldLock() {
  if (lock_fd_ >= 0) return;
  lock_fd_ = ::open(lock().c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0666);
  if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    throw std::runtime_error("cannot take the fixture lock");
  }
}

void GuardFixture::ReleaseLock() {
  if (lock_fd_ < 0) return;
  ::close(lock_fd_);
  lock_fd_ = -1;
}

pid_t SpawnHelper(const std::vector<std::string>& argv) {
  Spawn spawn;
  spawn.argv = argv;
  if (spawn.argv[0].find('/') == std::string::npos) spawn.argv[0] = "/bin/" + spawn.argv[0];
  return StartProcess(spawn).pid();
}

void KillAndReap(pid_t pid) {
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

pid_t ReapedPid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = ReadText(entry.path().string() + "/stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 1));
    std::string state;
    long ppid = 0;
    fields >> state >> ppid;
    if (ppid == parent) children.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return children;
}

}  // namespace decodeprof::guard::testing
