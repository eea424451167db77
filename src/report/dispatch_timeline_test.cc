#include "src/report/dispatch_timeline.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace decodeprof::report {
namespace {

int64_t BusySum(const DispatchTimeline& t) {
  int64_t sum = 0;
  for (const TimelineBin& bin : t.bins) sum += bin.busy_ns;
  return sum;
}

TEST(DispatchCsvPathForTest, NextToTheSummary) {
  EXPECT_EQ(DispatchCsvPathFor("d/Llama_greedy_summary.json"),
            "d/Llama_greedy_decode_dispatches.csv");
  EXPECT_EQ(DispatchCsvPathFor("x"), "x_decode_dispatches.csv");
}

TEST(TimelineBuilderTest, BusyIsTheUnionOfTheIntervals) {
  TimelineBuilder b;
  // [1000, 1400] and an overlapping [1200, 1500]: 500 busy; [1500, 1500] adds nothing;
  // [1800, 2000]: 200 more, the span is 1000 ns.
  ASSERT_TRUE(b.Add(1000, 1400).ok());
  ASSERT_TRUE(b.Add(1200, 1500).ok());
  ASSERT_TRUE(b.Add(1500, 1500).ok());
  ASSERT_TRUE(b.Add(1800, 2000).ok());
  const DispatchTimeline t = b.Finish("r_decode_dispatches.csv", 4);
  EXPECT_EQ(t.csv_name, "r_decode_dispatches.csv");
  EXPECT_EQ(t.dispatches, 4);
  EXPECT_EQ(t.first_start_ns, 1000);
  EXPECT_EQ(t.span_ns, 1000);
  EXPECT_EQ(t.busy_ns, 700);
  EXPECT_EQ(t.bins, (std::vector<TimelineBin>{
                        {0, 250, 250}, {250, 500, 250}, {500, 750, 0}, {750, 1000, 200}}));
}

TEST(TimelineBuilderTest, DispatchesNestedInALongOneCountOnce) {
  TimelineBuilder b;
  ASSERT_TRUE(b.Add(0, 100).ok());
  ASSERT_TRUE(b.Add(10, 20).ok());  // inside the first one
  ASSERT_TRUE(b.Add(30, 40).ok());
  ASSERT_TRUE(b.Add(150, 200).ok());
  const DispatchTimeline t = b.Finish("t.csv", 2);
  EXPECT_EQ(t.busy_ns, 150);
  EXPECT_EQ(t.bins, (std::vector<TimelineBin>{{0, 100, 100}, {100, 200, 50}}));
}

TEST(TimelineBuilderTest, BinsAreEqualToTheNanosecondAndCoverTheSpan) {
  TimelineBuilder b;
  for (int64_t i = 0; i < 1000; ++i) ASSERT_TRUE(b.Add(5 + i * 997, 5 + i * 997 + 300).ok());
  const DispatchTimeline t = b.Finish("t.csv");
  ASSERT_EQ(t.bins.size(), static_cast<size_t>(kTimelineBins));
  EXPECT_EQ(t.span_ns, 999 * 997 + 300);
  EXPECT_EQ(t.bins.front().start_ns, 0);
  EXPECT_EQ(t.bins.back().end_ns, t.span_ns);
  for (size_t i = 0; i < t.bins.size(); ++i) {
    const TimelineBin& bin = t.bins[i];
    EXPECT_EQ(bin.start_ns, static_cast<int64_t>(i) * t.span_ns / kTimelineBins);
    if (i > 0) {
      EXPECT_EQ(bin.start_ns, t.bins[i - 1].end_ns);
    }
    EXPECT_GE(bin.busy_ns, 0);
    EXPECT_LE(bin.busy_ns, bin.end_ns - bin.start_ns);
  }
  EXPECT_EQ(BusySum(t), t.busy_ns);
  EXPECT_EQ(t.busy_ns, 1000 * 300);
}

TEST(TimelineBuilderTest, ShortSpansHaveFewerBins) {
  TimelineBuilder b;
  ASSERT_TRUE(b.Add(7, 9).ok());
  ASSERT_TRUE(b.Add(10, 12).ok());
  const DispatchTimeline t = b.Finish("t.csv");
  EXPECT_EQ(t.span_ns, 5);
  EXPECT_EQ(t.bins,
            (std::vector<TimelineBin>{{0, 1, 1}, {1, 2, 1}, {2, 3, 0}, {3, 4, 1}, {4, 5, 1}}));
}

TEST(TimelineBuilderTest, NoDispatchesOrNoLength) {
  const DispatchTimeline none = TimelineBuilder().Finish("t.csv");
  EXPECT_EQ(none.dispatches, 0);
  EXPECT_TRUE(none.bins.empty());
  TimelineBuilder b;
  ASSERT_TRUE(b.Add(50, 50).ok());
  const DispatchTimeline flat = b.Finish("t.csv");
  EXPECT_EQ(flat.dispatches, 1);
  EXPECT_EQ(flat.span_ns, 0);
  EXPECT_TRUE(flat.bins.empty());
}

TEST(TimelineBuilderTest, RejectsRowsOutOfOrderOrEndingBeforeTheyStart) {
  TimelineBuilder b;
  ASSERT_TRUE(b.Add(100, 200).ok());
  const base::Status backwards = b.Add(300, 250);
  EXPECT_EQ(backwards.kind(), base::ErrorKind::kData);
  EXPECT_NE(backwards.message().find("ends before it starts"), std::string::npos);
  const base::Status unordered = b.Add(99, 250);
  EXPECT_NE(unordered.message().find("not in start order"), std::string::npos);
  ASSERT_TRUE(b.Add(100, 120).ok());  // an equal start is in order
  EXPECT_EQ(b.Finish("t.csv").dispatches, 2);
}

}  // namespace
}  // namespace decodeprof::report
