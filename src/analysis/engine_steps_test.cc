// The engines' step names (engine_steps.h): each engine's spellings, as its sources and public
// traces write them, read for kind, batch and tokens; names that are no step stay unread.
#include "src/analysis/engine_steps.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace decodeprof::analysis {
namespace {

struct Read {
  std::string rule;  // "" when no rule reads the name
  StepLabel label;
};

Read ReadName(const std::string& name) {
  Read out;
  if (const EngineStepRule* rule = ReadStepName(name, &out.label)) out.rule = rule->id;
  return out;
}

void ExpectStep(const std::string& name, const std::string& rule, StepKind kind,
                std::optional<int64_t> batch, std::optional<int64_t> tokens) {
  const Read r = ReadName(name);
  EXPECT_EQ(r.rule, rule) << name;
  EXPECT_EQ(StepKindName(r.label.kind), StepKindName(kind)) << name;
  EXPECT_EQ(r.label.batch, batch) << name;
  EXPECT_EQ(r.label.tokens, tokens) << name;
}

TEST(EngineStepNamesTest, SGLang) {
  ExpectStep("step[DECODE bs=32]", "sglang", StepKind::kDecode, 32, std::nullopt);
  ExpectStep("step[EXTEND bs=15 toks=15360]", "sglang", StepKind::kPrefill, 15, 15360);
  ExpectStep("step[MIXED bs=2]", "sglang", StepKind::kMixed, 2, std::nullopt);
  ExpectStep("step[IDLE bs=0]", "sglang", StepKind::kIdle, 0, std::nullopt);
  // Detailed builds add fields after bs= and toks=.
  ExpectStep("step[EXTEND bs=2 toks=14721 c_sq=14721 c_sqsq=108745533 c_sk=14721]", "sglang",
             StepKind::kPrefill, 2, 14721);
  ExpectStep("step[DECODE bs=64 g_sq=128 g_sqsq=256 g_sqsk=262144 g_sk=131072]", "sglang",
             StepKind::kDecode, 64, std::nullopt);
  ExpectStep("step[TARGET_VERIFY bs=8]", "sglang", StepKind::kUnknown, 8, std::nullopt);
}

TEST(EngineStepNamesTest, VllmInEachSpelling) {
  ExpectStep("execute_context_0(0)_generation_32(32)", "vllm", StepKind::kDecode, 32, 32);
  ExpectStep("execute_context_1(888_788544)_generation_0(0)", "vllm", StepKind::kPrefill, 1, 888);
  ExpectStep("execute_context_3(100)_generation_2(50)", "vllm", StepKind::kMixed, 5, 150);
  ExpectStep("execute_context_0(0)_generation_0(0)", "vllm", StepKind::kIdle, 0, 0);
  ExpectStep(
      "execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)_generation_37("
      "sq37sk34489sqsq37sqsk34489)",
      "vllm-detailed", StepKind::kMixed, 46, 8192);
  ExpectStep("execute_64_context_0(sq0sk0sqsq0sqsk0)_generation_64(sq64sk131072sqsq64sqsk131072)",
             "vllm-detailed", StepKind::kDecode, 64, 64);
  ExpectStep("execute_new_0_cached_32", "vllm-new-cached", StepKind::kDecode, 32, std::nullopt);
  ExpectStep("execute_new_4_cached_0", "vllm-new-cached", StepKind::kPrefill, 4, std::nullopt);
  ExpectStep("execute_new_1_cached_7", "vllm-new-cached", StepKind::kMixed, 8, std::nullopt);
  ExpectStep("capture_32_FULL", "vllm-capture", StepKind::kCapture, 32, std::nullopt);
  ExpectStep("capture_1_prefill", "vllm-capture", StepKind::kCapture, 1, std::nullopt);
}

TEST(EngineStepNamesTest, TensorRtLlmAtomAndTorchProfiler) {
  ExpectStep("[Executor] _forward_step 12: 0 ctx reqs, 32 gen reqs", "trtllm", StepKind::kDecode,
             32, std::nullopt);
  ExpectStep("[Executor] _forward_step: 4 ctx reqs, 0 gen reqs", "trtllm", StepKind::kPrefill, 4,
             std::nullopt);
  ExpectStep("_forward_step: 1 ctx reqs, 3 gen reqs", "trtllm", StepKind::kMixed, 4, std::nullopt);
  ExpectStep("decode[bs=117/128 tok=117 d=117]", "atom", StepKind::kDecode, 117, 117);
  ExpectStep("prefill[bs=2 tok=14721 ctx=[7803, 6918]]", "atom", StepKind::kPrefill, 2, 14721);
  ExpectStep("ProfilerStep#6", "torch-profiler", StepKind::kUnknown, std::nullopt, std::nullopt);
}

TEST(EngineStepNamesTest, OtherNamesAreNoSteps) {
  for (const std::string name :
       {"execute_model", "step", "step[DECODE]", "step[decode bs=3]", "step[DECODE bs=x]",
        "ProfilerStep#", "ProfilerStep#1 ", "execute_context_1(1)", "decodeprof:step",
        "_forward_step", "capture_FULL", "step[DECODE bs=99999999999999999999]", "aten::mm"}) {
    EXPECT_EQ(ReadName(name).rule, "") << name;
  }
}

TEST(EngineStepNamesTest, EveryRuleReadsItsOwnExample) {
  for (const EngineStepRule& rule : EngineStepRules()) {
    EXPECT_EQ(ReadName(std::string(rule.example)).rule, rule.id) << rule.example;
  }
}

TEST(StepKindTableTest, PerKindCountsBatchesAndNearestRankPercentiles) {
  std::vector<StepRecord> steps;
  steps.push_back({{StepKind::kPrefill, 4, 4096}, 0, 9'000'000, 300, 8'000'000, false});
  for (int i = 1; i <= 100; ++i) {
    StepRecord r{
        {StepKind::kDecode, i <= 50 ? 32 : 31, std::nullopt}, 0, 2'000'000, 100, i * 10'000, i > 1};
    steps.push_back(r);
  }
  const std::vector<StepKindStats> table = StepKindTable(steps);
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table[0].kind, StepKind::kDecode);  // kAllStepKinds order
  EXPECT_EQ(table[0].steps, 100);
  EXPECT_EQ(table[0].in_window, 99);
  EXPECT_EQ(table[0].batch_sizes, (std::vector<int64_t>{31, 32}));
  EXPECT_TRUE(table[0].tokens.empty());
  EXPECT_EQ(table[0].dispatches, 10000);
  EXPECT_DOUBLE_EQ(table[0].gpu_ms_mean, 0.505);  // (10 µs + ... + 1000 µs) / 100
  EXPECT_DOUBLE_EQ(table[0].gpu_ms_p50, 0.5);
  EXPECT_DOUBLE_EQ(table[0].gpu_ms_p99, 0.99);
  EXPECT_DOUBLE_EQ(table[0].wall_ms_p99, 2.0);
  EXPECT_EQ(table[1].kind, StepKind::kPrefill);
  EXPECT_EQ(table[1].tokens, (std::vector<int64_t>{4096}));
  EXPECT_DOUBLE_EQ(table[1].gpu_ms_p50, 8.0);
  EXPECT_EQ(KindCounts(table), "100 decode, 1 prefill");
}

TEST(StepKindTableTest, NearestRank) {
  const std::vector<int64_t> one = {7};
  EXPECT_EQ(NearestRank(one, 50), 7);
  EXPECT_EQ(NearestRank(one, 99), 7);
  const std::vector<int64_t> four = {1, 2, 3, 4};
  EXPECT_EQ(NearestRank(four, 50), 2);
  EXPECT_EQ(NearestRank(four, 99), 4);
}

}  // namespace
}  // namespace decodeprof::analysis
