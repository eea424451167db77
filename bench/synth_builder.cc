#include "bench/synth_builder.h"

#include <algorithm>
#include <cstdint>

namespace decodeprof::bench {
namespace {

constexpr double kQuantBytesPerWeight = 0.5625;  // 4 bits + f16 scale and bias per 64
constexpr uint32_t kMaxGrid = 1u << 30;

uint32_t Clamp(int64_t v) {
  return static_cast<uint32_t>(std::clamp<int64_t>(v, 1, static_cast<int64_t>(kMaxGrid)));
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

Grid Ew(int64_t n, int per_thread) {
  const int64_t threads = CeilDiv(std::max<int64_t>(n, 1), per_thread);
  return Grid{Clamp(CeilDiv(threads, 256) * 256), 1, 1};
}

void StepBuilder::Add(KernelDef kernel, Grid grid, double ns, Work work, double ns_per_position) {
  Op op;
  op.kernel = table_->Intern(std::move(kernel));
  op.grid_x = grid.x;
  op.grid_y = grid.y;
  op.grid_z = grid.z;
  op.mean_ns = ns;
  op.ns_per_position = ns_per_position;
  op.host_ns = pending_host_ns_;
  pending_host_ns_ = 0;
  if (prefill()) {
    op.ns_per_position = 0;
    if (work == Work::kElementwise) {
      // The same op over every prompt position: bandwidth-bound, launch cost paid once.
      op.mean_ns = 1000.0 + ns * static_cast<double>(prompt_) / 24.0;
      op.grid_x = Clamp(static_cast<int64_t>(grid.x) * prompt_);
    }
  }
  out_->push_back(op);
}

void StepBuilder::Gemv(Dtype t, int64_t rows, int64_t cols, double bytes_per_ns, bool head) {
  const double bytes = static_cast<double>(rows) * static_cast<double>(cols) * kQuantBytesPerWeight;
  const double decode_ns = 1500.0 + bytes / bytes_per_ns;
  if (!prefill() || head) {
    Add(QmvWide(t), Grid{32, Clamp(CeilDiv(rows, 8) * 8), 1}, decode_ns, Work::kHead);
    return;
  }
  const double scale = 26.0 * static_cast<double>(prompt_) / 512.0;
  Op op;
  op.kernel = table_->Intern(QmmT(t));
  op.grid_x = Clamp(CeilDiv(rows, 64) * 128);
  op.grid_y = Clamp(CeilDiv(prompt_, 64));
  op.mean_ns = 4000.0 + (decode_ns - 1500.0) * scale;
  op.host_ns = pending_host_ns_;
  pending_host_ns_ = 0;
  out_->push_back(op);
}

void StepBuilder::ExpertGemv(Dtype t, int64_t experts, int64_t rows, int64_t cols,
                             double bytes_per_ns) {
  const double bytes = static_cast<double>(experts) * static_cast<double>(rows) *
                       static_cast<double>(cols) * kQuantBytesPerWeight;
  const double decode_ns = 1200.0 + bytes / bytes_per_ns;
  Op op;
  if (!prefill()) {
    op.kernel = table_->Intern(GatherQmvWide(t));
    op.grid_x = 32;
    op.grid_y = Clamp(CeilDiv(rows, 8) * 8);
    op.grid_z = Clamp(experts);
    op.mean_ns = decode_ns;
  } else {
    op.kernel = table_->Intern(GatherQmmT(t));
    op.grid_x = Clamp(CeilDiv(rows, 64) * 128);
    op.grid_y = Clamp(CeilDiv(prompt_ * experts, 64));
    op.mean_ns = 5000.0 + decode_ns * 14.0 * static_cast<double>(prompt_) / 512.0;
  }
  op.host_ns = pending_host_ns_;
  pending_host_ns_ = 0;
  out_->push_back(op);
}

void StepBuilder::Attention(Dtype t, int64_t q_heads, int64_t head_dim, double base_ns,
                            double ns_per_position) {
  if (!prefill()) {
    Add(SdpaVector1Pass(t), Grid{32, Clamp(q_heads * 4), 1}, base_ns, Work::kHead, ns_per_position);
    return;
  }
  const double p = static_cast<double>(prompt_);
  const double h = static_cast<double>(q_heads);
  const double gemm_ns = 3000.0 + 2.0 * p * p * h * static_cast<double>(head_dim) / 8000.0;
  const Grid gemm_grid{Clamp(CeilDiv(prompt_, 64) * 256), Clamp(CeilDiv(prompt_, 64)),
                       Clamp(q_heads)};
  Add(TensileGemm(t, true), gemm_grid, gemm_ns, Work::kHead);
  Add(Softmax(t), Ew(q_heads * prompt_ * prompt_), 2000.0 + h * p * p * 6.0 / 300.0, Work::kHead);
  Add(TensileGemm(t, false), gemm_grid, gemm_ns, Work::kHead);
}

void AddQuantizedEmbedding(StepBuilder& b, Dtype t, int64_t hidden) {
  b.Add(GatherRows(Dtype::kU32), Ew(hidden / 8), 1500);
  b.Add(GatherRows(t), Ew(hidden / 64), 1100);
  b.Add(GatherRows(t), Ew(hidden / 64), 1100);
  b.Add(AffineDequantize(t), Ew(hidden, 8), 1700);
}

void AddSamplerTail(StepBuilder& b, Sampler sampler, Dtype logits, int64_t vocab) {
  const double v = static_cast<double>(vocab);
  // A pass over the vocabulary, `bytes` per element read + written; logits stay in cache.
  auto vocab_ns = [v](double bytes) { return 900.0 + v * bytes / 250.0; };
  const Grid g = Ew(vocab);
  const Grid one = Ew(1);
  const Dtype f = Dtype::kF32;
  const Dtype u = Dtype::kU32;
  const Work h = Work::kHead;

  b.Add(CopyV(logits, f), g, vocab_ns(6), h);            // logits → f32
  b.Add(Binary("vv", "Add", f, f), g, vocab_ns(12), h);  // --ignore-eos logit bias
  if (sampler == Sampler::kGreedy) {
    b.Add(ArgReduceFinal(f), Ew(vocab, 16), vocab_ns(4), h);  // argmax
    return;
  }
  b.Add(Binary("vs", "Multiply", f, f), g, vocab_ns(8), h);  // / temperature
  if (sampler == Sampler::kTopP) {
    // Full-vocabulary descending sort of the probabilities, cumulative sum, mask, unsort.
    b.Add(Softmax(f), Ew(vocab, 4), vocab_ns(8), h);
    b.Add(Unary("Negative", f, f), g, vocab_ns(8), h);
    b.Add(MultiBlockSort("mb_block_sort", f), g, 900.0 + v * 0.30, h);
    for (int pass = 0; pass < 6; ++pass) {
      b.HostBefore(55000);  // each merge pass is sized and launched from the host
      b.Add(MultiBlockSort("mb_block_partition", f), Ew(256), 1600, h);
      b.HostBefore(55000);
      b.Add(MultiBlockSort("mb_block_merge", f), g, 900.0 + v * 0.055, h);
    }
    b.Add(BlockSort(u), Ew(256), 6000, h);
    b.Add(CopyG(u, u), g, vocab_ns(8), h);
    b.Add(GatherAxis(f), g, vocab_ns(12), h);
    b.Add(Unary("Negative", f, f), g, vocab_ns(8), h);
    b.HostBefore(120000);
    b.Add(Scan("CumSum", f), g, 1500.0 + v * 0.08, h);
    b.Add(Binary("vv", "Subtract", f, f), g, vocab_ns(12), h);
    b.Add(Binary("vs", "Greater", f, Dtype::kBool), g, vocab_ns(5), h);
    b.Add(CopyG(Dtype::kBool, Dtype::kBool), g, vocab_ns(2), h);
    b.Add(Ternary("Select", f), g, vocab_ns(13), h);
    b.Add(ScatterAxis(f), g, vocab_ns(12), h);
    b.Add(CopyV(f, f), g, vocab_ns(8), h);
    b.Add(RowReduce("Sum", f), Ew(vocab, 16), vocab_ns(4), h);
    b.Add(Binary("vs", "Divide", f, f), g, vocab_ns(8), h);
    b.Add(Unary("Log", f, f), g, vocab_ns(8), h);
    b.Add(GatherAxis(u), one, 1000, h);
    b.Add(CopyG(u, u), one, 950, h);
    b.Add(CopyV(Dtype::kBool, Dtype::kBool), g, vocab_ns(2), h);
  }
  // Log-probabilities, then the Gumbel-max draw: key split, uniform bits → floats in
  // [eps, 1), -log(-log(u)), add, argmax.
  b.Add(LogSumExp(f), Ew(vocab, 16), vocab_ns(4), h);
  b.Add(Binary("vs", "Subtract", f, f), g, vocab_ns(8), h);
  b.Add(RandomBits(), one, 1100, h);
  b.Add(CopyV(u, u), one, 850, h);
  b.Add(CopyV(u, u), one, 850, h);
  b.Add(RandomBits(), g, vocab_ns(4), h);
  b.Add(Binary("vs", "RightShift", u, u), g, vocab_ns(8), h);
  b.Add(Binary("vs", "BitwiseOr", u, u), g, vocab_ns(8), h);
  b.Add(CopyV(u, f), g, vocab_ns(8), h);
  b.Add(Binary("vs", "Subtract", f, f), g, vocab_ns(8), h);
  b.Add(Binary("vs", "Multiply", f, f), g, vocab_ns(8), h);
  b.Add(Binary("vs", "Add", f, f), g, vocab_ns(8), h);
  b.Add(Binary("vs", "Maximum", f, f), g, vocab_ns(8), h);
  b.Add(Binary("vs", "Minimum", f, f), g, vocab_ns(8), h);
  b.Add(Unary("Log", f, f), g, vocab_ns(8), h);
  b.Add(Unary("Negative", f, f), g, vocab_ns(8), h);
  b.Add(Unary("Log", f, f), g, vocab_ns(8), h);
  b.Add(Unary("Negative", f, f), g, vocab_ns(8), h);
  b.Add(Binary("vv", "Add", f, f), g, vocab_ns(12), h);
  b.Add(ArgReduceFinal(f), Ew(vocab, 16), vocab_ns(4), h);
  b.Add(RowReduce("Max", f), Ew(vocab, 16), vocab_ns(4), h);
  b.Add(Binary("vs", "Subtract", f, f), g, vocab_ns(8), h);
  b.Add(Unary("Exp", f, f), g, vocab_ns(8), h);
  b.Add(RowReduce("Sum", f), Ew(vocab, 16), vocab_ns(4), h);
  b.Add(Binary("vs", "Divide", f, f), g, vocab_ns(8), h);
  b.Add(GatherAxis(f), one, 1000, h);
  b.Add(GatherAxis(f), one, 1000, h);
  b.Add(CopyV(u, u), one, 850, h);
  b.Add(CopyV(f, f), one, 850, h);
}

}  // namespace decodeprof::bench
