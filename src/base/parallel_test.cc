#include "src/base/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace decodeprof::base {
namespace {

TEST(ParallelTest, PartsCoverEveryItemOnceInOrder) {
  for (const size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}, size_t{100003}}) {
    std::vector<int> seen(n, 0);
    std::vector<std::pair<size_t, size_t>> bounds(kMaxPassParts, {0, 0});
    const size_t parts = ForParts(n, 10, [&](size_t part, size_t begin, size_t end) {
      bounds[part] = {begin, end};
      for (size_t i = begin; i < end; ++i) ++seen[i];
    });
    ASSERT_GE(parts, 1u);
    ASSERT_LE(parts, kMaxPassParts);
    EXPECT_EQ(parts, PassParts(n, 10));
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "item " << i << " of " << n;
    // Contiguous, in part order, from 0 to n.
    EXPECT_EQ(bounds[0].first, 0u);
    for (size_t k = 1; k < parts; ++k) EXPECT_EQ(bounds[k].first, bounds[k - 1].second);
    EXPECT_EQ(bounds[parts - 1].second, n);
  }
}

TEST(ParallelTest, NoPartBelowItsMinimumAndNoneAboveTheCpus) {
  EXPECT_EQ(PassParts(0, 100), 1u);
  EXPECT_EQ(PassParts(99, 100), 1u);
  EXPECT_LE(PassParts(250, 100), 2u);
  EXPECT_LE(PassParts(1'000'000, 1), std::min<size_t>(UsableCpus(), kMaxPassParts));
  EXPECT_GE(UsableCpus(), 1u);
}

// Sums by name keep an entry a name in each part: a window of many names gets fewer parts, one
// of few names as many as before.
TEST(ParallelTest, ManyNamesMakeFewerParts) {
  EXPECT_EQ(MinPartForNames(0), kMinPassPart);
  EXPECT_EQ(MinPartForNames(24), kMinPassPart);
  EXPECT_EQ(MinPartForNames(200000), 200000 * kRecordsPerNameInAPart);
  EXPECT_EQ(PassParts(4200000, MinPartForNames(24)), PassParts(4200000, kMinPassPart));
  EXPECT_LE(PassParts(4200000, MinPartForNames(200000)), 2u);
  EXPECT_EQ(PassParts(100000, MinPartForNames(200000)), 1u);
}

TEST(ParallelTest, WhileTheWatcherRunsOneCpuIsItsAndAtMostEightThreadsRead) {
  // Without file blocks: every CPU.
  EXPECT_EQ(ThreadsOn(1, false), 1u);
  EXPECT_EQ(ThreadsOn(16, false), 16u);
  EXPECT_EQ(ThreadsOn(64, false), 64u);
  // With them: the watcher shares fewer than spill::kCpusToLeaveOne CPUs, has one of more,
  // and past kThreadsWithFileBlocks threads the rest of the CPUs stay idle.
  EXPECT_EQ(ThreadsOn(1, true), 1u);
  EXPECT_EQ(ThreadsOn(spill::kCpusToLeaveOne - 1, true), spill::kCpusToLeaveOne - 1);
  EXPECT_EQ(ThreadsOn(spill::kCpusToLeaveOne, true), spill::kCpusToLeaveOne - 1);
  EXPECT_EQ(ThreadsOn(kThreadsWithFileBlocks + 1, true), kThreadsWithFileBlocks);
  EXPECT_EQ(ThreadsOn(16, true), kThreadsWithFileBlocks);
  EXPECT_EQ(ThreadsOn(0, true), 1u);
}

TEST(ParallelTest, AParseLeavesTheWatcherItsCpuButIsNotHeldToEightThreads) {
  EXPECT_EQ(ParseThreadsOn(16, false), 16u);
  EXPECT_EQ(ParseThreadsOn(16, true), 15u);
  EXPECT_GT(ParseThreadsOn(16, true), ThreadsOn(16, true));
  EXPECT_EQ(ParseThreadsOn(spill::kCpusToLeaveOne - 1, true), spill::kCpusToLeaveOne - 1);
  EXPECT_EQ(ParseThreadsOn(spill::kCpusToLeaveOne, true), spill::kCpusToLeaveOne - 1);
  EXPECT_EQ(ParseThreadsOn(0, true), 1u);
  EXPECT_EQ(ParseThreadsOn(0, false), 1u);
}

TEST(ParallelTest, AllInPartsIsStdAllOfWhereverTheFalseOneIs) {
  const size_t n = 5 * kMinPassPart + 17;  // several parts wherever there are CPUs
  EXPECT_TRUE(AllInParts(0, [](size_t) { return false; }));
  EXPECT_TRUE(AllInParts(n, [](size_t) { return true; }));
  for (const size_t at : {size_t{0}, kMinPassPart, n / 2, n - 1}) {
    EXPECT_FALSE(AllInParts(n, [&](size_t i) { return i != at; })) << "false at " << at;
  }
}

TEST(ParallelTest, SumInPartsIsTheSumOfOnePass) {
  const size_t n = 5 * kMinPassPart + 17;
  int64_t one_pass = 0;
  for (size_t i = 0; i < n; ++i) one_pass += static_cast<int64_t>(i % 1000) - 400;
  EXPECT_EQ(SumInParts<int64_t>(n, [](size_t i) { return static_cast<int64_t>(i % 1000) - 400; }),
            one_pass);
  EXPECT_EQ(SumInParts<int64_t>(0, [](size_t) { return int64_t{1}; }), 0);
}

// Every part waits until all have started: this ends only when each part has a thread of its
// own. Pass sizes that grow, shrink and grow again, so that the kept threads are reused,
// skipped and added to. (A part that waits more than 20 s gives up: a failure, not a hang.)
TEST(ParallelTest, RunPartsGivesEveryPartAThreadOfItsOwn) {
  for (const size_t parts : {size_t{3}, size_t{12}, size_t{2}, size_t{5}, size_t{20}, size_t{1}}) {
    std::atomic<size_t> started{0};
    std::atomic<int> gave_up{0};
    std::vector<int> ran(parts, 0);
    RunParts(parts, [&](size_t k) {
      ++ran[k];
      started.fetch_add(1);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (started.load() < parts) {
        if (std::chrono::steady_clock::now() > deadline) {
          gave_up.fetch_add(1);
          break;
        }
        std::this_thread::yield();
      }
    });
    EXPECT_EQ(gave_up.load(), 0) << parts << " parts";
    for (size_t k = 0; k < parts; ++k) EXPECT_EQ(ran[k], 1) << "part " << k << " of " << parts;
  }
}

// A pass inside a part, and passes on two threads at once: each part runs once.
TEST(ParallelTest, PassesInsidePartsAndOnSeveralThreadsRunEachPartOnce) {
  constexpr size_t kOuter = 4;
  constexpr size_t kInner = 6;
  std::vector<std::atomic<int>> ran(2 * kOuter * kInner);
  const auto pass = [&](size_t base) {
    RunParts(kOuter, [&](size_t k) {
      RunParts(kInner, [&](size_t j) { ran[base + k * kInner + j].fetch_add(1); });
    });
  };
  for (int round = 0; round < 20; ++round) {
    std::thread other([&] { pass(kOuter * kInner); });
    pass(0);
    other.join();
  }
  for (size_t i = 0; i < ran.size(); ++i) EXPECT_EQ(ran[i].load(), 20) << "item " << i;
}

}  // namespace
}  // namespace decodeprof::base
