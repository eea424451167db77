#include "src/trace/trace.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
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

// A sink that records how the dispatches came: one at a time or in blocks.
struct KeepBlocks : DispatchSink {
  std::vector<Dispatch> got;
  std::vector<size_t> blocks;  // the size of each AddAll
  void Add(const Dispatch& d) override { got.push_back(d); }
  void AddAll(std::span<const Dispatch> ds) override {
    blocks.push_back(ds.size());
    got.insert(got.end(), ds.begin(), ds.end());
  }
};

// Dispatches on devices 0, 1, 1, 0, 1 (lines 1..5); line 3 ends before it starts, line 4 has
// no length.
std::vector<Dispatch> MixedDevices() {
  std::vector<Dispatch> out;
  for (const int device : {0, 1, 1, 0, 1}) {
    Dispatch& d = out.emplace_back();
    d.device = static_cast<int16_t>(device);
    d.line = static_cast<uint32_t>(out.size());
    d.start = 100 * d.line;
    d.end = d.start + 10;
  }
  out[2].end = out[2].start - 1;
  out[3].end = out[3].start;
  out[4].kind = DispatchKind::kMemset;
  return out;
}

TEST(TraceBuilderTest, ABlockOfDispatchesCountsAndFiltersAsOneAtATime) {
  for (const std::optional<int32_t> filter :
       {std::optional<int32_t>{}, std::optional<int32_t>{1}}) {
    StringPool names;
    KeepBlocks one_sink;
    KeepBlocks block_sink;
    TraceBuilder one(names, one_sink);
    TraceBuilder block(names, block_sink);
    one.set_device_filter(filter);
    block.set_device_filter(filter);
    const std::vector<Dispatch> ds = MixedDevices();
    for (const Dispatch& d : ds) one.AddDispatch(d);
    block.AddDispatches(ds);
    // The span of what was forwarded: device 1's lines 2, 3 and 5 with the filter.
    const std::pair<TimestampNs, TimestampNs> span{filter ? 200 : 100, 510};
    EXPECT_EQ(one.dispatch_span(), span);
    EXPECT_EQ(block.dispatch_span(), span);
    const ImportedTrace a = std::move(one).Finish();
    const ImportedTrace b = std::move(block).Finish();
    ASSERT_EQ(one_sink.got.size(), block_sink.got.size());
    for (size_t i = 0; i < one_sink.got.size(); ++i) {
      EXPECT_EQ(one_sink.got[i].line, block_sink.got[i].line);
    }
    EXPECT_TRUE(one_sink.blocks.empty());
    // Without a filter one block; with device 1's, its runs: lines 2-3 and 5.
    EXPECT_EQ(block_sink.blocks, filter ? std::vector<size_t>({2, 1}) : std::vector<size_t>({5}));
    EXPECT_EQ(a.dispatches_per_device, b.dispatches_per_device);
    EXPECT_EQ(b.kernels, 4);
    EXPECT_EQ(b.memory_ops, 1);
    ASSERT_TRUE(b.bad_dispatch.has_value());
    EXPECT_EQ(b.bad_dispatch->line, 3u);
    EXPECT_EQ(a.bad_dispatch->what, b.bad_dispatch->what);
    EXPECT_EQ(a.diagnostics.entries().size(), b.diagnostics.entries().size());
  }
}

struct KeepCalls : LaunchSink {
  std::vector<ApiCall> got;
  size_t blocks = 0;
  void Add(const ApiCall& call) override { got.push_back(call); }
  void AddAll(std::span<const ApiCall> calls) override {
    ++blocks;
    got.insert(got.end(), calls.begin(), calls.end());
  }
};

TEST(TraceBuilderTest, ABlockOfLaunchCallsDropsAndChecksAsOneAtATime) {
  StringPool names;
  const StringId launch = names.Intern("cudaLaunchKernel");
  // Correlation 0 (dropped) second; the fourth ends before it starts (noted, kept: the job
  // fails on it); the others plain.
  const std::vector<ApiCall> calls = {{launch, 1, 2, 7, 11},   {launch, 3, 4, 7, 0},
                                      {launch, 5, 6, 7, 12},   {launch, 9, 8, 7, 13},
                                      {launch, 10, 11, 7, 14}, {launch, 12, 13, 7, 15}};
  Keep no_dispatches;
  KeepCalls one_sink;
  KeepCalls block_sink;
  TraceBuilder one(names, no_dispatches);
  TraceBuilder block(names, no_dispatches);
  one.set_launch_sink(&one_sink);
  block.set_launch_sink(&block_sink);
  for (const ApiCall& call : calls) one.AddLaunch(call);
  block.AddLaunches(calls);
  const ImportedTrace a = std::move(one).Finish();
  const ImportedTrace b = std::move(block).Finish();
  ASSERT_EQ(block_sink.got.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(one_sink.got[i].correlation, block_sink.got[i].correlation);
  }
  EXPECT_EQ(block_sink.blocks, 3u);  // 11 | 12 | 13 alone (noted) | 14, 15
  ASSERT_TRUE(b.bad_record.has_value());
  EXPECT_EQ(a.bad_record, b.bad_record);
  EXPECT_NE(b.bad_record->find("launch call 3 "), std::string::npos) << *b.bad_record;
  // Without a sink the calls stay in the model, the same ones.
  TraceBuilder model(names, no_dispatches);
  model.AddLaunches(calls);
  EXPECT_EQ(std::move(model).Finish().launches.size(), 5u);
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
