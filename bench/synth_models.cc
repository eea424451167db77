#include "bench/synth_models.h"

#include "bench/synth_builder.h"

namespace decodeprof::bench {
namespace {

// Hash part of MLX's JIT kernel names (`<ops>_<hash>_contiguous`): constant per fused graph.
constexpr uint64_t kSwiGluHash = 7311865491522407651u;

// Host figures calibrated on seed spec 4 (greedy): host gap per token, the idle stretch
// before the first decode dispatch (30.5 / 49.3 / 50.4 ms) and the unprofiled speed-up.
constexpr ModelInfo kLlama{.cli_name = "llama",
                           .checkpoint = "Meta-Llama-3.1-8B-Instruct-4bit",
                           .layers = 32,
                           .vocab = 128256,
                           .gap_min_ns = 1200,
                           .gap_max_ns = 3000,
                           .step_sync_ns = 550000,
                           .idle_before_decode_ns = 30.5e6,
                           .plain_speedup = 1.06,
                           .peak_memory_gb = 4.62};
constexpr ModelInfo kQwen{.cli_name = "qwen3-moe",
                          .checkpoint = "Qwen3-30B-A3B-4bit",
                          .layers = 48,
                          .vocab = 151936,
                          .gap_min_ns = 1000,
                          .gap_max_ns = 2600,
                          .step_sync_ns = 450000,
                          .idle_before_decode_ns = 49.3e6,
                          .plain_speedup = 1.053,
                          .peak_memory_gb = 17.21};
constexpr ModelInfo kHybrid{.cli_name = "mamba2-hybrid",
                            .checkpoint = "granite-4.0-h-tiny-4bit",
                            .layers = 40,
                            .vocab = 100352,
                            .gap_min_ns = 1400,
                            .gap_max_ns = 3250,
                            .step_sync_ns = 550000,
                            .idle_before_decode_ns = 50.4e6,
                            .plain_speedup = 1.19,
                            .peak_memory_gb = 4.13};

// ---- Llama 3.1 8B (dense, f16 activations) -------------------------------------------------
// 15 dispatches per layer; the last rms_norm is the next layer's input norm (or the final
// norm), so the residual Add + rms_norm pairs are what seed rule 5 joins.
void AddLlamaLayer(StepBuilder& b) {
  const Dtype t = Dtype::kF16;
  constexpr double kBw = 192;                     // bytes/ns of the dense GEMVs (seed spec 4)
  b.Gemv(t, 6144, 4096, kBw);                     // fused q/k/v projection
  b.Add(RopeSingle(t, true), Ew(32 * 64), 1500);  // llama3 frequency table
  b.Add(RopeSingle(t, true), Ew(8 * 64), 1400);
  b.Add(CopyGgByval(t, t), Ew(1024), 1800);  // K cache write
  b.Add(CopyGgByval(t, t), Ew(1024), 1800);  // V cache write
  b.Attention(t, 32, 128, 6000, 16);
  b.Gemv(t, 4096, 4096, kBw);                           // o_proj
  b.Add(Binary("vv", "Add", t, t), Ew(4096, 8), 2200);  // residual
  b.Add(RmsNorm(t), Ew(4096), 4300);                    // post_attention_layernorm
  b.Gemv(t, 14336, 4096, kBw);                          // gate
  b.Gemv(t, 14336, 4096, kBw);                          // up
  b.Add(Compiled("CV2ISigmoidMultiplyMultiply", kSwiGluHash, 2, t), Ew(14336), 3200);
  b.Gemv(t, 4096, 14336, kBw);  // down
  b.Add(Binary("vv", "Add", t, t), Ew(4096, 8), 2200);
  b.Add(RmsNorm(t), Ew(4096), 4300);
}

void AddLlama(StepBuilder& b, Sampler sampler) {
  const Dtype t = Dtype::kF16;
  AddQuantizedEmbedding(b, t, 4096);
  b.Add(RmsNorm(t), Ew(4096), 4300);
  for (int layer = 0; layer < kLlama.layers; ++layer) AddLlamaLayer(b);
  b.Gemv(t, kLlama.vocab, 4096, 192, /*head=*/true);
  AddSamplerTail(b, sampler, t, kLlama.vocab);
}

// ---- Qwen3-30B-A3B (48 layers, 128 experts, 8 active, bf16) -------------------------------
// 32 dispatches per layer: attention with q/k norms, RoPE and two cache writes; the router
// top-k (softmax, argpartition, gather, normalisation); 3 aranges, 3 expert GEMVs around the
// compiled SwiGLU; the 4-dispatch weighted sum; the residual Add + rms_norm.
void AddQwenLayer(StepBuilder& b) {
  const Dtype t = Dtype::kBf16;
  constexpr double kDenseBw = 157;
  constexpr double kExpertBw = 181;
  b.Gemv(t, 5120, 2048, kDenseBw);        // fused q/k/v
  b.Add(RmsNorm(t), Ew(32 * 128), 2600);  // q_norm
  b.Add(RmsNorm(t), Ew(4 * 128), 2200);   // k_norm
  b.Add(RopeSingle(t, false), Ew(32 * 64), 750);
  b.Add(RopeSingle(t, false), Ew(4 * 64), 700);
  b.Add(CopyGgByval(t, t), Ew(512), 700);
  b.Add(CopyGgByval(t, t), Ew(512), 700);
  b.Attention(t, 32, 128, 5000, 13.7);
  b.Gemv(t, 2048, 4096, kDenseBw);  // o_proj
  b.Add(Binary("vv", "Add", t, t), Ew(2048, 8), 2400);
  b.Add(RmsNorm(t), Ew(2048), 2700);
  b.Gemv(t, 128, 2048, kDenseBw);  // router
  b.Add(Softmax(t), Ew(128), 2000);
  b.Add(Unary("Negative", t, t), Ew(128, 8), 1200);
  b.Add(BlockSort(t), Ew(256), 12000);  // argpartition, top-8
  b.Add(CopyG(Dtype::kU32, Dtype::kU32), Ew(8), 1100);
  b.Add(GatherAxis(t), Ew(8), 1200);
  b.Add(RowReduce("Sum", t), Ew(8), 1600);
  b.Add(Binary("g", "Divide", t, t), Ew(8), 1200);  // norm_topk_prob
  for (int i = 0; i < 3; ++i) b.Add(Arange(Dtype::kU32), Ew(8), 850);
  b.ExpertGemv(t, 8, 768, 2048, kExpertBw);  // gate
  b.ExpertGemv(t, 8, 768, 2048, kExpertBw);  // up
  b.Add(Compiled("CV2ISigmoidMultiplyMultiply", kSwiGluHash, 2, t), Ew(8 * 768), 4500);
  b.ExpertGemv(t, 8, 2048, 768, kExpertBw);                  // down
  b.Add(Binary("g", "Multiply", t, t), Ew(8 * 2048), 1600);  // × routing scores
  b.Add(CopyV(t, Dtype::kF32), Ew(8 * 2048, 8), 1400);
  b.Add(ColReduce("Sum", Dtype::kF32), Ew(2048), 1700);  // sum over the 8 experts
  b.Add(CopyV(Dtype::kF32, t), Ew(2048), 1300);
  b.Add(Binary("vv", "Add", t, t), Ew(2048, 8), 2400);
  b.Add(RmsNorm(t), Ew(2048), 2700);
}

void AddQwen(StepBuilder& b, Sampler sampler) {
  const Dtype t = Dtype::kBf16;
  AddQuantizedEmbedding(b, t, 2048);
  b.Add(RmsNorm(t), Ew(2048), 2700);
  for (int layer = 0; layer < kQwen.layers; ++layer) AddQwenLayer(b);
  b.Gemv(t, kQwen.vocab, 2048, 157, /*head=*/true);
  AddSamplerTail(b, sampler, t, kQwen.vocab);
}

void AddHybrid(StepBuilder& b, Sampler sampler) {
  const Dtype t = Dtype::kBf16;
  AddQuantizedEmbedding(b, t, 1536);
  b.Add(Binary("vs", "Multiply", t, t), Ew(1536, 8), 1300);  // embedding_multiplier
  b.Add(RmsNorm(t), Ew(1536), 3400);
  AddHybridLayers(b);
  b.Gemv(t, kHybrid.vocab, 1536, 205, /*head=*/true);               // tied embeddings
  b.Add(Binary("vs", "Divide", t, t), Ew(kHybrid.vocab, 8), 2600);  // logits_scaling
  AddSamplerTail(b, sampler, t, kHybrid.vocab);
}

void AddForward(ModelKind kind, StepBuilder& b, Sampler sampler) {
  switch (kind) {
    case ModelKind::kLlama:
      AddLlama(b, sampler);
      return;
    case ModelKind::kQwen3Moe:
      AddQwen(b, sampler);
      return;
    case ModelKind::kMamba2Hybrid:
      AddHybrid(b, sampler);
      return;
  }
}

// Model load: runtime fills, one blit per weight shard and a few MLX copies per layer.
void AddLoad(ModelKind kind, KernelTable* table, std::vector<Op>* out) {
  const int layers = Info(kind).layers;
  const Dtype t = kind == ModelKind::kLlama ? Dtype::kF16 : Dtype::kBf16;
  auto add = [&](KernelDef def, Grid g, double ns) {
    Op op;
    op.kernel = table->Intern(std::move(def));
    op.grid_x = g.x;
    op.grid_y = g.y;
    op.grid_z = g.z;
    op.mean_ns = ns;
    out->push_back(op);
  };
  for (int i = 0; i < 12; ++i) add(RocclrFillBuffer(), Ew(4096), 5200);
  for (int layer = 0; layer < layers; ++layer) {
    add(RocclrCopyBuffer(), Ew(1 << 22, 16), 185000);
    add(RocclrCopyBuffer(), Ew(1 << 20, 16), 52000);
    add(RocclrFillBuffer(), Ew(8192), 4800);
    add(CopyV(t, t), Ew(1 << 16, 8), 9000);
  }
  add(RocclrCopyBuffer(), Ew(1 << 24, 16), 620000);  // embedding / lm_head shard
  add(Arange(Dtype::kU32), Ew(64), 1500);
}

}  // namespace

std::optional<ModelKind> ParseModelKind(std::string_view text) {
  if (text == kLlama.cli_name) return ModelKind::kLlama;
  if (text == kQwen.cli_name) return ModelKind::kQwen3Moe;
  if (text == kHybrid.cli_name) return ModelKind::kMamba2Hybrid;
  return std::nullopt;
}

const ModelInfo& Info(ModelKind kind) {
  switch (kind) {
    case ModelKind::kLlama:
      return kLlama;
    case ModelKind::kQwen3Moe:
      return kQwen;
    case ModelKind::kMamba2Hybrid:
      return kHybrid;
  }
  return kLlama;
}

ModelProgram BuildProgram(ModelKind kind, Sampler sampler, int64_t prompt_tokens,
                          KernelTable* table) {
  ModelProgram program;
  AddLoad(kind, table, &program.load);
  StepBuilder prefill(table, Phase::kPrefill, prompt_tokens, &program.prefill);
  AddForward(kind, prefill, sampler);
  StepBuilder decode(table, Phase::kDecode, prompt_tokens, &program.decode_step);
  AddForward(kind, decode, sampler);
  return program;
}

}  // namespace decodeprof::bench
