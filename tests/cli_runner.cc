#include "tests/cli_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

extern char** environ;

namespace decodeprof::testing {

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

Result Run(const std::string& program, const std::vector<std::string>& args,
           const std::filesystem::path& stdin_file, const std::filesystem::path& scratch) {
  const std::filesystem::path out_path = scratch / "stdout", err_path = scratch / "stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(
      &actions, 0, stdin_file.empty() ? "/dev/null" : stdin_file.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::string binary = program;
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  argv.push_back(binary.data());
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  Result r;
  if (posix_spawnp(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  posix_spawn_file_actions_destroy(&actions);
  r.out = Slurp(out_path);
  r.err = Slurp(err_path);
  return r;
}

}  // namespace

Result RunBinary(const std::vector<std::string>& args, const std::filesystem::path& stdin_file,
                 const std::filesystem::path& scratch) {
  return Run(DECODEPROF_BINARY, args, stdin_file, scratch);
}

Result RunProgram(const std::string& program, const std::vector<std::string>& args,
                  const std::filesystem::path& scratch) {
  return Run(program, args, {}, scratch);
}

}  // namespace decodeprof::testing
