#include "src/base/file_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace decodeprof::base {
namespace {

TEST(FileIoTest, AtomicWriteThenRead) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("dp_file_io_" + std::to_string(::getpid()));
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
  std::filesystem::remove_all(dir);
}

TEST(FileIoTest, MissingFileIsAnIoError) {
  auto content = ReadFile("/nonexistent/decodeprof/file");
  ASSERT_FALSE(content.ok());
  EXPECT_EQ(content.status().kind(), ErrorKind::kIo);
  EXPECT_EQ(content.status().exit_code(), 66);
  EXPECT_EQ(content.status().where(), "/nonexistent/decodeprof/file");
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
  const auto dir =
      std::filesystem::temp_directory_path() / ("dp_atomic_writer_" + std::to_string(::getpid()));
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
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace decodeprof::base
