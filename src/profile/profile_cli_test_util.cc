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

ProfileFixture::ProfileFixture() : temp_("dp-profile-"), dir_(temp_.path()) {
  std::filesystem::create_directory(kfd());
}

ProfileFixture::~ProfileFixture() = default;  // temp_ removes the directory

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
  const int n = ++runs_;
  Spawn spawn;
  spawn.argv = std::move(argv);
  spawn.env = Env(extra_env);
  spawn.out_path = Path("run" + std::to_string(n) + ".out");
  spawn.err_path = Path("run" + std::to_string(n) + ".err");
  spawn.cwd = cwd.empty() ? dir_ : cwd;
  return StartProcess(spawn);
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
