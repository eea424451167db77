// Every value-taking option of every subcommand, tried with the values that have no meaning
// for it: the empty value, negatives, 2^64 - 1 and 2^63 (which wrap in unsigned and signed
// 64-bit arithmetic), text, 1e309 (beyond a double), nan, and the first value past each end
// of its documented range. Each must be refused while the arguments are parsed: exit 2,
// `decodeprof: <subcommand>: <option>...` on stderr, no output file, and for the commands
// that start one (guard, record, profile, kernels -- CMD) no child: the command given would
// create a marker file.
//
// The table is checked against each subcommand's --help: an option that takes a value and
// has no row here fails the test, so a new option cannot come without its range.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli_runner.h"
#include "tests/support/process_util.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using decodeprof::testing::ChildLeakChecksOff;
using decodeprof::testing::Result;
using decodeprof::testing::RunBinary;

namespace {

const std::string kTrace = std::string(DECODEPROF_SOURCE_DIR) +
                           "/examples/data/Llama-3.1-8B-Instruct_greedy/"
                           "Llama-3.1-8B-Instruct_greedy.sqlite";

// What an option takes, and so which values make no sense for it.
enum class Kind {
  kInteger,     // a whole number in a range that starts at 0 or 1
  kNumber,      // a finite number in a range that starts at 0
  kText,        // a path, a name or a pattern: anything but empty
  kChoice,      // one of a few words
  kWindow,      // all | decode | START_NS..END_NS
  kSampleTime,  // ON/PERIOD milliseconds
  kSampling,    // T or T:P
  kFailOn,      // regression[=PCT]
  kExempt,      // tried only with the row's own values (its empty value has a meaning)
};

std::vector<std::string> BadValues(Kind kind) {
  switch (kind) {
    case Kind::kInteger:
      return {"",
              "-1",
              "18446744073709551615",
              "9223372036854775808",
              "x",
              "1e309",
              "nan",
              "1.5",
              "+1",
              " 1",
              "0x10"};
    case Kind::kNumber:
      return {"", "-1", "x", "1e309", "nan", "inf", "-inf", "18446744073709551615", "1,5"};
    case Kind::kText:
      return {""};
    case Kind::kChoice:
      return {"", "x", "-1"};
    case Kind::kWindow:
      return {"",
              "x",
              "-1..5",
              "0..18446744073709551615",
              "0..9223372036854775808",
              "5..1",
              "nan..1",
              "1e309..2",
              "..5"};
    case Kind::kSampleTime:
      return {"",
              "-1",
              "x",
              "0/10",
              "10/10",
              "1/18446744073709551615",
              "1/9223372036854775808",
              "nan",
              "1/1e309",
              "50/3600001"};
    case Kind::kSampling:
      return {"", "-1", "x", "nan", "1e309", "0:-1", "0:2", "0:", "18446744073709551615", "0:nan"};
    case Kind::kFailOn:
      return {"",
              "x",
              "regression=-1",
              "regression=nan",
              "regression=1e309",
              "regression=",
              "regression=18446744073709551615"};
    case Kind::kExempt:
      return {};
  }
  return {};
}

// How to run a subcommand so that only the option under test can be wrong: its other
// options (a tested option given here is left out of them), its positional arguments and the
// command after `--`.
struct Base {
  std::vector<std::pair<std::string, std::string>> options;
  std::vector<std::string> positional;
  bool command = false;  // `-- sh -c 'touch MARKER'`
};

struct Row {
  std::string subcommand;
  std::string option;
  Kind kind;
  std::vector<std::string> extra = {};  // past the ends of its range, or its own bad values
  std::string variant = "";             // another base of the subcommand ("" = the default)
  std::vector<std::string> drop = {};   // options of the base this one excludes
};

// One row per value-taking option. The ranges are docs/user-guide.md's, docs/guard.md's
// and docs/profile.md's.
const std::vector<Row>& Rows() {
  static const std::vector<Row> rows = {
      // summarize
      {"summarize", "--trace", Kind::kText},
      {"summarize", "--ranks", Kind::kText, {}, "", {"--trace"}},
      {"summarize", "--format", Kind::kChoice},
      {"summarize", "--device", Kind::kInteger, {"32768", "65536"}},
      {"summarize", "--log", Kind::kText},
      {"summarize", "--plain-log", Kind::kText},
      {"summarize", "--model-dir", Kind::kText},
      {"summarize", "--pack", Kind::kText},
      {"summarize", "--units", Kind::kText},
      {"summarize", "--name", Kind::kText, {".", "..", "a/b"}},
      {"summarize", "--out-dir", Kind::kText},
      {"summarize", "--temperature", Kind::kNumber, {"100.5", "-0.5"}},
      {"summarize", "--decode-range", Kind::kText},
      {"summarize", "--step-range", Kind::kText},
      {"summarize", "--window", Kind::kWindow},
      {"summarize", "--generated-tokens", Kind::kInteger, {"0", "1000000001"}},
      {"summarize", "--gguf", Kind::kText},
      {"summarize",
       "--peak-bandwidth",
       Kind::kText,
       {"0", "-1", "0.5", "100001", "nan", "inf", "1e309", "+", "12x"}},
      {"summarize", "--context-tokens", Kind::kNumber, {"100000001"}},
      {"summarize", "--kv-dtype", Kind::kChoice},
      // kernels
      {"kernels", "--format", Kind::kChoice},
      {"kernels", "--device", Kind::kInteger, {"32768", "65536"}},
      {"kernels", "--window", Kind::kWindow},
      {"kernels", "--by", Kind::kChoice},
      {"kernels", "--pack", Kind::kText},
      // --expect: a pattern (its own tests, kernels_cli_test.cc); an empty one matches
      // every kernel name.
      {"kernels", "--expect", Kind::kExempt},
      {"kernels", "--top", Kind::kInteger, {"2147483648"}},
      {"kernels", "--output", Kind::kText},
      {"kernels", "--output-format", Kind::kChoice},
      {"kernels", "--trace-output", Kind::kText, {}, "command"},
      // export
      {"export", "--chrome-trace", Kind::kText},
      {"export", "--trace", Kind::kText},
      {"export", "--format", Kind::kChoice},
      {"export", "--device", Kind::kInteger, {"32768", "65536"}},
      {"export", "--window", Kind::kChoice, {"0..5"}},
      {"export", "--log", Kind::kText},
      {"export", "--pack", Kind::kText},
      {"export", "--decode-range", Kind::kText},
      {"export", "--step-range", Kind::kText},
      // report
      {"report", "--format", Kind::kChoice},
      {"report", "--do-first", Kind::kInteger, {"1001"}},
      {"report", "--fail-on", Kind::kChoice},
      // diff
      {"diff", "--format", Kind::kChoice},
      {"diff", "--unit", Kind::kText},
      {"diff", "--fail-on", Kind::kFailOn, {"regression=1000001"}},
      // classify
      {"classify", "--pack", Kind::kText},
      // record
      {"record", "--output", Kind::kText},
      {"record", "--backend", Kind::kChoice},
      {"record", "--only-range", Kind::kText, {"a\tb"}},
      {"record", "--sample-steps", Kind::kInteger, {"0", "1000001"}},
      {"record", "--sample-time", Kind::kSampleTime},
      {"record", "--step-range", Kind::kText, {"a\nb"}},
      // bandwidth
      {"bandwidth", "--device", Kind::kInteger, {"1024"}},
      {"bandwidth", "--size-mib", Kind::kInteger, {"0", "65537"}},
      {"bandwidth", "--repeats", Kind::kInteger, {"0", "1001"}},
      {"bandwidth", "--output", Kind::kText},
      // profile
      {"profile", "--model", Kind::kText},
      {"profile", "--out", Kind::kText},
      {"profile", "--trace-dir", Kind::kText},
      {"profile", "--temperature", Kind::kNumber, {"100.5"}},
      {"profile", "--top-p", Kind::kNumber, {"1.01"}},
      {"profile", "--sampling", Kind::kSampling, {"101", "0.7:1.01"}},
      {"profile", "--tag", Kind::kText},
      {"profile", "--plain-runs", Kind::kInteger, {"0", "101"}},
      {"profile", "--idle-secs", Kind::kInteger, {"86401"}},
      {"profile", "--max-wait", Kind::kInteger, {"604801"}},
      {"profile", "--max-attempts", Kind::kInteger, {"0", "1001"}},
      {"profile", "--backend", Kind::kChoice},
      {"profile", "--pack", Kind::kText},
      {"profile", "--units", Kind::kText},
      {"profile", "--tokens", Kind::kInteger, {"0", "1000001"}},
      {"profile", "--warmup-tokens", Kind::kInteger, {"1000001"}},
      {"profile", "--prompt-tokens", Kind::kInteger, {"0", "10000001"}},
      // --bench-args: '' means no arguments (only the words after BENCH), as --help says.
      {"profile", "--bench-args", Kind::kExempt, {"-m {modle}", "--top {top}"}},
      // guard
      {"guard", "--idle-secs", Kind::kInteger, {"86401"}},
      {"guard", "--max-attempts", Kind::kInteger, {"0", "1001"}},
      {"guard", "--max-wait", Kind::kInteger, {"604801"}},
      {"guard", "--log", Kind::kText},
      {"guard", "--gpu", Kind::kChoice},
  };
  return rows;
}

const std::vector<std::string> kSubcommands = {"summarize", "kernels",  "export", "report",
                                               "diff",      "classify", "record", "profile",
                                               "guard",     "bandwidth"};

// The options of `help` that take a value: `  --name VALUE...` or `  -x,--name VALUE...`
// (CLI11's and the guard's help), the long name.
std::set<std::string> ValueOptions(const std::string& help) {
  static const std::regex option(R"(^  (?:-[A-Za-z],)?(--[a-z][a-z0-9-]*)( \S)?)");
  std::set<std::string> names;
  std::istringstream lines(help);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, option) && m[2].matched) names.insert(m[1]);
  }
  return names;
}

class OptionsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_.path();
    fs::create_directories(dir_ / "out");
    fs::create_directories(dir_ / "kfd");
    // The guard, if it ever got past its options: an empty KFD process list (a quiet GPU),
    // no compiler pattern that could match this host's builds, a private lock.
    ::setenv("DECODEPROF_GUARD_KFD_DIR", (dir_ / "kfd").c_str(), 1);
    ::setenv("DECODEPROF_GUARD_LOCK", (dir_ / "guard.lock").c_str(), 1);
    ::setenv("DECODEPROF_GUARD_COMPILER_RE", "^decodeprof-options-test-none$", 1);
    ::unsetenv("DECODEPROF_GUARD_LOCK_HELD");
  }

  std::string Out(const std::string& name) const { return (dir_ / "out" / name).string(); }
  std::string Marker() const { return (dir_ / "marker").string(); }

  Base BaseOf(const std::string& subcommand, const std::string& variant) const {
    if (subcommand == "summarize") {
      return {{{"--trace", kTrace}, {"--out-dir", Out("")}, {"--name", "run"}}, {}, false};
    }
    if (subcommand == "kernels" && variant == "command") {
      return {{{"--output", Out("census.txt")}, {"--trace-output", Out("k.sqlite")}}, {}, true};
    }
    if (subcommand == "kernels") return {{{"--output", Out("census.txt")}}, {kTrace}, false};
    if (subcommand == "export") {
      return {{{"--chrome-trace", Out("e.json")}, {"--trace", kTrace}}, {}, false};
    }
    if (subcommand == "report") return {{}, {(dir_ / "no-summaries").string()}, false};
    if (subcommand == "diff") {
      return {{}, {(dir_ / "before.json").string(), (dir_ / "after.json").string()}, false};
    }
    if (subcommand == "classify") return {{{"--pack", "pytorch-cuda"}}, {"gemv"}, false};
    if (subcommand == "record") return {{{"--output", Out("r.sqlite")}}, {}, true};
    if (subcommand == "bandwidth") return {{{"--output", Out("bw.json")}}, {}, false};
    if (subcommand == "profile") {
      return {{{"--model", "m"},
               {"--out", Out("profile")},
               {"--trace-dir", Out("traces")},
               {"--idle-secs", "0"},
               {"--max-wait", "5"}},
              {},
              true};
    }
    // guard
    return {{{"--idle-secs", "0"}, {"--max-wait", "5"}, {"--log", Out("guard.log")}}, {}, true};
  }

  std::vector<std::string> Args(const Row& row, const std::string& value) const {
    const Base base = BaseOf(row.subcommand, row.variant);
    std::vector<std::string> args = {row.subcommand};
    args.insert(args.end(), base.positional.begin(), base.positional.end());
    for (const auto& [option, given] : base.options) {
      if (option == row.option) continue;
      if (std::find(row.drop.begin(), row.drop.end(), option) != row.drop.end()) continue;
      args.push_back(option);
      args.push_back(given);
    }
    args.push_back(row.option);
    args.push_back(value);
    if (base.command) args.insert(args.end(), {"--", "sh", "-c", "touch " + Marker()});
    return args;
  }

  decodeprof::testing::TempDir temp_{"dp_options_"};
  fs::path dir_;
};

TEST_F(OptionsCliTest, EveryValueOptionOfEverySubcommandHasARow) {
  std::map<std::string, std::set<std::string>> in_table;
  for (const Row& row : Rows()) in_table[row.subcommand].insert(row.option);
  for (const std::string& subcommand : kSubcommands) {
    const Result help = RunBinary({subcommand, "--help"}, {}, dir_);
    ASSERT_EQ(help.exit_code, 0) << subcommand << ": " << help.err;
    const std::set<std::string> in_help = ValueOptions(help.out);
    EXPECT_FALSE(in_help.empty()) << subcommand << ": no option found in\n" << help.out;
    for (const std::string& option : in_help) {
      EXPECT_TRUE(in_table[subcommand].contains(option))
          << "decodeprof " << subcommand << " " << option
          << " takes a value but has no row in Rows(): give it a range (src/cli/option_checks.h) "
             "and a row";
    }
    for (const std::string& option : in_table[subcommand]) {
      EXPECT_TRUE(in_help.contains(option))
          << "Rows() has decodeprof " << subcommand << " " << option
          << ", which --help does not list as taking a value";
    }
  }
}

TEST_F(OptionsCliTest, ValuesOutsideTheRangeAreRefusedBeforeAnythingRuns) {
  int tried = 0;
  for (const Row& row : Rows()) {
    std::vector<std::string> values = BadValues(row.kind);
    values.insert(values.end(), row.extra.begin(), row.extra.end());
    for (const std::string& value : values) {
      ++tried;
      const std::vector<std::string> args = Args(row, value);
      // Each option's first refusal is checked for leaks; its other values take the same path.
      std::optional<ChildLeakChecksOff> leaks_once;
      if (&value != &values.front()) leaks_once.emplace();
      const Result r = RunBinary(args, {}, dir_);
      const std::string what = row.subcommand + " " + row.option + " '" + value + "'";
      EXPECT_EQ(r.exit_code, 2) << what << "\n" << r.err;
      // The message names the subcommand and the option, at the start of the line (the
      // --bench-args template is named inside its message).
      const std::string named = row.option == "--bench-args"
                                    ? "--bench-args"
                                    : "decodeprof: " + row.subcommand + ": " + row.option;
      EXPECT_NE(r.err.find(named), std::string::npos) << what << "\n" << r.err;
      EXPECT_EQ(r.err.find("decodeprof: " + row.subcommand + ": "), 0u) << what << "\n" << r.err;
      // Nothing written, nothing started.
      EXPECT_TRUE(fs::is_empty(dir_ / "out"))
          << what << " wrote " << fs::directory_iterator(dir_ / "out")->path();
      EXPECT_FALSE(fs::exists(Marker())) << what << " started the command";
      fs::remove_all(dir_ / "out");
      fs::create_directories(dir_ / "out");
      fs::remove(Marker());
    }
  }
  EXPECT_GT(tried, 300);
  std::printf("tried %d values of %zu options\n", tried, Rows().size());
}

// The positional arguments that name files or kernels: an empty one is no file and no name.
TEST_F(OptionsCliTest, EmptyPositionalArgumentsAreRefused) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"kernels", "", "--output", Out("census.txt")}, "decodeprof: kernels: TRACE: must be "},
      {{"report", ""}, "decodeprof: report: PATH: must be "},
      {{"diff", "", kTrace}, "decodeprof: diff: BEFORE: must be "},
      {{"diff", kTrace, ""}, "decodeprof: diff: AFTER: must be "},
      {{"classify", "--pack", "pytorch-cuda", "gemv", ""}, "decodeprof: classify: NAME: must be "},
  };
  for (const auto& [args, message] : cases) {
    const Result r = RunBinary(args, {}, dir_);
    EXPECT_EQ(r.exit_code, 2) << args[0] << "\n" << r.err;
    EXPECT_EQ(r.err.find(message), 0u) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(fs::is_empty(dir_ / "out")) << args[0];
  }
}

// The examples behind the ranges, word for word.
TEST_F(OptionsCliTest, TheGuardNeverStartsOnAProofItDidNotMake) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--idle-secs", "18446744073709551615"},
      {"--idle-secs", "9223372036854775808"},
      {"--max-wait", "18446744073709551615"},
      {"--max-wait", "9223372036854775808"},
      {"--max-attempts", "0"},
      {"--max-attempts", "18446744073709551615"},
  };
  for (const auto& [option, value] : cases) {
    const Result r =
        RunBinary({"guard", option, value, "--", "sh", "-c", "touch " + Marker()}, {}, dir_);
    EXPECT_EQ(r.exit_code, 2) << option << " " << value << "\n" << r.err;
    EXPECT_NE(r.err.find("decodeprof: guard: " + option + ": must be "), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("idle for"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("left"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("was contended"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(Marker())) << option << " " << value;
  }
}

// The ends of the ranges are values, not errors: the guard runs its command at once with
// --idle-secs 0 and the largest --max-wait and --max-attempts.
TEST_F(OptionsCliTest, TheEndsOfTheGuardsRangesAreTaken) {
  const Result r = RunBinary({"guard", "--gpu", "amd", "--idle-secs", "0", "--max-wait", "604800",
                              "--max-attempts", "1000", "--", "sh", "-c", "touch " + Marker()},
                             {}, dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(Marker())) << r.err;
  EXPECT_NE(r.err.find("attempt 1/1000: start:"), std::string::npos) << r.err;
}

}  // namespace
