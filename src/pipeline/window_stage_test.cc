// The window stage's projection of ranges onto the GPU (issue 23): a range owns the GPU work
// launched inside it, whenever that work runs; work running in its time but launched outside
// is left out and counted; a trace without launch calls keeps the time cut and says so. And the
// engines' own step names (analysis/engine_steps.h) cutting the window without flags.
#include "src/pipeline/window_stage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/analysis/pack.h"
#include "src/io/importer_registry.h"
#include "src/pipeline/trace_source.h"

namespace decodeprof::pipeline {
namespace {

constexpr trace::TimestampNs kUs = 1000;
constexpr trace::TimestampNs kMs = 1000 * kUs;

class WindowStageTest : public ::testing::Test {
 protected:
  void Kernel(const char* name, trace::TimestampNs start, trace::TimestampNs end,
              uint64_t correlation) {
    trace::Dispatch d;
    d.start = start;
    d.end = end;
    d.name = names_.Intern(name);
    d.correlation = correlation;
    d.line = static_cast<uint32_t>(dispatches_.size() + 1);
    d.stream = 7;
    dispatches_.push_back(d);
  }
  void Launch(trace::TimestampNs at, uint64_t correlation) {
    launches_.push_back({names_.Intern("cudaLaunchKernel"), at, at + 5, 1, correlation});
  }
  void Range(const std::string& name, trace::TimestampNs start, trace::TimestampNs end) {
    info_.ranges.push_back({names_.Intern(name), start, end, 1, 0});
  }
  // An engine step named `name` on the host at [start, start + 1 ms] launching `kernels`
  // kernels of 100 µs each, which run back to back from start + 1.5 ms (after the range
  // closed, as on an asynchronous engine).
  void Step(const std::string& name, trace::TimestampNs start, int kernels) {
    Range(name, start, start + kMs);
    for (int k = 0; k < kernels; ++k) {
      Launch(start + 10 + k, next_correlation_);
      Kernel(k == kernels - 1 ? "argmax" : "gemv", start + 1500 * kUs + 100 * kUs * k,
             start + 1600 * kUs + 100 * kUs * k, next_correlation_);
      ++next_correlation_;
    }
  }
  base::StatusOr<WindowedTrace> Cut(const TraceRequest& request) {
    TraceForWindow t;
    t.info = info_;
    t.info.clock = trace::ClockDomain::kMonotonic;
    t.dispatch_count = static_cast<int64_t>(dispatches_.size());
    t.dispatches = [this](const DispatchFn& fn) {
      for (const trace::Dispatch& d : dispatches_) fn(d);
      return base::OkStatus();
    };
    t.launches = [this](const LaunchFn& fn) {
      for (const trace::ApiCall& c : launches_) fn(c);
      return base::OkStatus();
    };
    return CutWindow(request, *io::FindImporter("native"), {}, "", std::move(t), names_);
  }

  // The trace held in memory, as a whole-window import keeps it (--window all).
  base::StatusOr<WindowedTrace> CutInMemory(const TraceRequest& request) {
    TraceForWindow t;
    t.info = info_;
    t.info.clock = trace::ClockDomain::kMonotonic;
    t.dispatch_count = static_cast<int64_t>(dispatches_.size());
    trace::TimestampNs lo = INT64_MAX, hi = INT64_MIN;
    for (const trace::Dispatch& d : dispatches_) {
      lo = std::min(lo, d.start);
      hi = std::max(hi, d.end);
    }
    t.span = std::make_pair(lo, hi);
    auto memory = std::make_shared<TraceForWindow::InMemory>();
    memory->dispatches = dispatches_;
    memory->launches = launches_;
    t.dispatches = [memory](const DispatchFn& fn) {
      for (const trace::Dispatch& d : memory->dispatches) fn(d);
      return base::OkStatus();
    };
    t.launches = [memory](const LaunchFn& fn) {
      for (const trace::ApiCall& c : memory->launches) fn(c);
      return base::OkStatus();
    };
    t.in_memory = std::move(memory);
    return CutWindow(request, *io::FindImporter("native"), {}, "", std::move(t), names_);
  }

  trace::StringPool names_;
  trace::ImportedTrace info_;
  trace::DispatchVector dispatches_;
  std::vector<trace::ApiCall> launches_;
  uint64_t next_correlation_ = 1;
};

TraceRequest Plain() {
  TraceRequest request;
  request.path = "t.json";
  return request;
}

// SGLang: a prefill step, then four decode steps of batch 32. The window is the decode steps'
// GPU work (launched inside them, run after them); the table has both kinds.
TEST_F(WindowStageTest, SGLangStepNamesCutTheDecodeWindowWithoutFlags) {
  Step("step[EXTEND bs=4 toks=4096]", 0, 6);
  for (int i = 0; i < 4; ++i) Step("step[DECODE bs=32]", 10 * kMs + 10 * kMs * i, 3);
  auto w = Cut(Plain());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->window_source, "engine-steps");
  EXPECT_EQ(w->window.dispatches.size(), 12u);
  EXPECT_EQ(w->window.lo, 10 * kMs);
  EXPECT_EQ(w->window.hi, 41 * kMs + 800 * kUs);  // the last step's kernels end after it
  EXPECT_EQ(w->steps, 4);
  EXPECT_EQ(w->evidence.range, "sglang");
  EXPECT_EQ(w->evidence.skipped_steps, 1);
  EXPECT_EQ(w->evidence.confidence, "high");
  EXPECT_EQ(w->evidence.projection, "launch");
  ASSERT_TRUE(w->engine_steps.has_value());
  const analysis::EngineSteps& e = *w->engine_steps;
  EXPECT_EQ(e.rule, "sglang");
  EXPECT_EQ(e.window_kind, analysis::StepKind::kDecode);
  EXPECT_EQ(e.decode_runs, 1);
  ASSERT_EQ(e.kinds.size(), 2u);
  EXPECT_EQ(e.kinds[0].kind, analysis::StepKind::kDecode);
  EXPECT_EQ(e.kinds[0].steps, 4);
  EXPECT_EQ(e.kinds[0].in_window, 4);
  EXPECT_EQ(e.kinds[0].batch_sizes, (std::vector<int64_t>{32}));
  EXPECT_DOUBLE_EQ(e.kinds[0].gpu_ms_p50, 0.3);  // 3 kernels of 100 µs, back to back
  EXPECT_DOUBLE_EQ(e.kinds[0].wall_ms_p99, 1.0);
  EXPECT_EQ(e.kinds[1].kind, analysis::StepKind::kPrefill);
  EXPECT_EQ(e.kinds[1].tokens, (std::vector<int64_t>{4096}));
  EXPECT_EQ(e.kinds[1].dispatches, 6);
  ASSERT_EQ(e.steps.size(), 5u);
  EXPECT_FALSE(e.steps[0].in_window);
  EXPECT_EQ(e.steps[1].gpu_busy_ns, 300 * kUs);
}

// vLLM: two runs of decode steps split by a mixed step (a new request's prefill): the longest
// run is the window.
TEST_F(WindowStageTest, VllmTheLongestRunOfDecodeSteps) {
  trace::TimestampNs t = 0;
  for (int i = 0; i < 2; ++i, t += 10 * kMs) Step("execute_context_0(0)_generation_8(8)", t, 2);
  Step("execute_context_1(512)_generation_8(8)", t, 5);
  t += 10 * kMs;
  for (int i = 0; i < 3; ++i, t += 10 * kMs) Step("execute_context_0(0)_generation_9(9)", t, 2);
  auto w = Cut(Plain());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->window_source, "engine-steps");
  EXPECT_EQ(w->steps, 3);
  EXPECT_EQ(w->window.lo, 30 * kMs);
  EXPECT_EQ(w->window.dispatches.size(), 6u);
  EXPECT_EQ(w->evidence.runs, 2);
  EXPECT_EQ(w->evidence.run, 2);
  ASSERT_TRUE(w->engine_steps.has_value());
  EXPECT_EQ(w->engine_steps->kinds[0].batch_sizes, (std::vector<int64_t>{8, 9}));
  EXPECT_EQ(w->engine_steps->kinds[0].in_window, 3);
  EXPECT_EQ(w->engine_steps->kinds[1].kind, analysis::StepKind::kMixed);
}

// TensorRT-LLM's NVTX step ranges, with torch.profiler's ProfilerStep#N around each: the
// engine's names win (its names say the kind), the profiler's are noted.
TEST_F(WindowStageTest, TensorRtLlmNamesOutrankProfilerSteps) {
  for (int i = 0; i < 4; ++i) {
    Range("ProfilerStep#1", 10 * kMs * i, 10 * kMs * i + 2 * kMs);
    Step("[Executor] _forward_step " + std::to_string(i) + ": 0 ctx reqs, 16 gen reqs",
         10 * kMs * i + 100, 2);
  }
  auto w = Cut(Plain());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE(w->engine_steps.has_value());
  EXPECT_EQ(w->engine_steps->rule, "trtllm");
  EXPECT_EQ(w->engine_steps->also_found, (std::vector<std::string>{"torch-profiler"}));
  EXPECT_EQ(w->steps, 4);
  EXPECT_EQ(w->window.dispatches.size(), 8u);
}

// ProfilerStep#N alone: the steps cut the window, but their names say nothing of decode, so
// the window is uncertain (decode_loop_uncertain) and says why.
TEST_F(WindowStageTest, ProfilerStepsAloneAreAnUncertainWindow) {
  for (int i = 0; i < 3; ++i) Step("ProfilerStep#" + std::to_string(i), 10 * kMs * i, 2);
  auto w = Cut(Plain());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->window_source, "engine-steps");
  EXPECT_EQ(w->steps, 3);
  EXPECT_EQ(w->evidence.confidence, "low");
  ASSERT_EQ(w->evidence.reasons.size(), 1u);
  EXPECT_NE(w->evidence.reasons[0].find("hold no decode step"), std::string::npos);
  EXPECT_EQ(w->info.diagnostics.count(trace::Diag::kDecodeLoopUncertain), 1);
  EXPECT_EQ(w->engine_steps->window_kind, analysis::StepKind::kUnknown);
}

// Two engines' names that tell different steps: refused, naming both.
TEST_F(WindowStageTest, StepNamesThatDisagreeAreRefused) {
  for (int i = 0; i < 3; ++i) {
    Step("step[DECODE bs=8]", 10 * kMs * i, 2);
    Range("execute_context_8(800)_generation_0(0)", 10 * kMs * i, 10 * kMs * i + 1000);
  }
  auto w = Cut(Plain());
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().kind(), base::ErrorKind::kData);
  EXPECT_NE(w.status().message().find("'sglang' (3 decode) and 'vllm' (3 prefill)"),
            std::string::npos)
      << w.status().ToString();
}

// The same steps named twice (an SGLang build that writes vLLM's names too): the first rule of
// the table is taken, the other noted.
TEST_F(WindowStageTest, StepNamesThatAgreeTakeTheFirstRule) {
  Range("execute_4096_context_4(sq4096sk4096sqsq1sqsk1)_generation_0(sq0sk0sqsq0sqsk0)", 0,
        2 * kMs);
  Step("step[EXTEND bs=4 toks=4096]", 500, 4);
  auto w = Cut(Plain());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->engine_steps->rule, "sglang");
  EXPECT_EQ(w->engine_steps->also_found, (std::vector<std::string>{"vllm-detailed"}));
  EXPECT_EQ(w->evidence.confidence, "low");  // a prefill, not a decode
  EXPECT_EQ(w->window.dispatches.size(), 4u);
}

// --step-range overrides the names; a trace without them keeps the finder.
TEST_F(WindowStageTest, StepRangeOverridesTheNames) {
  Step("step[EXTEND bs=4 toks=4096]", 0, 6);
  for (int i = 0; i < 4; ++i) Step("step[DECODE bs=32]", 10 * kMs + 10 * kMs * i, 3);
  TraceRequest request = Plain();
  request.step_range = "step?EXTEND*";
  auto w = Cut(request);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->window_source, "ranges");
  EXPECT_FALSE(w->engine_steps.has_value());
  EXPECT_EQ(w->window.dispatches.size(), 6u);
}

// A sampled recording (record --sample-steps): its named steps mostly ran unrecorded, so the
// names do not cut its window.
TEST_F(WindowStageTest, ASampledRecordingIsNotCutByTheNames) {
  for (int i = 0; i < 4; ++i) Step("step[DECODE bs=32]", 10 * kMs * i, 3);
  Range("decodeprof:sampled", 10 * kMs, 13 * kMs);
  auto w = Cut(Plain());
  EXPECT_TRUE(!w.ok() || (w->window_source != "engine-steps" && !w->engine_steps));
  TraceRequest request = Plain();
  request.step_range = "step?DECODE*";
  auto named = Cut(request);
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->window_source, "ranges");
}

TEST_F(WindowStageTest, OtherRangeNamesAreNoEngineSteps) {
  for (int i = 0; i < 4; ++i) Step("execute_model", 10 * kMs * i, 3);
  auto w = Cut(Plain());
  EXPECT_TRUE(!w.ok() || (w->window_source != "engine-steps" && !w->engine_steps));
  if (!w.ok()) {
    EXPECT_EQ(w.status().message().find("engine step"), std::string::npos);
  }
}

// An asynchronous engine: the step range [1000, 2000] launches three kernels that run from
// 1500 to 3500, after the range closed on the CPU; a kernel launched before the range (at 500)
// runs inside its time.
TEST_F(WindowStageTest, ARangeOwnsTheWorkItLaunchedWheneverItRuns) {
  Launch(500, 1);
  Kernel("prefill_tail_gemm", 1100, 1400, 1);
  Range("step[DECODE bs=1]", 1000, 2000);
  Launch(1100, 2);
  Launch(1200, 3);
  Launch(1300, 4);
  Kernel("gemv", 1500, 2500, 2);
  Kernel("attention", 2500, 3000, 3);
  Kernel("argmax", 3000, 3500, 4);
  TraceRequest request;
  request.path = "t.sqlite";
  request.step_range = "step?DECODE*";
  auto w = Cut(request);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->window.dispatches.size(), 3u);  // the time cut kept 2: prefill_tail, gemv
  EXPECT_EQ(names_.Get(w->window.dispatches[0].name), "gemv");
  EXPECT_EQ(w->window.lo, 1000);
  EXPECT_EQ(w->window.hi, 3500);
  EXPECT_EQ(w->evidence.projection, "launch");
  EXPECT_EQ(w->evidence.dispatches_launched_inside, 3);
  EXPECT_EQ(w->evidence.dispatches_launched_outside, 1);
  EXPECT_EQ(w->evidence.gpu_after_range_ns, 1500);
  EXPECT_EQ(w->info.launches.size(), 3u);  // the window's launch calls only
}

// Which ids have a launch call is kept as a bit per id when the ids are dense, else as the
// sorted ids: the window is the same either way.
TEST_F(WindowStageTest, DenseAndSparseLaunchIdsCutTheSameWindow) {
  for (const uint64_t scale : {uint64_t{1}, uint64_t{1000000007}}) {
    SCOPED_TRACE(scale);
    dispatches_.clear();
    launches_.clear();
    info_ = {};
    Launch(500, 1 * scale);
    Kernel("prefill_tail_gemm", 1100, 1400, 1 * scale);  // launched before: left out
    Range("step[DECODE bs=1]", 1000, 2000);
    Launch(1100, 2 * scale);
    Launch(1300, 4 * scale);
    Kernel("gemv", 1500, 2500, 2 * scale);
    Kernel("[CUDA memcpy Device-to-Host]", 1600, 1700, 3 * scale);  // no launch call: by time
    Kernel("argmax", 3000, 3500, 4 * scale);
    Kernel("late_unlaunched", 9000, 9100, 5 * scale);  // no launch call, after the window
    TraceRequest request;
    request.path = "t.sqlite";
    request.step_range = "step?DECODE*";
    auto w = Cut(request);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    std::vector<std::string> kept;
    for (const trace::Dispatch& d : w->window.dispatches) {
      kept.emplace_back(names_.Get(d.name));
    }
    EXPECT_EQ(kept, (std::vector<std::string>{"gemv", "[CUDA memcpy Device-to-Host]", "argmax"}));
    EXPECT_EQ(w->evidence.dispatches_launched_outside, 1);
  }
}

TEST_F(WindowStageTest, WithoutLaunchCallsTheTimeCutStaysAndSaysSo) {
  Kernel("prefill_tail_gemm", 1100, 1400, 1);
  Range("step[DECODE bs=1]", 1000, 2000);
  Kernel("gemv", 1500, 2500, 2);
  Kernel("attention", 2500, 3000, 3);
  TraceRequest request;
  request.path = "t.sqlite";
  request.step_range = "step?DECODE*";
  auto w = Cut(request);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->window.dispatches.size(), 2u);
  EXPECT_EQ(w->evidence.projection, "time");
  EXPECT_FALSE(w->evidence.dispatches_launched_inside.has_value());
}

// A dispatch without a launch call (a memcpy whose API call was not recorded) falls back to
// its start time; a graph launch brings all its kernels.
TEST_F(WindowStageTest, AGraphLaunchBringsAllItsKernelsAndUnlaunchedOnesGoByTime) {
  Range("decodeprof:decode", 1000, 2000);
  launches_.push_back({names_.Intern("cudaGraphLaunch"), 1900, 1910, 1, 9});
  Kernel("gemv", 2100, 2200, 9);
  Kernel("attention", 2200, 2300, 9);
  Kernel("gemv", 2300, 2400, 9);
  Kernel("[CUDA memcpy Device-to-Host]", 1950, 1990, 0);
  TraceRequest request;
  request.path = "t.sqlite";
  auto w = Cut(request);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->window.dispatches.size(), 4u);
  EXPECT_EQ(w->window.hi, 2400);
  EXPECT_EQ(w->window_source, "marks");
}

// The launch calls kept with a window are those of its dispatches, whether the ids are dense
// (a bit each) or far apart (sorted), in memory or replayed, in the order the trace gives them.
TEST_F(WindowStageTest, TheWindowKeepsTheLaunchCallsOfItsDispatchesDenseIdsOrSparse) {
  for (const uint64_t spacing : {uint64_t{1}, uint64_t{1'000'003}}) {
    SCOPED_TRACE("ids " + std::to_string(spacing) + " apart");
    dispatches_.clear();
    launches_.clear();
    for (uint64_t i = 1; i <= 40; ++i) {
      const trace::TimestampNs t = 10 * kUs + static_cast<trace::TimestampNs>(i) * kUs;
      const uint64_t id = i * spacing;
      Launch(t - 500, id);
      if (i % 4 != 0) Kernel("gemv", t, t + 800, id);  // every fourth call launches nothing
    }
    Launch(5, 0);  // no id
    TraceRequest request = Plain();
    request.window.kind = WindowSpec::Kind::kAll;
    for (const bool in_memory : {true, false}) {
      auto w = in_memory ? CutInMemory(request) : Cut(request);
      ASSERT_TRUE(w.ok()) << w.status().ToString();
      ASSERT_EQ(w->info.launches.size(), 30u);
      for (size_t k = 0; k < w->info.launches.size(); ++k) {
        const uint64_t i = k + 1 + k / 3;  // 1, 2, 3, 5, 6, 7, 9, ...
        EXPECT_EQ(w->info.launches[k].correlation, i * spacing) << k;
      }
    }
  }
}

// A whole-trace window held in memory: its dispatches counted, its launch calls kept, its
// checks made and its launch calls joined in parts on several threads (where there are
// CPUs), each answer the one pass in order gives: the first dispatch recorded twice, the first
// dispatch without its launch call.
TEST_F(WindowStageTest, AWholeWindowInMemoryIsCheckedInPartsAsOnePassChecksIt) {
  constexpr int kN = 300'000;
  for (int i = 0; i < kN; ++i) {
    const trace::TimestampNs t = 10 * kUs + int64_t{i} * 1000;
    if (i % 3 != 0) Launch(t - 500, static_cast<uint64_t>(i) + 1);  // a third unrecorded
    Kernel(i % 2 == 0 ? "gemv" : "rmsnorm", t, t + 800, static_cast<uint64_t>(i) + 1);
  }
  // Launch calls of no dispatch: dropped wherever they lie.
  launches_.insert(launches_.begin() + 1000, {names_.Intern("cudaMemsetAsync"), 5, 6, 1, 900'000});
  launches_.push_back({names_.Intern("cudaMemsetAsync"), 7, 8, 1, 900'001});
  TraceRequest request = Plain();
  request.path = "t.sqlite";
  request.window.kind = WindowSpec::Kind::kAll;
  auto w = CutInMemory(request);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->window.dispatches.size(), size_t{kN});
  ASSERT_EQ(w->info.launches.size(), size_t{kN - (kN + 2) / 3});
  EXPECT_EQ(w->info.launches.front().correlation, 2u);
  EXPECT_EQ(w->info.launches.back().correlation, uint64_t{kN});
  for (size_t i = 1; i < w->info.launches.size(); ++i) {
    ASSERT_LT(w->info.launches[i - 1].correlation, w->info.launches[i].correlation) << i;
  }
  const LaunchContext joined = JoinLaunches(w->window.dispatches, w->info, request.path);
  ASSERT_EQ(joined.time.size(), size_t{kN});
  EXPECT_EQ(joined.time[0], analysis::kUnknownLaunch);
  EXPECT_EQ(joined.time[1], 10 * kUs + 1000 - 500);
  EXPECT_EQ(joined.thread[1], 1u);
  EXPECT_EQ(joined.time[kN - 1], 10 * kUs + int64_t{kN - 1} * 1000 - 500);
  EXPECT_EQ(joined.thread[kN - 3], 0u);
  EXPECT_EQ(w->info.diagnostics.count(trace::Diag::kLaunchNotFound), (kN + 2) / 3);
  for (const auto& entry : w->info.diagnostics.entries()) {
    if (entry.code == trace::Diag::kLaunchNotFound) {
      EXPECT_EQ(entry.first.position, "record 1");
    }
  }
  // Only the count (a pack that reads no launch context): no per-dispatch pair, the same
  // diagnostic.
  trace::ImportedTrace counted = w->info;
  counted.diagnostics = {};
  const LaunchContext count_only =
      JoinLaunches(w->window.dispatches, counted, request.path, /*per_dispatch=*/false);
  EXPECT_TRUE(count_only.time.empty());
  EXPECT_TRUE(count_only.thread.empty());
  EXPECT_EQ(counted.diagnostics.count(trace::Diag::kLaunchNotFound), (kN + 2) / 3);
  // Two dispatches recorded twice, late in the window: the first is the error.
  for (const int at : {280'000, 250'000}) {
    trace::Dispatch copy = dispatches_[static_cast<size_t>(at)];
    copy.line = static_cast<uint32_t>(kN + 1 + (at == 250'000 ? 1 : 0));
    dispatches_.insert(dispatches_.begin() + at + 1, copy);
  }
  const auto twice = CutInMemory(request);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("as record 250001)"), std::string::npos)
      << twice.status().ToString();
  EXPECT_NE(twice.status().where().find("record 300002"), std::string::npos)
      << twice.status().ToString();
}

}  // namespace
}  // namespace decodeprof::pipeline
