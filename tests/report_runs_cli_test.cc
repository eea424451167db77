// `decodeprof report` and `decodeprof diff` over many runs: unique run names, groups by model
// and setting, which runs may head "Do first", ranks that are real or not, the JSON report
// and the --fail-on exits. The summaries are written by the test (small, one unit each).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using decodeprof::testing::Result;
using decodeprof::testing::RunBinary;
using Json = nlohmann::ordered_json;

namespace {

// A summary of a model run that deserves no flag; `graph_ceiling` is its #graph unit's
// plain-wall ceiling.
Json ModelRun(const std::string& name, const std::string& model, double graph_ceiling) {
  Json run = Json::parse(R"({
    "name": "", "model_type": "", "temperature": 0.0, "prompt_tokens": 512,
    "generated_tokens": 128, "profiled_decode_tok_s": 20.0, "plain_decode_tok_s": 21.0,
    "profiler_decode_slowdown_pct": 4.0, "decode_forward_passes": 127,
    "decode_wall_ms": 1280.0, "decode_gpu_sum_ms": 640.0, "gpu_ms_per_token": 5.0,
    "host_gap_ms_per_token": 5.0, "dispatches_per_token": 100.0,
    "checks": {"kernels_straddling_decode_start": 0, "host_gap_attribution_residual_ns": 0,
               "idle_gap_before_first_decode_dispatch_us": 100.0},
    "top_kernels": [{"kernel": "gemv_kernel", "class": "gemm", "calls_per_token": 10.0,
                     "share_pct": 50.0}],
    "warnings": [], "diagnostics": []})");
  run["name"] = name;
  run["model_type"] = model;
  Json unit = Json::object();
  unit["port"] = "capture the step";
  unit["fallback_share_pct"] = 0.0;
  unit["fallback_dispatches_per_token"] = 10.0;
  unit["reached_default_dispatches_per_token"] = 10.0;
  unit["fallback_host_gap_ms_per_token"] = 4.0;
  unit["ceiling_wall"] = graph_ceiling;
  unit["plain_ceiling_wall_est"] = graph_ceiling;
  unit["ceiling_gpu_share"] = 1.0;
  run["port_units"] = Json::object();
  run["port_units"]["graph"] = unit;
  return run;
}

// A test program's run: no model, no bench results, recorded by decodeprof.
Json SyntheticRun(const std::string& name, double graph_ceiling) {
  Json run = ModelRun(name, "", graph_ceiling);
  run["model_type"] = nullptr;
  run["prompt_tokens"] = nullptr;
  run["profiled_decode_tok_s"] = nullptr;
  run["plain_decode_tok_s"] = nullptr;
  run["profiler_decode_slowdown_pct"] = nullptr;
  run["trace_format"] = "native";
  return run;
}

class ReportRunsCliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }

  // Writes `run` as <dir>/<sub>/<name>_summary.json.
  std::string Write(const std::string& sub, const Json& run) {
    const fs::path path = dir_ / "runs" / sub / (run["name"].get<std::string>() + "_summary.json");
    fs::create_directories(path.parent_path());
    std::ofstream(path) << run.dump(2);
    return path.string();
  }
  Result Run(const std::vector<std::string>& args) { return RunBinary(args, {}, dir_); }
  std::string Runs() const { return (dir_ / "runs").string(); }

  decodeprof::testing::TempDir temp_{"dp_report_runs_"};
  fs::path dir_;
};

// Three campaigns of the same model and setting: each run is named by the shortest directory
// suffix that tells it apart; a name that appears once stays as it is.
TEST_F(ReportRunsCliTest, RepeatedNamesGetTheShortestUniqueDirectorySuffix) {
  Write("2026-11/a", ModelRun("Llama_greedy", "llama", 2.0));
  Write("2026-12/a", ModelRun("Llama_greedy", "llama", 2.1));
  Write("2026-12/b", ModelRun("Llama_greedy", "llama", 2.2));
  Write("2026-12/b", ModelRun("Llama_t0.7", "llama", 1.5));
  const Result r = Run({"report", Runs()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("| `2026-11/a/Llama_greedy` |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| `2026-12/a/Llama_greedy` |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| `b/Llama_greedy` |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| `Llama_t0.7` |"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("| `Llama_greedy` |"), std::string::npos) << r.out;
}

TEST_F(ReportRunsCliTest, RunsGroupByModelAndSetting) {
  Write("x", ModelRun("Llama_greedy", "llama", 2.0));
  Write("y", ModelRun("Llama_greedy-graph", "llama", 1.1));
  Write("x", ModelRun("Llama_t0.7-p0.95", "llama", 1.5));
  Write("x", ModelRun("Qwen_greedy", "qwen3_moe", 1.5));
  Write("x", SyntheticRun("loop", 3.0));
  Write("z", ModelRun("Llama_greedy", "llama", 2.0));
  const Result r = Run({"report", Runs()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("## Runs by model and setting\n\n| model | setting | runs | names |\n"
                       "|---|---|---:|---|\n"
                       "| llama | greedy | 2 | `x/Llama_greedy`, `z/Llama_greedy` |\n"
                       "| llama | t0.7-p0.95 | 1 | `Llama_t0.7-p0.95` |\n"
                       "| llama | greedy-graph | 1 | `Llama_greedy-graph` |\n"
                       "| qwen3_moe | greedy | 1 | `Qwen_greedy` |\n"
                       "| no model | greedy | 1 | `loop` |\n"),
            std::string::npos)
      << r.out;
}

// The synthetic loop and the flagged run have the largest ceilings, yet the list starts with
// the clean model run's; the report says which runs it left out and why.
TEST_F(ReportRunsCliTest, SyntheticAndFlaggedRunsNeverHeadTheList) {
  Write("a", ModelRun("Llama_greedy", "llama", 2.0));
  Json slow = ModelRun("Qwen_greedy", "qwen3_moe", 9.0);
  slow["profiler_decode_slowdown_pct"] = -30.0;  // plain run slower than profiled
  Write("a", slow);
  Write("a", SyntheticRun("loop", 19.0));
  const Result r = Run({"report", Runs()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1. **#graph**: capture the step — **2.00×** plain wall\n"
                       "   - runs: reaches all 3 runs; ceiling from `Llama_greedy`\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("**Left out of the headline**: 2 of 3 runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("- synthetic or unnamed workload (1; "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("): `loop`\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("- plain run slower than profiled (1): `Qwen_greedy` ⚠\n"),
            std::string::npos)
      << r.out;
  // A summary that says it is synthetic is, whatever else it has.
  Json declared = ModelRun("Declared_greedy", "llama", 30.0);
  declared["workload"] = "synthetic";
  Write("b", declared);
  const Result again = Run({"report", Runs()});
  EXPECT_NE(again.out.find("ceiling from `Llama_greedy`"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("`Declared_greedy` (synthetic)"), std::string::npos) << again.out;
}

// `summarize --synthetic` writes the field that says so; without it there is none.
TEST_F(ReportRunsCliTest, SummarizeSyntheticMarksTheSummary) {
  const std::string trace = std::string(DECODEPROF_SOURCE_DIR) +
                            "/examples/data/Llama-3.1-8B-Instruct_greedy/"
                            "Llama-3.1-8B-Instruct_greedy.sqlite";
  const std::string out = (dir_ / "runs" / "s").string();
  ASSERT_EQ(Run({"summarize", "--trace", trace, "--name", "loop", "--out-dir", out, "--quiet",
                 "--synthetic"})
                .exit_code,
            0);
  ASSERT_EQ(Run({"summarize", "--trace", trace, "--name", "plain", "--out-dir", out, "--quiet"})
                .exit_code,
            0);
  std::ifstream loop_file(out + "/loop_summary.json");
  std::ifstream plain_file(out + "/plain_summary.json");
  const Json loop = Json::parse(loop_file);
  const Json plain = Json::parse(plain_file);
  EXPECT_EQ(loop["workload"], "synthetic");
  EXPECT_FALSE(plain.contains("workload"));
  const Result r = Run({"report", Runs(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["runs"][0]["label"], "loop");
  EXPECT_EQ(doc["runs"][0]["synthetic"], "its summary says workload synthetic");
  EXPECT_EQ(doc["runs"][0]["headline"], false);
}

// Many runs: a unit's runs and a flag's runs are named three at a time, the rest counted.
TEST_F(ReportRunsCliTest, DoFirstNamesRunsCompactly) {
  Write("m", ModelRun("Llama_greedy", "llama", 2.0));
  for (int i = 0; i < 8; ++i) {
    Json few = ModelRun("few" + std::to_string(i), "llama", 1.5);
    few["generated_tokens"] = 4;
    Write("m", few);
  }
  const Result r = Run({"report", Runs()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("- few tokens (8): `few0` ⚠, `few1` ⚠, `few2` ⚠ and 5 more\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("fewer than 16; and 5 runs more."), std::string::npos) << r.out;
  const std::string do_first = r.out.substr(0, r.out.find("## Runs by model and setting"));
  EXPECT_EQ(do_first.find("`few7` ⚠"), std::string::npos) << do_first;
}

TEST_F(ReportRunsCliTest, JsonCarriesTheRankingAndTheFlags) {
  Write("a", ModelRun("Llama_greedy", "llama", 2.0));
  Json few = ModelRun("Few_greedy", "llama", 5.0);
  few["generated_tokens"] = 4;
  Write("a", few);
  Write("a", SyntheticRun("loop", 19.0));
  const Result r = Run({"report", Runs(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc["report_version"], 2);
  ASSERT_EQ(doc["runs"].size(), 3u);
  // Runs in path order: Few_greedy, Llama_greedy, loop.
  EXPECT_EQ(doc["runs"][0]["label"], "Few_greedy");
  EXPECT_EQ(doc["runs"][0]["headline"], false);
  EXPECT_EQ(doc["runs"][0]["flags"][0]["kind"], "few_tokens");
  EXPECT_EQ(doc["runs"][0]["left_out_because"], Json::parse(R"(["few tokens"])"));
  EXPECT_EQ(doc["runs"][1]["headline"], true);
  EXPECT_TRUE(doc["runs"][1]["flags"].empty());
  EXPECT_EQ(doc["runs"][2]["headline"], false);
  EXPECT_TRUE(doc["runs"][2]["synthetic"].is_string());
  EXPECT_EQ(doc["do_first"]["provisional"], false);
  ASSERT_EQ(doc["do_first"]["listed"].size(), 1u);
  EXPECT_EQ(doc["do_first"]["listed"][0]["unit"], "graph");
  EXPECT_EQ(doc["do_first"]["listed"][0]["run"], "Llama_greedy");
  EXPECT_EQ(doc["do_first"]["listed"][0]["ceiling"], 2.0);
  EXPECT_EQ(doc["do_first"]["listed"][0]["by"], "plain_ceiling_wall_est");
  EXPECT_EQ(doc["groups"][0]["runs"], Json::parse(R"(["Few_greedy", "Llama_greedy"])"));
  ASSERT_EQ(doc["summaries"].size(), 3u);
  EXPECT_EQ(doc["summaries"][1]["name"], "Llama_greedy");
}

TEST_F(ReportRunsCliTest, FailOnFlagsExitsOneAfterTheReport) {
  Write("a", ModelRun("Llama_greedy", "llama", 2.0));
  const Result clean = Run({"report", Runs(), "--fail-on", "flags"});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  Json few = ModelRun("Few_greedy", "llama", 5.0);
  few["generated_tokens"] = 4;
  Write("a", few);
  const Result plain = Run({"report", Runs()});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  const Result r = Run({"report", Runs(), "--fail-on", "flags"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("## Do first"), std::string::npos);
  EXPECT_NE(r.err.find("1 of the runs have trust flags"), std::string::npos) << r.err;
  EXPECT_EQ(Run({"report", Runs(), "--fail-on", "nothing"}).exit_code, 2);
}

TEST_F(ReportRunsCliTest, DiffFailOnRegression) {
  Json before = ModelRun("before", "llama", 2.0);
  Json after = ModelRun("after", "llama", 2.0);
  after["gpu_ms_per_token"] = 5.4;  // 8 % more
  const std::string b = Write("d", before);
  const std::string a = Write("d", after);
  EXPECT_EQ(Run({"diff", b, a}).exit_code, 0);
  // Default 10 %: 8 % passes; 5 % does not.
  EXPECT_EQ(Run({"diff", b, a, "--fail-on", "regression"}).exit_code, 0);
  const Result r = Run({"diff", b, a, "--fail-on", "regression=5"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("regression: GPU busy ms/token 5.0000 -> 5.4000 (+8.00 %)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("| GPU busy ms/token |"), std::string::npos) << r.out;
  // A kernel that takes more of the GPU time, and a unit whose host gap grew.
  after["gpu_ms_per_token"] = 5.0;
  after["top_kernels"][0]["share_pct"] = 60.0;
  after["port_units"]["graph"]["fallback_host_gap_ms_per_token"] = 5.0;
  Write("d", after);
  const Result k = Run({"diff", b, a, "--fail-on", "regression"});
  EXPECT_EQ(k.exit_code, 1);
  EXPECT_NE(k.err.find("regression: #graph host gap ms/token 4.0000 -> 5.0000 (+25.00 %)"),
            std::string::npos)
      << k.err;
  EXPECT_NE(k.err.find("regression: kernel `gemv_kernel` GPU ms/token 2.5000 -> 3.0000"),
            std::string::npos)
      << k.err;
  // A faster AFTER is no regression.
  EXPECT_EQ(Run({"diff", a, b, "--fail-on", "regression=0"}).exit_code, 0);
  EXPECT_EQ(Run({"diff", b, a, "--fail-on", "regression=x"}).exit_code, 2);
}

// torch.profiler's distributedInfo: two engines' rank 0 are separate runs, reported together
// without a rank table; distinct ranks of one world make one; a recorder's run id decides.
TEST_F(ReportRunsCliTest, OnlyRealRanksMakeARankTable) {
  const auto ranked = [](const std::string& name, int rank, int world, const std::string& id) {
    Json run = ModelRun(name, "llama", 2.0);
    run["rank"] = {{"rank", rank},
                   {"world_size", world},
                   {"local_rank", nullptr},
                   {"run_id", id},
                   {"group", nullptr}};
    return run;
  };
  Write("v", ranked("vllm_a", 0, 8, ""));
  Write("v", ranked("vllm_b", 0, 8, ""));
  Write("v", ranked("sglang", 0, 1, ""));
  const Result r = Run({"report", Runs()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("| rank | run |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("- `vllm_a`, `vllm_b`: the same rank of one world size more than once"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("- `sglang`: rank 0 of a world of 1"), std::string::npos) << r.out;

  fs::remove_all(dir_ / "runs");
  Write("t", ranked("tp_rank0", 0, 2, ""));
  Write("t", ranked("tp_rank1", 1, 2, ""));
  Write("t", ranked("other", 3, 8, ""));
  const Result tp = Run({"report", Runs()});
  ASSERT_EQ(tp.exit_code, 0) << tp.err;
  EXPECT_NE(tp.out.find("Run `world of 2`:"), std::string::npos) << tp.out;
  EXPECT_NE(tp.out.find("| 0 | tp_rank0 |"), std::string::npos) << tp.out;
  EXPECT_NE(tp.out.find("| 1 | tp_rank1 |"), std::string::npos) << tp.out;
  EXPECT_NE(tp.out.find("- `other` (rank 3 of 8): one rank of a larger job"), std::string::npos)
      << tp.out;

  // One run id, the same rank twice: contradictory, exit 65.
  fs::remove_all(dir_ / "runs");
  Write("x", ranked("r0", 0, 2, "42:/t.sqlite"));
  Write("y", ranked("r0b", 0, 2, "42:/t.sqlite"));
  const Result twice = Run({"report", Runs()});
  EXPECT_EQ(twice.exit_code, 65);
  EXPECT_NE(twice.err.find("rank 0 of run `42:/t.sqlite` again"), std::string::npos) << twice.err;
  EXPECT_EQ(twice.out, "");
}

}  // namespace
