// The window stage's projection of ranges onto the GPU (issue 23): a range owns the GPU work
// launched inside it, whenever that work runs; work running in its time but launched outside
// is left out and counted; a trace without launch calls keeps the time cut and says so.
#include "src/pipeline/window_stage.h"

#include <gtest/gtest.h>

#include <vector>

#include "src/io/importer_registry.h"

namespace decodeprof::pipeline {
namespace {

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
  void Range(const char* name, trace::TimestampNs start, trace::TimestampNs end) {
    info_.ranges.push_back({names_.Intern(name), start, end, 1, 0});
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

  trace::StringPool names_;
  trace::ImportedTrace info_;
  std::vector<trace::Dispatch> dispatches_;
  std::vector<trace::ApiCall> launches_;
};

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

}  // namespace
}  // namespace decodeprof::pipeline
