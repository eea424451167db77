#include "src/report/summary_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/base/file_io.h"
#include "src/report/summary_validation.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::report {
namespace {

namespace fs = std::filesystem;

// A private directory for one test (removed after it).
decodeprof::testing::TempDir ReportDir() { return decodeprof::testing::TempDir("dp_report_"); }

void WriteInto(const decodeprof::testing::TempDir& dir, const std::string& name,
               const std::string& text) {
  ASSERT_TRUE(base::WriteFileAtomic(dir.Path(name), text).ok());
}

TEST(ListSummaryFilesTest, SortsBytewiseAndSkipsHiddenAndOtherFiles) {
  const decodeprof::testing::TempDir dir = ReportDir();
  for (const char* name :
       {"granite_summary.json", "Qwen3_summary.json", "Meta_summary.json", ".hidden_summary.json",
        "Meta_decode_kernels.csv", "summary.json", "_summary.json", "x_summary.json.bak"}) {
    WriteInto(dir, name, "{}");
  }
  const auto paths = ListSummaryFiles(dir.path());
  ASSERT_TRUE(paths.ok()) << paths.status().ToString();
  const std::string d = dir.path() + "/";
  EXPECT_EQ(*paths, (std::vector<std::string>{d + "Meta_summary.json", d + "Qwen3_summary.json",
                                              d + "_summary.json", d + "granite_summary.json"}));
  const auto with_slash = ListSummaryFiles(d);
  ASSERT_TRUE(with_slash.ok());
  EXPECT_EQ(with_slash->front(), d + "Meta_summary.json");
}

TEST(ListSummaryFilesTest, ErrorsForAMissingOrEmptyDirectory) {
  const decodeprof::testing::TempDir dir = ReportDir();
  const auto empty = ListSummaryFiles(dir.path());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().kind(), base::ErrorKind::kData);
  EXPECT_EQ(empty.status().ToString(), "no *_summary.json in " + dir.path());

  const auto missing = ListSummaryFiles(dir.path() + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), base::ErrorKind::kIo);
  EXPECT_EQ(missing.status().where(), dir.path() + "/nope");
}

TEST(ParseSummaryTest, KeepsKeyOrderAndNumberKinds) {
  const auto s =
      ParseSummary("s.json", R"({"name": "n", "b": 1, "a": 1.0, "c": 1e-05, "d": null})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  std::string keys;
  for (const auto& [key, value] : s->content.items()) keys += key + " ";
  EXPECT_EQ(keys, "name b a c d ");
  EXPECT_EQ(PyStr(s->content["b"]), "1");
  EXPECT_EQ(PyStr(s->content["a"]), "1.0");
  EXPECT_EQ(PyStr(s->content["c"]), "1e-05");
  EXPECT_EQ(PyStr(s->content["d"]), "None");
}

TEST(ParseSummaryTest, DuplicateKeysKeepTheFirstPositionAndTheLastValue) {
  // As Python's dict built by json.load.
  const auto s = ParseSummary("s.json", R"({"name": "n", "a": 1, "b": 2, "a": 3})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(RenderSummariesJson({*s}),
            "[\n  {\n    \"name\": \"n\",\n    \"a\": 3,\n    \"b\": 2\n  }\n]\n");
}

TEST(ParseSummaryTest, InvalidJsonNamesLineAndByte) {
  const auto s = ParseSummary("dir/s.json", "{\n  \"a\": 1,\n  \"b\": ]\n}\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().kind(), base::ErrorKind::kData);
  EXPECT_EQ(s.status().where(), "dir/s.json:3");
  EXPECT_EQ(s.status().message().rfind("invalid JSON at byte 19: syntax error", 0), 0u)
      << s.status().message();
}

TEST(ParseSummaryTest, RejectsEmptyTruncatedAndNonObjectDocuments) {
  for (const char* text : {"", "{\"a\": ", "{\"a\": 1} x", "\xff"}) {
    const auto s = ParseSummary("s.json", text);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_EQ(s.status().kind(), base::ErrorKind::kData);
    EXPECT_NE(s.status().message().find("invalid JSON at byte"), std::string::npos)
        << s.status().message();
  }
  const auto array = ParseSummary("s.json", "[1]");
  ASSERT_FALSE(array.ok());
  EXPECT_EQ(array.status().ToString(), "s.json:1: a summary must be a JSON object, found array");
}

TEST(ParseSummaryTest, RejectsDeepNestingWithoutRecursingIntoIt) {
  const std::string deep = "{\"a\": " + std::string(100000, '[');
  const auto s = ParseSummary("s.json", deep);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().kind(), base::ErrorKind::kData);
  EXPECT_EQ(s.status().message(), "JSON nests deeper than 64 levels at byte 69");
  // Brackets inside strings do not count.
  const auto quoted = ParseSummary("s.json", "{\"name\": \"" + std::string(1000, '[') + "\\\"\"}");
  EXPECT_TRUE(quoted.ok()) << quoted.status().ToString();
}

TEST(ReadSummaryFileTest, ErrorsForMissingAndNonRegularFiles) {
  const decodeprof::testing::TempDir dir = ReportDir();
  const auto missing = ReadSummaryFile(dir.path() + "/a_summary.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), base::ErrorKind::kIo);
  EXPECT_EQ(ReadSummaryFile(dir.path()).status().ToString(),
            dir.path() + ": is not a regular file");
  // A directory named like a summary is a directory: searched, not read.
  fs::create_directory(dir.path() + "/d_summary.json");
  const auto directory = ReadSummaryDir(dir.path());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.status().kind(), base::ErrorKind::kData);
  EXPECT_EQ(directory.status().ToString(), "no *_summary.json in " + dir.path());
}

TEST(ListSummaryFilesTest, SearchesSubdirectoriesSkippingHiddenOnesAndDirectoryLinks) {
  const decodeprof::testing::TempDir dir = ReportDir();
  fs::create_directories(dir.path() + "/b/deeper");
  fs::create_directories(dir.path() + "/.cache");
  fs::create_directories(dir.path() + "/elsewhere");
  for (const char* name : {"m_summary.json", "b/x_summary.json", "b/deeper/y_summary.json",
                           "b/notes.txt", ".cache/h_summary.json", "elsewhere/e_summary.json"}) {
    WriteInto(dir, name, "{}");
  }
  fs::create_directory_symlink(dir.path() + "/elsewhere", dir.path() + "/link");
  fs::create_symlink(dir.path() + "/m_summary.json", dir.path() + "/l_summary.json");
  const auto paths = ListSummaryFiles(dir.path() + "/");
  ASSERT_TRUE(paths.ok()) << paths.status().ToString();
  const std::string d = dir.path() + "/";
  // Byte order of the whole path: '/' (0x2f) sorts before letters.
  EXPECT_EQ(*paths, (std::vector<std::string>{d + "b/deeper/y_summary.json", d + "b/x_summary.json",
                                              d + "elsewhere/e_summary.json", d + "l_summary.json",
                                              d + "m_summary.json"}));
}

TEST(ResolveSummaryPathsTest, FilesAndDirectoriesInTheOrderGivenEachFileOnce) {
  const decodeprof::testing::TempDir dir = ReportDir();
  fs::create_directories(dir.path() + "/runs/sub");
  for (const char* name :
       {"runs/a_summary.json", "runs/sub/b_summary.json", "c_summary.json", "named.json"}) {
    WriteInto(dir, name, "{}");
  }
  const std::string d = dir.path() + "/";
  const auto paths = ResolveSummaryPaths({d + "c_summary.json", d + "runs", d + "named.json",
                                          d + "runs/sub/b_summary.json", d + "./c_summary.json"});
  ASSERT_TRUE(paths.ok()) << paths.status().ToString();
  EXPECT_EQ(*paths, (std::vector<std::string>{d + "c_summary.json", d + "runs/a_summary.json",
                                              d + "runs/sub/b_summary.json", d + "named.json"}));
}

TEST(ResolveSummaryPathsTest, MissingIsAnIoErrorAndNeitherFileNorDirectoryAUsageError) {
  const decodeprof::testing::TempDir dir = ReportDir();
  const auto missing = ResolveSummaryPaths({dir.path() + "/nope"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().exit_code(), 66);
  EXPECT_EQ(missing.status().ToString(), dir.path() + "/nope: no such file or directory");
  EXPECT_FALSE(missing.status().hint().empty());

  const std::string fifo = dir.path() + "/pipe_summary.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto special = ResolveSummaryPaths({fifo});
  ASSERT_FALSE(special.ok());
  EXPECT_EQ(special.status().exit_code(), 2);
  EXPECT_EQ(special.status().ToString(), fifo + ": is neither a summary file nor a directory");

  const auto none = ResolveSummaryPaths({});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().exit_code(), 2);
}

TEST(PyStrTest, MatchesPythonStr) {
  using Json = nlohmann::ordered_json;
  EXPECT_EQ(PyStr(Json::parse("12.0")), "12.0");
  EXPECT_EQ(PyStr(Json::parse("0.83")), "0.83");
  EXPECT_EQ(PyStr(Json::parse("-0.0")), "-0.0");
  EXPECT_EQ(PyStr(Json::parse("1.5e16")), "1.5e+16");
  EXPECT_EQ(PyStr(Json::parse("-7")), "-7");
  EXPECT_EQ(PyStr(Json::parse("18446744073709551615")), "18446744073709551615");
  EXPECT_EQ(PyStr(Json::parse("false")), "False");
  EXPECT_EQ(PyStr(Json::parse("\"a\\nb\"")), "a\nb");
  EXPECT_EQ(PyStr(Json::parse("[]")), "[]");
  EXPECT_EQ(PyStr(Json::parse("{}")), "{}");
  EXPECT_EQ(PyStr(Json::parse(R"([1.0, "it's", "say \"hi\"", "a'\"b", "\\", "\t\u0001"])")),
            R"([1.0, "it's", 'say "hi"', 'a\'"b', '\\', '\t\x01'])");
  EXPECT_EQ(PyStr(nlohmann::ordered_json::parse(R"({"b": {"c": [true, null]}, "a": 2})")),
            "{'b': {'c': [True, None]}, 'a': 2}");
}

TEST(RenderSummariesJsonTest, WritesPythonJsonDumpsIndent2) {
  const auto a = ParseSummary("a.json", R"({"name": "a\u00e9", "x": 12.0, "y": [], "z": {}})");
  const auto b =
      ParseSummary("b.json", R"({"name": "b", "n": 1e-05, "big": 18446744073709551615})");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(RenderSummariesJson({*a, *b}),
            "[\n  {\n    \"name\": \"a\\u00e9\",\n    \"x\": 12.0,\n    \"y\": [],\n"
            "    \"z\": {}\n  },\n  {\n    \"name\": \"b\",\n    \"n\": 1e-05,\n"
            "    \"big\": 1.8446744073709552e+19\n  }\n]\n");
  EXPECT_EQ(RenderSummariesJson({}), "[]\n");
}

constexpr auto kPlain = analysis::RankFigure::kPlainCeilingWallEst;
constexpr auto kWall = analysis::RankFigure::kCeilingWall;

std::vector<analysis::RankedUnit> RankedUnitsOf(const std::string& text) {
  const auto summary = ParseSummary("d/r_summary.json", text);
  EXPECT_TRUE(summary.ok()) << summary.status().ToString();
  return summary.ok() ? RankedUnits(*summary) : std::vector<analysis::RankedUnit>{};
}

TEST(RankedUnitsTest, ReadsTheStoredOrder) {
  // Stored by summarize; read as stored, not ranked again.
  const auto ranked = RankedUnitsOf(R"({"name": "r",
    "port_units": {"a": {"ceiling_wall": 2.0}, "b": {"ceiling_wall": 1.0}},
    "ranked_units": [{"id": "b", "by": "ceiling_wall", "value": 1.0},
                     {"id": "a", "by": "plain_ceiling_wall_est", "value": null}]})");
  EXPECT_EQ(ranked,
            (std::vector<analysis::RankedUnit>{{"b", kWall, 1.0}, {"a", kPlain, std::nullopt}}));
}

TEST(RankedUnitsTest, SummariesWrittenBeforeTheFieldAreRankedFromTheirUnits) {
  const auto ranked = RankedUnitsOf(R"({"name": "r",
    "port_units": {"gemv": {"ceiling_wall": 1.22, "plain_ceiling_wall_est": 1.21},
                   "none": {},
                   "graph": {"ceiling_wall": 8.13, "plain_ceiling_wall_est": 9.09},
                   "wall_only": {"ceiling_wall": 1.5, "plain_ceiling_wall_est": null}}})");
  EXPECT_EQ(ranked, (std::vector<analysis::RankedUnit>{{"graph", kPlain, 9.09},
                                                       {"wall_only", kWall, 1.5},
                                                       {"gemv", kPlain, 1.21},
                                                       {"none", kWall, std::nullopt}}));
  for (const char* text : {R"({"name": "no units"})", R"({"name": "r", "port_units": null})",
                           R"({"name": "r", "port_units": {}, "ranked_units": null})"}) {
    EXPECT_TRUE(RankedUnitsOf(text).empty()) << text;
  }
}

// ParseSummary checks `ranked_units` against `port_units` (summary_validation.h).
TEST(RankedUnitsTest, MalformedEntriesAreDataErrorsNamingTheField) {
  const std::string units = R"("name": "r", "port_units": {"a": {"ceiling_wall": 1.0}, "b": {}})";
  const std::pair<std::string, std::string> cases[] = {
      {R"({"name": "r", "port_units": {"a": {"ceiling_wall": "x"}}})",
       "`port_units`.`a`.`ceiling_wall` is neither a number nor null"},
      {R"({"name": "r", "port_units": [], "ranked_units": []})", "`port_units` is not an object"},
      {"{" + units + R"(, "ranked_units": {}})", "`ranked_units` is not an array"},
      {"{" + units + R"(, "ranked_units": [{"by": "ceiling_wall"}]})",
       "`ranked_units`[0] is not an object with a string `id`"},
      {"{" + units + R"(, "ranked_units": [{"id": "c", "by": "ceiling_wall"}]})",
       "`ranked_units`[0].`id` \"c\" is no unit of `port_units`"},
      {"{" + units + R"(, "ranked_units": [{"id": "a", "by": "ceiling_wall"},
                                            {"id": "a", "by": "ceiling_wall"}]})",
       "`ranked_units`[1].`id` \"a\" is listed twice"},
      {"{" + units + R"(, "ranked_units": [{"id": "a", "by": "fallback_share_pct"}]})",
       "`ranked_units`[0].`by` is neither \"plain_ceiling_wall_est\" nor \"ceiling_wall\""},
      {"{" + units + R"(, "ranked_units": [{"id": "a", "by": "ceiling_wall", "value": "1"}]})",
       "`ranked_units`[0].`value` is neither a number nor null"},
      {"{" + units + R"(, "ranked_units": [{"id": "a", "by": "ceiling_wall", "value": 1.0}]})",
       "`ranked_units` lacks `port_units`.`b`"},
  };
  for (const auto& [text, message] : cases) {
    const auto summary = ParseSummary("d/r_summary.json", text);
    ASSERT_FALSE(summary.ok()) << text;
    EXPECT_EQ(summary.status().kind(), base::ErrorKind::kData) << text;
    EXPECT_EQ(summary.status().ToString(), "d/r_summary.json: " + message) << text;
  }
}

// nlohmann refuses to parse 1e309 (ParseSummary: "number overflow"), so only a summary
// built in code can hold a non-finite number; ValidateSummary rejects it there too.
// The divisor of a per-token figure derived from the window's totals: window_tokens (a sampled
// recording), else generated_tokens, else none.
TEST(WindowTokensTest, WindowTokensElseGeneratedTokens) {
  using Json = nlohmann::ordered_json;
  EXPECT_EQ(WindowTokens(Json::parse(R"({"generated_tokens": 97, "window_tokens": 3.03125})")),
            3.03125);
  EXPECT_EQ(WindowTokens(Json::parse(R"({"generated_tokens": 97, "window_tokens": null})")), 97.0);
  EXPECT_EQ(WindowTokens(Json::parse(R"({"generated_tokens": 97})")), 97.0);
  EXPECT_EQ(WindowTokens(Json::parse(R"({"window_tokens": 2.25})")), 2.25);
  EXPECT_FALSE(WindowTokens(Json::parse(R"({"name": "x"})")).has_value());
}

TEST(ValidateSummaryTest, RejectsNonFiniteNumbersOfSummariesBuiltInCode) {
  using Json = nlohmann::ordered_json;
  const double inf = std::numeric_limits<double>::infinity();
  SummaryFile top{"d/r_summary.json", Json::parse(R"({"name": "r"})")};
  top.content["gpu_ms_per_token"] = -inf;
  EXPECT_EQ(ValidateSummary(top).ToString(),
            "d/r_summary.json: `gpu_ms_per_token` is not a finite number");
  SummaryFile unit{"d/r_summary.json", Json::parse(R"({"name": "r", "port_units": {"u": {}}})")};
  unit.content["port_units"]["u"]["ceiling_wall"] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ValidateSummary(unit).ToString(),
            "d/r_summary.json: `port_units`.`u`.`ceiling_wall` is not a finite number");
  SummaryFile share{"d/r_summary.json", Json::parse(R"({"name": "r", "class_share_pct": {}})")};
  share.content["class_share_pct"]["gemm"] = inf;
  EXPECT_EQ(ValidateSummary(share).ToString(),
            "d/r_summary.json: `class_share_pct`.`gemm` is not a finite number");
  const auto overflow = ParseSummary("d/r_summary.json", R"({"name": "r", "x": [1e309]})");
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().kind(), base::ErrorKind::kData);
  EXPECT_EQ(overflow.status().ToString(),
            "d/r_summary.json: invalid JSON: number overflow parsing '1e309'");
}

}  // namespace
}  // namespace decodeprof::report
