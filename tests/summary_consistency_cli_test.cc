// Issue 11, "One reader of summaries", through the built binary: `report` (Markdown, --full,
// --format html, --format json) and `diff` (the file as BEFORE and as AFTER) give one file
// the same verdict — all exit 0 with an empty stderr, or all the same exit status and error
// text after "decodeprof: <command>: ". The full table of cases is
// src/report/summary_reader_consistency_test.cc; this checks the wiring of the commands.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using decodeprof::testing::RunBinary;

namespace {

struct Verdict {
  int exit_code;
  std::string error;  // stderr without "decodeprof: <command>: "
};

Verdict RunCommand(const std::vector<std::string>& args, const fs::path& scratch) {
  const auto r = RunBinary(args, {}, scratch);
  EXPECT_FALSE(r.exit_code == 0 && r.out.empty()) << args[0] << ": no output";
  const std::string prefix = "decodeprof: " + args[0] + ": ";
  std::string error = r.err;
  if (error.starts_with(prefix)) error.erase(0, prefix.size());
  return {r.exit_code, error};
}

void Write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(SummaryConsistencyCliTest, ReportAndDiffGiveEveryFileTheSameVerdict) {
  const decodeprof::testing::TempDir temp("dp_summary_consistency_");
  const fs::path root = temp.path();
  fs::create_directories(root / "good");
  const fs::path good = root / "good" / "good_summary.json";
  Write(good, R"({"name": "good", "generated_tokens": 4, "decode_wall_ms": 20.0,
                  "port_units": {"u": {"ceiling_wall": 1.5}},
                  "top_kernels": [{"kernel": "k", "share_pct": 10.0}]})");
  const struct {
    const char* text;
    const char* error;  // "" = accepted; else the message after "<path>: "
  } kCases[] = {
      {R"({"name": "old run"})", ""},
      {R"({"name": "nulls", "generated_tokens": null, "port_units": {"u": {"ceiling_wall": null}},
           "checks": null, "ranked_units": null})",
       ""},
      {R"({"traceEvents": []})", "not a decodeprof summary: no `name` field"},
      {R"({"name": "x", "gpu_ms_per_token": "7"})",
       "`gpu_ms_per_token` is neither a number nor null"},
      {R"({"name": "x", "generated_tokens": 128.0})",
       "`generated_tokens` is neither an integer nor null"},
      {R"({"name": "x", "decode_wall_ms": 1e309})",
       "invalid JSON: number overflow parsing '1e309'"},
      {R"({"name": "x", "class_share_pct": {"copy": "a lot"}})",
       "`class_share_pct`.`copy` is neither a number nor null"},
      {R"({"name": "x", "top_kernels": [{"share_pct": 1}]})",
       "`top_kernels`[0] has no string `kernel`"},
      {R"({"name": "x", "port_units": {"2063": {"ceiling_wall": "1.5"}}})",
       "`port_units`.`2063`.`ceiling_wall` is neither a number nor null"},
      {R"({"name": "x", "port_units": {"u": {}}, "ranked_units": []})",
       "`ranked_units` lacks `port_units`.`u`"},
      {R"({"name": "x", "checks": {"kernels_straddling_decode_start": "0"}})",
       "`checks`.`kernels_straddling_decode_start` is neither an integer nor null"},
      {R"({"name": "x", "diagnostics": [{"count": 1.5}]})",
       "`diagnostics`[0].`count` is neither an integer nor null"},
  };
  int n = 0;
  for (const auto& c : kCases) {
    const fs::path dir = root / ("case" + std::to_string(n++));
    fs::create_directories(dir);
    const fs::path file = dir / "x_summary.json";
    Write(file, c.text);
    const std::vector<std::vector<std::string>> commands = {
        {"report", dir.string()},
        {"report", "--full", dir.string()},
        {"report", "--format", "html", dir.string()},
        {"report", "--format", "json", dir.string()},
        {"diff", file.string(), good.string()},
        {"diff", good.string(), file.string()},
    };
    const bool accepted = *c.error == '\0';
    const Verdict first = RunCommand(commands.front(), root);
    EXPECT_EQ(first.exit_code, accepted ? 0 : 65) << c.text << "\n" << first.error;
    if (accepted) {
      EXPECT_EQ(first.error, "") << c.text;
    } else {
      // The message's line, then the hint (if any).
      const std::string wanted = file.string() + ": " + c.error + "\n";
      EXPECT_EQ(first.error.substr(0, wanted.size()), wanted) << c.text;
    }
    for (size_t i = 1; i < commands.size(); ++i) {
      const Verdict v = RunCommand(commands[i], root);
      EXPECT_EQ(v.exit_code, first.exit_code)
          << commands[i][0] << " " << commands[i][1] << " on " << c.text;
      EXPECT_EQ(v.error, first.error)
          << commands[i][0] << " " << commands[i][1] << " on " << c.text;
    }
  }
}

}  // namespace
