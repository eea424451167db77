// The Mamba2 hybrid (granite-4.0-h-tiny-like: 40 layers, attention at 5/15/25/35, every
// layer followed by a 64-expert top-6 MoE plus a shared SwiGLU MLP; bf16 activations, the SSM
// state in f32). Seed spec 2.7 documents 47 SSD dispatches per Mamba2 layer on granite.
#include "bench/synth_builder.h"

namespace decodeprof::bench {
namespace {

constexpr uint64_t kHybridSwiGluHash = 7311865491522407651u;  // same fused graph as the MoE SwiGLU
constexpr uint64_t kSiluHash = 15480312930066242977u;
constexpr uint64_t kSoftplusHash = 2851761153419386470u;

constexpr int64_t kHidden = 1536;
constexpr int64_t kHeads = 48;      // mamba_n_heads
constexpr int64_t kHeadDim = 64;    // mamba_d_head
constexpr int64_t kState = 128;     // mamba_d_state
constexpr int64_t kInner = 3072;    // heads x head_dim
constexpr int64_t kConvDim = 3328;  // inner + 2 x state
constexpr int64_t kStateElems = kHeads * kHeadDim * kState;
constexpr double kBw = 205;        // dense GEMV bytes/ns
constexpr double kExpertBw = 135;  // expert GEMV bytes/ns (6 small experts)

// The SSD recurrence of one decode step as MLX evaluates the graph: exactly 47 small f32
// dispatches, four of them binary_vv<Add, float> and five binary_g<Multiply, float>; the
// state-sized ones (393,216 elements) dominate.
void AddSsdStep(StepBuilder& b) {
  const Dtype f = Dtype::kF32;
  const Dtype h = Dtype::kBf16;
  b.Add(CopyV(h, f), Ew(kHeads), 900);                 // dt
  b.Add(Binary("vv", "Add", f, f), Ew(kHeads), 2200);  // + dt_bias
  b.Add(Compiled("CV1ILogAddExpMaximumMinimum", kSoftplusHash, 1, f), Ew(kHeads), 1100);
  b.Add(Binary("vs", "Maximum", f, f), Ew(kHeads), 900);  // time_step_limit
  b.Add(Binary("vs", "Minimum", f, f), Ew(kHeads), 900);
  b.Add(Unary("Exp", f, f), Ew(kHeads), 900);  // A = -exp(A_log)
  b.Add(Unary("Negative", f, f), Ew(kHeads), 900);
  b.Add(Binary("vv", "Multiply", f, f), Ew(kHeads), 900);  // dt * A
  b.Add(Unary("Exp", f, f), Ew(kHeads), 900);              // dA
  b.Add(CopyG(h, f), Ew(kInner), 1100);                    // x
  b.Add(CopyG(h, f), Ew(kState), 1000);                    // B
  b.Add(CopyG(h, f), Ew(kState), 1000);                    // C
  b.Add(CopyG(f, f), Ew(kHeads * kState), 1100);           // B per head
  b.Add(CopyG(f, f), Ew(kHeads * kState), 1100);           // C per head
  b.Add(CopyV(f, f), Ew(kHeads * kState), 1000);
  b.Add(CopyV(f, f), Ew(kHeads * kState), 1000);
  b.Add(CopyG(f, f), Ew(kInner), 1000);                             // dt per channel
  b.Add(Binary("vv", "Multiply", f, f), Ew(kInner), 1000);          // x * dt
  b.Add(CopyG(f, f), Ew(kInner), 1000);                             // x_dt[..., None]
  b.Add(Binary("g", "Multiply", f, f), Ew(kHeads * kState), 1300);  // dt * B
  b.Add(Binary("g", "Multiply", f, f), Ew(kStateElems), 5000);      // dBx
  b.Add(CopyG(f, f), Ew(kHeads), 900);                              // dA[..., None, None]
  b.Add(Binary("g", "Multiply", f, f), Ew(kStateElems), 7000);      // state * dA
  b.Add(Binary("vv", "Add", f, f), Ew(kStateElems), 15000);         // + dBx
  b.Add(Binary("g", "Multiply", f, f), Ew(kStateElems), 6500);      // state * C
  b.Add(RowReduce("Sum", f), Ew(kStateElems, 16), 6500);            // y = sum over state
  b.Add(CopyG(f, f), Ew(kHeads), 900);                              // D per head
  b.Add(Binary("g", "Multiply", f, f), Ew(kInner), 1100);           // D * x
  b.Add(Binary("vv", "Add", f, f), Ew(kInner), 2400);               // y + D x
  b.Add(CopyV(f, f), Ew(kStateElems), 8000);                        // state → cache
  b.Add(Ternary("Select", f), Ew(kHeads), 950);                     // padding mask
  b.Add(CopyG(f, f), Ew(kHeads), 900);
  b.Add(Binary("vs", "Subtract", f, f), Ew(kHeads), 900);
  b.Add(CopyG(f, f), Ew(kInner), 1000);  // y reshape
  b.Add(CopyV(f, f), Ew(kInner), 950);
  b.Add(Binary("vv", "Add", f, f), Ew(kInner), 2200);  // group accumulation
  b.Add(CopyG(f, f), Ew(kHeads * kState), 1050);
  b.Add(Binary("vs", "Add", f, f), Ew(kHeads), 900);
  b.Add(CopyG(f, f), Ew(kState), 950);
  b.Add(CopyG(f, f), Ew(kState), 950);
  b.Add(Unary("Negative", f, f), Ew(kHeads), 900);
  b.Add(Binary("vs", "Multiply", f, f), Ew(kInner), 1000);
  b.Add(Binary("vs", "Multiply", f, f), Ew(kHeads), 900);
  b.Add(CopyG(f, f), Ew(kHeads * kHeadDim), 1000);
  b.Add(CopyV(f, f), Ew(kHeads), 850);
  b.Add(CopyV(f, f), Ew(kInner), 950);
  b.Add(CopyV(f, h), Ew(kInner), 1000);  // y → bf16
}

// in_proj, the conv window (2 copies, conv, state update), SiLU, the SSD step, the gated
// RMSNorm (y * silu(z), rms_norm, weight multiply, reshape) and out_proj: 58 dispatches.
void AddMambaMixer(StepBuilder& b) {
  const Dtype t = Dtype::kBf16;
  b.Gemv(t, 2 * kInner + 2 * kState + kHeads, kHidden, kBw);  // in_proj
  b.Add(CopyGgByval(t, t), Ew(kConvDim * 3), 900);
  b.Add(CopyGgByval(t, t), Ew(kConvDim), 900);
  b.Add(DepthwiseConv1d(t), Ew(kConvDim), 1500);
  b.Add(CopyGgByval(t, t), Ew(kConvDim * 3), 900);  // conv state update
  b.Add(Compiled("BV2ISigmoidMultiply", kSiluHash, 1, t), Ew(kConvDim), 2900);
  AddSsdStep(b);
  b.Add(Compiled("CV2ISigmoidMultiplyMultiply", kHybridSwiGluHash, 2, t), Ew(kInner), 2300);
  b.Add(RmsNorm(t), Ew(kInner), 3400);
  b.Add(Binary("vv", "Multiply", t, t), Ew(kInner, 8), 1700);
  b.Add(CopyG(t, t), Ew(kInner), 1600);
  b.Gemv(t, kHidden, kInner, kBw);  // out_proj
}

// NoPE attention: q, k, v, the two cache writes, sdpa, o_proj: 7 dispatches.
void AddAttention(StepBuilder& b) {
  const Dtype t = Dtype::kBf16;
  b.Gemv(t, 1536, kHidden, kBw);
  b.Gemv(t, 512, kHidden, kBw);
  b.Gemv(t, 512, kHidden, kBw);
  b.Add(CopyGgByval(t, t), Ew(512), 800);
  b.Add(CopyGgByval(t, t), Ew(512), 800);
  b.Attention(t, 12, 128, 4000, 10);
  b.Gemv(t, kHidden, 1536, kBw);
}

// residual_multiplier, residual Add, post norm; then the routed MoE (router GEMV, top-6,
// softmax over the six, 3 aranges, 3 expert GEMVs around the SwiGLU, 4-dispatch weighted
// sum), the shared SwiGLU MLP, and the second residual with the next input norm: 27.
void AddResidualAndMoe(StepBuilder& b) {
  const Dtype t = Dtype::kBf16;
  const Dtype f = Dtype::kF32;
  const Dtype u = Dtype::kU32;
  b.Add(Binary("vs", "Multiply", t, t), Ew(kHidden, 8), 1300);
  b.Add(Binary("vv", "Add", t, t), Ew(kHidden, 8), 1900);
  b.Add(RmsNorm(t), Ew(kHidden), 3400);
  b.Add(GemvBatched(t), Grid{64, 64, 1}, 7000);  // router (unquantized)
  b.Add(Unary("Negative", t, t), Ew(64, 8), 1600);
  b.Add(BlockSort(t), Ew(256), 10400);
  b.Add(CopyG(u, u), Ew(6), 1400);
  b.Add(GatherAxis(t), Ew(6), 1100);
  b.Add(Softmax(t), Ew(6), 1900);
  for (int i = 0; i < 3; ++i) b.Add(Arange(u), Ew(6), 500);
  b.ExpertGemv(t, 6, 512, kHidden, kExpertBw);
  b.ExpertGemv(t, 6, 512, kHidden, kExpertBw);
  b.Add(Compiled("CV2ISigmoidMultiplyMultiply", kHybridSwiGluHash, 2, t), Ew(6 * 512), 5400);
  b.ExpertGemv(t, 6, kHidden, 512, kExpertBw);
  b.Add(Binary("g", "Multiply", t, t), Ew(6 * kHidden), 900);
  b.Add(CopyV(t, f), Ew(6 * kHidden, 8), 800);
  b.Add(ColReduce("Sum", f), Ew(kHidden), 800);
  b.Add(CopyV(f, t), Ew(kHidden), 700);
  b.Gemv(t, 2048, kHidden, kBw);  // shared input_linear
  b.Add(Compiled("CV2ISigmoidMultiplyMultiply", kHybridSwiGluHash, 2, t), Ew(1024), 2300);
  b.Gemv(t, kHidden, 1024, kBw);                           // shared output_linear
  b.Add(Binary("vv", "Add", t, t), Ew(kHidden, 8), 1900);  // routed + shared
  b.Add(Binary("vs", "Multiply", t, t), Ew(kHidden, 8), 1300);
  b.Add(Binary("vv", "Add", t, t), Ew(kHidden, 8), 1900);
  b.Add(RmsNorm(t), Ew(kHidden), 3400);
}

}  // namespace

void AddHybridLayers(StepBuilder& b) {
  for (int layer = 0; layer < 40; ++layer) {
    if (layer % 10 == 5) {
      AddAttention(b);
    } else {
      AddMambaMixer(b);
    }
    AddResidualAndMoe(b);
  }
}

}  // namespace decodeprof::bench
