// The bytes per decode token of the four campaign models (../shared/reference/
// model-configs.md), each expected figure written out here as plain arithmetic from the
// published shapes, independently of packs/models.toml; the GGUF header reader on generated
// headers (sparse files: header + ftruncate to the full size); and the refusals.
#include "src/model/model_bytes.h"
#include "tests/support/temp_dir.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace decodeprof::model {
namespace {

// ---- fixtures ---------------------------------------------------------------------------------

// Temporary directories, removed when the tests end (the GGUFs are sparse files of GBs).
std::string MakeTempDir() { return decodeprof::testing::ScratchDir("model_bytes_"); }

// A model directory holding `config` as config.json.
std::string ModelDir(const std::string& config) {
  const std::string dir = MakeTempDir();
  std::ofstream(dir + "/config.json") << config;
  return dir;
}

// The configs as published (model-configs.md), verbatim.
const char* kLlama31_8B = R"({
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 128000,
  "eos_token_id": [128001, 128008, 128009],
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 131072,
  "mlp_bias": false,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
    "rope_type": "llama3"
  },
  "rope_theta": 500000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.42.3",
  "use_cache": true,
  "vocab_size": 128256
})";

const char* kQwen3_30B_A3B = R"({
  "architectures": ["Qwen3MoeForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "decoder_sparse_step": 1,
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 2048,
  "initializer_range": 0.02,
  "intermediate_size": 6144,
  "max_position_embeddings": 40960,
  "max_window_layers": 48,
  "mlp_only_layers": [],
  "model_type": "qwen3_moe",
  "moe_intermediate_size": 768,
  "norm_topk_prob": true,
  "num_attention_heads": 32,
  "num_experts": 128,
  "num_experts_per_tok": 8,
  "num_hidden_layers": 48,
  "num_key_value_heads": 4,
  "output_router_logits": false,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000.0,
  "router_aux_loss_coef": 0.001,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
})";

const char* kGraniteHTiny = R"({
  "architectures": ["GraniteMoeHybridForCausalLM"],
  "model_type": "granitemoehybrid",
  "hidden_size": 1536,
  "num_hidden_layers": 40,
  "layer_types": [
    "mamba", "mamba", "mamba", "mamba", "mamba", "attention",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention",
    "mamba", "mamba", "mamba", "mamba"
  ],
  "num_attention_heads": 12,
  "num_key_value_heads": 4,
  "position_embedding_type": "nope",
  "intermediate_size": 512,
  "shared_intermediate_size": 1024,
  "num_local_experts": 64,
  "num_experts_per_tok": 6,
  "mamba_n_heads": 48,
  "mamba_d_head": 64,
  "mamba_d_state": 128,
  "mamba_n_groups": 1,
  "mamba_d_conv": 4,
  "mamba_expand": 2,
  "mamba_chunk_size": 256,
  "mamba_conv_bias": true,
  "mamba_proj_bias": false,
  "embedding_multiplier": 12,
  "attention_multiplier": 0.0078125,
  "residual_multiplier": 0.22,
  "logits_scaling": 6,
  "rms_norm_eps": 1e-05,
  "rope_theta": 10000,
  "max_position_embeddings": 131072,
  "bos_token_id": 100257,
  "eos_token_id": 100257,
  "tie_word_embeddings": true,
  "vocab_size": 100352
})";

const char* kNemotron3Nano = R"({
  "architectures": ["NemotronHForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "auto_map": {
    "AutoConfig": "configuration_nemotron_h.NemotronHConfig",
    "AutoModel": "modeling_nemotron_h.NemotronHForCausalLM",
    "AutoModelForCausalLM": "modeling_nemotron_h.NemotronHForCausalLM"
  },
  "bos_token_id": 1,
  "chunk_size": 128,
  "conv_kernel": 4,
  "eos_token_id": 2,
  "expand": 2,
  "head_dim": 128,
  "hidden_dropout": 0.0,
  "hidden_size": 2688,
  "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
  "initializer_range": 0.02,
  "intermediate_size": 1856,
  "layer_norm_epsilon": 1e-05,
  "mamba_head_dim": 64,
  "mamba_hidden_act": "silu",
  "mamba_num_heads": 64,
  "mamba_proj_bias": false,
  "mamba_ssm_cache_dtype": "float32",
  "max_position_embeddings": 262144,
  "mlp_bias": false,
  "mlp_hidden_act": "relu2",
  "model_type": "nemotron_h",
  "moe_intermediate_size": 1856,
  "moe_shared_expert_intermediate_size": 3712,
  "n_group": 1,
  "n_groups": 8,
  "n_routed_experts": 128,
  "n_shared_experts": 1,
  "norm_eps": 1e-05,
  "norm_topk_prob": true,
  "num_attention_heads": 32,
  "num_experts_per_tok": 6,
  "num_hidden_layers": 52,
  "num_key_value_heads": 2,
  "num_logits_to_keep": 1,
  "pad_token_id": 0,
  "partial_rotary_factor": 1.0,
  "rescale_prenorm_residual": true,
  "residual_in_fp32": false,
  "rope_theta": 10000,
  "routed_scaling_factor": 2.5,
  "sliding_window": null,
  "ssm_state_size": 128,
  "tie_word_embeddings": false,
  "time_step_floor": 0.0001,
  "time_step_max": 0.1,
  "time_step_min": 0.001,
  "topk_group": 1,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.53.2",
  "use_bias": false,
  "use_cache": true,
  "use_conv_bias": true,
  "use_mamba_kernels": true,
  "vocab_size": 131072
})";

// `config` with `extra` ("\"key\": value") added before its closing brace.
std::string With(const std::string& config, const std::string& extra) {
  const size_t close = config.rfind('}');
  return config.substr(0, close) + ",\n  " + extra + "\n}";
}

ModelBytes Read(const std::string& path, const ModelOptions& options = {}) {
  auto result = ReadModelBytes(path, options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? *result : ModelBytes{};
}

constexpr int64_t kContexts[] = {512, 4096};

// ---- config.json: the four models in bf16 ------------------------------------------------------

TEST(ModelBytesTest, Llama31_8B_Bf16) {
  const ModelBytes m = Read(ModelDir(kLlama31_8B));
  EXPECT_EQ(m.architecture, "llama");
  EXPECT_EQ(m.weight_format, "bf16");
  // per layer: q 4096·4096, k and v 2·4096·1024, o 4096·4096, gate/up/down 3·4096·14336
  const int64_t linear_per_layer =
      4096LL * 4096 + 2LL * 4096 * 1024 + 4096LL * 4096 + 3LL * 4096 * 14336;
  const int64_t norms = 32 * 2 * 4096LL + 4096;  // 2 RMSNorms a layer, the final norm
  const int64_t lm_head = 128256LL * 4096;
  const int64_t embedding_row = 4096;
  EXPECT_EQ(m.BytesOf(ByteKind::kDenseWeights, 0), 32 * linear_per_layer * 2);
  EXPECT_EQ(m.BytesOf(ByteKind::kHeadWeights, 0), lm_head * 2);
  EXPECT_EQ(m.BytesOf(ByteKind::kEmbedding, 0), embedding_row * 2);
  EXPECT_EQ(m.BytesOf(ByteKind::kNormWeights, 0), norms * 2);
  const int64_t weights = (32 * linear_per_layer + norms + lm_head + embedding_row) * 2;
  EXPECT_EQ(weights, 15'009'857'536);  // ≈ 15.01 GB
  EXPECT_EQ(m.WeightBytes(), weights);
  // stored: the whole embedding table instead of one row
  EXPECT_EQ(m.stored_weight_bytes, weights + (128256LL * 4096 - embedding_row) * 2);
  const int64_t kv_per_token = 32 * 2 * 8 * 128 * 2;  // layers · K,V · kv heads · head dim · bf16
  EXPECT_EQ(kv_per_token, 131'072);
  EXPECT_EQ(m.StateBytes(), 0);
  for (int64_t ctx : kContexts) {
    EXPECT_EQ(m.KvBytes(ctx), kv_per_token * ctx);
    EXPECT_EQ(m.BytesPerToken(ctx), weights + kv_per_token * ctx);
  }
  EXPECT_EQ(m.BytesPerToken(512), 15'076'966'400);
  EXPECT_EQ(m.BytesPerToken(4096), 15'546'728'448);
}

TEST(ModelBytesTest, Qwen3_30B_A3B_Bf16) {
  const ModelBytes m = Read(ModelDir(kQwen3_30B_A3B));
  EXPECT_EQ(m.architecture, "qwen3_moe");
  // attention: q 2048→32·128, k/v 2048→4·128, o 4096→2048
  const int64_t attention = 2048LL * 4096 + 2LL * 2048 * 512 + 4096LL * 2048;
  const int64_t router = 128LL * 2048;
  const int64_t experts_used = 8LL * 3 * 2048 * 768;  // 8 of 128 SwiGLU experts: gate, up, down
  const int64_t norms = 48 * (2 * 2048LL + 2 * 128) + 2048;  // 2 RMSNorms + q/k norms; final
  const int64_t lm_head = 151936LL * 2048;
  const int64_t embedding_row = 2048;
  EXPECT_EQ(m.BytesOf(ByteKind::kDenseWeights, 0), 48 * (attention + router) * 2);
  EXPECT_EQ(m.BytesOf(ByteKind::kExpertWeights, 0), 48 * experts_used * 2);
  const int64_t weights =
      (48 * (attention + router + experts_used) + norms + lm_head + embedding_row) * 2;
  EXPECT_EQ(m.WeightBytes(), weights);
  EXPECT_EQ(m.stored_weight_bytes,
            weights + 48 * (128 - 8) * 3LL * 2048 * 768 * 2 + (151936LL - 1) * 2048 * 2);
  const int64_t kv_per_token = 48 * 2 * 4 * 128 * 2;
  EXPECT_EQ(kv_per_token, 98'304);
  EXPECT_EQ(m.StateBytes(), 0);
  for (int64_t ctx : kContexts) {
    EXPECT_EQ(m.KvBytes(ctx), kv_per_token * ctx);
    EXPECT_EQ(m.BytesPerToken(ctx), weights + kv_per_token * ctx);
  }
  EXPECT_EQ(m.BytesPerToken(512), 6'134'071'296);
  EXPECT_EQ(m.BytesPerToken(4096), 6'486'392'832);
}

TEST(ModelBytesTest, GraniteHTinyBf16) {
  const ModelBytes m = Read(ModelDir(kGraniteHTiny));
  EXPECT_EQ(m.architecture, "granitemoehybrid");
  EXPECT_EQ(m.weight_format, "bf16");  // no torch_dtype in the confirmed keys: assumed, noted
  // 4 attention layers: q 1536→12·128, k/v 1536→4·128, o 1536→1536
  const int64_t attention = 1536LL * 1536 + 2LL * 1536 * 512 + 1536LL * 1536;
  // 36 Mamba2 layers: d_inner 48·64 = 3072; in_proj 1536→2·3072+2·1·128+48 = 6448;
  // conv1d 3328 channels × kernel 4; out_proj 3072→1536
  const int64_t mamba = 6448LL * 1536 + 3328LL * 4 + 1536LL * 3072;
  const int64_t mamba_vectors = 3328 + 3 * 48 + 3072;  // conv bias; dt_bias, A_log, D; gated norm
  // every layer: router 1536→64, 6 of 64 experts (input 1536→2·512, output 512→1536), shared
  // MLP (input 1536→2·1024, output 1024→1536), 2 RMSNorms
  const int64_t router = 64LL * 1536;
  const int64_t experts_used = 6 * (2LL * 512 * 1536 + 1536LL * 512);
  const int64_t shared = 2048LL * 1536 + 1536LL * 1024;
  const int64_t head = 100352LL * 1536;  // tied: the embedding matrix read whole
  const int64_t norms = 40 * 2 * 1536LL + 36 * mamba_vectors + 1536;
  const int64_t embedding_row = 1536;
  EXPECT_EQ(m.BytesOf(ByteKind::kDenseWeights, 0),
            (4 * attention + 36 * mamba + 40 * (router + shared)) * 2);
  EXPECT_EQ(m.BytesOf(ByteKind::kExpertWeights, 0), 40 * experts_used * 2);
  EXPECT_EQ(m.BytesOf(ByteKind::kHeadWeights, 0), head * 2);
  EXPECT_EQ(m.BytesOf(ByteKind::kNormWeights, 0), norms * 2);
  const int64_t weights = (4 * attention + 36 * mamba + 40 * (router + experts_used + shared) +
                           norms + head + embedding_row) *
                          2;
  EXPECT_EQ(m.WeightBytes(), weights);
  // stored once: the embedding table is the head
  EXPECT_EQ(m.stored_weight_bytes,
            weights - embedding_row * 2 + 40 * (64 - 6) * (3LL * 512 * 1536) * 2);
  const int64_t kv_per_token = 4 * 2 * 4 * 128 * 2;
  EXPECT_EQ(kv_per_token, 8'192);
  // per Mamba layer: 48·64·128 SSM + 3328·3 conv elements, bf16, read and written
  const int64_t state = 2 * 36 * (48LL * 64 * 128 + 3328 * 3) * 2;
  EXPECT_EQ(m.StateBytes(), state);
  for (int64_t ctx : kContexts) {
    EXPECT_EQ(m.KvBytes(ctx), kv_per_token * ctx);
    EXPECT_EQ(m.BytesPerToken(ctx), weights + kv_per_token * ctx + state);
  }
  EXPECT_EQ(m.BytesPerToken(512), 2'993'199'232);
  EXPECT_EQ(m.BytesPerToken(4096), 3'022'559'360);
}

TEST(ModelBytesTest, GraniteLayerTypeNamesOfTransformers5) {
  std::string renamed = kGraniteHTiny;
  for (auto [from, to] : {std::pair<std::string, std::string>{"\"mamba\"", "\"linear_attention\""},
                          {"\"attention\"", "\"full_attention\""}}) {
    for (size_t at = renamed.find(from); at != std::string::npos; at = renamed.find(from, at)) {
      renamed.replace(at, from.size(), to);
      at += to.size();
    }
  }
  const ModelBytes a = Read(ModelDir(kGraniteHTiny));
  const ModelBytes b = Read(ModelDir(renamed));
  EXPECT_EQ(a.BytesPerToken(4096), b.BytesPerToken(4096));
  EXPECT_EQ(a.StateBytes(), b.StateBytes());
}

TEST(ModelBytesTest, Nemotron3NanoBf16) {
  const ModelBytes m = Read(ModelDir(kNemotron3Nano));
  EXPECT_EQ(m.architecture, "nemotron_h");
  // 23 Mamba2 blocks: d_inner 64·64 = 4096; in_proj 2688→2·4096+2·8·128+64 = 10304;
  // conv1d 6144 channels × 4; out_proj 4096→2688
  const int64_t mamba = 10304LL * 2688 + 6144LL * 4 + 2688LL * 4096;
  const int64_t mamba_vectors = 6144 + 3 * 64 + 4096;  // conv bias; dt_bias, A_log, D; norm
  // 23 MoE blocks: 6 of 128 relu2 experts (up 2688→1856, down 1856→2688), shared expert 3712
  const int64_t experts_used = 6 * (2LL * 1856 * 2688);
  const int64_t shared = 2LL * 3712 * 2688;
  const int64_t router_f32 = 128LL * 2688 + 128;  // weight and e_score_correction_bias, fp32
  // 6 attention blocks: q 2688→32·128, k/v 2688→2·128, o 4096→2688
  const int64_t attention = 4096LL * 2688 + 2LL * 256 * 2688 + 2688LL * 4096;
  const int64_t lm_head = 131072LL * 2688;
  const int64_t norms = 52 * 2688LL + 23 * mamba_vectors + 2688;  // block norms, final norm
  const int64_t embedding_row = 2688;
  EXPECT_EQ(m.BytesOf(ByteKind::kExpertWeights, 0), 23 * experts_used * 2);
  EXPECT_EQ(m.BytesOf(ByteKind::kDenseWeights, 0),
            (23 * mamba + 23 * shared + 6 * attention) * 2 + 23 * 128LL * 2688 * 4);
  const int64_t weights = (23 * mamba + 23 * (experts_used + shared) + 6 * attention + norms +
                           lm_head + embedding_row) *
                              2 +
                          23 * router_f32 * 4;
  EXPECT_EQ(m.WeightBytes(), weights);
  const int64_t kv_per_token = 6 * 2 * 2 * 128 * 2;
  EXPECT_EQ(kv_per_token, 6'144);
  // per Mamba block: 64·64·128 SSM elements in fp32 (mamba_ssm_cache_dtype), 6144·3 conv
  // elements in bf16; read and written
  const int64_t state = 2 * 23 * (64LL * 64 * 128 * 4 + 6144 * 3 * 2);
  EXPECT_EQ(m.StateBytes(), state);
  for (int64_t ctx : kContexts) {
    EXPECT_EQ(m.KvBytes(ctx), kv_per_token * ctx);
    EXPECT_EQ(m.BytesPerToken(ctx), weights + kv_per_token * ctx + state);
  }
  EXPECT_EQ(m.BytesPerToken(512), 6'572'658'304);
  EXPECT_EQ(m.BytesPerToken(4096), 6'594'678'400);
}

TEST(ModelBytesTest, KvAndStateDtypeOptions) {
  ModelOptions options;
  options.kv_dtype = "fp8";
  options.state_dtype = "bf16";
  const ModelBytes m = Read(ModelDir(kNemotron3Nano), options);
  EXPECT_EQ(m.KvBytes(1000), 6 * 2 * 2 * 128 * 1 * 1000);
  EXPECT_EQ(m.StateBytes(), 2 * 23 * (64LL * 64 * 128 + 6144 * 3) * 2);
}

TEST(ModelBytesTest, SlidingWindowCapsTheContext) {
  // Mistral-7B-v0.1: every layer's window is 4096 tokens
  const std::string mistral = R"({"model_type": "mistral", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "sliding_window": 4096, "torch_dtype": "bfloat16",
    "vocab_size": 32000, "tie_word_embeddings": false})";
  const ModelBytes m = Read(ModelDir(mistral));
  const int64_t kv_per_token = 32 * 2 * 8 * 128 * 2;
  EXPECT_EQ(m.KvBytes(1000), kv_per_token * 1000);
  EXPECT_EQ(m.KvBytes(10000), kv_per_token * 4096);
}

TEST(ModelBytesTest, Qwen2BiasesAndQwen3Norms) {
  const std::string base = R"({"hidden_size": 896, "intermediate_size": 4864,
    "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
    "torch_dtype": "bfloat16", "vocab_size": 151936, "tie_word_embeddings": true)";
  const ModelBytes q2 = Read(ModelDir(base + R"(, "model_type": "qwen2"})"));
  // RMSNorms 2 a layer + final; q/k/v biases (14 + 2·2)·64 a layer
  EXPECT_EQ(q2.BytesOf(ByteKind::kNormWeights, 0), (24 * (2 * 896 + 18 * 64) + 896) * 2);
  const ModelBytes q3 = Read(ModelDir(base + R"(, "model_type": "qwen3", "head_dim": 64})"));
  EXPECT_EQ(q3.BytesOf(ByteKind::kNormWeights, 0), (24 * (2 * 896 + 2 * 64) + 896) * 2);
}

// ---- quantized configs ---------------------------------------------------------------------

TEST(ModelBytesTest, MlxFourBitLlama) {
  const ModelBytes m =
      Read(ModelDir(With(kLlama31_8B, R"("quantization": {"group_size": 64, "bits": 4})")));
  EXPECT_EQ(m.weight_format, "mlx 4-bit group 64");
  // 4 bits a weight + a bf16 scale and a bf16 bias per 64 weights = 4.5 bits
  const int64_t linear =
      32 * (4096LL * 4096 + 2LL * 4096 * 1024 + 4096LL * 4096 + 3LL * 4096 * 14336) +
      128256LL * 4096;
  EXPECT_EQ(m.BytesOf(ByteKind::kDenseWeights, 0) + m.BytesOf(ByteKind::kHeadWeights, 0),
            linear * 9 / 16);
  EXPECT_EQ(linear * 9 / 16, 4'221'370'368);  // ≈ 4.22 GB
  EXPECT_EQ(m.BytesOf(ByteKind::kEmbedding, 0), 4096 / 2 + 4096 / 64 * 4);
  EXPECT_EQ(m.BytesOf(ByteKind::kNormWeights, 0), (65 * 4096) * 2);  // norms stay bf16
}

TEST(ModelBytesTest, MlxFourBitQwen3Moe) {
  const ModelBytes m =
      Read(ModelDir(With(kQwen3_30B_A3B, R"("quantization": {"group_size": 64, "bits": 4},
  "quantization_config": {"group_size": 64, "bits": 4})")));
  // routed experts used per token: 48 layers · 8 experts · 3 matrices · 2048·768 at 4.5 bits
  EXPECT_EQ(m.BytesOf(ByteKind::kExpertWeights, 0), 48LL * 8 * 3 * 2048 * 768 * 9 / 16);
  EXPECT_EQ(m.BytesOf(ByteKind::kExpertWeights, 0), 1'019'215'872);
  // attention q, k, v, o + router, a layer, and lm_head
  const int64_t dense =
      48 * (2048LL * 4096 + 2LL * 2048 * 512 + 4096LL * 2048 + 128LL * 2048) + 151936LL * 2048;
  EXPECT_EQ(m.BytesOf(ByteKind::kDenseWeights, 0) + m.BytesOf(ByteKind::kHeadWeights, 0),
            dense * 9 / 16);
  EXPECT_EQ(dense * 9 / 16, 691'716'096);  // ≈ 0.69 GB
}

// The MLX 4-bit configs the speed-of-light tests use (tests/data/speed_of_light).
std::string SpeedOfLightData(const std::string& name) {
  return std::string(DECODEPROF_SOURCE_DIR) + "/tests/data/speed_of_light/" + name;
}

TEST(ModelBytesTest, MlxFourBitCommittedConfigs) {
  const ModelBytes llama = Read(SpeedOfLightData("mlx-llama-3.1-8b-4bit"));
  EXPECT_EQ(llama.BytesOf(ByteKind::kDenseWeights, 0) + llama.BytesOf(ByteKind::kHeadWeights, 0),
            4'221'370'368);
  const ModelBytes qwen = Read(SpeedOfLightData("mlx-qwen3-30b-a3b-4bit"));
  EXPECT_EQ(qwen.BytesOf(ByteKind::kExpertWeights, 0), 1'019'215'872);
  EXPECT_EQ(qwen.BytesOf(ByteKind::kDenseWeights, 0) + qwen.BytesOf(ByteKind::kHeadWeights, 0),
            691'716'096);
  // granite-4.0-h-tiny 4-bit: every linear layer at 4.5 bits (cols·9/16 bytes a row), the conv1d
  // weights and the norm/bias vectors in bf16, the tied head quantized like the embedding
  const ModelBytes granite = Read(SpeedOfLightData("mlx-granite-4.0-h-tiny-4bit"));
  const int64_t attention = 1536LL * 1536 + 2LL * 512 * 1536 + 1536LL * 1536;
  const int64_t mamba_linear = 6448LL * 1536 + 1536LL * 3072;
  const int64_t router_shared = 64LL * 1536 + 2048LL * 1536 + 1536LL * 1024;
  EXPECT_EQ(
      granite.BytesOf(ByteKind::kDenseWeights, 0),
      (4 * attention + 36 * mamba_linear + 40 * router_shared) * 9 / 16 + 36 * 3328LL * 4 * 2);
  EXPECT_EQ(granite.BytesOf(ByteKind::kExpertWeights, 0),
            40 * 6 * (2LL * 512 * 1536 + 1536LL * 512) * 9 / 16);
  EXPECT_EQ(granite.BytesOf(ByteKind::kHeadWeights, 0), 100352LL * 1536 * 9 / 16);
  EXPECT_EQ(granite.BytesOf(ByteKind::kEmbedding, 0), 1536 * 9 / 16);
  EXPECT_EQ(granite.BytesOf(ByteKind::kNormWeights, 0),
            (40 * 2 * 1536 + 36 * (3328 + 3 * 48 + 3072) + 1536) * 2);
  EXPECT_EQ(granite.StateBytes(), 2 * 36 * (48LL * 64 * 128 + 3328 * 3) * 2);
  EXPECT_EQ(granite.KvBytes(1), 8'192);
}

TEST(ModelBytesTest, MlxPerModuleOverride) {
  // the router of layer 0 at 8 bits, layer 1's left in bf16
  const ModelBytes m =
      Read(ModelDir(With(kQwen3_30B_A3B, R"("quantization": {"group_size": 64, "bits": 4,
        "model.layers.0.mlp.gate": {"group_size": 64, "bits": 8},
        "model.layers.1.mlp.gate": false,
        "model.layers.2.mlp.switch_mlp.gate_proj": {"group_size": 64, "bits": 8}})")));
  std::string notes;
  for (const std::string& n : m.notes) notes += n + "\n";
  EXPECT_NE(notes.find("2 per-module quantization entries applied"), std::string::npos) << notes;
  EXPECT_NE(notes.find("1 per-module quantization entries name no tensor"), std::string::npos)
      << notes;
  const int64_t attention = 2048LL * 4096 + 2LL * 2048 * 512 + 4096LL * 2048;
  const int64_t router = 128LL * 2048;
  EXPECT_EQ(m.BytesOf(ByteKind::kDenseWeights, 0), 48 * attention * 9 / 16 + 46 * router * 9 / 16 +
                                                       router * (8 * 64 / 8 + 4) / 64 + router * 2);
}

TEST(ModelBytesTest, Fp8BlockQuantizedQwen3Moe) {
  std::string excluded = "\"lm_head\"";
  for (int i = 0; i < 48; ++i) {
    excluded += ", \"model.layers." + std::to_string(i) + ".mlp.gate\"";
    excluded += ", \"model.layers." + std::to_string(i) + ".input_layernorm\"";
  }
  const ModelBytes m = Read(ModelDir(
      With(kQwen3_30B_A3B, R"("quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3",
        "quant_method": "fp8", "weight_block_size": [128, 128],
        "modules_to_not_convert": [)" +
                               excluded + "]}")));
  EXPECT_EQ(m.weight_format, "fp8 e4m3 block 128x128");
  // 1 byte a weight + a 4-byte scale per 128×128 block; router stays bf16
  const int64_t q = 4096LL * 2048 + (4096 / 128) * (2048 / 128) * 4;
  const int64_t kv = 512LL * 2048 + (512 / 128) * (2048 / 128) * 4;
  const int64_t o = 2048LL * 4096 + (2048 / 128) * (4096 / 128) * 4;
  const int64_t router = 128LL * 2048 * 2;
  EXPECT_EQ(m.BytesOf(ByteKind::kDenseWeights, 0), 48 * (q + 2 * kv + o + router));
  const int64_t gate_up = 768LL * 2048 + (768 / 128) * (2048 / 128) * 4;
  const int64_t down = 2048LL * 768 + (2048 / 128) * (768 / 128) * 4;
  EXPECT_EQ(m.BytesOf(ByteKind::kExpertWeights, 0), 48 * 8 * (2 * gate_up + down));
  EXPECT_EQ(m.BytesOf(ByteKind::kHeadWeights, 0), 151936LL * 2048 * 2);  // lm_head bf16
  EXPECT_EQ(m.BytesOf(ByteKind::kEmbedding, 0), 2048 * 2);
}

// ---- refusals ------------------------------------------------------------------------------

base::Status ErrorOf(const std::string& path, const ModelOptions& options = {}) {
  auto result = ReadModelBytes(path, options);
  EXPECT_FALSE(result.ok());
  return result.status();
}

TEST(ModelBytesTest, UnknownModelTypeNamesTheKnownOnes) {
  const base::Status s = ErrorOf(ModelDir(R"({"model_type": "gpt_bigcode"})"));
  EXPECT_EQ(s.kind(), base::ErrorKind::kConfig);
  EXPECT_NE(s.message().find("'gpt_bigcode'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("qwen3_moe"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("nemotron_h"), std::string::npos) << s.message();
}

TEST(ModelBytesTest, UnknownQuantMethodIsNamed) {
  const base::Status s = ErrorOf(
      ModelDir(With(kLlama31_8B, R"("quantization_config": {"quant_method": "gptq", "bits": 4})")));
  EXPECT_EQ(s.kind(), base::ErrorKind::kConfig);
  EXPECT_NE(s.message().find("'gptq'"), std::string::npos) << s.message();
}

TEST(ModelBytesTest, MalformedJson) {
  const base::Status s = ErrorOf(ModelDir(R"({"model_type": "llama", )"));
  EXPECT_EQ(s.kind(), base::ErrorKind::kData);
  EXPECT_NE(s.message().find("malformed JSON"), std::string::npos) << s.message();
  const base::Status deep = ErrorOf(ModelDir(std::string(100, '[') + std::string(100, ']')));
  EXPECT_EQ(deep.kind(), base::ErrorKind::kData);
}

TEST(ModelBytesTest, MissingKeyNamesItAndTheDescription) {
  const base::Status s = ErrorOf(ModelDir(R"({"model_type": "llama", "hidden_size": 4096,
    "num_attention_heads": 32, "num_hidden_layers": 2, "vocab_size": 10})"));
  EXPECT_EQ(s.kind(), base::ErrorKind::kConfig);
  EXPECT_NE(s.message().find("`intermediate_size`"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("packs/models.toml:"), std::string::npos) << s.message();
}

TEST(ModelBytesTest, BadLayerPatternAndCounts) {
  std::string bad = kNemotron3Nano;
  bad.replace(bad.find("MEMEM*"), 6, "MEMEMX");
  const base::Status s = ErrorOf(ModelDir(bad));
  EXPECT_EQ(s.kind(), base::ErrorKind::kData);
  EXPECT_NE(s.message().find("character 5"), std::string::npos) << s.message();
  std::string count = kNemotron3Nano;
  count.replace(count.find("\"num_hidden_layers\": 52"), 23, "\"num_hidden_layers\": 50");
  EXPECT_EQ(ErrorOf(ModelDir(count)).kind(), base::ErrorKind::kData);
  const base::Status dense = ErrorOf(ModelDir(With(kQwen3_30B_A3B, R"("mlp_only_layers": [3])")));
  // a later key wins in nlohmann: the list is not empty
  EXPECT_EQ(dense.kind(), base::ErrorKind::kConfig) << dense.ToString();
  EXPECT_EQ(ErrorOf(MakeTempDir()).kind(), base::ErrorKind::kIo);
  EXPECT_EQ(ErrorOf("/nonexistent/model").kind(), base::ErrorKind::kIo);
}

TEST(ModelBytesTest, NotesSayTheAssumptions) {
  const ModelBytes m = Read(ModelDir(kNemotron3Nano));
  std::string notes;
  for (const std::string& n : m.notes) notes += n + "\n";
  EXPECT_NE(notes.find("layers.moe.mixer.gate read as f32"), std::string::npos) << notes;
  EXPECT_NE(notes.find("ssm_state f32 conv_state bf16"), std::string::npos) << notes;
  EXPECT_NE(notes.find("KV cache bf16 (the model dtype)"), std::string::npos) << notes;
  const ModelBytes g = Read(ModelDir(kGraniteHTiny));
  notes.clear();
  for (const std::string& n : g.notes) notes += n + "\n";
  EXPECT_NE(notes.find("no torch_dtype"), std::string::npos) << notes;
  EXPECT_NE(notes.find("lm_head is tied"), std::string::npos) << notes;
}

TEST(ModelBytesTest, ModelsFileErrorsNameTheLine) {
  const std::string dir = ModelDir(kLlama31_8B);
  ModelOptions options;
  options.models_file = dir + "/models.toml";
  std::ofstream(options.models_file) << "[[architecture]]\nmodel_types = [\"llama\"]\n"
                                        "[architecture.layers]\ncount = \"num_hidden_layers\"\n"
                                        "uniform = \"attention\"\n[[architecture.tensor]]\n"
                                        "layer = \"all\"\nname = \"x\"\nkind = \"weights\"\n"
                                        "shape = [\"hidden_size\"]\n";
  base::Status s = ReadModelBytes(dir, options).status();
  EXPECT_EQ(s.kind(), base::ErrorKind::kConfig);
  EXPECT_EQ(s.where(), options.models_file + ":9") << s.ToString();
  std::ofstream(options.models_file) << "[[architecture]\n";
  s = ReadModelBytes(dir, options).status();
  EXPECT_EQ(s.kind(), base::ErrorKind::kConfig);
  EXPECT_EQ(s.where(), options.models_file + ":1") << s.ToString();
  // an expression muparser cannot parse
  std::ofstream(options.models_file) << "[[architecture]]\nmodel_types = [\"llama\"]\n"
                                        "[architecture.layers]\ncount = \"num_hidden_layers *\"\n"
                                        "uniform = \"attention\"\n";
  s = ReadModelBytes(dir, options).status();
  EXPECT_EQ(s.kind(), base::ErrorKind::kConfig);
  EXPECT_NE(s.message().find("bad expression"), std::string::npos) << s.ToString();
}

TEST(ModelBytesTest, Fp8PerTensorScale) {
  const ModelBytes m = Read(ModelDir(
      With(kLlama31_8B,
           R"("quantization_config": {"quant_method": "fp8", "activation_scheme": "static"})")));
  EXPECT_EQ(m.weight_format, "fp8 e4m3 per-tensor scale");
  // 7 linear layers a layer, 1 byte a weight and one f32 scale each
  EXPECT_EQ(m.BytesOf(ByteKind::kDenseWeights, 0),
            32 * (4096LL * 4096 + 2LL * 4096 * 1024 + 4096LL * 4096 + 3LL * 4096 * 14336 + 7 * 4));
}

TEST(ModelBytesTest, ByteKindNames) {
  for (ByteKind k :
       {ByteKind::kDenseWeights, ByteKind::kExpertWeights, ByteKind::kHeadWeights,
        ByteKind::kEmbedding, ByteKind::kNormWeights, ByteKind::kKvCache, ByteKind::kState}) {
    ByteKind back = ByteKind::kState;
    ASSERT_TRUE(ParseByteKind(ByteKindName(k), back)) << ByteKindName(k);
    EXPECT_EQ(back, k);
  }
  ByteKind unused;
  EXPECT_FALSE(ParseByteKind("weights", unused));
}

// ---- GGUF ----------------------------------------------------------------------------------

// Writes GGUF v3 headers: metadata, then tensor infos with offsets laid out in order.
class GgufWriter {
 public:
  void U32(const std::string& key, uint32_t v) { Key(key, 4), Put(v); }
  void Str(const std::string& key, const std::string& v) { Key(key, 8), PutStr(v); }
  void I32Array(const std::string& key, const std::vector<int32_t>& v) {
    Key(key, 9);
    Put(uint32_t{5});
    Put(uint64_t{v.size()});
    for (int32_t x : v) Put(x);
  }
  // ggml type ids: 0 f32, 2 q4_0, 14 q6_K. `bytes` is the tensor's size in that type.
  void Tensor(const std::string& name, std::vector<uint64_t> ne, uint32_t type, int64_t bytes) {
    tensors_.push_back({name, std::move(ne), type, offset_});
    offset_ += (bytes + 31) / 32 * 32;
  }
  // The file: the header, then ftruncate to the data's end (+ `extra`, negative to cut it).
  std::string Write(int64_t extra = 0) {
    std::string out = "GGUF";
    PutTo(out, uint32_t{3});
    PutTo(out, uint64_t{tensors_.size()});
    PutTo(out, kv_count_);
    out += kv_;
    for (const auto& t : tensors_) {
      PutStrTo(out, t.name);
      PutTo(out, static_cast<uint32_t>(t.ne.size()));
      for (uint64_t n : t.ne) PutTo(out, n);
      PutTo(out, t.type);
      PutTo(out, static_cast<uint64_t>(t.offset));
    }
    const int64_t data_start = (static_cast<int64_t>(out.size()) + 31) / 32 * 32;
    const std::string path = MakeTempDir() + "/model.gguf";
    std::ofstream(path, std::ios::binary) << out;
    EXPECT_EQ(::truncate(path.c_str(), data_start + offset_ + extra), 0);
    return path;
  }
  std::string kv_;  // raw metadata, for malformed files

 private:
  struct Info {
    std::string name;
    std::vector<uint64_t> ne;
    uint32_t type;
    int64_t offset;
  };
  template <typename T>
  static void PutTo(std::string& s, T v) {
    s.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  static void PutStrTo(std::string& s, const std::string& v) {
    PutTo(s, uint64_t{v.size()});
    s += v;
  }
  template <typename T>
  void Put(T v) {
    PutTo(kv_, v);
  }
  void PutStr(const std::string& v) { PutStrTo(kv_, v); }
  void Key(const std::string& key, uint32_t type) {
    PutStr(key);
    Put(type);
    ++kv_count_;
  }
  uint64_t kv_count_ = 0;
  std::vector<Info> tensors_;
  int64_t offset_ = 0;
};

int64_t Q4_0(int64_t elements) { return elements / 32 * 18; }
int64_t Q6_K(int64_t elements) { return elements / 256 * 210; }

// Llama-3.1-8B as llama-quantize writes Q4_0: 2-D weights q4_0, norms f32, `output` in its
// own type (q6_K by default), or absent (tied).
std::string LlamaGguf(int output_type, int64_t extra = 0) {
  GgufWriter w;
  w.Str("general.architecture", "llama");
  w.U32("general.file_type", 2);  // MOSTLY_Q4_0
  w.U32("llama.block_count", 32);
  w.U32("llama.context_length", 131072);
  w.U32("llama.embedding_length", 4096);
  w.U32("llama.feed_forward_length", 14336);
  w.U32("llama.attention.head_count", 32);
  w.U32("llama.attention.head_count_kv", 8);
  w.Tensor("token_embd.weight", {4096, 128256}, 2, Q4_0(4096LL * 128256));
  w.Tensor("rope_freqs.weight", {64}, 0, 64 * 4);
  for (int i = 0; i < 32; ++i) {
    const std::string p = "blk." + std::to_string(i) + ".";
    w.Tensor(p + "attn_norm.weight", {4096}, 0, 4096 * 4);
    w.Tensor(p + "attn_q.weight", {4096, 4096}, 2, Q4_0(4096LL * 4096));
    w.Tensor(p + "attn_k.weight", {4096, 1024}, 2, Q4_0(4096LL * 1024));
    w.Tensor(p + "attn_v.weight", {4096, 1024}, 2, Q4_0(4096LL * 1024));
    w.Tensor(p + "attn_output.weight", {4096, 4096}, 2, Q4_0(4096LL * 4096));
    w.Tensor(p + "ffn_norm.weight", {4096}, 0, 4096 * 4);
    w.Tensor(p + "ffn_gate.weight", {4096, 14336}, 2, Q4_0(4096LL * 14336));
    w.Tensor(p + "ffn_up.weight", {4096, 14336}, 2, Q4_0(4096LL * 14336));
    w.Tensor(p + "ffn_down.weight", {14336, 4096}, 2, Q4_0(14336LL * 4096));
  }
  w.Tensor("output_norm.weight", {4096}, 0, 4096 * 4);
  if (output_type == 14) w.Tensor("output.weight", {4096, 128256}, 14, Q6_K(4096LL * 128256));
  if (output_type == 2) w.Tensor("output.weight", {4096, 128256}, 2, Q4_0(4096LL * 128256));
  return w.Write(extra);
}

TEST(ModelBytesGgufTest, Llama31_8B_Q4_0) {
  const ModelBytes m = Read(LlamaGguf(14));
  EXPECT_EQ(m.architecture, "llama");
  EXPECT_EQ(m.weight_format, "q4_0");
  const int64_t linear_per_layer = Q4_0(4096LL * 4096) * 2 + Q4_0(4096LL * 1024) * 2 +
                                   Q4_0(4096LL * 14336) * 3;  // q, o; k, v; gate, up, down
  const int64_t output = Q6_K(128256LL * 4096);               // 430,940,160
  const int64_t norms = (32 * 2 * 4096 + 4096 + 64) * 4;      // f32, and rope_freqs
  const int64_t embedding_row = Q4_0(4096);                   // 2,304
  EXPECT_EQ(m.BytesOf(ByteKind::kDenseWeights, 0), 32 * linear_per_layer);
  EXPECT_EQ(m.BytesOf(ByteKind::kHeadWeights, 0), output);
  EXPECT_EQ(m.BytesOf(ByteKind::kEmbedding, 0), embedding_row);
  EXPECT_EQ(m.BytesOf(ByteKind::kNormWeights, 0), norms);
  const int64_t weights = 32 * linear_per_layer + output + norms + embedding_row;
  EXPECT_EQ(m.WeightBytes(), weights);
  EXPECT_EQ(m.stored_weight_bytes, weights - embedding_row + Q4_0(4096LL * 128256));
  const int64_t kv_per_token = 32 * 2 * 8 * 128 * 2;  // f16, llama.cpp's default
  for (int64_t ctx : kContexts) {
    EXPECT_EQ(m.BytesPerToken(ctx), weights + kv_per_token * ctx);
  }
  EXPECT_EQ(m.BytesPerToken(512), 4'424'985'088);
  EXPECT_EQ(m.BytesPerToken(4096), 4'894'747'136);
}

TEST(ModelBytesGgufTest, OutputQ4_0AndTied) {
  const ModelBytes q4 = Read(LlamaGguf(2));
  EXPECT_EQ(q4.BytesOf(ByteKind::kHeadWeights, 0), Q4_0(128256LL * 4096));
  const ModelBytes tied = Read(LlamaGguf(-1));
  // no output.weight: the head reads token_embd whole
  EXPECT_EQ(tied.BytesOf(ByteKind::kHeadWeights, 0), Q4_0(128256LL * 4096));
  EXPECT_EQ(tied.WeightBytes(), q4.WeightBytes());
  EXPECT_EQ(tied.stored_weight_bytes, q4.stored_weight_bytes - Q4_0(128256LL * 4096));
  // --kv-dtype q8_0: 34 bytes a block of 32 elements
  ModelOptions options;
  options.kv_dtype = "q8_0";
  EXPECT_EQ(Read(LlamaGguf(2), options).KvBytes(10), 32 * 2 * 8 * 128 / 32 * 34 * 10);
  options.kv_dtype = "q9_9";
  EXPECT_EQ(ReadModelBytes(LlamaGguf(2), options).status().kind(), base::ErrorKind::kUsage);
}

TEST(ModelBytesGgufTest, HybridExpertsAndState) {
  // 4 blocks: Mamba2 at 0 and 2 (head_count_kv 0), attention at 1 and 3; 8 experts, 2 used
  GgufWriter w;
  w.Str("general.architecture", "granitehybrid");
  w.U32("granitehybrid.block_count", 4);
  w.U32("granitehybrid.embedding_length", 256);
  w.U32("granitehybrid.attention.head_count", 4);
  w.I32Array("granitehybrid.attention.head_count_kv", {0, 2, 0, 2});
  w.U32("granitehybrid.expert_count", 8);
  w.U32("granitehybrid.expert_used_count", 2);
  w.U32("granitehybrid.ssm.conv_kernel", 4);
  w.U32("granitehybrid.ssm.inner_size", 512);
  w.U32("granitehybrid.ssm.state_size", 64);
  w.U32("granitehybrid.ssm.group_count", 1);
  w.Tensor("token_embd.weight", {256, 1000}, 0, 256 * 1000 * 4);
  for (int i = 0; i < 4; ++i) {
    const std::string p = "blk." + std::to_string(i) + ".";
    if (i % 2 == 0) {
      w.Tensor(p + "ssm_in.weight", {256, 1096}, 0, 256 * 1096 * 4);
    } else {
      w.Tensor(p + "attn_k.weight", {256, 128}, 0, 256 * 128 * 4);
    }
    w.Tensor(p + "ffn_up_exps.weight", {256, 64, 8}, 0, 256 * 64 * 8 * 4);
  }
  const ModelBytes m = Read(w.Write());
  EXPECT_EQ(m.BytesOf(ByteKind::kExpertWeights, 0), 4 * 256 * 64 * 2 * 4);
  EXPECT_EQ(m.BytesOf(ByteKind::kHeadWeights, 0), 256 * 1000 * 4);  // tied
  EXPECT_EQ(m.KvBytes(100), 2 * 2 * (64 + 64) * 2 * 100);           // head dim 256/4
  // per SSM layer: 512·64 SSM + (512 + 2·64)·3 conv elements, f32, read and written
  EXPECT_EQ(m.StateBytes(), 2 * 2 * (512 * 64 + 640 * 3) * 4);
}

TEST(ModelBytesGgufTest, CutShort) {
  const base::Status s = ErrorOf(LlamaGguf(14, -100));
  EXPECT_EQ(s.kind(), base::ErrorKind::kData);
  EXPECT_NE(s.message().find("cut short"), std::string::npos) << s.ToString();
  // a header cut inside the tensor list
  const std::string path = LlamaGguf(14);
  ASSERT_EQ(::truncate(path.c_str(), 2000), 0);
  const base::Status h = ErrorOf(path);
  EXPECT_EQ(h.kind(), base::ErrorKind::kData);
  EXPECT_NE(h.where().find(":byte "), std::string::npos) << h.ToString();
}

TEST(ModelBytesGgufTest, HugeCountsAndUnknownTypes) {
  {
    GgufWriter w;
    w.Str("general.architecture", "llama");
    w.Tensor("x", {32}, 0, 128);
    std::string path = w.Write();
    // tensor count at byte 8: 2^40
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    const uint64_t huge = uint64_t{1} << 40;
    f.seekp(8);
    f.write(reinterpret_cast<const char*>(&huge), 8);
    f.close();
    const base::Status s = ErrorOf(path);
    EXPECT_EQ(s.kind(), base::ErrorKind::kData);
    EXPECT_EQ(s.where(), path + ":byte 8") << s.ToString();
  }
  {
    GgufWriter w;
    w.kv_ = std::string("\x08\x00\x00\x00\x00\x00\x00\x00", 8) + "abcdefgh" +
            std::string("\x08\x00\x00\x00", 4) + std::string("\xff\xff\xff\xff\xff\x00\x00\x00", 8);
    // that is one key whose string value claims ~1 TB: kv count must say 1
    std::string path = w.Write();
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    const uint64_t one = 1;
    f.seekp(16);
    f.write(reinterpret_cast<const char*>(&one), 8);
    f.close();
    const base::Status s = ErrorOf(path);
    EXPECT_EQ(s.kind(), base::ErrorKind::kData);
    EXPECT_NE(s.message().find("beyond the file's end"), std::string::npos) << s.ToString();
  }
  {
    GgufWriter w;
    w.Str("general.architecture", "llama");
    w.Tensor("blk.0.attn_q.weight", {64, 64}, 77, 4096);
    const base::Status s = ErrorOf(w.Write());
    EXPECT_EQ(s.kind(), base::ErrorKind::kData);
    EXPECT_NE(s.message().find("blk.0.attn_q.weight"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("77"), std::string::npos) << s.message();
  }
}

TEST(ModelBytesGgufTest, MutatedHeadersNeverCrash) {
  // every single-byte change of a small header: an error or a result, never a crash
  GgufWriter w;
  w.Str("general.architecture", "llama");
  w.U32("llama.block_count", 1);
  w.U32("llama.embedding_length", 64);
  w.U32("llama.attention.head_count", 2);
  w.I32Array("llama.attention.head_count_kv", {1});
  w.Tensor("token_embd.weight", {64, 10}, 0, 64 * 10 * 4);
  w.Tensor("blk.0.attn_k.weight", {64, 32}, 2, Q4_0(64 * 32));
  const std::string path = w.Write();
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_TRUE(ReadModelBytes(path).ok());
  int errors = 0;
  for (size_t i = 0; i < 400 && i < bytes.size(); ++i) {
    for (int v : {0x00, 0xff}) {
      std::string mutated = bytes;
      mutated[i] = static_cast<char>(v);
      {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << mutated;
      }
      errors += ReadModelBytes(path).ok() ? 0 : 1;
    }
  }
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace decodeprof::model
