#include "src/profile/git_info.h"

#include <stdlib.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "src/profile/process.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::profile {
namespace {

// Runs the test body with the current directory changed to `dir`.
class InDirectory {
 public:
  explicit InDirectory(const std::string& dir) {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) != nullptr) saved_ = cwd;
    ok_ = ::chdir(dir.c_str()) == 0;
  }
  ~InDirectory() {
    if (!saved_.empty()) (void)::chdir(saved_.c_str());
  }
  bool ok() const { return ok_; }

 private:
  std::string saved_;
  bool ok_ = false;
};

int Git(const std::string& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {
      "git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto run = CaptureOutput(argv);
  return run.ok() ? run->status : -1;
}

class GitInfoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!CaptureOutput({"git", "--version"}).ok() ||
        CaptureOutput({"git", "--version"})->status != 0) {
      GTEST_SKIP() << "git is not installed";
    }
    dir_ = temp_.path();  // canonical
    repo_ = dir_ + "/re#po.*";
    std::filesystem::create_directories(repo_ + "/sub");
    ASSERT_EQ(Git(repo_, {"init", "-q"}), 0);
    std::ofstream(repo_ + "/tracked.txt") << "one\n";
    ASSERT_EQ(Git(repo_, {"add", "tracked.txt"}), 0);
    ASSERT_EQ(Git(repo_, {"commit", "-q", "-m", "first"}), 0);
  }
  decodeprof::testing::TempDir temp_{"git_info_"};
  std::string dir_;
  std::string repo_;
};

TEST_F(GitInfoTest, ACleanCheckout) {
  InDirectory in(repo_ + "/sub");
  ASSERT_TRUE(in.ok());
  const GitInfo info = ReadGitInfo();
  EXPECT_EQ(info.root, repo_);
  EXPECT_EQ(info.commit.size(), 8u);
  EXPECT_FALSE(info.dirty);
}

TEST_F(GitInfoTest, UntrackedFilesDoNotCountTrackedChangesDo) {
  InDirectory in(repo_);
  ASSERT_TRUE(in.ok());
  std::ofstream(repo_ + "/untracked.txt") << "new\n";
  EXPECT_FALSE(ReadGitInfo().dirty);
  std::ofstream(repo_ + "/tracked.txt") << "two\n";
  const GitInfo info = ReadGitInfo();
  EXPECT_TRUE(info.dirty);
  EXPECT_EQ(ProvenanceNote(info.commit), "note: the source tree differs from " + info.commit +
                                             "; record the diff with the results");
}

TEST_F(GitInfoTest, OutsideAWorkTreeEverythingIsEmpty) {
  InDirectory in(dir_);
  ASSERT_TRUE(in.ok());
  // The temporary directory may sit inside some checkout; GIT_CEILING_DIRECTORIES keeps the
  // search from going above it.
  const std::string parent = std::filesystem::path(dir_).parent_path().string();
  ::setenv("GIT_CEILING_DIRECTORIES", parent.c_str(), 1);
  const GitInfo info = ReadGitInfo();
  ::unsetenv("GIT_CEILING_DIRECTORIES");
  EXPECT_EQ(info.root, "");
  EXPECT_EQ(info.commit, "");
  EXPECT_FALSE(info.dirty);
}

}  // namespace
}  // namespace decodeprof::profile
