// WindowCollector::MergeAll with its stores in files (base/spill.h), as the decodeprof program's
// operator new makes them (src/cli/spill_new.cc is linked into this test): the merge lets go of
// each part's stretch as it copies it, on both sides. A part is the window over at most 4 parts
// a CPU, so its size follows the window's; copied whole and let go of once, a 2.4 GB rocprofv3
// CSV on 2 CPUs held two 50 MiB parts twice each, 62-97 MiB at peak with a 16 MiB budget
// against 36-40 MiB since.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "src/analysis/window.h"
#include "src/base/spill.h"
#include "src/base/testing/spill_testing.h"

namespace decodeprof::analysis {
namespace {

using base::spill::GetStats;
using base::spill::kLargePageBytes;
using base::spill::testing::SpillDir;
using trace::Dispatch;
using trace::MarkStamp;
using trace::PhaseMarks;

// Marks whose window holds every dispatch.
PhaseMarks EveryDispatch() {
  return {{"warmup_start", MarkStamp{std::nullopt, 0}},
          {"decode_start", MarkStamp{std::nullopt, 0}},
          {"measured_end", MarkStamp{std::nullopt, INT64_MAX}}};
}

TEST(WindowSpillTest, MergingPartsInFilesLetsGoOfEachStretchAsItIsCopied) {
  const SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  const PhaseMarks marks = EveryDispatch();
  // Five parts of 200 000 dispatches (9.2 MiB each; past the budget from the second on), the
  // later ones with their names shifted by 7 and rebased back.
  constexpr size_t kPart = 200000;
  constexpr size_t kParts = 5;
  const auto row = [](size_t i) {
    const auto start = static_cast<trace::TimestampNs>(10 * i);
    return Dispatch{.start = start,
                    .end = start + 5,
                    .name = static_cast<trace::StringId>(i % 13),
                    .line = static_cast<uint32_t>(i + 2)};
  };
  WindowCollector first(marks);
  std::deque<WindowCollector> parts;
  for (size_t k = 0; k < kParts; ++k) {
    WindowCollector& c = k == 0 ? first : parts.emplace_back(marks);
    c.Reserve(kPart);
    for (size_t i = k * kPart; i < (k + 1) * kPart; ++i) {
      Dispatch d = row(i);
      if (k > 0) d.name += 7;
      c.Add(d);
    }
  }
  const std::function<void(Dispatch&)> rebase = [](Dispatch& d) { d.name -= 7; };
  std::vector<WindowCollector::LaterPart> later;
  for (WindowCollector& c : parts) later.push_back({&c, &rebase});
  const uint64_t releases = GetStats().releases;
  first.MergeAll(later);
  const uint64_t released = GetStats().releases - releases;
  ASSERT_GT(GetStats().file_blocks, 0u) << "no store went to a file";
  // Each later part's stretch is let go of in its own store and in the window's a large page at
  // a time (a copy let go of once: one release a part); a page at either end of a part may be
  // left to the part's end.
  const size_t pages = (kParts - 1) * kPart * sizeof(Dispatch) / kLargePageBytes;
  EXPECT_GE(released, pages - 2 * (kParts - 1));
  auto window = std::move(first).Finish("log");
  ASSERT_TRUE(window.ok()) << window.status().ToString();
  ASSERT_EQ(window->dispatches.size(), kParts * kPart);
  for (size_t i = 0; i < kParts * kPart; i += 997) {
    const Dispatch want = row(i);
    EXPECT_EQ(window->dispatches[i].start, want.start) << i;
    EXPECT_EQ(window->dispatches[i].name, want.name) << i;
    EXPECT_EQ(window->dispatches[i].line, want.line) << i;
  }
}

// A part's store in a file lets go of each large page once Add has filled it, and of the rest
// at Done: parts read on more threads than CPUs held a 600 MB rocprofv3 CSV's window whole
// until the merge (16 threads, 2 CPUs, a 16 MiB budget: 141 MiB at peak against 53 since).
TEST(WindowSpillTest, APartInAFileLetsGoOfWhatItHasFilled) {
  const SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  const PhaseMarks marks = EveryDispatch();
  constexpr size_t kRows = 200000;  // 9.2 MiB: the first store fits the budget, the second not
  WindowCollector in_memory(marks);
  in_memory.Reserve(kRows);
  WindowCollector part(marks);
  part.Reserve(kRows);
  ASSERT_FALSE(in_memory.StoreInFile());
  ASSERT_TRUE(part.StoreInFile()) << "the second store did not go to a file";
  const uint64_t before = GetStats().releases;
  for (size_t i = 0; i < kRows; ++i) {
    const auto start = static_cast<trace::TimestampNs>(10 * i);
    part.Add(Dispatch{.start = start, .end = start + 5, .line = static_cast<uint32_t>(i)});
  }
  const uint64_t while_filled = GetStats().releases - before;
  const size_t whole_pages = kRows * sizeof(Dispatch) / kLargePageBytes;
  EXPECT_GE(while_filled, whole_pages - 1);  // one release each kFilledCheck rows that pass one
  part.Done();
  EXPECT_EQ(GetStats().releases - before, while_filled + 1);  // the page that holds the end
  for (size_t i = 0; i < 10; ++i) in_memory.Add(Dispatch{.start = 0, .end = 1});
  in_memory.Done();  // a store in memory keeps its pages: nothing to let go of
  EXPECT_EQ(GetStats().releases - before, while_filled + 1);
  auto window = std::move(part).Finish("log");
  ASSERT_TRUE(window.ok()) << window.status().ToString();
  ASSERT_EQ(window->dispatches.size(), kRows);  // what was let go of is read back from the file
  for (size_t i = 0; i < kRows; i += 991) {
    EXPECT_EQ(window->dispatches[i].start, static_cast<trace::TimestampNs>(10 * i)) << i;
    EXPECT_EQ(window->dispatches[i].line, i) << i;
  }
}

}  // namespace
}  // namespace decodeprof::analysis
