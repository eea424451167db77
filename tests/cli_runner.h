// Runs the decodeprof binary in tests: arguments, optional stdin file, captured output
// (through StartProcess, tests/support/process_util.h; part of decodeprof_test_support).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace decodeprof::testing {

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the decodeprof binary (CliPath(), tests/support/process_util.h) with `args`; stdout/stderr
// are captured through files in `scratch`.
Result RunBinary(const std::vector<std::string>& args, const std::filesystem::path& stdin_file,
                 const std::filesystem::path& scratch);

// The same for another program (looked up in PATH when `program` has no '/'), such as a
// reference script's interpreter; stdin is /dev/null.
Result RunProgram(const std::string& program, const std::vector<std::string>& args,
                  const std::filesystem::path& scratch);

std::string Slurp(const std::filesystem::path& path);

}  // namespace decodeprof::testing
