// `decodeprof export --chrome-trace` over the recorded H200 trace
// examples/data/Llama-3.1-8B-Instruct_greedy/Llama-3.1-8B-Instruct_greedy.sqlite (8 generated
// tokens, so 7 decode steps): counts and a few events of the timeline,
// checked against the trace itself and against `summarize` over the same trace (the expected
// file would be tens of MB, so no golden copy is kept).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using decodeprof::testing::Result;
using decodeprof::testing::RunBinary;
using decodeprof::testing::Slurp;
using nlohmann::json;

namespace {

const std::string kTrace = std::string(DECODEPROF_SOURCE_DIR) +
                           "/examples/data/Llama-3.1-8B-Instruct_greedy/"
                           "Llama-3.1-8B-Instruct_greedy.sqlite";

class ExportCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_.path();
    fs::create_directories(dir_ / "out");
  }

  Result Run(const std::vector<std::string>& args) { return RunBinary(args, {}, dir_); }

  decodeprof::testing::TempDir temp_{"dp_export_"};
  fs::path dir_;
};

std::map<std::string, int64_t> CountByCat(const json& doc) {
  std::map<std::string, int64_t> n;
  for (const json& e : doc["traceEvents"]) ++n[e.value("cat", e["ph"].get<std::string>())];
  return n;
}

TEST_F(ExportCliTest, DecodeWindowMatchesSummarize) {
  const std::string out = (dir_ / "out" / "decode.json").string();
  const Result r = Run({"export", "--chrome-trace", out, "--trace", kTrace, "--window", "decode"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("decode.json: "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("pack pytorch-cuda"), std::string::npos) << r.err;
  const json doc = json::parse(Slurp(out));

  const Result s = Run(
      {"summarize", "--trace", kTrace, "--name", "llama", "--out-dir", (dir_ / "sum").string()});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const json summary = json::parse(Slurp(dir_ / "sum" / "llama_summary.json"));

  const auto n = CountByCat(doc);
  // Memory operations are dispatches too, in categories of their own.
  EXPECT_EQ(n.at("kernel") + n.at("memcpy") + n.at("memset"),
            summary["decode_dispatches"].get<int64_t>());
  EXPECT_GT(n.at("memcpy"), 0);
  // Every kernel of this trace has its launch call; the recorder keeps no memcpy/memset calls.
  EXPECT_EQ(n.at("launch"), n.at("kernel"));
  EXPECT_EQ(n.at("range"), 8);  // decodeprof:decode + 7 steps
  EXPECT_GT(n.at("gap"), 0);
  EXPECT_EQ(doc["otherData"]["window"], "decode");
  EXPECT_EQ(doc["otherData"]["source"], "Llama-3.1-8B-Instruct_greedy.sqlite");
  EXPECT_EQ(doc["otherData"]["clock"], "monotonic");
  EXPECT_EQ(doc["otherData"]["origin_ns"], doc["otherData"]["window_lo_ns"]);

  // Kernels: in start order, non-negative durations, each with a class of the pack and a grid,
  // and on one of the GPU process's tracks.
  double last_ts = -1;
  int64_t steps = 0;
  for (const json& e : doc["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (cat == "range" && e["name"] == "decodeprof:step") ++steps;
    if (cat != "kernel") continue;
    EXPECT_GE(e["ts"].get<double>(), last_ts);
    last_ts = e["ts"].get<double>();
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    EXPECT_EQ(e["pid"], 1);
    EXPECT_GE(e["tid"].get<int64_t>(), 1);
    ASSERT_TRUE(e["args"].contains("class")) << e.dump();
    EXPECT_GT(e["args"]["grid"].get<int64_t>(), 0);
    EXPECT_EQ(e["args"]["launch_thread"], 1087);  // the main thread (meta pid 1087)
  }
  EXPECT_EQ(steps, 7);
  // The last kernel is greedy sampling's argmax.
  const json* last_kernel = nullptr;
  for (const json& e : doc["traceEvents"]) {
    if (e.value("cat", "") == "kernel") last_kernel = &e;
  }
  ASSERT_NE(last_kernel, nullptr);
  EXPECT_NE(last_kernel->at("name").get<std::string>().find("ArgMaxOps"), std::string::npos);
}

// The whole trace's timeline (52 MB) is read a line at a time, each event on a line of its own
// as the writer puts it: its category is counted from the text and only the few lines asserted
// on are parsed (one parse of the whole file took most of this test's half minute in the
// sanitizer tree).
TEST_F(ExportCliTest, WholeTraceHoldsEveryKernel) {
  const std::string out = (dir_ / "out" / "all.json").string();
  const Result r = Run({"export", "--chrome-trace", out, "--trace", kTrace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  ASSERT_EQ(line, "{\"traceEvents\":[");
  std::map<std::string, int64_t> n;
  std::vector<std::string> processes;
  json other;
  const auto field = [](const std::string& text, const std::string& key) {
    const size_t at = text.find("\"" + key + "\":\"");
    if (at == std::string::npos) return std::string();
    const size_t from = at + key.size() + 4;
    return text.substr(from, text.find('"', from) - from);
  };
  while (std::getline(in, line)) {
    if (line.starts_with("{\"name\":")) {
      const std::string cat = field(line, "cat");
      ++n[cat.empty() ? field(line, "ph") : cat];
      if (line.starts_with("{\"name\":\"process_name\",")) {
        const json e = json::parse(line.substr(0, line.find_last_of('}') + 1));
        processes.push_back(e["args"]["name"]);
      }
    } else if (line.starts_with("\"otherData\":")) {
      other = json::parse(line.substr(12, line.size() - 13));
    }
  }
  EXPECT_EQ(n.at("kernel"), 42112);                 // rows of the file's kernels table
  EXPECT_EQ(n.at("memcpy") + n.at("memset"), 156);  // and of its memory_ops table
  EXPECT_EQ(n.at("range"), 10);                     // + decodeprof:warmup and decodeprof:prefill
  EXPECT_EQ(n.at("launch"), 42112);
  EXPECT_EQ(other["window"], "all");
  EXPECT_EQ(processes, (std::vector<std::string>{"GPU", "CPU"}));
}

TEST_F(ExportCliTest, MissingTraceIs66AndWritesNothing) {
  const Result r = Run({"export", "--chrome-trace", (dir_ / "out" / "x.json").string(), "--trace",
                        (dir_ / "nope.sqlite").string()});
  EXPECT_EQ(r.exit_code, 66);
  EXPECT_NE(r.err.find("decodeprof: export: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nope.sqlite"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
}

TEST_F(ExportCliTest, BadFormatAndWindowAre2) {
  const std::string out = (dir_ / "out" / "x.json").string();
  Result r = Run({"export", "--chrome-trace", out, "--trace", kTrace, "--format", "nsys"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format: must be one of auto, kineto-json, native, nsys-sqlite, rocpd, "
                       "rocprofv3-csv, got 'nsys'"),
            std::string::npos)
      << r.err;
  r = Run({"export", "--chrome-trace", out, "--trace", kTrace, "--window", "prefill"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--window: must be one of all, decode, got 'prefill'"), std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
}

TEST_F(ExportCliTest, WrongFormatIsADataError) {
  // A native trace read as Kineto JSON is malformed input (65), and nothing is written.
  const std::string out = (dir_ / "out" / "x.json").string();
  const Result r =
      Run({"export", "--chrome-trace", out, "--trace", kTrace, "--format", "kineto-json"});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
}

// Issue 11, "Output paths": what --chrome-trace may replace. The input is the small Kineto
// trace of the golden cases, copied so that a regression cannot touch the checked-in file.
class ExportOutputTest : public ExportCliTest {
 protected:
  void SetUp() override {
    ExportCliTest::SetUp();
    fs::copy_file(fs::path(DECODEPROF_SOURCE_DIR) / "tests/golden/export/kineto_decode/trace.json",
                  input());
    input_bytes_ = Slurp(input());
    ASSERT_FALSE(input_bytes_.empty());
  }
  std::string input() const { return (dir_ / "in.json").string(); }
  Result Export(const std::string& out) {
    return Run({"export", "--chrome-trace", out, "--trace", input(), "--format", "kineto-json"});
  }
  // The file names in out/ (no temporary file may be left there).
  std::vector<std::string> OutEntries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_ / "out")) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string input_bytes_;
};

TEST_F(ExportOutputTest, SymlinkIsNotReplaced) {
  const fs::path target = dir_ / "out" / "target.json";
  const fs::path link = dir_ / "out" / "link.json";
  std::ofstream(target) << "keep";
  fs::create_symlink("target.json", link);
  const Result r = Export(link.string());
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_NE(r.err.find("decodeprof: export: " + link.string() +
                       ": refusing to replace a symlink (to target.json)\nhint: "),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::read_symlink(link), "target.json");
  EXPECT_EQ(Slurp(target), "keep");
  EXPECT_EQ(OutEntries(), (std::vector<std::string>{"link.json", "target.json"}));
  // A dangling link too: nothing appears behind it.
  fs::create_symlink("nowhere.json", dir_ / "out" / "dangling.json");
  EXPECT_EQ(Export((dir_ / "out" / "dangling.json").string()).exit_code, 66);
  EXPECT_FALSE(fs::exists(dir_ / "out" / "nowhere.json"));
}

TEST_F(ExportOutputTest, DeviceNodeIsNotReplaced) {
  // The symlink case first: if that is not refused, /dev/null is not put at risk.
  fs::create_symlink("nowhere.json", dir_ / "out" / "link.json");
  ASSERT_EQ(Export((dir_ / "out" / "link.json").string()).exit_code, 66);
  const Result r = Export("/dev/null");
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_NE(r.err.find("decodeprof: export: /dev/null: refusing to replace a character device"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  for (const auto& e : fs::directory_iterator("/dev")) {
    EXPECT_EQ(e.path().filename().string().rfind("null.tmp.", 0), std::string::npos) << e.path();
  }
}

TEST_F(ExportOutputTest, OwnInputIsNotReplaced) {
  // The trace itself, under its own name and under others.
  fs::create_hard_link(input(), dir_ / "hard.json");
  for (const std::string& out :
       {input(), (dir_ / "out" / ".." / "in.json").string(), (dir_ / "hard.json").string()}) {
    const Result r = Export(out);
    EXPECT_EQ(r.exit_code, 2) << out << "\n" << r.err;
    EXPECT_NE(r.err.find("decodeprof: export: " + out +
                         ": refusing to overwrite an input of this command (" + input() + ")"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(Slurp(input()), input_bytes_) << out;
  }
  // The bench log is an input too.
  const std::string log = (dir_ / "bench.log").string();
  std::ofstream(log) << "[phase] decode_start monotonic_ns=1\n";
  const Result r = Run({"export", "--chrome-trace", log, "--trace", input(), "--format",
                        "kineto-json", "--log", log});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(Slurp(log), "[phase] decode_start monotonic_ns=1\n");
  EXPECT_EQ(Slurp(input()), input_bytes_);
  EXPECT_TRUE(OutEntries().empty());
}

TEST_F(ExportOutputTest, DashIsStandardOutput) {
  const Result r = Export("-");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);  // only the timeline on stdout
  EXPECT_EQ(doc["otherData"]["source"], "in.json");
  EXPECT_NE(r.err.find("<stdout>: 5 dispatches"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists("-"));
  EXPECT_TRUE(OutEntries().empty());
}

TEST_F(ExportOutputTest, RegularFileIsReplaced) {
  const fs::path out = dir_ / "out" / "old.json";
  std::ofstream(out) << "old";
  const Result r = Export(out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(Slurp(out))["otherData"]["source"], "in.json");
  EXPECT_EQ(OutEntries(), (std::vector<std::string>{"old.json"}));
}

}  // namespace
