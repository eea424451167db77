// The seed's bandwidth statements (../shared/spec/seed-harness.md, "Bandwidth readings" and
// the ranked port order), recomputed from the committed seed summaries
// (tests/golden/report/seed_runs/input) with decodeprof's model bytes (src/model) of the MLX
// 4-bit models the seed decoded (tests/data/speed_of_light: the published configs with MLX's
// `quantization`, 4 bits in groups of 64 with a bf16 scale and bias: 4.5 bits a weight).
//   Llama GEMVs ≈4.2 GB/token in 22.1 ms ≈192 GB/s
//   Qwen3 expert GEMVs 48 layers × 8 experts × 3 matrices of 2048×768 at 4.5 bits ≈1.02 GB/token
//     in 5.63 ms ≈181 GB/s (dense GEMVs 0.69 GB in 4.42 ms ≈157 GB/s)
//   granite: the SSM state (48 heads × 64 × 128 × 4 B) read and written, 3.1 MB a layer,
//     113 MB/token
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "src/analysis/speed_of_light.h"
#include "src/model/model_bytes.h"

namespace decodeprof {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = DECODEPROF_SOURCE_DIR;

nlohmann::json SeedSummary(const std::string& model) {
  std::ifstream in(kSource / "tests/golden/report/seed_runs/input" /
                   (model + "_greedy_summary.json"));
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

// The class's GPU ms per generated token, the seed's way: its share of the GPU sum.
double ClassMsPerToken(const nlohmann::json& s, const std::string& cls) {
  return s["class_share_pct"][cls].get<double>() / 100.0 * s["decode_gpu_sum_ms"].get<double>() /
         s["generated_tokens"].get<double>();
}

model::ModelBytes Bytes(const std::string& dir, const model::ModelOptions& options = {}) {
  auto bytes =
      model::ReadModelBytes((kSource / "tests/data/speed_of_light" / dir).string(), options);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : model::ModelBytes{};
}

TEST(SeedBandwidthTest, LlamaGemvsReadFourPointTwoGigabytesAtAbout192GBs) {
  const model::ModelBytes m = Bytes("mlx-llama-3.1-8b-4bit");
  EXPECT_EQ(m.weight_format, "mlx 4-bit group 64");
  // The GEMVs read every linear layer and the head: 7.50e9 weights at 4.5 bits.
  const double gemv_bytes = static_cast<double>(m.BytesOf(model::ByteKind::kDenseWeights, 0) +
                                                m.BytesOf(model::ByteKind::kHeadWeights, 0));
  EXPECT_NEAR(gemv_bytes / 1e9, 4.2, 0.05);
  const nlohmann::json s = SeedSummary("Meta-Llama-3.1-8B-Instruct-4bit");
  const double ms = ClassMsPerToken(s, "qmv");
  EXPECT_NEAR(ms, 22.1, 0.1);
  EXPECT_NEAR(gemv_bytes / ms / 1e6, 192, 192 * 0.02);  // GB/s, within 2 %
}

TEST(SeedBandwidthTest, Qwen3ExpertGemvsReadOneGigabyteAt181AndTheDenseOnes0Point69At157) {
  const model::ModelBytes m = Bytes("mlx-qwen3-30b-a3b-4bit");
  const nlohmann::json s = SeedSummary("Qwen3-30B-A3B-4bit");
  // 48 layers × 8 routed experts × 3 matrices of 2048×768, 4.5 bits a weight.
  const double experts = static_cast<double>(m.BytesOf(model::ByteKind::kExpertWeights, 0));
  EXPECT_NEAR(experts, 48.0 * 8 * 3 * 2048 * 768 * 4.5 / 8, 1.0);
  EXPECT_NEAR(experts / 1e9, 1.02, 0.005);
  const double expert_ms = ClassMsPerToken(s, "gather_qmv");
  EXPECT_NEAR(expert_ms, 5.63, 0.01);
  EXPECT_NEAR(experts / expert_ms / 1e6, 181, 181 * 0.02);
  // Dense GEMVs: attention q, k, v, o, the routers and the head.
  const double dense = static_cast<double>(m.BytesOf(model::ByteKind::kDenseWeights, 0) +
                                           m.BytesOf(model::ByteKind::kHeadWeights, 0));
  EXPECT_NEAR(dense / 1e9, 0.69, 0.01);
  const double dense_ms = ClassMsPerToken(s, "qmv");
  EXPECT_NEAR(dense_ms, 4.42, 0.01);
  EXPECT_NEAR(dense / dense_ms / 1e6, 157, 157 * 0.02);
}

TEST(SeedBandwidthTest, GraniteSsmStateIs113MegabytesAToken) {
  // MLX keeps the SSM state in float32 (the seed's "× 4 B").
  model::ModelOptions options;
  options.state_dtype = "f32";
  const model::ModelBytes m = Bytes("mlx-granite-4.0-h-tiny-4bit", options);
  // 36 Mamba layers × 48 × 64 × 128 elements × 4 B, read and written: 113.2 MB; the conv
  // state (3328 × 3 a layer) adds under 1 %.
  const double ssm = 36.0 * 48 * 64 * 128 * 4 * 2;
  EXPECT_NEAR(ssm / 1e6, 113.2, 0.1);
  const auto state = static_cast<double>(m.StateBytes());
  EXPECT_GE(state, ssm);
  EXPECT_NEAR(state, ssm + 36.0 * 3328 * 3 * 4 * 2, 1.0);
  // "≈0.6 ms at 180 GB/s".
  EXPECT_NEAR(ssm / 180e9 * 1e3, 0.63, 0.01);
}

// The byte kinds a pack's `moves` names (analysis) are the model's, spelled alike.
TEST(SeedBandwidthTest, ThePacksByteKindsAreTheModelsByteKinds) {
  for (const std::string_view name : analysis::kMovableBytes) {
    model::ByteKind kind;
    ASSERT_TRUE(model::ParseByteKind(name, kind)) << name;
    EXPECT_EQ(std::string_view(model::ByteKindName(kind)), name);
  }
}

}  // namespace
}  // namespace decodeprof
