#include "src/trace/record_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "src/trace/dispatch.h"
#include "src/trace/dispatch_sink.h"
#include "src/trace/trace.h"

namespace decodeprof::trace {
namespace {

Dispatch At(int64_t start) {
  Dispatch d;
  d.start = start;
  d.end = start + 1;
  d.line = static_cast<uint32_t>(start);
  return d;
}

TEST(RecordVectorTest, RoomFilledInPlaceKeepsItsFilledPrefixAfterWhatCameBefore) {
  RecordVector<Dispatch, DispatchSink> v;
  v.Expect(4);  // less than will come: the room grows the store
  v.Add(At(1));
  const std::vector<Dispatch> block = {At(2), At(3)};
  v.AddAll(block);
  const std::span<Dispatch> room = v.Room(100000);
  ASSERT_EQ(room.size(), 100000u);
  EXPECT_EQ(room.data(), v.records.data() + 3);
  for (size_t i = 0; i < 70000; ++i) room[i] = At(static_cast<int64_t>(4 + i));
  v.AddFilled(room.first(70000));
  ASSERT_EQ(v.records.size(), 70003u);
  for (size_t i = 0; i < v.records.size(); ++i) {
    ASSERT_EQ(v.records[i].start, static_cast<int64_t>(i + 1)) << i;
  }
  // Only the room's own AddFilled gives the rest back; another one changes nothing.
  v.AddFilled({});
  EXPECT_EQ(v.records.size(), 70003u);
  v.Add(At(70004));
  EXPECT_EQ(v.records.back().start, 70004);
}

TEST(RecordVectorTest, TheBuilderFillsInPlaceOnlyWithoutADeviceFilter) {
  StringPool names;
  RecordVector<Dispatch, DispatchSink> store;
  TraceBuilder builder(names, store);
  std::span<Dispatch> room = builder.DispatchRoom(3);
  ASSERT_EQ(room.size(), 3u);
  room[0] = At(5);
  room[1] = At(6);
  room[1].end = room[1].start - 1;  // bad: counted and kept as the first bad dispatch
  builder.AddFilledDispatches(room.first(2));
  const ImportedTrace t = std::move(builder).Finish();
  EXPECT_EQ(store.records.size(), 2u);
  EXPECT_EQ(t.kernels, 2);
  ASSERT_TRUE(t.bad_dispatch.has_value());
  EXPECT_EQ(t.bad_dispatch->line, 6u);

  RecordVector<Dispatch, DispatchSink> filtered;
  TraceBuilder one_device(names, filtered);
  one_device.set_device_filter(0);
  EXPECT_TRUE(one_device.DispatchRoom(3).empty());
}

TEST(RecordVectorTest, LaunchCallsFilledInPlaceLoseThoseWithoutACorrelation) {
  StringPool names;
  NullSink none;
  RecordVector<ApiCall, LaunchSink> calls;
  TraceBuilder builder(names, none);
  builder.set_launch_sink(&calls);
  std::span<ApiCall> room = builder.LaunchRoom(4);
  ASSERT_EQ(room.size(), 4u);
  room[0] = {0, 1, 2, 3, 7};
  room[1] = {0, 3, 4, 3, 0};  // no correlation: dropped
  room[2] = {0, 5, 6, 3, 8};
  builder.AddFilledLaunches(room.first(3));
  ASSERT_EQ(calls.records.size(), 2u);
  EXPECT_EQ(calls.records[0].correlation, 7u);
  EXPECT_EQ(calls.records[1].correlation, 8u);
}

}  // namespace
}  // namespace decodeprof::trace
