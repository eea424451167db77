// config.json of the three synthetic checkpoints: the published Hugging Face configurations
// (shared/reference/model-configs.md) plus the `quantization` block an MLX 4-bit conversion
// adds. The seed's summarizer reads `model_type` and `rope_scaling` from it (seed spec 2.8).
#include "bench/synth_models.h"

namespace decodeprof::bench {
namespace {

constexpr std::string_view kQuantization = R"(  "quantization": {
    "group_size": 64,
    "bits": 4
  },
  "quantization_config": {
    "group_size": 64,
    "bits": 4
  },
)";

constexpr std::string_view kLlamaBody = R"(  "architectures": [
    "LlamaForCausalLM"
  ],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 128000,
  "eos_token_id": [
    128001,
    128008,
    128009
  ],
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
)";

constexpr std::string_view kLlamaTail = R"(  "rms_norm_eps": 1e-05,
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
}
)";

constexpr std::string_view kQwenBody = R"(  "architectures": [
    "Qwen3MoeForCausalLM"
  ],
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
)";

constexpr std::string_view kQwenTail = R"(  "rms_norm_eps": 1e-06,
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
}
)";

constexpr std::string_view kHybridBody = R"(  "architectures": [
    "GraniteMoeHybridForCausalLM"
  ],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "attention_multiplier": 0.0078125,
  "bos_token_id": 100257,
  "embedding_multiplier": 12,
  "eos_token_id": 100257,
  "hidden_act": "silu",
  "hidden_size": 1536,
  "intermediate_size": 512,
  "layer_types": [
    "mamba", "mamba", "mamba", "mamba", "mamba", "attention",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention",
    "mamba", "mamba", "mamba", "mamba"
  ],
  "logits_scaling": 6,
  "mamba_chunk_size": 256,
  "mamba_conv_bias": true,
  "mamba_d_conv": 4,
  "mamba_d_head": 64,
  "mamba_d_state": 128,
  "mamba_expand": 2,
  "mamba_n_groups": 1,
  "mamba_n_heads": 48,
  "mamba_proj_bias": false,
  "max_position_embeddings": 131072,
  "model_type": "granitemoehybrid",
  "normalization_function": "rmsnorm",
  "num_attention_heads": 12,
  "num_experts_per_tok": 6,
  "num_hidden_layers": 40,
  "num_key_value_heads": 4,
  "num_local_experts": 64,
  "position_embedding_type": "nope",
)";

constexpr std::string_view kHybridTail = R"(  "residual_multiplier": 0.22,
  "rms_norm_eps": 1e-05,
  "rope_scaling": null,
  "rope_theta": 10000,
  "shared_intermediate_size": 1024,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "use_cache": true,
  "vocab_size": 100352
}
)";

std::string Join(std::string_view body, std::string_view tail) {
  std::string s = "{\n";
  s += body;
  s += kQuantization;
  s += tail;
  return s;
}

}  // namespace

std::string ConfigJson(ModelKind kind) {
  switch (kind) {
    case ModelKind::kLlama:
      return Join(kLlamaBody, kLlamaTail);
    case ModelKind::kQwen3Moe:
      return Join(kQwenBody, kQwenTail);
    case ModelKind::kMamba2Hybrid:
      return Join(kHybridBody, kHybridTail);
  }
  return {};
}

}  // namespace decodeprof::bench
