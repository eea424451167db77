#include "src/trace/trace.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace decodeprof::trace {
namespace {

TEST(LaunchIndexTest, FindsTheEarliestCallOfEachCorrelation) {
  const std::vector<ApiCall> calls = {
      {1, 500, 510, 7, 3}, {2, 100, 120, 8, 5}, {3, 90, 95, 9, 5}, {4, 90, 99, 10, 5}};
  const LaunchIndex index(calls);
  ASSERT_NE(index.Find(3), nullptr);
  EXPECT_EQ(index.Find(3)->thread, 7u);
  ASSERT_NE(index.Find(5), nullptr);
  EXPECT_EQ(index.Find(5)->start, 90);
  EXPECT_EQ(index.Find(5)->thread, 9u);  // ties on start: the first in source order
  EXPECT_EQ(index.Find(4), nullptr);
  EXPECT_EQ(index.Find(0), nullptr);
}

TEST(DiagnosticsTest, EveryCodeHasAUniqueNameAndAMeaning) {
  std::set<std::string_view> names;
  for (const DiagnosticInfo& info : AllDiagnostics()) {
    EXPECT_FALSE(info.meaning.empty()) << info.name;
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(&Describe(info.code), &info);
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(Diag::kCount_));
}

TEST(DiagnosticsTest, CountsAddAndTheFirstExampleStays) {
  Diagnostics d;
  d.Add(Diag::kEventsSkipped, 2, {"a.json", "byte 1", "cpu_op"});
  d.Add(Diag::kEventsSkipped, 3, {"a.json", "byte 9", "flow"});
  d.Add(Diag::kLaunchNotFound, 0, {"ignored", "", ""});
  const auto entries = d.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].count, 5);
  EXPECT_EQ(entries[0].first.position, "byte 1");
  EXPECT_FALSE(d.has_error());
  Diagnostics other;
  other.Add(Diag::kCuptiDroppedRecords, 4, {"t.sqlite", "", ""});
  d.Merge(other);
  EXPECT_EQ(d.count(Diag::kCuptiDroppedRecords), 4);
  EXPECT_EQ(d.entries().size(), 2u);
}

TEST(DiagnosticsTest, CountsSaturateInsteadOfOverflowing) {
  Diagnostics d;
  d.Add(Diag::kCuptiDroppedRecords, INT64_MAX - 1, {});
  d.Add(Diag::kCuptiDroppedRecords, 5, {});
  EXPECT_EQ(d.count(Diag::kCuptiDroppedRecords), INT64_MAX);
  Diagnostics other;
  other.Add(Diag::kCuptiDroppedRecords, INT64_MAX, {});
  d.Merge(other);
  EXPECT_EQ(d.count(Diag::kCuptiDroppedRecords), INT64_MAX);
}

TEST(DiagnosticsTest, RecorderCountersMapToTheirCodes) {
  EXPECT_EQ(DiagForRecorderCounter("cupti_dropped_records"), Diag::kCuptiDroppedRecords);
  EXPECT_EQ(DiagForRecorderCounter("only_range_api_calls_outside"),
            Diag::kOnlyRangeApiCallsOutside);
  EXPECT_EQ(DiagForRecorderCounter("sample_steps_seen"), Diag::kSampleStepsSeen);
  EXPECT_EQ(DiagForRecorderCounter("sample_periods"), Diag::kSamplePeriods);
  EXPECT_EQ(DiagForRecorderCounter("events_skipped"), Diag::kUnknownRecorderCounter);
  EXPECT_EQ(DiagForRecorderCounter("brand_new"), Diag::kUnknownRecorderCounter);
}

struct Keep : DispatchSink {
  std::vector<Dispatch> got;
  void Add(const Dispatch& d) override { got.push_back(d); }
};

TEST(TraceBuilderTest, CountsEveryDeviceAndForwardsOnlyTheChosenOne) {
  StringPool names;
  Keep sink;
  TraceBuilder builder(names, sink);
  builder.set_device_filter(1);
  Dispatch d;
  d.device = 0;
  builder.AddDispatch(d);
  d.device = 1;
  d.kind = DispatchKind::kMemcpy;
  builder.AddDispatch(d);
  builder.AddLaunch({0, 1, 2, 3, 0});  // correlation 0: dropped
  builder.AddLaunch({0, 1, 2, 3, 9});
  const ImportedTrace t = std::move(builder).Finish();
  ASSERT_EQ(sink.got.size(), 1u);
  EXPECT_EQ(sink.got[0].device, 1);
  EXPECT_EQ(t.dispatches_per_device.size(), 2u);
  EXPECT_EQ(t.kernels, 1);
  EXPECT_EQ(t.memory_ops, 1);
  EXPECT_EQ(t.launches.size(), 1u);
}

TEST(DispatchTest, MemoryOperationsHaveOneNameInEveryFormat) {
  EXPECT_EQ(MemcpyName(1), "[CUDA memcpy Host-to-Device]");
  EXPECT_EQ(MemcpyName(11), "[CUDA memcpy Unified Host-to-Device]");  // nsys's UVM kinds
  EXPECT_EQ(MemcpyName(13), "[CUDA memcpy Unified Device-to-Device]");
  EXPECT_EQ(MemcpyName(99), "[CUDA memcpy]");
  // The HIP runtime's copies (ROCm traces) keep the kinds under their runtime's name.
  EXPECT_EQ(MemcpyName(1, Runtime::kHip), "[HIP memcpy Host-to-Device]");
  EXPECT_EQ(MemcpyName(8, Runtime::kHip), "[HIP memcpy Device-to-Device]");
  EXPECT_EQ(MemcpyName(99, Runtime::kHip), "[HIP memcpy]");
  EXPECT_EQ(MemsetName(Runtime::kHip), "[HIP memset]");
  EXPECT_EQ(MemsetName(Runtime::kCuda), kMemsetName);
  for (int kind : {1, 2, 8, 9, 10, 11, 12, 13}) {
    EXPECT_EQ(MemcpyKindOf(MemcpyName(kind)), kind);
    EXPECT_EQ(MemcpyKindOf(MemcpyName(kind, Runtime::kHip)), kind);
  }
  EXPECT_EQ(MemcpyKindOf("[CUDA memcpy]"), 0);
  EXPECT_EQ(MemcpyKindOf("gemv"), 0);
  EXPECT_STREQ(DispatchKindName(DispatchKind::kMemset), "memset");
}

TEST(ClockTest, OnlyBootAndMonotonicAreLogClocks) {
  EXPECT_TRUE(IsLogClock(ClockDomain::kBoottime));
  EXPECT_TRUE(IsLogClock(ClockDomain::kMonotonic));
  EXPECT_FALSE(IsLogClock(ClockDomain::kRealtime));
  EXPECT_FALSE(IsLogClock(ClockDomain::kSession));
  EXPECT_STREQ(ClockName(ClockDomain::kRealtime), "realtime");
}

}  // namespace
}  // namespace decodeprof::trace
