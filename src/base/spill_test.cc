#include "src/base/spill.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "src/base/large_pages.h"
#include "src/base/testing/spill_testing.h"

namespace decodeprof::base::spill {
namespace {

using testing::SharedResidentBytes;
using testing::SpillAllocator;
using testing::SpillDir;

void Fill(void* block, size_t bytes, uint8_t seed) {
  auto* p = static_cast<uint8_t*>(block);
  for (size_t i = 0; i < bytes; i += 997) p[i] = static_cast<uint8_t>(seed + i);
}

bool Holds(const void* block, size_t bytes, uint8_t seed) {
  const auto* p = static_cast<const uint8_t*>(block);
  for (size_t i = 0; i < bytes; i += 997) {
    if (p[i] != static_cast<uint8_t>(seed + i)) return false;
  }
  return true;
}

TEST(SpillTest, BlocksPastTheBudgetGoToFilesAndKeepTheirContentsThroughTrims) {
  const SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  EXPECT_EQ(Allocate(kMinBytes - 1), nullptr);  // small blocks are malloc's
  const Stats before = GetStats();
  constexpr size_t kSmall = size_t{6} << 20;
  constexpr size_t kLarge = size_t{24} << 20;
  // 6 MiB fit in the budget of 16: malloc's, counted.
  EXPECT_EQ(Allocate(kSmall), nullptr);
  void* in_memory = std::malloc(kSmall);
  ASSERT_NE(in_memory, nullptr);
  NoteInMemory(in_memory, kSmall);
  // 6 + 6 fit too (reserved until noted, here given back); 6 + 24 do not: a file block.
  EXPECT_EQ(Allocate(kSmall), nullptr);
  NoteInMemory(nullptr, kSmall);
  void* in_file = Allocate(kLarge);
  ASSERT_NE(in_file, nullptr);
  EXPECT_FALSE(Owns(in_memory));
  EXPECT_TRUE(Owns(in_file));
  EXPECT_FALSE(InFile(in_memory));
  EXPECT_TRUE(InFile(in_file));
  EXPECT_TRUE(InFile(static_cast<char*>(in_file) + kLarge - 1));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(in_file) % (uintptr_t{2} << 20), 0u);
  const Stats made = GetStats();
  EXPECT_EQ(made.budget_bytes, uint64_t{16} << 20);
  EXPECT_EQ(made.memory_blocks, before.memory_blocks + 1);
  EXPECT_GE(made.live_memory_bytes, kSmall);
  EXPECT_EQ(made.file_blocks, before.file_blocks + 1);
  EXPECT_EQ(made.live_file_bytes, kLarge);
  Fill(in_memory, kSmall, 3);
  Fill(in_file, kLarge, 7);
  Trim();
  EXPECT_GT(GetStats().trims, made.trims);
  EXPECT_TRUE(Holds(in_memory, kSmall, 3));
  EXPECT_TRUE(Holds(in_file, kLarge, 7));  // read back from the file
  Fill(in_file, kLarge, 11);
  Trim();
  EXPECT_TRUE(Holds(in_file, kLarge, 11));
  Free(in_file);
  NoteFreed(in_memory);
  std::free(in_memory);
  const Stats after = GetStats();
  EXPECT_EQ(after.live_file_bytes, 0u);
  EXPECT_EQ(after.live_memory_bytes, 0u);
  EXPECT_FALSE(InFile(in_file));
  // With nothing in memory, a block within the budget is malloc's again.
  EXPECT_EQ(Allocate(kSmall), nullptr);
  NoteInMemory(nullptr, kSmall);
  EXPECT_EQ(GetStats().live_memory_bytes, 0u);
}

// Blocks asked for at once (a part each, on threads of their own) do not all fit in one room:
// the budget each one fits in is reserved for it until the caller says what malloc gave.
TEST(SpillTest, ABlockThatFitsReservesItsRoomAtOnce) {
  const SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  constexpr size_t kTen = size_t{10} << 20;
  EXPECT_EQ(Allocate(kTen), nullptr);  // fits: reserved, not yet allocated
  EXPECT_EQ(GetStats().live_memory_bytes, kTen);
  void* second = Allocate(kTen);  // 10 + 10 > 16, though the first is not yet noted
  ASSERT_NE(second, nullptr);
  EXPECT_TRUE(InFile(second));
  void* first = std::malloc(kTen);
  ASSERT_NE(first, nullptr);
  NoteInMemory(first, kTen);  // the reservation becomes the block
  EXPECT_GE(GetStats().live_memory_bytes, kTen);
  EXPECT_LT(GetStats().live_memory_bytes, kTen + (size_t{1} << 20));
  NoteFreed(first);
  std::free(first);
  Free(second);
  EXPECT_EQ(GetStats().live_memory_bytes, 0u);
}

TEST(SpillTest, AFreedRangeIsUsedAgain) {
  const SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  void* a = Allocate(size_t{18} << 20);
  ASSERT_NE(a, nullptr);
  Free(a);
  void* b = Allocate(size_t{18} << 20);
  EXPECT_EQ(a, b);
  void* c = Allocate(size_t{18} << 20);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(b, c);
  Free(b);
  Free(c);
  // Both holes merged with the rest: one block as large as both fits where the first was.
  void* d = Allocate(size_t{36} << 20);
  EXPECT_EQ(d, a);
  Free(d);
}

TEST(SpillTest, TheDefaultBudgetIsAQuarterOfTheAvailableMemoryAtMost256MiB) {
  const SpillDir dir("16");
  ::unsetenv("DECODEPROF_MEMORY_MIB");
  ResetSettingsForTest();
  EXPECT_EQ(Allocate(kMinBytes), nullptr);  // within any default budget: malloc's
  uint64_t available_kib = 0;
  {
    std::FILE* meminfo = std::fopen("/proc/meminfo", "re");
    ASSERT_NE(meminfo, nullptr);
    char line[256];
    while (std::fgets(line, sizeof line, meminfo) != nullptr) {
      if (std::strncmp(line, "MemAvailable:", 13) == 0) {
        available_kib = std::strtoull(line + 13, nullptr, 10);
      }
    }
    std::fclose(meminfo);
  }
  ASSERT_GT(available_kib, 0u);
  const uint64_t expected = std::min<uint64_t>(available_kib * 1024 / 4, uint64_t{256} << 20);
  const uint64_t budget = GetStats().budget_bytes;
  EXPECT_LE(budget, uint64_t{256} << 20);
  // MemAvailable moves between the two reads: within a tenth.
  EXPECT_GE(budget, expected - expected / 10);
  EXPECT_LE(budget, expected + expected / 10);
}

TEST(SpillTest, OffLeavesEveryBlockToMalloc) {
  ::setenv("DECODEPROF_SPILL", "off", 1);
  ResetSettingsForTest();
  EXPECT_EQ(Allocate(size_t{64} << 20), nullptr);
  ::unsetenv("DECODEPROF_SPILL");
  ResetSettingsForTest();
}

TEST(SpillTest, ADirectoryThatCannotHoldFilesKeepsBlocksInMemory) {
  const SpillDir dir("16");
  ::setenv("DECODEPROF_SPILL", (dir.path() + "/missing").c_str(), 1);
  ResetSettingsForTest();
  EXPECT_EQ(Allocate(size_t{32} << 20), nullptr);  // past the budget, but no file can be made
  EXPECT_EQ(GetStats().budget_bytes, uint64_t{16} << 20);
}

// The watcher lets the file blocks' resident pages go once more than the budget allows are
// resident, without a Trim from the test.
TEST(SpillTest, TheWatcherKeepsFileBlocksWithinTheBudget) {
  const SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  constexpr size_t kBytes = size_t{96} << 20;
  const uint64_t floor = SharedResidentBytes();
  void* block = Allocate(kBytes);
  ASSERT_NE(block, nullptr);
  ASSERT_TRUE(InFile(block));
  const uint64_t trims = GetStats().trims;
  std::memset(block, 1, kBytes);
  // Within 5 s (a loaded CI machine), the watcher has trimmed, and the resident part of the
  // block is back under the budget's allowance (16 MiB, all of it free) plus slack.
  bool within = false;
  for (int i = 0; i < 500 && !within; ++i) {
    within = GetStats().trims > trims && SharedResidentBytes() < floor + (uint64_t{40} << 20);
    if (!within) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(within) << "shared resident " << SharedResidentBytes() << " floor " << floor;
  const auto* p = static_cast<const uint8_t*>(block);
  EXPECT_EQ(p[0], 1);
  EXPECT_EQ(p[kBytes - 1], 1);
  Free(block);
}

// A pass releases what it has read (Release, ReleaseBehind) at once, below what the watcher
// would trim, and the contents stay; memory outside the file blocks is left alone.
TEST(SpillTest, ReleaseDropsTheFileBlocksPagesAPassHasRead) {
  const SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  constexpr size_t kBytes = size_t{96} << 20;
  constexpr size_t kTouched = size_t{8} << 20;  // below the watcher's allowance (16 MiB)
  auto* block = static_cast<uint8_t*>(Allocate(kBytes));
  ASSERT_NE(block, nullptr);
  const uint64_t floor = SharedResidentBytes();
  std::memset(block, 5, kTouched);
  ASSERT_GE(SharedResidentBytes(), floor + kTouched - (uint64_t{1} << 20));
  const uint64_t releases = GetStats().releases;
  // Element by element, as a pass goes: a release every kReleaseBytes.
  ReleaseBehind<uint64_t> behind(reinterpret_cast<const uint64_t*>(block), 0);
  for (size_t i = 0; i <= kTouched / sizeof(uint64_t); ++i) behind.Passed(i);
  EXPECT_EQ(GetStats().releases, releases + kTouched / kReleaseBytes);
  EXPECT_LT(SharedResidentBytes(), floor + (uint64_t{1} << 20));
  EXPECT_EQ(block[0], 5);
  EXPECT_EQ(block[kTouched - 1], 5);
  EXPECT_EQ(block[kTouched], 0);
  // A stretch that holds no whole page releases nothing.
  Release(block + 1, 100);
  EXPECT_EQ(block[1], 5);
  // Memory outside the file blocks: nothing happens to it.
  std::vector<uint64_t> in_memory(size_t{4} << 20, 9);
  const uint64_t before = GetStats().releases;
  ReleaseBehind<uint64_t> none(in_memory.data(), 0);
  for (size_t i = 0; i <= in_memory.size(); ++i) none.Passed(i);
  Release(in_memory.data(), in_memory.size() * sizeof(uint64_t));
  EXPECT_EQ(GetStats().releases, before);
  EXPECT_EQ(in_memory.back(), 9u);
  Free(block);
}

// A pass lets go of whole large pages only (kLargePageBytes, aligned): releasing part of one
// unmaps all of it, and the pass maps the rest in again. The large page that holds the pass's
// start stays (the part before the start may be another thread's).
TEST(SpillTest, ReleaseBehindLetsGoOfWholeLargePagesOnly) {
  const SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  constexpr size_t kBytes = size_t{32} << 20;
  constexpr size_t kTouched = size_t{10} << 20;  // below the watcher's allowance (16 MiB)
  auto* block = static_cast<uint8_t*>(Allocate(kBytes));
  ASSERT_NE(block, nullptr);
  ASSERT_EQ(reinterpret_cast<uintptr_t>(block) % kLargePageBytes, 0u);
  const uint64_t floor = SharedResidentBytes();
  std::memset(block, 5, kTouched);
  const uint64_t releases = GetStats().releases;
  const auto* words = reinterpret_cast<const uint64_t*>(block);
  constexpr size_t kMiB = (size_t{1} << 20) / sizeof(uint64_t);
  {
    // From 1 MiB in, to 1 MiB short of 8 MiB: the large pages [0, 2), [2, 4) and [4, 6) MiB
    // are passed (the first holds the pass's start), [6, 8) is the one it is in.
    ReleaseBehind<uint64_t> behind(words, kMiB);
    for (size_t i = kMiB; i <= 7 * kMiB; ++i) behind.Passed(i);
    EXPECT_EQ(GetStats().releases, releases + 3);  // one a large page, none split
    const uint64_t resident = SharedResidentBytes() - floor;
    EXPECT_GE(resident, uint64_t{4} << 20);  // [6, 10) MiB
    EXPECT_LT(resident, uint64_t{5} << 20);
  }
  // Its end lets go of the large page it was in: [8, 10) MiB stays.
  EXPECT_EQ(GetStats().releases, releases + 4);
  const uint64_t resident = SharedResidentBytes() - floor;
  EXPECT_GE(resident, uint64_t{2} << 20);
  EXPECT_LT(resident, uint64_t{3} << 20);
  EXPECT_EQ(block[0], 5);  // the contents stay in the file
  EXPECT_EQ(block[kTouched - 1], 5);
  Free(block);
}

// A moved cursor releases once, and one told that its array is gone releases nothing more.
TEST(SpillTest, AMovedOrForgettingReleaseBehindReleasesOnce) {
  const SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  constexpr size_t kBytes = size_t{32} << 20;  // past the budget: a file block
  auto* block = static_cast<uint64_t*>(Allocate(kBytes));
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, size_t{4} << 20);
  const uint64_t releases = GetStats().releases;
  {
    ReleaseBehind<uint64_t> a(block, 0);
    a.Passed(10);
    ReleaseBehind<uint64_t> b(std::move(a));
    ReleaseBehind<uint64_t> c(block, 0);
    c.Passed(20);
    c.Forget();
  }
  EXPECT_EQ(GetStats().releases, releases + 1);
  Free(block);
}

// A resize into a file block writes its values in steps, each let go once written
// (base::ResizeFaultedIn): one resize mapped the whole room in at once, past the budget, and
// left it to the watcher (the launch join's per-dispatch arrays, 256 MiB at 16.8 M dispatches).
TEST(SpillTest, AResizeIntoAFileBlockLetsGoAsItWrites) {
  const SpillDir dir("16");
  if (dir.InMemoryFileSystem()) GTEST_SKIP() << dir.path() << " is held in memory";
  constexpr size_t kBytes = size_t{64} << 20;
  constexpr size_t kCount = kBytes / sizeof(uint64_t);
  std::vector<uint64_t, SpillAllocator<uint64_t>> v;
  const uint64_t floor = SharedResidentBytes();
  const uint64_t releases = GetStats().releases;
  ResizeFaultedIn(v, kCount, uint64_t{7});
  ASSERT_TRUE(InFile(v.data()));
  // The watcher trims too, but counts no release: these are the resize's own.
  EXPECT_GE(GetStats().releases, releases + kBytes / kReleaseBytes);
  EXPECT_LT(SharedResidentBytes(), floor + (uint64_t{2} << 20));
  ASSERT_EQ(v.size(), kCount);
  EXPECT_EQ(v.front(), 7u);
  EXPECT_EQ(v[kCount / 2], 7u);
  EXPECT_EQ(v.back(), 7u);
  // In memory (below the budget) a resize is a plain one.
  std::vector<uint64_t> small;
  const uint64_t before = GetStats().releases;
  ResizeFaultedIn(small, 1000, uint64_t{3});
  EXPECT_EQ(GetStats().releases, before);
  EXPECT_EQ(small.back(), 3u);
}

}  // namespace
}  // namespace decodeprof::base::spill
