// `summarize`'s speed-of-light ledger end to end (issue 27; docs/speed-of-light.md): a real
// H200 recording (examples/data, transformers' eager Llama-3.1-8B decode) with its config.json.
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
using decodeprof::testing::RunBinary;
using decodeprof::testing::Slurp;

namespace {

const fs::path kRun =
    fs::path(DECODEPROF_SOURCE_DIR) / "examples/data/Llama-3.1-8B-Instruct_greedy";

fs::path Scratch(const std::string& name) {
  const fs::path dir = decodeprof::testing::ScratchDir("dp_sol_" + name + "_");
  fs::create_directories(dir / "out");
  return dir;
}

struct Summarized {
  int exit_code = 0;
  std::string err;
  nlohmann::json summary;
};

Summarized Summarize(const std::string& name, std::vector<std::string> extra,
                     const fs::path& model_dir = kRun) {
  const fs::path dir = Scratch(name);
  std::vector<std::string> args = {"summarize",
                                   "--trace",
                                   (kRun / "Llama-3.1-8B-Instruct_greedy.sqlite").string(),
                                   "--log",
                                   (kRun / "Llama-3.1-8B-Instruct_greedy_bench.log").string(),
                                   "--model-dir",
                                   model_dir.string(),
                                   "--name",
                                   "t",
                                   "--out-dir",
                                   (dir / "out").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = RunBinary(args, {}, dir);
  Summarized s{r.exit_code, r.err, {}};
  if (fs::exists(dir / "out/t_summary.json")) {
    s.summary = nlohmann::json::parse(Slurp(dir / "out/t_summary.json"));
  }
  return s;
}

bool HasDiagnostic(const nlohmann::json& summary, const std::string& code) {
  for (const auto& d : summary["diagnostics"]) {
    if (d["code"] == code) return true;
  }
  return false;
}

TEST(SpeedOfLightCliTest, TheLedgerOfALlamaDecodeAddsUpAndSaysWhereItsNumbersCameFrom) {
  const Summarized r = Summarize("llama", {"--peak-bandwidth", "4800"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(r.summary.contains("speed_of_light")) << r.err;
  const nlohmann::json& l = r.summary["speed_of_light"];
  EXPECT_EQ(l["architecture"], "llama");
  EXPECT_EQ(l["weight_format"], "bf16");
  EXPECT_EQ(l["peak_source"], "option");
  EXPECT_EQ(l["peak_bandwidth_gbps"], 4800.0);
  // Weights read once a step (the embedding as one row): src/model's count of Llama-3.1-8B.
  EXPECT_EQ(l["weight_bytes"], 15009857536);
  // The context: the log's 512 prompt tokens and the mean of the decode's positions.
  const int64_t steps = r.summary["generated_tokens"].get<int64_t>() - 1;
  EXPECT_DOUBLE_EQ(l["context_tokens"].get<double>(), 512 + static_cast<double>(steps + 1) / 2);
  EXPECT_NEAR(l["kv_bytes_per_token"].get<double>(), 131072 * l["context_tokens"].get<double>(),
              1.0);
  EXPECT_EQ(l["bytes_per_token"].get<int64_t>(),
            l["weight_bytes"].get<int64_t>() + l["kv_bytes_per_token"].get<int64_t>());
  EXPECT_NEAR(l["floor_ms_per_token"].get<double>(), l["bytes_per_token"].get<double>() / 4800e6,
              1e-4);
  // An eager transformers decode is launch-bound: far from its floor.
  const double mbu = l["mbu_pct"].get<double>();
  EXPECT_GT(mbu, 1.0);
  EXPECT_LT(mbu, 20.0);
  EXPECT_NEAR(mbu,
              100 * l["floor_ms_per_token"].get<double>() / l["wall_ms_per_token"].get<double>(),
              0.01);
  // The decomposition adds up to the wall.
  const nlohmann::json& d = l["decomposition_ms_per_token"];
  double sum = d["floor"].get<double>() + d["other_kernels"].get<double>() +
               d["overlap"].get<double>() + d["host_gap"].get<double>();
  for (const auto& [id, excess] : d["units"].items()) sum += excess.get<double>();
  EXPECT_NEAR(sum, d["wall"].get<double>(), 0.001);
  EXPECT_EQ(d["wall"], l["wall_ms_per_token"]);
  // cuBLAS's GEMMs move the weights; every unit of the units file has its row.
  ASSERT_TRUE(l["classes"].contains("gemm"));
  EXPECT_EQ(l["classes"]["gemm"]["moves"],
            nlohmann::json::parse(R"(["dense_weights","head_weights"])"));
  EXPECT_LT(l["classes"]["gemm"]["pct_of_peak"].get<double>(), 100.0);
  EXPECT_EQ(l["units"].size(), r.summary["port_units"].size());
  EXPECT_GE(l["units"]["gemv"]["ceiling_to_floor"].get<double>(), 1.0);
}

TEST(SpeedOfLightCliTest, ThePeakOfTheTracesDeviceComesFromTheTable) {
  const Summarized r = Summarize("table", {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(r.summary.contains("speed_of_light")) << r.err;
  EXPECT_EQ(r.summary["speed_of_light"]["peak_source"], "table");
  EXPECT_EQ(r.summary["speed_of_light"]["peak_bandwidth_gbps"], 4800.0);
}

TEST(SpeedOfLightCliTest, AFloorAboveTheWallLeavesTheLedgerOutWithAWarning) {
  // At 1 GB/s the 15 GB a step would take 15 s: longer than the decode took.
  const Summarized r = Summarize("above", {"--peak-bandwidth", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(r.summary.contains("speed_of_light"));
  EXPECT_TRUE(HasDiagnostic(r.summary, "speed_of_light_left_out"));
  EXPECT_NE(r.err.find("above the peak"), std::string::npos) << r.err;
}

TEST(SpeedOfLightCliTest, AModelTheTableDoesNotDescribeLeavesTheLedgerOut) {
  const fs::path dir = Scratch("unknown_model");
  fs::create_directories(dir / "model");
  std::ofstream(dir / "model/config.json") << R"({"model_type": "no_such_architecture"})";
  const Summarized r = Summarize("unknown", {"--peak-bandwidth", "4800"}, dir / "model");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(r.summary.contains("speed_of_light"));
  EXPECT_TRUE(HasDiagnostic(r.summary, "speed_of_light_left_out"));
  EXPECT_NE(r.err.find("no_such_architecture"), std::string::npos) << r.err;
}

TEST(SpeedOfLightCliTest, WithoutAModelNothingChanges) {
  const fs::path dir = Scratch("nomodel");
  const auto r =
      RunBinary({"summarize", "--trace", (kRun / "Llama-3.1-8B-Instruct_greedy.sqlite").string(),
                 "--log", (kRun / "Llama-3.1-8B-Instruct_greedy_bench.log").string(), "--name", "t",
                 "--out-dir", (dir / "out").string(), "--peak-bandwidth", "4800"},
                {}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = nlohmann::json::parse(Slurp(dir / "out/t_summary.json"));
  EXPECT_FALSE(s.contains("speed_of_light"));
  EXPECT_FALSE(HasDiagnostic(s, "speed_of_light_left_out"));
}

TEST(SpeedOfLightCliTest, BadPeakValuesAreRefusedBeforeAnythingIsRead) {
  for (const char* bad : {"0", "-5", "nan", "100001"}) {
    const Summarized r = Summarize(std::string("bad") + bad, {"--peak-bandwidth", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--peak-bandwidth"), std::string::npos) << r.err;
  }
  const Summarized missing = Summarize("missingfile", {"--peak-bandwidth", "no/such/bw.json"});
  EXPECT_EQ(missing.exit_code, 66) << missing.err;
}

}  // namespace
