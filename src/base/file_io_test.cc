#include "src/base/file_io.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/temp_dir.h"

namespace decodeprof::base {
namespace {

TEST(FileIoTest, AtomicWriteThenRead) {
  const decodeprof::testing::TempDir temp("dp_file_io_");
  const std::filesystem::path dir = temp.path();
  ASSERT_TRUE(MakeDirs(dir.string()).ok());
  const std::string path = (dir / "out.txt").string();
  ASSERT_TRUE(WriteFileAtomic(path, "hello\n").ok());
  auto content = ReadFile(path);
  ASSERT_TRUE(content.ok());
  EXPECT_EQ(*content, "hello\n");
  // No temporary file is left behind.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(FileIoTest, MissingFileIsAnIoError) {
  auto content = ReadFile("/nonexistent/decodeprof/file");
  ASSERT_FALSE(content.ok());
  EXPECT_EQ(content.status().kind(), ErrorKind::kIo);
  EXPECT_EQ(content.status().exit_code(), 66);
  EXPECT_EQ(content.status().where(), "/nonexistent/decodeprof/file");
}

TEST(FileIoTest, OnlyRegularFilesAreInputs) {
  const decodeprof::testing::TempDir temp("dp_file_in_");
  const std::filesystem::path dir = temp.path();
  ASSERT_TRUE(MakeDirs(dir.string()).ok());
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  struct Case {
    std::string path, what;
  };
  for (const Case& c : {Case{fifo, "is a FIFO or pipe, not a regular file"},
                        Case{"/dev/zero", "is a character device, not a regular file"},
                        Case{dir.string(), "is a directory, not a file"}}) {
    // A FIFO without a writer: refused at once, never a blocking open.
    for (const Status& s :
         {ReadFile(c.path).status(), ReadFilePrefix(c.path, 16).status(), CheckInputFile(c.path)}) {
      EXPECT_EQ(s.kind(), ErrorKind::kIo) << c.path;
      EXPECT_EQ(s.where(), c.path);
      EXPECT_EQ(s.message(), c.what);
    }
  }
}

TEST(FileIoTest, WholeReadsHaveACap) {
  const decodeprof::testing::TempDir temp("dp_file_cap_");
  const std::filesystem::path dir = temp.path();
  ASSERT_TRUE(MakeDirs(dir.string()).ok());
  const std::string path = (dir / "big.toml").string();
  ASSERT_TRUE(WriteFileAtomic(path, std::string(2 * kMiB + 1, 'x')).ok());
  const auto refused = ReadFile(path, 2 * kMiB, "a pack file");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().kind(), ErrorKind::kData);
  EXPECT_EQ(refused.status().where(), path);
  EXPECT_EQ(refused.status().message(), "larger than 2 MiB: not a pack file");
  const auto read = ReadFile(path, 3 * kMiB, "a pack file");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->size(), 2 * kMiB + 1);
}

TEST(FileIoTest, WriteIntoMissingDirectoryFailsCleanly) {
  const Status s = WriteFileAtomic("/nonexistent/decodeprof/out.json", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.kind(), ErrorKind::kIo);
}

}  // namespace
}  // namespace decodeprof::base

namespace decodeprof::base {
namespace {

TEST(AtomicFileWriterTest, NothingAppearsWithoutCommit) {
  const decodeprof::testing::TempDir temp("dp_atomic_writer_");
  const std::filesystem::path dir = temp.path();
  ASSERT_TRUE(MakeDirs(dir.string()).ok());
  const std::string path = (dir / "big.csv").string();
  {
    AtomicFileWriter writer(path);
    ASSERT_TRUE(writer.Open().ok());
    writer.Write("partial");
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  {
    AtomicFileWriter writer(path);
    ASSERT_TRUE(writer.Open().ok());
    for (int i = 0; i < 300000; ++i) writer.Write("0123456789");
    ASSERT_TRUE(writer.Commit().ok());
  }
  EXPECT_EQ(std::filesystem::file_size(path), 3000000u);
}

}  // namespace
}  // namespace decodeprof::base

// Output targets (issue 11, "Output paths"): what an output may replace.
namespace decodeprof::base {
namespace {

namespace fs = std::filesystem;

class OutputTargetTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }

  std::string P(const std::string& name) const { return (dir_ / name).string(); }
  void Spit(const std::string& name, const std::string& text) const {
    ASSERT_TRUE(WriteFileAtomic(P(name), text).ok());
  }
  std::string Slurp(const std::string& path) const {
    auto text = ReadFile(path);
    return text.ok() ? *text : "<unreadable>";
  }
  // The names in the directory, sorted: no temporary file may be left behind.
  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

  decodeprof::testing::TempDir temp_{"dp_output_target_"};
  fs::path dir_;
};

// Every writer refuses `path`: CheckOutputTarget, WriteFileAtomic and AtomicFileWriter::Open,
// with the same kind and a message holding `what`.
void ExpectRefused(const std::string& path, ErrorKind kind, const std::string& what,
                   const std::vector<std::string>& inputs = {}) {
  const Status check = CheckOutputTarget(path, inputs);
  ASSERT_FALSE(check.ok()) << path;
  EXPECT_EQ(check.kind(), kind) << check.ToString();
  EXPECT_EQ(check.where(), path);
  EXPECT_NE(check.message().find(what), std::string::npos) << check.ToString();
  EXPECT_FALSE(check.hint().empty());
  // Only once the check refuses: a regression must not get to write onto /dev/null.
  const Status write = WriteFileAtomic(path, "x", inputs);
  EXPECT_EQ(write.ToString(), check.ToString());
  AtomicFileWriter writer(path, inputs);
  EXPECT_EQ(writer.Open().ToString(), check.ToString());
}

TEST_F(OutputTargetTest, MissingAndRegularFilesAreWritten) {
  EXPECT_TRUE(CheckOutputTarget(P("new.json")).ok());
  Spit("old.json", "old");
  EXPECT_TRUE(CheckOutputTarget(P("old.json"), {P("other.json")}).ok());
  ASSERT_TRUE(WriteFileAtomic(P("old.json"), "new").ok());
  EXPECT_EQ(Slurp(P("old.json")), "new");
  EXPECT_EQ(Entries(), (std::vector<std::string>{"old.json"}));
}

TEST_F(OutputTargetTest, SymlinkToAFileIsRefused) {
  Spit("target.json", "keep");
  fs::create_symlink("target.json", dir_ / "link.json");
  ExpectRefused(P("link.json"), ErrorKind::kIo, "refusing to replace a symlink (to target.json)");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_EQ(Slurp(P("target.json")), "keep");
  EXPECT_EQ(Entries(), (std::vector<std::string>{"link.json", "target.json"}));
}

TEST_F(OutputTargetTest, DanglingSymlinkIsRefused) {
  fs::create_symlink(dir_ / "nowhere", dir_ / "dangling");
  ExpectRefused(P("dangling"), ErrorKind::kIo, "refusing to replace a symlink");
  EXPECT_TRUE(fs::is_symlink(dir_ / "dangling"));
  EXPECT_EQ(Entries(), (std::vector<std::string>{"dangling"}));
}

TEST_F(OutputTargetTest, DirectoryIsRefused) {
  fs::create_directory(dir_ / "d");
  ExpectRefused(P("d"), ErrorKind::kIo, "refusing to replace a directory");
  EXPECT_TRUE(fs::is_directory(dir_ / "d"));
  EXPECT_EQ(Entries(), (std::vector<std::string>{"d"}));
}

TEST_F(OutputTargetTest, FifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(P("fifo").c_str(), 0600), 0);
  ExpectRefused(P("fifo"), ErrorKind::kIo, "refusing to replace a FIFO");
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo"));
  EXPECT_EQ(Entries(), (std::vector<std::string>{"fifo"}));
}

TEST_F(OutputTargetTest, SocketIsRefused) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = P("sock");
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  ExpectRefused(path, ErrorKind::kIo, "refusing to replace a socket");
  EXPECT_TRUE(fs::is_socket(path));
  ::close(fd);
}

TEST_F(OutputTargetTest, DeviceIsRefused) {
  ExpectRefused("/dev/null", ErrorKind::kIo, "refusing to replace a character device");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(OutputTargetTest, EmptyPathAndDirectoryPathAreUsageErrors) {
  EXPECT_EQ(CheckOutputTarget("").kind(), ErrorKind::kUsage);
  ExpectRefused(P("out") + "/", ErrorKind::kUsage, "is not a file name");
  EXPECT_TRUE(Entries().empty());
}

TEST_F(OutputTargetTest, TargetIsCheckedAgainBeforeTheRename) {
  Spit("target.json", "keep");
  AtomicFileWriter writer(P("out.json"));
  ASSERT_TRUE(writer.Open().ok());
  writer.Write("new");
  // The path becomes a symlink while the output is computed.
  fs::create_symlink("target.json", dir_ / "out.json");
  const Status s = writer.Commit();
  EXPECT_EQ(s.kind(), ErrorKind::kIo);
  EXPECT_NE(s.message().find("symlink"), std::string::npos) << s.ToString();
  EXPECT_TRUE(fs::is_symlink(dir_ / "out.json"));
  EXPECT_EQ(Slurp(P("target.json")), "keep");
  EXPECT_EQ(Entries(), (std::vector<std::string>{"out.json", "target.json"}));
}

TEST_F(OutputTargetTest, TemporaryNameIsNeverFollowed) {
  // A link planted at the temporary name is left alone: the writer takes the next name.
  Spit("victim", "keep");
  const std::string tmp = P("out.json") + ".tmp." + std::to_string(::getpid());
  fs::create_symlink(dir_ / "victim", tmp);
  ASSERT_TRUE(WriteFileAtomic(P("out.json"), "new").ok());
  EXPECT_EQ(Slurp(P("out.json")), "new");
  EXPECT_EQ(Slurp(P("victim")), "keep");
  EXPECT_TRUE(fs::is_symlink(tmp));
  EXPECT_EQ(Entries().size(), 3u);
}

TEST_F(OutputTargetTest, AnInputIsNeverOverwritten) {
  Spit("in.json", "input");
  ExpectRefused(P("in.json"), ErrorKind::kUsage, "refusing to overwrite an input of this command",
                {P("log"), P("in.json")});
  // The same file under other names: ".", "..", a hard link, a symlinked directory, and a
  // symlink given as the input.
  fs::create_directory(dir_ / "sub");
  fs::create_directory_symlink(dir_, dir_ / "linkdir");
  fs::create_hard_link(dir_ / "in.json", dir_ / "hard.json");
  fs::create_symlink("in.json", dir_ / "inlink.json");
  for (const std::string& out :
       {P("./in.json"), P("sub/../in.json"), P("hard.json"), P("linkdir/in.json")}) {
    ExpectRefused(out, ErrorKind::kUsage, "an input", {P("in.json")});
  }
  ExpectRefused(P("in.json"), ErrorKind::kUsage, "(" + P("inlink.json") + ")", {P("inlink.json")});
  EXPECT_EQ(Slurp(P("in.json")), "input");
  // A different file is fine.
  EXPECT_TRUE(CheckOutputTarget(P("out.json"), {P("in.json"), ""}).ok());
}

TEST_F(OutputTargetTest, AnInputThatDoesNotExistYetIsComparedByPath) {
  fs::create_directory(dir_ / "sub");
  fs::create_directory_symlink(dir_, dir_ / "linkdir");
  for (const std::string& out : {P("new.json"), P("sub/../new.json"), P("linkdir/new.json")}) {
    ExpectRefused(out, ErrorKind::kUsage, "an input", {P("./new.json")});
  }
  EXPECT_TRUE(CheckOutputTarget(P("new.json"), {P("sub/new.json")}).ok());
}

TEST_F(OutputTargetTest, RelativeAndDotSlashNamesAreTheSameFile) {
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  Spit("x", "input");
  const Status existing = CheckOutputTarget("./x", {"x"});
  const Status absolute = CheckOutputTarget(P("x"), {"./x"});
  const Status missing = CheckOutputTarget("./y", {"y"});
  fs::current_path(cwd);
  EXPECT_EQ(existing.kind(), ErrorKind::kUsage) << existing.ToString();
  EXPECT_EQ(absolute.kind(), ErrorKind::kUsage) << absolute.ToString();
  EXPECT_EQ(missing.kind(), ErrorKind::kUsage) << missing.ToString();
}

// Runs `body` with standard output redirected into `path` (opened with `flags`).
template <typename Body>
void WithStdoutInto(const std::string& path, int flags, Body body) {
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | flags, 0644);
  ASSERT_GE(fd, 0);
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  body();
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
}

TEST_F(OutputTargetTest, DashIsStandardOutput) {
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  Status whole, streamed;
  WithStdoutInto(P("captured"), O_TRUNC, [&] {
    whole = WriteFileAtomic(std::string(kStdout), "whole\n");
    AtomicFileWriter writer{std::string(kStdout)};
    streamed = writer.Open();
    writer.Write("streamed\n");
    if (streamed.ok()) streamed = writer.Commit();
  });
  fs::current_path(cwd);
  EXPECT_TRUE(whole.ok()) << whole.ToString();
  EXPECT_TRUE(streamed.ok()) << streamed.ToString();
  EXPECT_EQ(Slurp(P("captured")), "whole\nstreamed\n");
  EXPECT_EQ(Entries(), (std::vector<std::string>{"captured"}));  // no file named "-"
}

TEST_F(OutputTargetTest, StandardOutputThatIsAnInputIsRefused) {
  Spit("in.json", "input");
  Status check, other;
  WithStdoutInto(P("in.json"), O_APPEND, [&] {
    check = CheckOutputTarget(std::string(kStdout), {P("in.json")});
    other = CheckOutputTarget(std::string(kStdout), {P("other.json")});
  });
  EXPECT_EQ(check.kind(), ErrorKind::kUsage) << check.ToString();
  EXPECT_EQ(check.where(), "standard output");
  EXPECT_TRUE(other.ok()) << other.ToString();
  EXPECT_EQ(Slurp(P("in.json")), "input");
}

TEST(OutputNameTest, PlainNamesAreAccepted) {
  for (const char* name : {"llama", "Llama-3.1-8B_greedy", ".hidden", "a..b", "..x", "x y",
                           "\xe5\x90\x8d\xe5\x89\x8d"}) {
    EXPECT_TRUE(CheckOutputName(name, "--name").ok()) << name;
  }
  EXPECT_TRUE(CheckOutputName(std::string(200, 'n'), "--name").ok());
}

TEST(OutputNameTest, PathsAndControlCharactersAreRefused) {
  for (const std::string& name :
       {std::string(), std::string("."), std::string(".."), std::string("a/b"), std::string("../x"),
        std::string("/abs"), std::string("x/"), std::string("a\nb"), std::string("a\0b", 3),
        std::string("tab\t"), std::string("del\x7f"), std::string(201, 'n')}) {
    const Status s = CheckOutputName(name, "--name");
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_EQ(s.kind(), ErrorKind::kUsage);
    EXPECT_EQ(s.exit_code(), 2);
    EXPECT_EQ(s.message().rfind("--name must be a plain file name, got '", 0), 0u) << s.message();
    EXPECT_FALSE(s.hint().empty());
  }
  EXPECT_EQ(CheckOutputName("a\nb", "--name").message(),
            "--name must be a plain file name, got 'a\\x0ab'");
  EXPECT_EQ(CheckOutputName("../x", "--tag").message(),
            "--tag must be a plain file name, got '../x'");
}

TEST_F(OutputTargetTest, StreamOutputsAreRegularFilesOnly) {
  Spit("log", "one\n");
  auto fd = OpenStreamOutput(P("log"), /*append=*/true);
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  ASSERT_EQ(::write(*fd, "two\n", 4), 4);
  ::close(*fd);
  EXPECT_EQ(Slurp(P("log")), "one\ntwo\n");
  fd = OpenStreamOutput(P("log"), /*append=*/false);
  ASSERT_TRUE(fd.ok());
  ::close(*fd);
  EXPECT_EQ(Slurp(P("log")), "");
  fd = OpenStreamOutput(P("new.log"), /*append=*/true);
  ASSERT_TRUE(fd.ok());
  ::close(*fd);

  fs::create_symlink("log", dir_ / "link");
  fs::create_directory(dir_ / "d");
  ASSERT_EQ(::mkfifo(P("fifo").c_str(), 0600), 0);
  for (const auto& [path, what] : std::vector<std::pair<std::string, std::string>>{
           {P("link"), "refusing to write to a symlink (to log)"},
           {P("d"), "refusing to write to a directory"},
           {P("fifo"), "refusing to write to a FIFO"},
           {"/dev/null", "refusing to write to a character device"}}) {
    fd = OpenStreamOutput(path, true);
    ASSERT_FALSE(fd.ok()) << path;
    EXPECT_EQ(fd.status().kind(), ErrorKind::kIo);
    EXPECT_EQ(fd.status().message(), what);
  }
}

}  // namespace
}  // namespace decodeprof::base
