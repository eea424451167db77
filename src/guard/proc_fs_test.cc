#include "src/guard/proc_fs.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "src/guard/guard_test_fakes.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::guard {
namespace {

TEST(ParseStatTest, CommIsBetweenTheFirstParenAndTheLastOne) {
  const auto stat = ParseStat("4242 (my (odd) prog) S 17 4242 4242 0 -1 4194560\n");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->comm, "my (odd) prog");
  EXPECT_EQ(stat->ppid, 17);
  // Naive whitespace splitting (the seed's first version) would read "(odd)" here.
  const auto spaced = ParseStat("7 (a b) R 3 7 7");
  ASSERT_TRUE(spaced);
  EXPECT_EQ(spaced->ppid, 3);
  const auto paren_end = ParseStat("8 (x) ) S 5 8");
  ASSERT_TRUE(paren_end);
  EXPECT_EQ(paren_end->comm, "x) ");
  EXPECT_EQ(paren_end->ppid, 5);
}

TEST(ParseStatTest, MalformedLinesAreRejected) {
  EXPECT_FALSE(ParseStat(""));
  EXPECT_FALSE(ParseStat("12 noparens S 1"));
  EXPECT_FALSE(ParseStat("12 (x) S"));
  EXPECT_FALSE(ParseStat("12 (x) S notanumber"));
  EXPECT_FALSE(ParseStat("12 )x( S 1"));
}

TEST(ProcSnapshotTest, AncestryWalksParentLinks) {
  ProcSnapshot s;
  s.Add(1, {"init", 0});
  s.Add(100, {"bash", 1});
  s.Add(200, {"rocprofv3", 100});
  s.Add(300, {"bench", 200});
  s.Add(400, {"other", 1});
  EXPECT_TRUE(s.DescendsFrom(300, 200));
  EXPECT_TRUE(s.DescendsFrom(200, 200));  // a process descends from itself
  EXPECT_TRUE(s.DescendsFrom(300, 100));
  EXPECT_FALSE(s.DescendsFrom(400, 200));
  EXPECT_FALSE(s.DescendsFrom(200, 300));
  EXPECT_FALSE(s.DescendsFrom(300, 1));        // the walk stops at 1
  EXPECT_FALSE(s.DescendsFrom(999, 999 + 1));  // unknown pid
  EXPECT_EQ(s.CommOrUnknown(300), "bench");
  EXPECT_EQ(s.CommOrUnknown(301), "?");
}

TEST(ProcSnapshotTest, AParentCycleDoesNotHang) {
  ProcSnapshot s;
  s.Add(10, {"a", 11});
  s.Add(11, {"b", 10});
  EXPECT_FALSE(s.DescendsFrom(10, 12));
  EXPECT_TRUE(s.DescendsFrom(10, 11));
}

TEST(ProcFsTest, SnapshotSkipsVanishedAndBrokenEntries) {
  testing::FakeProcFs fake;
  fake.Add(5, 1, "cc1plus");
  fake.Add(6, 5, "as");
  const ProcSnapshot s = fake.Snapshot();
  EXPECT_TRUE(s.Exists(5));
  EXPECT_TRUE(s.Exists(6));
  EXPECT_FALSE(s.Exists(7));
  EXPECT_TRUE(fake.DescendsFrom(6, 5));
  EXPECT_FALSE(fake.DescendsFrom(5, 6));
}

TEST(DirProcFsTest, ReadsAFixtureTree) {
  const decodeprof::testing::TempDir temp("procfs-");
  const std::string root = temp.path();
  for (const auto& [pid, line] : std::vector<std::pair<std::string, std::string>>{
           {"1", "1 (init) S 0 1"}, {"42", "42 (cc1 plus) S 1 42"}, {"43", "garbage"}}) {
    std::filesystem::create_directories(root + "/" + pid);
    std::ofstream(root + "/" + pid + "/stat") << line;
  }
  std::filesystem::create_directories(root + "/self");
  std::filesystem::create_directories(root + "/44");  // no stat: vanished
  DirProcFs proc(root);
  std::vector<int64_t> pids = proc.ListPids();
  std::sort(pids.begin(), pids.end());
  EXPECT_EQ(pids, (std::vector<int64_t>{1, 42, 43, 44}));
  const ProcSnapshot s = proc.Snapshot();
  EXPECT_EQ(s.processes().size(), 2u);
  EXPECT_EQ(s.CommOrUnknown(42), "cc1 plus");
  EXPECT_FALSE(s.Exists(43));
}

TEST(DirProcFsTest, TheRealProcShowsThisProcessAndItsParent) {
  DirProcFs proc;
  const ProcSnapshot s = proc.Snapshot();
  ASSERT_TRUE(s.Exists(::getpid()));
  EXPECT_TRUE(s.DescendsFrom(::getpid(), ::getppid()) || ::getppid() == 1);
}

TEST(ListDirectoryTest, SkipsDotEntriesAndSorts) {
  const decodeprof::testing::TempDir temp("kfd-");
  const std::string dir = temp.path();
  for (const char* name : {"30", "4", ".hidden", "x"}) std::ofstream(dir + "/" + name);
  EXPECT_EQ(*ListDirectory(dir), (std::vector<std::string>{"30", "4", "x"}));
  EXPECT_FALSE(ListDirectory(dir + "/missing"));
}

}  // namespace
}  // namespace decodeprof::guard
