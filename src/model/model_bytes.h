// decodeprof::model — the bytes one batch-1 decode step must move: the model's weights read
// once (routed experts by the number a token uses, the embedding table as one row, a tied
// head as the whole matrix), the KV cache read at the step's context length, by layer type
// (full attention, sliding window), and the recurrent state (Mamba/SSM) read and written.
// Sources: a Hugging Face config.json (architectures described as data in packs/models.toml,
// not in C++) or a GGUF file's header (its tensor list, exact types and shapes).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::model {

// What the bytes are, so that the analysis can give them to the kernel classes that move
// them (a pack's class says `moves = [...]` with these names).
enum class ByteKind {
  kDenseWeights,   // "dense_weights": attention projections, dense MLP, shared experts,
                   // routers, Mamba in/out projections, conv weights
  kExpertWeights,  // "expert_weights": routed MoE experts, counted by experts used per token
  kHeadWeights,    // "head_weights": the output (lm_head) matrix, tied or not
  kEmbedding,      // "embedding": the token embedding row read per token
  kNormWeights,    // "norm_weights": norm and bias vectors
  kKvCache,        // "kv_cache": K and V read at the context length (per context token)
  kState,          // "state": recurrent state read and written per token
};
// "dense_weights", ... as above; and the reverse (false when the name is unknown).
const char* ByteKindName(ByteKind kind);
bool ParseByteKind(std::string_view name, ByteKind& kind);

struct ByteTerm {
  ByteKind kind;
  std::string what;  // "layers.attention.q_proj", "token_embd", "kv:full_attention" ...
  // Bytes a token moves: for kKvCache, per context token (multiply by the context length,
  // capped by the layer's sliding window: `window_tokens` > 0); otherwise per token.
  int64_t bytes = 0;
  int64_t window_tokens = 0;  // kKvCache of sliding-window layers; 0 = no cap
};

struct ModelBytes {
  std::string source;         // the config.json or GGUF path it was read from
  std::string architecture;   // model_type / general.architecture ("llama", "qwen3_moe")
  std::string weight_format;  // "bf16", "q4_0", "mlx 4-bit group 64", "fp8 e4m3 block 128" ...
  int64_t stored_weight_bytes = 0;  // every weight stored (the file's size, near enough)
  std::vector<ByteTerm> terms;      // every term, in model order
  std::vector<std::string> notes;   // assumptions a reader should see ("KV cache bf16: --kv-dtype")

  // Weights read per token: the sum of every weight term (not kv, not state).
  int64_t WeightBytes() const;
  // KV bytes read by a step at `context_tokens` (prompt + position), windows applied.
  int64_t KvBytes(int64_t context_tokens) const;
  int64_t StateBytes() const;  // read + written per token
  // WeightBytes() + KvBytes(context_tokens) + StateBytes().
  int64_t BytesPerToken(int64_t context_tokens) const;
  // The bytes of one kind at `context_tokens` (kKvCache windows applied).
  int64_t BytesOf(ByteKind kind, int64_t context_tokens) const;
};

struct ModelOptions {
  std::string kv_dtype;      // "" = the model's activation dtype; "bf16", "fp16", "fp8", "f32"
  std::string state_dtype;   // "" = config's mamba_ssm_cache_dtype, else the model dtype
  std::string weight_dtype;  // "" = from the source; overrides a config.json's torch_dtype
  // The architecture descriptions for config.json: "" = the built-in packs/models.toml, else
  // a file in its format (docs/packs.md "Bytes per token").
  std::string models_file;
};

// From DIR/config.json (or a path to a .json config itself), or a GGUF file (known by its
// magic): kConfig for an architecture packs/models.toml does not describe (naming model_type
// and the known ones), a key the description needs that the config lacks, or an unknown
// quantization; kData for a malformed file (file and position; a GGUF whose tensors run past
// its end is "cut short"), kIo when missing; kUsage for an unknown dtype in `options`.
base::StatusOr<ModelBytes> ReadModelBytes(const std::string& model_dir_or_gguf,
                                          const ModelOptions& options = {});

// A model config.json parsed: read whole up to base::kMaxConfigBytes, nesting bounded at 64
// levels (kData naming the file and the byte of a syntax error; kIo when unreadable). It
// need not be an object: the caller judges what it holds.
base::StatusOr<nlohmann::json> ReadConfigJson(const std::string& path);

// ReadModelBytes of a config.json already read (ReadConfigJson) from `path`.
base::StatusOr<ModelBytes> ModelBytesFromConfig(const nlohmann::json& config,
                                                const std::string& path,
                                                const ModelOptions& options = {});

}  // namespace decodeprof::model
