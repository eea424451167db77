#include "src/profile/profile_cli_test_util.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace decodeprof::profile::testing {
namespace {

bool StartsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

ProfileFixture::ProfileFixture() {
  std::string pattern = (std::filesystem::temp_directory_path() / "dp-profile-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = std::filesystem::canonical(pattern).string();
  std::filesystem::create_directory(kfd());
}

ProfileFixture::~ProfileFixture() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string ProfileFixture::Testdata(const std::string& name) {
  return std::string(DECODEPROF_PROFILE_TESTDATA) + "/" + name;
}

std::vector<std::string> ProfileFixture::Env(const std::vector<std::string>& extra) const {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    if (StartsWith(text, "DECODEPROF_") || StartsWith(text, "MLXCEL_BENCH_") ||
        StartsWith(text, "FAKE_BENCH_") || StartsWith(text, "ROCPROFV3=")) {
      continue;
    }
    env.push_back(text);
  }
  env.push_back("DECODEPROF_GUARD_KFD_DIR=" + kfd());
  env.push_back("DECODEPROF_GUARD_LOCK=" + Path("guard.lock"));
  env.push_back("DECODEPROF_GUARD_COMPILER_RE=^no-such-compiler-for-tests$");
  env.push_back("ROCPROFV3=" + Testdata("fake_rocprofv3.sh"));
  env.push_back("TMPDIR=" + dir_);
  for (const std::string& entry : extra) {
    const std::string key = entry.substr(0, entry.find('=') + 1);
    std::erase_if(env, [&](const std::string& e) { return e.rfind(key, 0) == 0; });
    env.push_back(entry);
  }
  return env;
}

Started ProfileFixture::Start(const std::vector<std::string>& args,
                              const std::vector<std::string>& extra_env, const std::string& cwd) {
  std::vector<std::string> argv = {CliPath(), "profile"};
  argv.insert(argv.end(), args.begin(), args.end());
  const std::vector<std::string> env = Env(extra_env);
  const int n = ++runs_;
  const std::string out_path = Path("run" + std::to_string(n) + ".out");
  const std::string err_path = Path("run" + std::to_string(n) + ".err");
  const std::string dir = cwd.empty() ? dir_ : cwd;
  std::vector<char*> c_argv;
  for (const std::string& word : argv) c_argv.push_back(const_cast<char*>(word.c_str()));
  c_argv.push_back(nullptr);
  std::vector<char*> c_env;
  for (const std::string& entry : env) c_env.push_back(const_cast<char*>(entry.c_str()));
  c_env.push_back(nullptr);
  const double start = Now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || ::chdir(dir.c_str()) != 0) ::_exit(125);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execve(c_argv[0], c_argv.data(), c_env.data());
    ::_exit(124);
  }
  if (pid < 0) throw std::runtime_error("fork failed");
  return Started(pid, out_path, err_path, start);
}

RunResult ProfileFixture::Run(const std::vector<std::string>& args,
                              const std::vector<std::string>& extra_env, const std::string& cwd) {
  return Start(args, extra_env, cwd).Wait(120);
}

std::string ProfileFixture::MakeModel(const std::string& name) const {
  const std::string dir = Path("models/" + name);
  std::filesystem::create_directories(dir);
  WriteText(dir + "/config.json", "{\"model_type\": \"llama\"}\n");
  return dir;
}

}  // namespace decodeprof::profile::testing
