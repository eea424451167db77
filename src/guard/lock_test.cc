#include "src/guard/lock.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/guard/guard.h"
#include "src/guard/guard_test_fakes.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::guard {
namespace {

using testing::FakeClock;
using testing::FakeProcFs;
using ::testing::HasSubstr;
using testing::MemFile;

class LockTest : public ::testing::Test {
 protected:
  LockTest() : notes_(&clock_, err_.fd(), -1) {
    dir_ = temp_.path();
    path_ = dir_ + "/guard.lock";
  }

  decodeprof::testing::TempDir temp_{"guard-lock-"};
  std::string dir_;
  std::string path_;
  FakeClock clock_;
  MemFile err_;
  Notes notes_;
};

TEST_F(LockTest, OpenCreatesAWorldWritableFileAndOpensItReadOnlyCloseOnExec) {
  const mode_t old = ::umask(022);
  auto lock = LockFile::Open(path_);
  ::umask(old);
  ASSERT_TRUE(lock.ok()) << lock.status().ToString();
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u);
  const int flags = ::fcntl(lock->fd(), F_GETFL);
  EXPECT_EQ(flags & O_ACCMODE, O_RDONLY);
  EXPECT_TRUE(::fcntl(lock->fd(), F_GETFD) & FD_CLOEXEC);
}

TEST_F(LockTest, ANonRegularPathIsRefused) {
  ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0);
  const auto fifo = LockFile::Open(path_);
  ASSERT_FALSE(fifo.ok());
  EXPECT_EQ(fifo.status().exit_code(), 2);
  EXPECT_EQ(fifo.status().message(), "guard lock " + path_ + " is not a regular file");
  const auto dir = LockFile::Open(dir_);
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(dir.status().message(), HasSubstr("is not a regular file"));
}

TEST_F(LockTest, AnUnopenablePathIsAUsageError) {
  const auto missing = LockFile::Open(dir_ + "/no/such/dir/lock");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().exit_code(), 2);
  EXPECT_THAT(missing.status().message(), HasSubstr("cannot open guard lock " + dir_));
}

TEST_F(LockTest, TwoDescriptorsExcludeEachOther) {
  auto a = LockFile::Open(path_);
  auto b = LockFile::Open(path_);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(a->TryLock());
  EXPECT_FALSE(b->TryLock());
  a->Unlock();
  EXPECT_TRUE(b->TryLock());
}

TEST_F(LockTest, AFreeLockIsAcquiredAtOnce) {
  auto lock = LockFile::Open(path_);
  ASSERT_TRUE(lock.ok());
  EXPECT_EQ(AcquireLock(*lock, path_, Budget{}, clock_, notes_), LockOutcome::kAcquired);
  EXPECT_THAT(err_.Text(), HasSubstr("acquired guard lock " + path_ + " after 0s"));
  EXPECT_THAT(err_.Text(), ::testing::Not(HasSubstr("waiting")));
}

TEST_F(LockTest, AHeldLockIsWaitedForUntilTheBudgetIsSpent) {
  auto holder = LockFile::Open(path_);
  auto lock = LockFile::Open(path_);
  ASSERT_TRUE(holder.ok() && lock.ok());
  ASSERT_TRUE(holder->TryLock());
  const Budget budget{2, clock_.Now(), 0};
  EXPECT_EQ(AcquireLock(*lock, path_, budget, clock_, notes_), LockOutcome::kGaveUp);
  EXPECT_THAT(err_.Text(), HasSubstr("waiting for guard lock " + path_));
  EXPECT_THAT(err_.Text(), HasSubstr("gave up waiting for guard lock " + path_ + " after 2s"));
  EXPECT_NEAR(budget.Waited(clock_.Now()), 2.0, 1e-3);
}

TEST_F(LockTest, ASignalStopsTheLockWait) {
  auto holder = LockFile::Open(path_);
  auto lock = LockFile::Open(path_);
  ASSERT_TRUE(holder.ok() && lock.ok());
  ASSERT_TRUE(holder->TryLock());
  clock_.InterruptAt(clock_.Now() + 0.3);
  EXPECT_EQ(AcquireLock(*lock, path_, Budget{}, clock_, notes_), LockOutcome::kInterrupted);
}

TEST_F(LockTest, HolderFileIsWrittenAndRemoved) {
  const std::string holder_path = HolderPath(path_);
  EXPECT_EQ(holder_path, path_ + ".holder");
  {
    HolderRecord record(holder_path, HolderInfo{4242, "2026-09-30T19:36:18+0900", "guard", "a b"},
                        notes_);
    EXPECT_EQ(testing::ReadAll(holder_path),
              "pid=4242\nstart=2026-09-30T19:36:18+0900\nmode=guard\ncmd=a b\n");
  }
  EXPECT_FALSE(std::filesystem::exists(holder_path));
}

TEST_F(LockTest, HolderPidReadsThePidLine) {
  EXPECT_EQ(HolderPid("pid=12\nmode=hold\n"), 12);
  EXPECT_EQ(HolderPid("start=x\npid=7"), 7);
  EXPECT_FALSE(HolderPid("mode=hold\n"));
  EXPECT_FALSE(HolderPid("pid=abc\n"));
}

TEST_F(LockTest, StatusFreeHeldStaleAndUnrecorded) {
  FakeProcFs proc;
  proc.Add(4242, 1, "decodeprof");
  EXPECT_EQ(QueryLockStatus(path_, proc).text, "free\n");  // no lock file at all
  EXPECT_FALSE(std::filesystem::exists(path_));            // --status creates nothing
  auto holder = LockFile::Open(path_);
  ASSERT_TRUE(holder.ok());
  LockStatus status = QueryLockStatus(path_, proc);
  EXPECT_EQ(status.exit_code, 0);
  EXPECT_EQ(status.text, "free\n");
  ASSERT_TRUE(holder->TryLock());
  status = QueryLockStatus(path_, proc);
  EXPECT_EQ(status.exit_code, 1);
  EXPECT_EQ(status.text, "held\nno holder file\n");
  std::ofstream(HolderPath(path_)) << "pid=4242\nstart=s\nmode=hold\ncmd=sleep 30\n";
  status = QueryLockStatus(path_, proc);
  EXPECT_EQ(status.text, "held\npid=4242\nstart=s\nmode=hold\ncmd=sleep 30\n");
  proc.Remove(4242);
  status = QueryLockStatus(path_, proc);
  EXPECT_EQ(status.exit_code, 1);
  EXPECT_THAT(status.text, HasSubstr("stale: holder pid 4242 no longer exists"));
}

TEST(OuterGuardTest, OnlyALiveAncestorCounts) {
  FakeProcFs proc;
  proc.Add(1, 0, "init");
  proc.Add(100, 1, "decodeprof");  // outer guard
  proc.Add(200, 100, "sh");
  proc.Add(300, 200, "decodeprof");  // this guard
  proc.Add(400, 1, "stranger");
  EXPECT_EQ(OuterGuardPid(std::string("100"), 300, proc), 100);
  EXPECT_EQ(OuterGuardPid(std::string("200"), 300, proc), 200);
  EXPECT_FALSE(OuterGuardPid(std::nullopt, 300, proc));
  EXPECT_FALSE(OuterGuardPid(std::string("400"), 300, proc));  // not an ancestor
  EXPECT_FALSE(OuterGuardPid(std::string("300"), 300, proc));  // itself
  EXPECT_FALSE(OuterGuardPid(std::string("1"), 300, proc));
  EXPECT_FALSE(OuterGuardPid(std::string("self"), 300, proc));
  EXPECT_FALSE(OuterGuardPid(std::string("0100"), 300, proc));  // leading zero
  EXPECT_FALSE(OuterGuardPid(std::string("999"), 300, proc));   // gone
  EXPECT_FALSE(OuterGuardPid(std::string(""), 300, proc));
}

}  // namespace
}  // namespace decodeprof::guard
