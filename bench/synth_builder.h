// Internal to bench/synth_*.cc: the builder that turns model structure into a program.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/synth_kernels.h"
#include "bench/synth_models.h"

namespace decodeprof::bench {

enum class Phase { kDecode, kPrefill };

// What a dispatch's cost scales with when the same op runs over the whole prompt.
enum class Work {
  kElementwise,  // activations: time grows with the prompt length
  kHead,         // lm_head and sampling: one row in both phases
};

struct Grid {
  uint32_t x = 1;
  uint32_t y = 1;
  uint32_t z = 1;
};

// Grid of an elementwise kernel over `n` elements, `per_thread` per work-item, 256 per group.
Grid Ew(int64_t n, int per_thread = 4);

class StepBuilder {
 public:
  StepBuilder(KernelTable* table, Phase phase, int64_t prompt_tokens, std::vector<Op>* out)
      : table_(table), phase_(phase), prompt_(prompt_tokens), out_(out) {}

  Phase phase() const { return phase_; }
  bool prefill() const { return phase_ == Phase::kPrefill; }

  // One dispatch with mean duration `ns` (decode-sized); prefill scales elementwise work.
  void Add(KernelDef kernel, Grid grid, double ns, Work work = Work::kElementwise,
           double ns_per_position = 0);

  // Host time (mean ns) spent before the next dispatch's launch, on top of the usual gap.
  void HostBefore(double ns) { pending_host_ns_ += ns; }

  // Quantized (4-bit, group 64) GEMV `rows` x `cols`, timed by weight bytes at
  // `bytes_per_ns`; a qmm GEMM over the prompt in prefill. `head` keeps it one row in
  // prefill too (lm_head on the last position).
  void Gemv(Dtype t, int64_t rows, int64_t cols, double bytes_per_ns, bool head = false);

  // MoE expert GEMV over `experts` selected experts (gather_qmv / gather_qmm).
  void ExpertGemv(Dtype t, int64_t experts, int64_t rows, int64_t cols, double bytes_per_ns);

  // Decode attention over the KV cache (kernel_sdpav_1pass); in prefill the fallback
  // Tensile GEMM + softmax + Tensile GEMM over the prompt.
  void Attention(Dtype t, int64_t q_heads, int64_t head_dim, double base_ns,
                 double ns_per_position);

 private:
  KernelTable* table_;
  Phase phase_;
  int64_t prompt_;
  std::vector<Op>* out_;
  double pending_host_ns_ = 0;
};

// Embedding of a 4-bit table: three row gathers (weights, scales, biases) + dequantize.
void AddQuantizedEmbedding(StepBuilder& b, Dtype t, int64_t hidden);

// Sampling after the lm_head (seed spec 2.3, 2.7 rule 1): logits cast, the --ignore-eos
// logit bias, then argmax (greedy) or the categorical draw chain (sampled), with the top-p
// filter before the draw.
void AddSamplerTail(StepBuilder& b, Sampler sampler, Dtype logits, int64_t vocab);

// The Mamba2 hybrid's decoder (granite-4.0-h-tiny-like), after the embedding.
void AddHybridLayers(StepBuilder& b);

}  // namespace decodeprof::bench
