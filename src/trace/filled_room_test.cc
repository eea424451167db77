// A room an importer fills in place may hold the whole trace: where it is in a file block
// (base/spill.h), each pass over it on its way to the store lets go of what it has read, so
// that no pass maps hundreds of MiB in at once (with the file's pages in 2 MiB folios, a pass
// that did mapped a 192 MiB room within milliseconds, faster than the watcher drops it).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "src/base/spill.h"
#include "src/base/testing/spill_testing.h"
#include "src/trace/api_call.h"
#include "src/trace/dispatch.h"
#include "src/trace/dispatch_sink.h"
#include "src/trace/record_vector.h"
#include "src/trace/trace.h"

namespace decodeprof::trace {
namespace {

using base::spill::GetStats;
using base::spill::kReleaseBytes;
using base::spill::testing::SharedResidentBytes;
using base::spill::testing::SpillAllocator;
using base::spill::testing::SpillDir;

constexpr size_t kRoomBytes = size_t{64} << 20;
// What a pass may leave mapped: per cursor, what it has not yet let go (under a release step)
// and the 2 MiB folio it is in. A pass that let nothing go would leave the room's 64 MiB.
constexpr uint64_t kLeftMapped = uint64_t{8} << 20;

// Gives its room from a vector in a file block and keeps nothing of what is handed on.
template <typename Record, typename Sink>
class FileRoom final : public Sink {
 public:
  explicit FileRoom(size_t n) : records_(n) {}
  void Add(const Record& /*record*/) override {}
  std::span<Record> Room(size_t n) override { return {records_.data(), n}; }
  void AddFilled(std::span<const Record> filled) override { handed_on_ = filled.size(); }
  Record* data() { return records_.data(); }
  size_t handed_on() const { return handed_on_; }

 private:
  std::vector<Record, SpillAllocator<Record>> records_;
  size_t handed_on_ = 0;
};

// Runs `pass` over a room of kRoomBytes in a file block, written and let go before it, and
// checks that the pass let go as it read: a release every kReleaseBytes, and no more than
// kLeftMapped of the room mapped in afterwards.
template <typename Pass>
void ExpectLetsGoOfTheRoom(const void* room, Pass&& pass) {
  base::spill::Release(room, kRoomBytes);  // written: nothing of it mapped
  const uint64_t floor = SharedResidentBytes();
  const uint64_t releases = GetStats().releases;
  pass();
  EXPECT_GE(GetStats().releases, releases + kRoomBytes / kReleaseBytes - 1);
  EXPECT_LT(SharedResidentBytes(), floor + kLeftMapped);
}

TEST(FilledRoomTest, CountingAFilledRoomInAFileLetsGoAsItReads) {
  const SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  constexpr size_t kCount = kRoomBytes / sizeof(Dispatch);
  FileRoom<Dispatch, DispatchSink> store(kCount);
  ASSERT_TRUE(base::spill::InFile(store.data()));
  StringPool names;
  TraceBuilder builder(names, store);
  const std::span<Dispatch> room = builder.DispatchRoom(kCount);
  ASSERT_EQ(room.data(), store.data());
  for (size_t i = 0; i < kCount; ++i) {
    room[i].start = static_cast<int64_t>(i);
    room[i].end = static_cast<int64_t>(i) + 1;
  }
  ExpectLetsGoOfTheRoom(room.data(), [&] { builder.AddFilledDispatches(room); });
  EXPECT_EQ(store.handed_on(), kCount);
  const ImportedTrace t = std::move(builder).Finish();
  EXPECT_EQ(t.kernels, static_cast<int64_t>(kCount));
}

TEST(FilledRoomTest, DroppingUncorrelatedCallsFromARoomInAFileLetsGoAsItReads) {
  const SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  constexpr size_t kCount = kRoomBytes / sizeof(ApiCall);
  FileRoom<ApiCall, LaunchSink> calls(kCount);
  ASSERT_TRUE(base::spill::InFile(calls.data()));
  StringPool names;
  RecordVector<Dispatch, DispatchSink> dispatches;
  TraceBuilder builder(names, dispatches);
  builder.set_launch_sink(&calls);
  const std::span<ApiCall> room = builder.LaunchRoom(kCount);
  ASSERT_EQ(room.size(), kCount);
  // Every third call has no correlation id: dropped, the rest kept in order.
  for (size_t i = 0; i < kCount; ++i) {
    room[i].correlation = i % 3 == 0 ? 0 : i;
    room[i].start = static_cast<int64_t>(i);
    room[i].end = static_cast<int64_t>(i) + 1;
  }
  ExpectLetsGoOfTheRoom(room.data(), [&] { builder.AddFilledLaunches(room); });
  const size_t kept = kCount - (kCount + 2) / 3;
  ASSERT_EQ(calls.handed_on(), kept);
  for (size_t k = 0; k < kept; k += kept / 7) {
    const size_t i = k / 2 * 3 + 1 + k % 2;  // the k-th call with a correlation id
    EXPECT_EQ(room[k].correlation, i) << k;
    EXPECT_EQ(room[k].start, static_cast<int64_t>(i)) << k;
  }
}

}  // namespace
}  // namespace decodeprof::trace
