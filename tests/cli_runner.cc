#include "tests/cli_runner.h"

#include <fstream>
#include <sstream>

#include "tests/support/process_util.h"

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
  Spawn spawn;
  spawn.argv.push_back(program);
  spawn.argv.insert(spawn.argv.end(), args.begin(), args.end());
  if (!stdin_file.empty()) spawn.stdin_path = stdin_file.string();
  spawn.out_path = (scratch / "stdout").string();
  spawn.err_path = (scratch / "stderr").string();
  const RunResult run = StartProcess(spawn).Wait(kNoTimeout);
  return Result{run.status, run.out, run.err};
}

}  // namespace

Result RunBinary(const std::vector<std::string>& args, const std::filesystem::path& stdin_file,
                 const std::filesystem::path& scratch) {
  return Run(CliPath(), args, stdin_file, scratch);
}

Result RunProgram(const std::string& program, const std::vector<std::string>& args,
                  const std::filesystem::path& scratch) {
  return Run(program, args, {}, scratch);
}

}  // namespace decodeprof::testing
