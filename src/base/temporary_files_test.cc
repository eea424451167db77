#include "src/base/temporary_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "src/base/file_io.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::base {
namespace {

namespace fs = std::filesystem;

void Touch(const fs::path& path) { std::ofstream(path) << "x"; }

TEST(TemporaryFilesTest, RegisteredFilesAndDirectoriesAreRemoved) {
  const decodeprof::testing::TempDir temp("decodeprof-tmpfiles-");
  const fs::path dir = temp.path();
  Touch(dir / "a.tmp");
  fs::create_directories(dir / "rec");
  Touch(dir / "rec" / "trace.sqlite");
  Touch(dir / "rec" / "trace.sqlite-journal");
  const int before = TemporaryFileCount();
  const int a = RegisterTemporary((dir / "a.tmp").string());
  const int r = RegisterTemporary((dir / "rec").string(), /*directory=*/true);
  ASSERT_GE(a, 0);
  ASSERT_GE(r, 0);
  EXPECT_EQ(TemporaryFileCount(), before + 2);
  RemoveTemporaryFiles();
  EXPECT_FALSE(fs::exists(dir / "a.tmp"));
  EXPECT_FALSE(fs::exists(dir / "rec"));
  UnregisterTemporary(a);
  UnregisterTemporary(r);
  EXPECT_EQ(TemporaryFileCount(), before);
}

TEST(TemporaryFilesTest, AnUnregisteredFileIsKept) {
  const decodeprof::testing::TempDir temp("decodeprof-tmpfiles-");
  const fs::path dir = temp.path();
  Touch(dir / "kept");
  const int h = RegisterTemporary((dir / "kept").string());
  UnregisterTemporary(h);
  RemoveTemporaryFiles();
  EXPECT_TRUE(fs::exists(dir / "kept"));
}

TEST(TemporaryFilesTest, TheTableIsBoundedAndSlotsAreReused) {
  std::vector<int> handles;
  for (int i = 0; i < kMaxTemporaryFiles + 5; ++i) {
    handles.push_back(RegisterTemporary("/nonexistent/decodeprof/" + std::to_string(i)));
  }
  int refused = 0;
  for (const int h : handles) refused += h < 0 ? 1 : 0;
  EXPECT_GE(refused, 5);
  for (const int h : handles) UnregisterTemporary(h);
  EXPECT_GE(RegisterTemporary("/nonexistent/decodeprof/again"), 0);
  UnregisterTemporary(RegisterTemporary("/nonexistent/decodeprof/again"));
}

TEST(TemporaryFilesTest, APathTooLongIsNotRegistered) {
  EXPECT_EQ(RegisterTemporary("/" + std::string(5000, 'a')), -1);
}

// A child writes through AtomicFileWriter and kills itself with the signal mid-write: the
// temporary file is gone and the child ended by that signal.
void ExpectSignalRemovesTemporary(int signo) {
  const decodeprof::testing::TempDir temp("decodeprof-tmpfiles-");
  const fs::path dir = temp.path();
  const std::string out = (dir / "out.json").string();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    InstallTemporaryFileCleanup();
    AtomicFileWriter writer(out);
    if (!writer.Open().ok()) ::_exit(3);
    writer.Write(std::string(3 << 20, 'x'));  // flushed to the temporary file
    ::raise(signo);
    ::_exit(4);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), signo);
  for (const auto& entry : fs::directory_iterator(dir)) ADD_FAILURE() << "left: " << entry.path();
}

TEST(TemporaryFilesTest, SigtermRemovesTheTemporaryOutputAndEndsByTheSignal) {
  ExpectSignalRemovesTemporary(SIGTERM);
}
TEST(TemporaryFilesTest, SigintRemovesTheTemporaryOutputAndEndsByTheSignal) {
  ExpectSignalRemovesTemporary(SIGINT);
}
TEST(TemporaryFilesTest, SighupRemovesTheTemporaryOutputAndEndsByTheSignal) {
  ExpectSignalRemovesTemporary(SIGHUP);
}

// A signal sent to the process while one thread is between creating a file and registering it
// (its SignalBlock held, so another thread takes the signal): the handler waits for it and the
// file goes too. (Before, the handler ran at once on the other thread and left the file: a
// signal during export left `<out>.tmp.<pid>` once in a CI run under load.)
TEST(TemporaryFilesTest, ASignalTakenByAnotherThreadWaitsForAFileBeingRegistered) {
  const decodeprof::testing::TempDir temp("decodeprof-tmpfiles-");
  const std::string path = (fs::path(temp.path()) / "being-made.tmp").string();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    InstallTemporaryFileCleanup();
    std::atomic<bool> created{false};
    std::thread maker([&] {
      const SignalBlock block;
      std::ofstream(path) << "x";
      created = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      RegisterTemporary(path);
    });
    while (!created) std::this_thread::yield();
    ::kill(::getpid(), SIGTERM);  // taken by this thread: the maker's is blocked
    maker.join();
    ::_exit(4);  // not reached: the handler ends the process once the file is registered
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_FALSE(fs::exists(path));
}

// A forked child that gets the signal does not remove what its parent registered.
TEST(TemporaryFilesTest, AChildNeverRemovesItsParentsFiles) {
  const decodeprof::testing::TempDir temp("decodeprof-tmpfiles-");
  const fs::path dir = temp.path();
  Touch(dir / "parents");
  const int h = RegisterTemporary((dir / "parents").string());
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    InstallTemporaryFileCleanup();
    ::raise(SIGTERM);
    ::_exit(4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(fs::exists(dir / "parents"));
  UnregisterTemporary(h);
}

// An ignored signal (nohup) stays ignored.
TEST(TemporaryFilesTest, AnIgnoredSignalStaysIgnored) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGHUP, SIG_IGN);
    InstallTemporaryFileCleanup();
    ::raise(SIGHUP);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(TemporaryFilesTest, ACommittedOutputIsForgotten) {
  const decodeprof::testing::TempDir temp("decodeprof-tmpfiles-");
  const fs::path dir = temp.path();
  const int before = TemporaryFileCount();
  {
    AtomicFileWriter writer((dir / "o").string());
    ASSERT_TRUE(writer.Open().ok());
    EXPECT_EQ(TemporaryFileCount(), before + 1);
    writer.Write("data");
    ASSERT_TRUE(writer.Commit().ok());
    EXPECT_EQ(TemporaryFileCount(), before);
  }
  {
    AtomicFileWriter writer((dir / "p").string());
    ASSERT_TRUE(writer.Open().ok());
  }
  EXPECT_EQ(TemporaryFileCount(), before);
  EXPECT_TRUE(fs::exists(dir / "o"));
  EXPECT_FALSE(fs::exists(dir / "p"));
}

}  // namespace
}  // namespace decodeprof::base
