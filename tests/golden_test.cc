// CLI golden tests: every directory tests/golden/<subcommand>/<case>/ is one run of the
// decodeprof binary, compared against expected files (style.md 7.5).
//
// A case holds:
//   args                one argument per line; @CASE@ expands to the case directory and
//                       @OUT@ to a fresh empty output directory
//   stdin               (optional) fed to the command
//   expected_exit       (optional, default 0) the exit status
//   expected_stdout     (optional) the exact standard output
//   expected_stderr     (optional) substrings, one per line, that stderr must contain
//   expected/           (optional) the exact files the run must leave in @OUT@ — and no others,
//                       so a failing run that must leave nothing has an empty or no expected/
// expected_stderr and expected_stdout are compared whole (paths as @CASE@, @OUT@, @SCRATCH@).
// DECODEPROF_UPDATE_GOLDEN=1 rewrites them and expected/ from the actual run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;

namespace {

using decodeprof::testing::Result;
using decodeprof::testing::RunBinary;
using decodeprof::testing::Slurp;

void Spit(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

std::vector<fs::path> Cases() {
  std::vector<fs::path> cases;
  const fs::path root = fs::path(DECODEPROF_SOURCE_DIR) / "tests" / "golden";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().filename() == "args") {
      cases.push_back(entry.path().parent_path());
    }
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

class GoldenTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(GoldenTest, MatchesExpected) {
  const fs::path dir = GetParam();
  const bool update = std::getenv("DECODEPROF_UPDATE_GOLDEN") != nullptr;
  const decodeprof::testing::TempDir temp("dp_golden_" + dir.parent_path().filename().string() +
                                          "_" + dir.filename().string() + "_");
  const fs::path scratch = temp.path();
  const fs::path out = scratch / "out";
  fs::create_directories(out);

  std::vector<std::string> args;
  std::istringstream lines(Slurp(dir / "args"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    args.push_back(Replace(Replace(line, "@CASE@", dir.string()), "@OUT@", out.string()));
  }
  const fs::path stdin_file = fs::exists(dir / "stdin") ? dir / "stdin" : fs::path();
  const Result r = RunBinary(args, stdin_file, scratch);
  const std::string context = "case " + dir.string() + "\nstderr:\n" + r.err;

  const int expected_exit =
      fs::exists(dir / "expected_exit") ? std::stoi(Slurp(dir / "expected_exit")) : 0;
  EXPECT_EQ(r.exit_code, expected_exit) << context;
  // The whole of stderr, not a part of it; the case's and the output's paths are written as
  // @CASE@ and @OUT@ (the scratch directory as @SCRATCH@).
  const auto generic = [&](const std::string& text) {
    return Replace(Replace(Replace(text, out.string(), "@OUT@"), dir.string(), "@CASE@"),
                   scratch.string(), "@SCRATCH@");
  };
  if (update) {
    if (fs::exists(dir / "expected_stderr") || expected_exit != 0) {
      Spit(dir / "expected_stderr", generic(r.err));
    }
  } else if (fs::exists(dir / "expected_stderr")) {
    EXPECT_EQ(generic(r.err), Slurp(dir / "expected_stderr")) << context;
  }
  if (update) {
    if (fs::exists(dir / "expected_stdout") || !r.out.empty()) {
      Spit(dir / "expected_stdout", generic(r.out));
    }
  } else if (fs::exists(dir / "expected_stdout")) {
    EXPECT_EQ(generic(r.out), Slurp(dir / "expected_stdout")) << context;
  }

  // The output directory must hold exactly the expected files.
  const fs::path expected = dir / "expected";
  std::map<std::string, std::string> actual_files;
  for (const auto& e : fs::directory_iterator(out)) {
    actual_files[e.path().filename().string()] = Slurp(e.path());
  }
  if (update && (fs::exists(expected) || !actual_files.empty())) {
    fs::remove_all(expected);
    fs::create_directories(expected);
    for (const auto& [name, text] : actual_files) Spit(expected / name, text);
  }
  std::map<std::string, std::string> expected_files;
  if (fs::exists(expected)) {
    for (const auto& e : fs::directory_iterator(expected)) {
      expected_files[e.path().filename().string()] = Slurp(e.path());
    }
  }
  for (const auto& [name, text] : expected_files) {
    auto it = actual_files.find(name);
    ASSERT_NE(it, actual_files.end()) << "missing output " << name << "\n" << context;
    EXPECT_EQ(it->second, text) << "output " << name << " differs\n" << context;
  }
  for (const auto& [name, text] : actual_files) {
    EXPECT_TRUE(expected_files.count(name)) << "unexpected output " << name << "\n" << context;
  }
}

std::string CaseName(const ::testing::TestParamInfo<fs::path>& info) {
  std::string name =
      info.param.parent_path().filename().string() + "_" + info.param.filename().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cli, GoldenTest, ::testing::ValuesIn(Cases()), CaseName);

}  // namespace
