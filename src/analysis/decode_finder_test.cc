#include "src/analysis/decode_finder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace decodeprof::analysis {
namespace {

using trace::ApiCall;
using trace::Dispatch;
using trace::DispatchKind;

// Builds a trace: dispatches back to back (1 µs each), a host gap before each step.
class TraceMaker {
 public:
  void Kernel(const std::string& name, uint64_t correlation = 0) {
    Dispatch d;
    d.start = now_;
    d.end = now_ + 1000;
    d.name = names_.Intern(name);
    d.correlation = correlation == 0 ? ++next_corr_ : correlation;
    d.line = static_cast<uint32_t>(ds_.size() + 1);
    now_ = d.end + 100;
    ds_.push_back(d);
  }
  void ReadBack() {
    Dispatch d;
    d.start = now_;
    d.end = now_ + 500;
    d.kind = DispatchKind::kMemcpy;
    d.name = names_.Intern(trace::MemcpyName(2));
    d.line = static_cast<uint32_t>(ds_.size() + 1);
    now_ = d.end + 100;
    ds_.push_back(d);
  }
  void HostGap(int64_t ns) { now_ += ns; }
  // A graph launch of `kernels` (one correlation, one launch call).
  void Graph(const std::vector<std::string>& kernels) {
    const uint64_t corr = ++next_corr_;
    calls_.push_back({names_.Intern("cudaGraphLaunch"), now_ - 50, now_ - 10, 1, corr});
    for (const std::string& k : kernels) Kernel(k, corr);
  }
  // An eager layer of a decode step.
  void Layer() {
    for (const char* k : {"rms_norm", "gemv_qkv", "rope", "attention_decode", "gemv_o", "add",
                          "rms_norm", "gemv_up", "silu_mul", "gemv_down", "add"}) {
      Kernel(k);
    }
  }
  void EagerStep(int layers, bool read_back = true) {
    HostGap(50'000);
    Kernel("embedding");
    for (int l = 0; l < layers; ++l) Layer();
    Kernel("rms_norm");
    Kernel("gemv_lm_head");
    Kernel("argmax_kernel");
    if (read_back) ReadBack();
  }
  void Prefill(int layers) {
    Kernel("embedding");
    for (int l = 0; l < layers; ++l) {
      for (const char* k : {"rms_norm", "gemm_qkv", "rope", "flash_prefill", "gemm_o", "add",
                            "rms_norm", "gemm_up", "silu_mul", "gemm_down", "add"}) {
        Kernel(k);
      }
    }
    Kernel("rms_norm");
    Kernel("gemm_lm_head");
    Kernel("argmax_kernel");
    ReadBack();
  }

  base::StatusOr<FoundLoop> Find() { return FindDecodeLoop(ds_, calls_, names_, "t.sqlite"); }
  trace::TimestampNs now() const { return now_; }
  const std::vector<Dispatch>& dispatches() const { return ds_; }

 private:
  trace::StringPool names_;
  std::vector<Dispatch> ds_;
  std::vector<ApiCall> calls_;
  trace::TimestampNs now_ = 1'000'000;
  uint64_t next_corr_ = 0;
};

TEST(DecodeFinderTest, EagerStepsAfterWarmupAndPrefill) {
  TraceMaker t;
  for (int s = 0; s < 4; ++s) t.EagerStep(8);  // warm-up decode
  t.HostGap(1'000'000);
  t.Prefill(8);
  const trace::TimestampNs decode_start = t.now() + 50'000;
  for (int s = 0; s < 20; ++s) t.EagerStep(8);
  auto found = t.Find();
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->source, "periodic");
  EXPECT_EQ(found->steps, 20);
  EXPECT_EQ(found->dispatches_per_step, 8 * 11 + 5);
  EXPECT_EQ(found->deviated_steps, 0);
  EXPECT_EQ(found->runs, 2);              // the warm-up's and the measured decode
  EXPECT_EQ(found->anchor, "embedding");  // the step starts after the host's gap
  EXPECT_EQ(found->lo, decode_start);
  EXPECT_EQ(found->hi, t.dispatches().back().end);
}

TEST(DecodeFinderTest, AStepIsNotALayer) {
  // Many layers and few steps: the layer repeats more often in a row than the step does, but
  // only the step holds the sampling kernel and the read-back.
  TraceMaker t;
  t.Prefill(40);
  for (int s = 0; s < 4; ++s) t.EagerStep(40);
  auto found = t.Find();
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->steps, 4);
  EXPECT_EQ(found->dispatches_per_step, 40 * 11 + 5);
}

TEST(DecodeFinderTest, RepeatedGenerateCallsGiveStepsNotCalls) {
  // A benchmark that repeats prefill + 6 steps five times: the unit is the step, and the
  // decode is the last call's (the longest run, ties to the last).
  TraceMaker t;
  trace::TimestampNs last_start = 0;
  for (int call = 0; call < 5; ++call) {
    t.HostGap(2'000'000);
    t.Prefill(2);
    last_start = t.now() + 50'000;
    for (int s = 0; s < 6; ++s) t.EagerStep(2);
  }
  auto found = t.Find();
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->steps, 6);
  EXPECT_EQ(found->runs, 5);
  EXPECT_EQ(found->lo, last_start);
}

TEST(DecodeFinderTest, AFewKernelsThatVaryPerStepAreDeviatedSteps) {
  TraceMaker t;
  t.Prefill(8);
  for (int s = 0; s < 12; ++s) {
    t.EagerStep(8, /*read_back=*/false);
    if (s == 5) t.Kernel("cache_grow");  // once: the step is one kernel longer
    t.ReadBack();
  }
  auto found = t.Find();
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->steps, 12);
  EXPECT_GE(found->deviated_steps, 1);
  EXPECT_LE(found->deviated_steps, 2);
}

TEST(DecodeFinderTest, GraphLaunchesAreSteps) {
  TraceMaker t;
  t.Prefill(4);
  std::vector<std::string> graph;
  for (int l = 0; l < 4; ++l) {
    for (const char* k : {"norm", "qkv", "attn", "mlp"}) graph.emplace_back(k);
  }
  graph.emplace_back("lm_head");
  graph.emplace_back("argmax_kernel");
  for (int s = 0; s < 3; ++s) {  // warm-up replays
    t.HostGap(50'000);
    t.Graph(graph);
    t.ReadBack();
  }
  t.HostGap(5'000'000);
  t.Prefill(4);
  for (int s = 0; s < 30; ++s) {
    t.HostGap(50'000);
    t.Graph(graph);
    t.ReadBack();
  }
  auto found = t.Find();
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->source, "graph-launches");
  EXPECT_EQ(found->steps, 30);
  EXPECT_EQ(found->graph_launches_per_step, 1);
  EXPECT_EQ(found->dispatches_per_step, 18 + 1);
  EXPECT_EQ(found->kernels_per_step, 18);
  EXPECT_EQ(found->runs, 2);
  EXPECT_NE(found->anchor.find("CUDA graph of 18 dispatches"), std::string::npos) << found->anchor;
}

TEST(DecodeFinderTest, GraphLaunchesWithoutLaunchCallsShareACorrelation) {
  // A trace without API records: kernels sharing one correlation id are one launch.
  trace::StringPool names;
  std::vector<Dispatch> ds;
  trace::TimestampNs now = 0;
  for (uint64_t step = 1; step <= 5; ++step) {
    for (const char* k : {"gemv", "attn", "gemv", "argmax"}) {
      Dispatch d;
      d.start = now;
      d.end = now + 10;
      now += 20;
      d.name = names.Intern(k);
      d.correlation = step;
      ds.push_back(d);
    }
    now += 1000;
  }
  auto found = FindDecodeLoop(ds, {}, names, "t.json");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->source, "graph-launches");
  EXPECT_EQ(found->steps, 5);
}

TEST(DecodeFinderTest, NoLoopIsAnErrorThatSaysWhatWasSeen) {
  TraceMaker t;
  t.Prefill(1);
  t.EagerStep(1);
  auto found = t.Find();
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().where(), "t.sqlite");
  EXPECT_NE(found.status().message().find("found no decode loop in 32 dispatches (no CUDA-graph "
                                          "launch)"),
            std::string::npos)
      << found.status().message();
  EXPECT_NE(found.status().message().find("--window all gives its census"), std::string::npos);
}

TEST(DecodeFinderTest, EagerStepsFoundWithEvidenceAreHighConfidence) {
  TraceMaker t;
  t.Prefill(4);
  for (int s = 0; s < 16; ++s) t.EagerStep(4);
  auto found = t.Find();
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->confidence, "high");
  EXPECT_TRUE(found->reasons.empty());
  EXPECT_EQ(found->boundary, "sampling kernel");
  EXPECT_EQ(found->run, 1);
}

TEST(DecodeFinderTest, AFewStepsAreLowConfidence) {
  TraceMaker t;
  t.Prefill(4);
  for (int s = 0; s < 4; ++s) t.EagerStep(4);
  auto found = t.Find();
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->steps, 4);
  EXPECT_EQ(found->confidence, "low");
  ASSERT_EQ(found->reasons.size(), 1u);
  EXPECT_NE(found->reasons[0].find("only 4 steps"), std::string::npos);
}

TEST(DecodeFinderTest, LayersOfOneForwardPassAreNotSteps) {
  // One engine step (a prefill of 36 layers, launched without a pause): the layer repeats 36
  // times, but nothing ends a token between layers.
  TraceMaker t;
  t.Prefill(36);
  auto found = t.Find();
  ASSERT_FALSE(found.ok());
  const std::string& m = found.status().message();
  EXPECT_NE(m.find("one engine step of " + std::to_string(36 * 11 + 5) +
                   " dispatches, not a "
                   "decode loop"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("no token boundary"), std::string::npos) << m;
}

TEST(DecodeFinderTest, RepeatedCopiesAreNotSteps) {
  // A serving engine's input copies before one graph replay: one copy per "unit".
  TraceMaker t;
  for (int i = 0; i < 9; ++i) {
    t.HostGap(20'000);
    t.ReadBack();
  }
  t.Prefill(4);
  auto found = t.Find();
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().message().find("found no decode loop"), 0u) << found.status().message();
}

TEST(DecodeFinderTest, TrainingIterationsAreNotADecode) {
  TraceMaker t;
  for (int it = 0; it < 10; ++it) {
    t.HostGap(100'000);
    t.Prefill(2);
    for (int k = 0; k < 10; ++k) t.Kernel("gemm_backward_dgrad");
    t.Kernel("multi_tensor_apply_adam");
  }
  auto found = t.Find();
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find("training iterations, not a decode"), std::string::npos)
      << found.status().message();
}

TEST(DecodeFinderTest, StepsThatNeverSynchronizeEndAtTheirSamplingKernel) {
  // A CUDA-graph decode whose token stays on the GPU: no read-back, no idle time between
  // steps; the graph holds the argmax. Three generate calls with prefills between: the runs
  // are counted and the last one is the window.
  TraceMaker t;
  std::vector<std::string> graph;
  for (int l = 0; l < 4; ++l) {
    for (const char* k : {"rms_norm", "gemv", "flash_attn_decode", "gemv"}) graph.emplace_back(k);
  }
  graph.emplace_back("argmax_kernel");
  trace::TimestampNs last = 0;
  for (int call = 0; call < 3; ++call) {
    t.Prefill(4);
    last = t.now();
    for (int s = 0; s < 20; ++s) t.Graph(graph);
  }
  auto found = t.Find();
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->steps, 20);
  EXPECT_EQ(found->runs, 3);
  EXPECT_EQ(found->run, 3);
  EXPECT_EQ(found->lo, last);
  EXPECT_EQ(found->boundary, "sampling kernel");
  EXPECT_EQ(found->confidence, "high");
}

TEST(DecodeFinderTest, EmptyInputIsAnError) {
  trace::StringPool names;
  auto found = FindDecodeLoop({}, {}, names, "t");
  EXPECT_FALSE(found.ok());
}

}  // namespace
}  // namespace decodeprof::analysis
