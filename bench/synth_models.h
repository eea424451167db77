// The three synthetic models and their kernel programs (bench/, not part of the library).
//
// A program is the ordered list of GPU dispatches one pass of the model produces, as MLX's
// ROCm backend evaluates the graph (seed spec 2.7 relies on this order): model load, the
// prompt pass (prefill plus the first token's sampling) and one decode step (embedding, the
// per-layer sequence, the final norm, the lm_head GEMV with the widest grid of the step, and
// the sampler tail). Mean kernel durations are chosen so that decode shares resemble the seed's
// published gfx1151 results (seed spec 4); the run writer adds jitter and host gaps.
//
// Per decode step (greedy; sampled adds 29, top-p 61 sampler dispatches, and top-p about
// 0.8 ms of host time for the multi-pass vocabulary sort):
//   llama          32 dense layers x 15 + 9                      =  489 dispatches
//   qwen3-moe      48 attention+MoE layers x 32 + 9              = 1545 dispatches
//   mamba2-hybrid  36 Mamba2 layers x 85 + 4 attention x 34 + 11 = 3207 dispatches
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/synth_kernels.h"

namespace decodeprof::bench {

enum class ModelKind { kLlama, kQwen3Moe, kMamba2Hybrid };

// "llama", "qwen3-moe", "mamba2-hybrid" → kind; anything else → nullopt.
std::optional<ModelKind> ParseModelKind(std::string_view text);

// greedy: temperature 0 (argmax); sampled: temperature > 0, top-p off; top-p: both.
enum class Sampler { kGreedy, kSampled, kTopP };

// One dispatch of a program.
struct Op {
  uint32_t kernel = 0;  // KernelTable index
  uint32_t grid_x = 1;  // Grid_Size_X/Y/Z: work-items per dimension
  uint32_t grid_y = 1;
  uint32_t grid_z = 1;
  double mean_ns = 0;          // mean duration
  double ns_per_position = 0;  // decode attention: extra ns per cached position
  double host_ns = 0;          // extra host time before the launch (mean), beyond the gap
};

struct ModelProgram {
  std::vector<Op> load;         // weight upload and runtime blits before the warmup
  std::vector<Op> prefill;      // prompt pass + the first token's sampling
  std::vector<Op> decode_step;  // one decode forward pass + sampling
};

// Host behaviour of a model's runs and the constant lines of its bench output.
struct ModelInfo {
  std::string_view cli_name;         // "llama"
  std::string_view checkpoint;       // directory name of the 4-bit checkpoint
  int layers = 0;                    // decoder layers
  int vocab = 0;                     // lm_head rows
  double gap_min_ns = 0;             // host gap between consecutive decode dispatches:
  double gap_max_ns = 0;             //   uniform in [gap_min_ns, gap_max_ns]
  double step_sync_ns = 0;           // per decode step: token read-back + next graph build
  double idle_before_decode_ns = 0;  // prefill end → first decode dispatch
  double plain_speedup = 0;          // unprofiled tok/s ÷ profiled tok/s
  double peak_memory_gb = 0;         // "MLX peak memory"
};

const ModelInfo& Info(ModelKind kind);

// Builds the load, prefill and decode programs, interning kernels into `table`.
// `prompt_tokens` scales the prefill.
ModelProgram BuildProgram(ModelKind kind, Sampler sampler, int64_t prompt_tokens,
                          KernelTable* table);

// The checkpoint's config.json (MLX 4-bit conversion of the published config), with a
// trailing newline.
std::string ConfigJson(ModelKind kind);

}  // namespace decodeprof::bench
