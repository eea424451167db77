#include "src/report/diff.h"
#include "src/report/testing/summary_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace decodeprof::report {
namespace {

using test_support::Summary;

// An eager run: 64 ms/token plain, mostly host gaps; units `graph` (ceiling 10.0) and `gemv`.
SummaryFile Before() {
  return Summary(R"({
    "name": "m_eager", "generated_tokens": 100, "profiled_decode_tok_s": 20.0,
    "plain_decode_tok_s": 15.65, "dispatches_per_token": 1000.0, "decode_wall_ms": 5000.0,
    "decode_gpu_sum_ms": 600.0, "gpu_ms_per_token": 6.0, "host_gap_ms_per_token": 44.0,
    "plain_wall_ms_per_token": 64.0, "plain_host_gap_ms_per_token_est": 58.0,
    "top_kernels": [
      {"kernel": "k_gemm", "class": "gemm", "calls_per_token": 60.0, "share_pct": 50.0},
      {"kernel": "k_mul", "class": "elementwise", "calls_per_token": 120.0, "share_pct": 10.0},
      {"kernel": "k_mean", "class": "reduce", "calls_per_token": 60.0, "share_pct": 5.0}],
    "class_share_pct": {"gemm": 70.0, "elementwise": 20.0, "reduce": 10.0},
    "port_units": {
      "gemv": {"port": "GEMV kernels", "fallback_share_pct": 70.0,
               "fallback_host_gap_ms_per_token": 5.0, "ceiling_wall": 1.2,
               "plain_ceiling_wall_est": 1.19},
      "graph": {"port": "CUDA graph", "fallback_share_pct": 0.0,
                "fallback_host_gap_ms_per_token": 44.0, "ceiling_wall": 8.7,
                "plain_ceiling_wall_est": 10.0}}})",
                 "before_summary.json");
}

// The same model with the step captured in a CUDA graph: 8 ms/token plain.
SummaryFile After() {
  return Summary(R"({
    "name": "m_graph", "generated_tokens": 100, "profiled_decode_tok_s": 100.0,
    "plain_decode_tok_s": 125.0, "dispatches_per_token": 1100.0, "decode_wall_ms": 1000.0,
    "decode_gpu_sum_ms": 700.0, "gpu_ms_per_token": 7.0, "host_gap_ms_per_token": 3.0,
    "plain_wall_ms_per_token": 8, "plain_host_gap_ms_per_token_est": -0.5,
    "top_kernels": [
      {"kernel": "k_gemm", "class": "gemm", "calls_per_token": 60.0, "share_pct": 45.0},
      {"kernel": "k_copy", "class": "copy", "calls_per_token": 60.0, "share_pct": 8.0},
      {"kernel": "k_mul", "class": "elementwise", "calls_per_token": 180.0, "share_pct": 10.0}],
    "class_share_pct": {"gemm": 60.0, "elementwise": 20.0, "copy": 10.0, "reduce": 10.0},
    "port_units": {
      "graph": {"port": "CUDA graph", "fallback_share_pct": 0.0,
                "fallback_host_gap_ms_per_token": 3.0, "ceiling_wall": 1.4,
                "plain_ceiling_wall_est": 1.08},
      "copies": {"port": "KV copies", "fallback_share_pct": 10.0}}})",
                 "after_summary.json");
}

SummaryDiff Diff(const SummaryFile& before, const SummaryFile& after,
                 const DiffOptions& options = {}) {
  auto diff = DiffSummaries(before, after, options);
  EXPECT_TRUE(diff.ok()) << diff.status().ToString();
  return diff.ok() ? *diff : SummaryDiff{};
}

const DiffRow& Row(const SummaryDiff& diff, const std::string& key) {
  for (const DiffRow& row : diff.per_token) {
    if (row.key == key) return row;
  }
  ADD_FAILURE() << "no row " << key;
  static const DiffRow kNone;
  return kNone;
}

TEST(DiffSummariesTest, PerTokenFiguresChangesAndRatios) {
  const SummaryDiff diff = Diff(Before(), After());
  EXPECT_EQ(diff.before_name, "m_eager");
  EXPECT_EQ(diff.after_path, "after_summary.json");
  ASSERT_EQ(diff.per_token.size(), 8u);

  const DiffRow& plain = Row(diff, "plain_ms_per_token");
  EXPECT_EQ(plain.before.value, 64.0);
  EXPECT_EQ(plain.after.integer, 8);  // stored as an integer
  EXPECT_EQ(plain.change, -56.0);
  EXPECT_EQ(plain.ratio, 8.0);  // before / after: a speedup

  const DiffRow& profiled = Row(diff, "profiled_ms_per_token");  // decode wall / tokens
  EXPECT_EQ(profiled.before.value, 50.0);
  EXPECT_EQ(profiled.after.value, 10.0);
  EXPECT_EQ(profiled.ratio, 5.0);

  const DiffRow& gpu = Row(diff, "gpu_busy_ms_per_token");
  EXPECT_EQ(gpu.change, 1.0);
  EXPECT_EQ(gpu.ratio, 0.86);  // 6 / 7: more GPU time after

  // A negative plain gap estimate has no meaningful ratio.
  const DiffRow& gap = Row(diff, "plain_gap_ms_per_token");
  EXPECT_EQ(gap.change, -58.5);
  EXPECT_FALSE(gap.ratio.has_value());

  const DiffRow& tok_s = Row(diff, "plain_tok_s");  // a rate: after / before
  EXPECT_EQ(tok_s.change, 109.35);
  EXPECT_EQ(tok_s.ratio, 7.99);
}

TEST(DiffSummariesTest, ClassesByLargestChangeWithAbsentClassesAsZero) {
  const SummaryDiff diff = Diff(Before(), After());
  std::vector<std::string> names;
  for (const DiffClass& c : diff.classes) names.push_back(c.name);
  // GPU ms/token: gemm 4.2 → 4.2 (0), elementwise 1.2 → 1.4, reduce 0.6 → 0.7, copy 0 → 0.7.
  EXPECT_EQ(names, (std::vector<std::string>{"copy", "elementwise", "reduce", "gemm"}));
  const DiffClass& copy = diff.classes[0];
  EXPECT_EQ(copy.before_share_pct.value, 0.0);
  EXPECT_EQ(copy.before_gpu_ms_per_token.value, 0.0);
  EXPECT_EQ(copy.after_gpu_ms_per_token.value, 0.7);
  EXPECT_EQ(copy.change, 0.7);
  EXPECT_EQ(diff.classes[3].change, 0.0);
}

TEST(DiffSummariesTest, UnitsAndTheSpeedupCheck) {
  const SummaryDiff diff = Diff(Before(), After());
  ASSERT_EQ(diff.units.size(), 3u);  // BEFORE's order, then AFTER-only units
  EXPECT_EQ(diff.units[0].id, "gemv");
  EXPECT_EQ(diff.units[1].id, "graph");
  EXPECT_EQ(diff.units[2].id, "copies");
  EXPECT_TRUE(diff.units[0].before.present);
  EXPECT_FALSE(diff.units[0].after.present);
  EXPECT_EQ(diff.units[0].before.gpu_ms_per_token.value, 4.2);  // 70% of 600 ms / 100 tokens
  EXPECT_EQ(diff.units[1].after.host_gap_ms_per_token.value, 3.0);
  EXPECT_EQ(diff.units[2].port, "KV copies");
  EXPECT_FALSE(diff.units[2].after.plain_ceiling_wall_est.value.has_value());

  EXPECT_EQ(diff.speedup_check.unit, "graph");  // the largest plain ceiling
  EXPECT_EQ(diff.speedup_check.basis, "plain");
  EXPECT_EQ(diff.speedup_check.measured_speedup, 8.0);
  EXPECT_EQ(diff.speedup_check.predicted_ceiling.value, 10.0);

  const SummaryDiff chosen = Diff(Before(), After(), DiffOptions{"#gemv"});
  EXPECT_EQ(chosen.speedup_check.unit, "gemv");
  EXPECT_EQ(chosen.speedup_check.predicted_ceiling.value, 1.19);
}

// The default unit of the check is the first of BEFORE's ranked_units with a ceiling on the
// basis, as summarize stored the rank.
TEST(DiffSummariesTest, TheSpeedupCheckTakesBeforesRankOrder) {
  SummaryFile before = Before();
  before.content["ranked_units"] = nlohmann::ordered_json::parse(
      R"([{"id": "gemv", "by": "plain_ceiling_wall_est", "value": 1.19},
          {"id": "graph", "by": "plain_ceiling_wall_est", "value": 10.0}])");
  EXPECT_EQ(Diff(before, After()).speedup_check.unit, "gemv");

  // On the profiled basis (AFTER without a plain run) a unit without ceiling_wall is passed.
  SummaryFile after = After();
  after.content.erase("plain_decode_tok_s");
  after.content.erase("plain_wall_ms_per_token");
  before.content["port_units"]["gemv"].erase("ceiling_wall");
  const SummaryDiff profiled = Diff(before, after);
  EXPECT_EQ(profiled.speedup_check.basis, "profiled");
  EXPECT_EQ(profiled.speedup_check.unit, "graph");
  EXPECT_EQ(profiled.speedup_check.predicted_ceiling.value, 8.7);
}

TEST(DiffSummariesTest, AnUnknownUnitIsAUsageError) {
  const auto diff = DiffSummaries(Before(), After(), DiffOptions{"copies"});  // AFTER's only
  ASSERT_FALSE(diff.ok());
  EXPECT_EQ(diff.status().exit_code(), 2);
  EXPECT_NE(diff.status().message().find("#copies"), std::string::npos);
  EXPECT_EQ(diff.status().hint(), "BEFORE's units: #gemv, #graph");
}

TEST(DiffSummariesTest, TopKernelsInOneRunAndInBoth) {
  const SummaryDiff diff = Diff(Before(), After());
  ASSERT_EQ(diff.only_before.size(), 1u);
  EXPECT_EQ(diff.only_before[0].kernel, "k_mean");
  EXPECT_EQ(diff.only_before[0].before_share_pct.value, 5.0);
  ASSERT_EQ(diff.only_after.size(), 1u);
  EXPECT_EQ(diff.only_after[0].kernel, "k_copy");
  ASSERT_EQ(diff.common_kernels.size(), 2u);
  EXPECT_EQ(diff.common_kernels[0].kernel, "k_gemm");  // share -5.0
  EXPECT_EQ(diff.common_kernels[0].share_change, -5.0);
  EXPECT_EQ(diff.common_kernels[1].kernel, "k_mul");  // share 0, calls +60
  EXPECT_EQ(diff.common_kernels[1].calls_change, 60.0);
  EXPECT_EQ(diff.common_kernels_left_out, 0u);
}

// Eight kernels in both lists: the five largest share changes plus the one whose calls per
// token changed are shown, the other two are counted.
TEST(DiffSummariesTest, CommonKernelsAreLimited) {
  std::string before = R"({"name": "b", "generated_tokens": 1, "top_kernels": [)";
  std::string after = R"({"name": "a", "generated_tokens": 1, "top_kernels": [)";
  for (int i = 0; i < 8; ++i) {
    const std::string name = "\"k" + std::to_string(i) + "\"";
    before += std::string(i > 0 ? "," : "") + R"({"kernel": )" + name +
              R"(, "calls_per_token": 1.0, "share_pct": 10.0})";
    after += std::string(i > 0 ? "," : "") + R"({"kernel": )" + name + R"(, "calls_per_token": )" +
             (i == 7 ? "2.0" : "1.0") + R"(, "share_pct": )" + std::to_string(10 + i) + ".0}";
  }
  const SummaryDiff diff = Diff(Summary(before + "]}", "b"), Summary(after + "]}", "a"));
  std::vector<std::string> shown;
  for (const DiffKernel& k : diff.common_kernels) shown.push_back(k.kernel);
  EXPECT_EQ(shown, (std::vector<std::string>{"k7", "k6", "k5", "k4", "k3"}));
  EXPECT_EQ(diff.common_kernels_left_out, 3u);

  // k0's calls per token change: it is shown although its share does not.
  std::string after2 = after;
  after2.replace(after2.find(R"("k0", "calls_per_token": 1.0)"),
                 std::string(R"("k0", "calls_per_token": 1.0)").size(),
                 R"("k0", "calls_per_token": 3.0)");
  const SummaryDiff diff2 = Diff(Summary(before + "]}", "b"), Summary(after2 + "]}", "a"));
  ASSERT_EQ(diff2.common_kernels.size(), 6u);
  EXPECT_EQ(diff2.common_kernels.back().kernel, "k0");
  EXPECT_EQ(diff2.common_kernels_left_out, 2u);
}

TEST(DiffSummariesTest, OldSummariesWithoutPlainRunOrUnits) {
  // No plain run (plain tok/s 0), no units, no classes, no top kernels, no wall.
  const SummaryFile old_before = Summary(
      R"({"name": "old", "generated_tokens": 10, "profiled_decode_tok_s": 20.0,
          "plain_decode_tok_s": 0, "gpu_ms_per_token": null})",
      "old_summary.json");
  const SummaryFile old_after =
      Summary(R"({"name": "new", "generated_tokens": 10, "profiled_decode_tok_s": 40.0})",
              "new_summary.json");
  const SummaryDiff diff = Diff(old_before, old_after);
  EXPECT_FALSE(Row(diff, "plain_ms_per_token").before.value.has_value());
  EXPECT_FALSE(Row(diff, "plain_tok_s").before.value.has_value());  // 0 = no plain run
  EXPECT_FALSE(Row(diff, "gpu_busy_ms_per_token").change.has_value());
  const DiffRow& profiled = Row(diff, "profiled_ms_per_token");  // 1000 / tok/s
  EXPECT_EQ(profiled.before.value, 50.0);
  EXPECT_EQ(profiled.after.value, 25.0);
  EXPECT_TRUE(diff.classes.empty());
  EXPECT_TRUE(diff.units.empty());
  EXPECT_EQ(diff.speedup_check.basis, "profiled");
  EXPECT_EQ(diff.speedup_check.measured_speedup, 2.0);
  EXPECT_TRUE(diff.speedup_check.unit.empty());

  const std::string md = RenderDiffMarkdown(diff);
  EXPECT_NE(md.find("| plain ms/token | - | - | - | - |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| profiled ms/token | 50.0 | 25.0 | -25.0 | 2.00x |\n"), std::string::npos)
      << md;
  EXPECT_NE(md.find("Speedup against the before run's prediction, on the profiled runs"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("\nmeasured speedup 2.00x vs predicted ceiling - (no unit ceiling in the "
                    "before run)\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("Kernel classes"), std::string::npos);
  EXPECT_EQ(md.find("Top kernels"), std::string::npos);
}

// Whether a file is a summary, and the types of its fields, ParseSummary decides for every
// command (summary_reader_consistency_test.cc); a summary without generated_tokens compares.
TEST(DiffSummariesTest, SummaryWithoutGeneratedTokensCompares) {
  const SummaryDiff diff = Diff(Before(), Summary(R"({"name": "bare"})", "bare_summary.json"));
  EXPECT_EQ(diff.after_name, "bare");
  EXPECT_FALSE(Row(diff, "profiled_ms_per_token").after.value.has_value());
  ASSERT_EQ(diff.units.size(), 2u);
  EXPECT_FALSE(diff.units[0].after.present);
}

// A sampled recording of the eager run (3 of 96 steps; Before() is its full recording with the
// same per-step figures): its window's totals stand for window_tokens = 3 · 97 / 96 tokens,
// so its derived per-token figures are the full recording's, not the window's over the 97
// generated tokens (0.1563 profiled ms/token, 0.0219 gemm ms/token).
TEST(DiffSummariesTest, ASampledRunDividesItsWindowByItsWindowTokens) {
  nlohmann::ordered_json full = Before().content;
  full["generated_tokens"] = 97;
  full["decode_wall_ms"] = 50.0 * 97;
  full["decode_gpu_sum_ms"] = 6.0 * 97;
  nlohmann::ordered_json sampled = full;
  sampled["window_tokens"] = 3.03125;
  sampled["decode_wall_ms"] = 50.0 * 3.03125;
  sampled["decode_gpu_sum_ms"] = 6.0 * 3.03125;
  const SummaryDiff diff = Diff(Summary(full.dump(), "full_summary.json"),
                                Summary(sampled.dump(), "sampled_summary.json"));
  const DiffRow& profiled = Row(diff, "profiled_ms_per_token");
  EXPECT_EQ(profiled.before.value, 50.0);
  EXPECT_EQ(profiled.after.value, 50.0);
  EXPECT_EQ(profiled.change, 0.0);
  bool gemm = false;
  for (const DiffClass& c : diff.classes) {
    if (c.name != "gemm") continue;
    gemm = true;
    EXPECT_EQ(c.before_gpu_ms_per_token.value, 4.2);  // 70 % of 6.0 ms/token
    EXPECT_EQ(c.after_gpu_ms_per_token.value, 4.2);
  }
  EXPECT_TRUE(gemm);
  bool gemv = false;
  for (const DiffUnit& u : diff.units) {
    if (u.id != "gemv") continue;
    gemv = true;
    EXPECT_EQ(u.before.gpu_ms_per_token.value, 4.2);
    EXPECT_EQ(u.after.gpu_ms_per_token.value, 4.2);
  }
  EXPECT_TRUE(gemv);
}

// The H200 check of the #cuda_graph ceiling (docs/results/h200-decode-profile-2026-11-30.md).
TEST(DiffSummariesTest, EagerAgainstCudaGraphOnTheH200) {
  const std::string dir = std::string(DECODEPROF_SOURCE_DIR) + "/tests/golden/diff/cuda_graph/";
  auto before = ReadSummaryFile(dir + "Llama-3.1-8B-Instruct_greedy-eager_summary.json");
  auto after = ReadSummaryFile(dir + "Llama-3.1-8B-Instruct_greedy-graph_summary.json");
  ASSERT_TRUE(before.ok() && after.ok());
  const SummaryDiff diff = Diff(*before, *after);
  EXPECT_EQ(diff.speedup_check.unit, "cuda_graph");
  EXPECT_EQ(diff.speedup_check.basis, "plain");
  EXPECT_EQ(diff.speedup_check.measured_speedup, 8.12);  // 63.8978 / 7.8697
  EXPECT_EQ(diff.speedup_check.predicted_ceiling.value, 10.04);
  EXPECT_EQ(Row(diff, "host_gap_ms_per_token").change, -46.1466);
  ASSERT_FALSE(diff.classes.empty());
  EXPECT_EQ(diff.classes[0].name, "copy");  // 0.4853 -> 0.9892 ms/token
  ASSERT_EQ(diff.only_after.size(), 1u);
  EXPECT_EQ(diff.only_after[0].short_name, "elementwise_kernel<direct_copy_kernel_cuda<bf16>>");
  EXPECT_EQ(diff.common_kernels.size(), 5u);
  EXPECT_EQ(diff.common_kernels_left_out, 4u);
}

TEST(RenderDiffMarkdownTest, Tables) {
  const std::string md = RenderDiffMarkdown(Diff(Before(), After()));
  EXPECT_EQ(md.rfind("Before: `m_eager` (before_summary.json)\nAfter: `m_graph` "
                     "(after_summary.json)\n\nDecode per token",
                     0),
            0u)
      << md;
  EXPECT_NE(md.find("| Metric | before | after | change | ratio |\n|---|---:|---:|---:|---:|\n"
                    "| plain ms/token | 64.0 | 8 | -56.0 | 8.00x |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| GPU busy ms/token | 6.0 | 7.0 | +1.0 | 0.86x |\n"), std::string::npos);
  EXPECT_NE(md.find("| plain gap ms/token | 58.0 | -0.5 | -58.5 | - |\n"), std::string::npos);
  EXPECT_NE(md.find("| copy | 0.0 | 0.7 | +0.7 | 0.0 | 10.0 |\n"), std::string::npos);
  EXPECT_NE(md.find("| gemm | 4.2 | 4.2 | 0.0 | 70.0 | 60.0 |\n"), std::string::npos);
  EXPECT_NE(md.find("| #gemv | 70.0 | - | 4.2 | - | 5.0 | - | 1.19 | - |\n"), std::string::npos);
  EXPECT_NE(md.find("\nmeasured speedup 8.00x vs predicted ceiling 10.0 (#graph)\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `k_mean` | before | 5.0 | 60.0 |\n| `k_copy` | after | 8.0 | 60.0 |\n"),
            std::string::npos);
  EXPECT_NE(md.find("| `k_mul` | 10.0 | 10.0 | 0.0 | 120.0 | 180.0 | +60.0 |\n"),
            std::string::npos);
  EXPECT_EQ(md.back(), '\n');
  EXPECT_EQ(md, RenderDiffMarkdown(Diff(Before(), After())));  // deterministic
}

TEST(RenderDiffJsonTest, SameContentAsAnObject) {
  const std::string text = RenderDiffJson(Diff(Before(), After()));
  ASSERT_EQ(text.back(), '\n');
  EXPECT_EQ(text.rfind("{\n  \"before\": {\n    \"path\": \"before_summary.json\",", 0), 0u);
  const nlohmann::ordered_json json = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"before", "after", "per_token", "kernel_classes",
                                            "units", "speedup_check", "top_kernels"}));
  EXPECT_EQ(json["per_token"][0]["figure"], "plain_ms_per_token");
  EXPECT_EQ(json["per_token"][0]["after"], 8);
  EXPECT_TRUE(json["per_token"][0]["after"].is_number_integer());
  EXPECT_EQ(json["per_token"][0]["ratio"], 8.0);
  EXPECT_TRUE(json["per_token"][4]["ratio"].is_null());
  EXPECT_EQ(json["kernel_classes"][0]["class"], "copy");
  EXPECT_TRUE(json["units"][0]["after"].is_null());
  EXPECT_EQ(json["units"][1]["before"]["plain_ceiling_wall_est"], 10.0);
  EXPECT_EQ(json["speedup_check"]["unit"], "graph");
  EXPECT_EQ(json["speedup_check"]["measured_speedup"], 8.0);
  EXPECT_EQ(json["top_kernels"]["only_after"][0]["kernel"], "k_copy");
  EXPECT_EQ(json["top_kernels"]["both"][1]["calls_per_token_change"], 60.0);
  EXPECT_EQ(json["top_kernels"]["both_left_out"], 0);
}

// nlohmann refuses to parse ill-formed UTF-8, but a path from the command line may hold any
// bytes.
TEST(RenderDiffJsonTest, NonUtf8PathsDoNotThrow) {
  const SummaryFile odd = Summary(R"({"name": "r", "generated_tokens": 1})", "r\xff.json");
  const std::string text = RenderDiffJson(Diff(odd, odd));
  EXPECT_NE(text.find("\"path\": \"r\\ufffd.json\""), std::string::npos) << text;
}

}  // namespace
}  // namespace decodeprof::report
