// Golden tests of `decodeprof report` run through the library (the same cases also run
// through the binary in tests/golden_test.cc). Every folder tests/golden/report/<case>/
// holds, in that driver's layout:
//   args             `report`, the summary files and directories (@CASE@ = the case folder)
//                    and optionally `--format md|json`, `--full` and `--do-first N`, one per
//                    line (`--format html` cases run through the binary only)
//   input/           the summaries, plus files the *_summary.json glob must skip
//   expected_stdout  the exact report, or for failures
//   expected_exit    the exit status and expected_stderr, substrings of the error line
// The rendered text is compared byte for byte. DECODEPROF_UPDATE_GOLDEN=1 rewrites
// expected_stdout instead (review that diff). Cases whose arguments only the command-line
// parser can judge (usage errors) are skipped here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "src/base/file_io.h"
#include "src/report/full_report.h"
#include "src/report/markdown_report.h"
#include "src/report/rank_table.h"
#include "src/report/report_json.h"
#include "src/report/summary_reader.h"

namespace decodeprof::report {
namespace {

namespace fs = std::filesystem;

const fs::path kGoldenDir = fs::path(DECODEPROF_SOURCE_DIR) / "tests/golden/report";

std::vector<std::string> ListCases() {
  std::vector<std::string> cases;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kGoldenDir, ec)) {
    if (fs::exists(entry.path() / "args")) cases.push_back(entry.path().filename().string());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

bool UpdateMode() {
  const char* update = std::getenv("DECODEPROF_UPDATE_GOLDEN");
  return update != nullptr && std::string(update) == "1";
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size()) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

std::string ReadOrEmpty(const fs::path& path) {
  auto text = base::ReadFile(path.string());
  return text.ok() ? *text : std::string();
}

// A short line diff for the failure message: every differing line, `-` expected, `+` actual.
std::string LineDiff(const std::string& expected, const std::string& actual) {
  const std::vector<std::string> want = SplitLines(expected);
  const std::vector<std::string> got = SplitLines(actual);
  std::string diff;
  for (size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
    const std::string* w = i < want.size() ? &want[i] : nullptr;
    const std::string* g = i < got.size() ? &got[i] : nullptr;
    if (w && g && *w == *g) continue;
    diff += "@@ line " + std::to_string(i + 1) + "\n";
    if (w) diff += "-" + *w + "\n";
    if (g) diff += "+" + *g + "\n";
  }
  return diff;
}

// `report PATH... [--format md|json|html] [--full] [--do-first N]` → the paths, the format,
// whether the full report is asked for and the Do-first length; false for anything else
// (`--full` with `--format json` included).
bool ParseArgs(const std::vector<std::string>& args, std::vector<std::string>& paths,
               std::string& format, bool& full, size_t& do_first) {
  if (args.empty() || args[0] != "report") return false;
  format = "md";
  full = false;
  do_first = kDoFirstUnits;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--format" && i + 1 < args.size()) {
      format = args[++i];
    } else if (args[i] == "--full") {
      full = true;
    } else if (args[i] == "--do-first" && i + 1 < args.size()) {
      const std::string& n = args[++i];
      if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos) return false;
      do_first = std::stoul(n);
    } else if (!args[i].starts_with('-')) {
      paths.push_back(args[i]);
    } else {
      return false;
    }
  }
  // The HTML page reads the runs' dispatch tables in the CLI (report_subcommand.cc): its
  // cases run through the binary only (tests/golden_test.cc).
  return !paths.empty() && (format == "md" || (format == "json" && !full));
}

class ReportGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ReportGoldenTest, MatchesExpectedOutput) {
  const fs::path dir = kGoldenDir / GetParam();
  std::vector<std::string> args;
  for (const std::string& line : SplitLines(ReadOrEmpty(dir / "args"))) {
    if (!line.empty()) args.push_back(Replace(line, "@CASE@", dir.string()));
  }
  std::vector<std::string> paths;
  std::string format;
  bool full = false;
  size_t do_first = 0;
  if (!ParseArgs(args, paths, format, full, do_first)) {
    GTEST_SKIP() << "a command-line parser case";
  }

  const auto summaries = ReadSummaries(paths);
  base::StatusOr<std::string> out = summaries.status();
  if (summaries.ok()) {
    const auto ranks = BuildRankTables(*summaries);
    if (!ranks.ok()) {
      out = ranks.status();
    } else {
      out = format == "json" ? RenderReportJson(*summaries, *ranks, do_first)
            : full           ? RenderFullMarkdownReport(*summaries, do_first)
                             : RenderMarkdownReport(*summaries, do_first);
    }
  }

  const std::string exit_text = ReadOrEmpty(dir / "expected_exit");
  const int expected_exit = exit_text.empty() ? 0 : std::stoi(exit_text);
  if (expected_exit != 0) {
    ASSERT_FALSE(out.ok()) << "expected exit " << expected_exit;
    EXPECT_EQ(out.status().exit_code(), expected_exit) << out.status().ToString();
    // As cli::ReportError prints it.
    std::string stderr_text = "decodeprof: report: " + out.status().ToString() + "\n";
    if (!out.status().hint().empty()) stderr_text += "hint: " + out.status().hint() + "\n";
    for (const std::string& line : SplitLines(ReadOrEmpty(dir / "expected_stderr"))) {
      const std::string wanted = Replace(line, "@CASE@", dir.string());
      if (wanted.empty()) continue;
      EXPECT_NE(stderr_text.find(wanted), std::string::npos)
          << "missing: " << wanted << "\nstderr: " << stderr_text;
    }
    return;
  }
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // The JSON report names each run's path: written as the CLI golden writes it.
  out = Replace(*out, dir.string(), "@CASE@");
  const fs::path expected_path = dir / "expected_stdout";
  if (UpdateMode()) {
    ASSERT_TRUE(base::WriteFileAtomic(expected_path.string(), *out).ok());
    return;
  }
  const auto expected = base::ReadFile(expected_path.string());
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  EXPECT_EQ(*expected, *out) << expected_path.string() << " differs:\n"
                             << LineDiff(*expected, *out);
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& param) { return param.param; }

INSTANTIATE_TEST_SUITE_P(Cases, ReportGoldenTest, ::testing::ValuesIn(ListCases()), CaseName);

TEST(ReportGoldenCasesTest, AreFound) { EXPECT_GE(ListCases().size(), 10u); }

}  // namespace
}  // namespace decodeprof::report
