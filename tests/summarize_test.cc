// End-to-end checks of `decodeprof summarize` and `report`: the seed's WindowTests case with
// its stated expectations, and byte-identical outputs across runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using decodeprof::testing::RunBinary;
using decodeprof::testing::Slurp;

namespace {

fs::path Scratch(const std::string& name) {
  const fs::path dir = decodeprof::testing::ScratchDir("dp_summarize_" + name + "_");
  fs::create_directories(dir / "out");
  return dir;
}

const fs::path kSeedWindow =
    fs::path(DECODEPROF_SOURCE_DIR) / "tests" / "golden" / "summarize" / "seed_window";

// Seed WindowTests.test_summarize_cuts_the_decode_window_by_the_phase_marks.
TEST(SummarizeTest, CutsTheDecodeWindowByThePhaseMarks) {
  const fs::path dir = Scratch("seed");
  const auto r = RunBinary(
      {"summarize", "--trace", (kSeedWindow / "trace.csv").string(), "--log",
       (kSeedWindow / "bench.log").string(), "--plain-log", (kSeedWindow / "plain.log").string(),
       "--name", "t", "--out-dir", (dir / "out").string()},
      {}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "out" / "t_decode_kernels.csv"));
  const auto s = nlohmann::json::parse(Slurp(dir / "out" / "t_summary.json"));
  EXPECT_EQ(s["clock"], "boottime");
  EXPECT_EQ(s["decode_dispatches"], 2);
  EXPECT_EQ(s["decode_gpu_busy_ms"], 0.05);
  EXPECT_EQ(s["checks"]["kernels_straddling_decode_start"], 0);
  EXPECT_EQ(s["checks"]["idle_gap_before_first_decode_dispatch_us"], 110.0);
  EXPECT_EQ(s["checks"]["host_gap_attribution_residual_ns"], 0);
  EXPECT_EQ(s["role_host_gap_ms_per_token"],
            nlohmann::json::parse(R"({"unattributed": 0.055, "tail": 0.02})"));
  EXPECT_EQ(s["plain_wall_ms_per_token"], 0.125);
  EXPECT_EQ(s["plain_host_gap_ms_per_token_est"], 0.1);
  ASSERT_EQ(s["port_units"].size(), 5u);
  for (const auto& [id, unit] : s["port_units"].items()) {
    for (const char* key :
         {"fallback_host_gap_ms_per_token", "fallback_host_gap_us_per_dispatch",
          "fallback_wall_share_pct", "reached_default_host_gap_ms_per_token",
          "reached_default_host_gap_us_per_dispatch", "reached_default_wall_share_pct"}) {
      EXPECT_EQ(unit[key], 0.0) << id << " " << key;
    }
    for (const char* key : {"ceiling_gpu_share", "ceiling_wall", "plain_ceiling_wall_est",
                            "reached_default_ceiling_gpu_share", "reached_default_ceiling_wall",
                            "reached_default_plain_ceiling_wall_est"}) {
      EXPECT_EQ(unit[key], 1.0) << id << " " << key;
    }
  }
  const auto report = RunBinary({"report", (dir / "out").string()}, {}, dir);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("| Run: ceiling wall (GPU share) |"), std::string::npos);
  EXPECT_NE(report.out.find("| `t` (plain) | 1.00 (1.00) |"), std::string::npos);
  fs::remove_all(dir);
}

// The same input gives byte-identical files, run after run.
TEST(SummarizeTest, OutputsAreByteIdenticalAcrossRuns) {
  const fs::path dir = Scratch("determinism");
  std::string first[3];
  for (int run = 0; run < 2; ++run) {
    const fs::path out = dir / ("out" + std::to_string(run));
    const auto r = RunBinary(
        {"summarize", "--trace", (kSeedWindow / "trace.csv").string(), "--log",
         (kSeedWindow / "bench.log").string(), "--plain-log", (kSeedWindow / "plain.log").string(),
         "--name", "t", "--out-dir", out.string(), "--emit-dispatches"},
        {}, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string files[3] = {"t_summary.json", "t_decode_kernels.csv",
                                  "t_decode_dispatches.csv"};
    for (int i = 0; i < 3; ++i) {
      const std::string text = Slurp(out / files[i]);
      ASSERT_FALSE(text.empty());
      if (run == 0) {
        first[i] = text;
      } else {
        EXPECT_EQ(text, first[i]) << files[i];
      }
    }
  }
  fs::remove_all(dir);
}

// Issue 11, "Output paths": a --name that is not a plain file name, and outputs that would
// replace a symlink or an input, are refused before anything is written.
std::vector<std::string> SeedArgs(const fs::path& out, const std::string& name) {
  return {"summarize",
          "--trace",
          (kSeedWindow / "trace.csv").string(),
          "--log",
          (kSeedWindow / "bench.log").string(),
          "--name",
          name,
          "--out-dir",
          out.string(),
          "--emit-dispatches"};
}

// Every file under `dir`, relative to it (the runner's stdout/stderr captures excepted).
std::vector<std::string> Tree(const fs::path& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string rel = e.path().lexically_relative(dir).string();
    if (rel != "stdout" && rel != "stderr") files.push_back(rel);
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(SummarizeTest, NameThatIsNotAFileNameIsRefused) {
  const fs::path dir = Scratch("names");
  for (const std::string& name :
       {std::string("../x"), std::string("a/b"), std::string(), std::string("."), std::string(".."),
        (dir / "abs").string(), std::string("tab\tname")}) {
    const auto r = RunBinary(SeedArgs(dir / "out", name), {}, dir);
    EXPECT_EQ(r.exit_code, 2) << name << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("decodeprof: summarize: --name must be a plain file name, got '", 0), 0u)
        << r.err;
    EXPECT_NE(r.err.find("\nhint: "), std::string::npos) << r.err;
    EXPECT_EQ(Tree(dir), (std::vector<std::string>{"out"})) << name;
  }
  // A name starting with '.' is a plain (hidden) file name.
  const auto r = RunBinary(SeedArgs(dir / "out", ".t"), {}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "out" / ".t_summary.json"));
  fs::remove_all(dir);
}

TEST(SummarizeTest, OutDirDashIsAUsageError) {
  const fs::path dir = Scratch("dash");
  const auto r = RunBinary(SeedArgs("-", "t"), {}, dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("decodeprof: summarize: --out-dir - : summarize writes several files"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists("-"));
  fs::remove_all(dir);
}

TEST(SummarizeTest, NoOutputIsWrittenWhenOneTargetIsRefused) {
  const fs::path dir = Scratch("targets");
  std::ofstream(dir / "target") << "keep";
  fs::create_symlink(dir / "target", dir / "out" / "t_summary.json");
  auto r = RunBinary(SeedArgs(dir / "out", "t"), {}, dir);
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_NE(r.err.find("t_summary.json: refusing to replace a symlink"), std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "out" / "t_summary.json"));
  EXPECT_EQ(Slurp(dir / "target"), "keep");
  EXPECT_EQ(Tree(dir / "out"), (std::vector<std::string>{"t_summary.json"}));

  // The bench log read as --log, at the place of an output: refused, unchanged.
  fs::remove(dir / "out" / "t_summary.json");
  fs::copy_file(kSeedWindow / "bench.log", dir / "out" / "t_decode_kernels.csv");
  std::vector<std::string> args = SeedArgs(dir / "out", "t");
  args[4] = (dir / "out" / "t_decode_kernels.csv").string();
  r = RunBinary(args, {}, dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("t_decode_kernels.csv: refusing to overwrite an input of this command"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(Slurp(dir / "out" / "t_decode_kernels.csv"), Slurp(kSeedWindow / "bench.log"));
  EXPECT_EQ(Tree(dir / "out"), (std::vector<std::string>{"t_decode_kernels.csv"}));
  fs::remove_all(dir);
}

}  // namespace
