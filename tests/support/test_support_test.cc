// The test-support library itself: TempDir, ScratchDir and StartProcess.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/process_util.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::testing {
namespace {

namespace fs = std::filesystem;

TEST(TempDirTest, MakesAPrivateDirectoryAndRemovesItWithItsContents) {
  std::string path;
  {
    const TempDir dir("tempdir_test_");
    path = dir.path();
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_EQ(fs::path(path).filename().string().rfind("tempdir_test_", 0), 0u);
    EXPECT_EQ(fs::canonical(path).string(), path);
    EXPECT_EQ(dir.Path("a"), path + "/a");
    fs::create_directories(dir.Path("sub/deeper"));
    std::ofstream(dir.Path("sub/deeper/file")) << "x";
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(TempDirTest, TwoAreDistinctAndAMoveKeepsOneOwner) {
  TempDir a("tempdir_test_");
  const TempDir b("tempdir_test_");
  EXPECT_NE(a.path(), b.path());
  const std::string path = a.path();
  {
    TempDir moved(std::move(a));
    EXPECT_EQ(moved.path(), path);
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(TempDirTest, AForkedChildLeavesItsParentsDirectory) {
  TempDir dir("tempdir_test_");
  const std::string path = dir.path();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    { const TempDir gone(std::move(dir)); }  // destroyed in the child: must not remove it
    ::_exit(fs::exists(path) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(fs::exists(path));
}

TEST(TempDirTest, AnImpossibleDirectoryThrows) {
  EXPECT_THROW(TempDir("no/such/parent/x_"), std::runtime_error);
}

TEST(ScratchDirTest, GivesAFreshDirectoryEachTime) {
  const std::string a = ScratchDir("scratch_test_");
  const std::string b = ScratchDir("scratch_test_");
  EXPECT_NE(a, b);
  EXPECT_TRUE(fs::is_directory(a));
  EXPECT_TRUE(fs::is_directory(b));
}

TEST(StartProcessTest, RunsWithItsStreamsEnvironmentAndDirectory) {
  const TempDir dir("start_process_test_");
  std::ofstream(dir.Path("in")) << "input\n";
  Spawn spawn;
  spawn.argv = {"sh", "-c", "cat; echo \"$X\"; pwd; echo err >&2; exit 3"};
  spawn.env = std::vector<std::string>{"X=set", "PATH=/usr/bin:/bin"};
  spawn.stdin_path = dir.Path("in");
  spawn.out_path = dir.Path("out");
  spawn.err_path = dir.Path("err");
  spawn.cwd = dir.path();
  const RunResult run = StartProcess(spawn).Wait(kNoTimeout);
  EXPECT_EQ(run.status, 3);
  EXPECT_EQ(run.out, "input\nset\n" + dir.path() + "\n");
  EXPECT_EQ(run.err, "err\n");
}

TEST(StartProcessTest, AMissingProgramExits124AMissingDirectory125AndATimeoutKills) {
  Spawn spawn;
  spawn.argv = {"/nonexistent/program"};
  EXPECT_EQ(StartProcess(spawn).Wait(10).status, 124);
  spawn.argv = {"true"};
  spawn.cwd = "/nonexistent/directory";
  EXPECT_EQ(StartProcess(spawn).Wait(10).status, 125);
  spawn.cwd = "";
  spawn.argv = {"sleep", "30"};
  const RunResult run = StartProcess(spawn).Wait(0.2);
  EXPECT_EQ(run.status, -1);
  EXPECT_LT(run.secs, 10);
}

TEST(ChildLeakChecksOffTest, AppendsToAsanOptionsForChildrenAndRestoresThem) {
  const char* before = std::getenv("ASAN_OPTIONS");
  const std::string saved = before == nullptr ? "" : before;
  ::setenv("ASAN_OPTIONS", "abort_on_error=1", 1);
  {
    const ChildLeakChecksOff off;
    Spawn spawn;
    spawn.argv = {"sh", "-c", "printf %s \"$ASAN_OPTIONS\""};
    const TempDir dir("leak_checks_off_test_");
    spawn.out_path = dir.Path("out");
    EXPECT_EQ(StartProcess(spawn).Wait(10).out, "abort_on_error=1:detect_leaks=0");
  }
  EXPECT_STREQ(std::getenv("ASAN_OPTIONS"), "abort_on_error=1");
  ::unsetenv("ASAN_OPTIONS");
  { const ChildLeakChecksOff off; }
  EXPECT_EQ(std::getenv("ASAN_OPTIONS"), nullptr);
  if (before != nullptr) ::setenv("ASAN_OPTIONS", saved.c_str(), 1);
}

}  // namespace
}  // namespace decodeprof::testing
