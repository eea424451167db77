#include "src/native_format/native_writer.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::native_format {
namespace {

std::string TempPath(const std::string& name) {
  return decodeprof::testing::ScratchDir("native_writer_") + "/" + name;
}

// Runs `sql` on `path` and returns the first column of the first row as text ("" if none).
std::string QueryText(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string result = "<open failed>";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    result = "<prepare failed>";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
      result.clear();
      if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr) {
        result = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      }
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return result;
}

TEST(NativeWriterTest, WritesEveryTableAndMarksComplete) {
  const std::string path = TempPath("trace.sqlite");
  auto writer = NativeWriter::Create(path, "monotonic", "test 1.0");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  NativeWriter& w = **writer;
  auto name = w.Intern("void gemm<float>(float*)");
  auto mangled = w.Intern("_Z4gemmIfEvPT_");
  auto again = w.Intern("void gemm<float>(float*)");
  ASSERT_TRUE(name.ok() && mangled.ok() && again.ok());
  EXPECT_EQ(*name, 1);
  EXPECT_EQ(*mangled, 2);
  EXPECT_EQ(*again, 1);

  KernelRow k;
  k.start_ns = 1000;
  k.end_ns = 2500;
  k.name = *name;
  k.mangled = *mangled;
  k.stream = 7;
  k.correlation = 42;
  k.grid[0] = 128;
  k.grid[1] = 2;
  k.grid[2] = 1;
  k.block[0] = 256;
  k.graph_node_id = 0xFFFFFFFFFFFFFFFFull;  // the full 64 bits survive the signed column
  ASSERT_TRUE(w.AddKernel(k).ok());
  MemoryOpRow m;
  m.kind = MemoryOpKind::kMemset;
  m.bytes = 4;
  m.start_ns = 3000;
  m.end_ns = 3100;
  ASSERT_TRUE(w.AddMemoryOp(m).ok());
  ApiCallRow api;
  api.name = *w.Intern("cudaLaunchKernel");
  api.start_ns = 900;
  api.end_ns = 990;
  api.thread = 1234;
  api.correlation = 42;
  ASSERT_TRUE(w.AddApiCall(api).ok());
  RangeRow r;
  r.name = *w.Intern("decodeprof:decode");
  r.domain = *w.Intern("");
  r.start_ns = 500;
  r.end_ns = 5000;
  r.depth = 0;
  ASSERT_TRUE(w.AddRange(r).ok());
  MarkRow mark;
  mark.name = *w.Intern("token");
  mark.time_ns = 777;
  ASSERT_TRUE(w.AddMark(mark).ok());
  DeviceRow dev;
  dev.name = "NVIDIA H200";
  dev.compute_major = 9;
  ASSERT_TRUE(w.AddDevice(dev).ok());
  ASSERT_TRUE(w.SetCounter(kCounterCuptiDropped, 3).ok());
  ASSERT_TRUE(w.SetCounter(kCounterCuptiDropped, 5).ok());  // replaces
  EXPECT_GT(w.pending_rows(), 0);
  ASSERT_TRUE(w.Close().ok());
  EXPECT_FALSE(w.AddMark(mark).ok());  // closed

  EXPECT_EQ(QueryText(path, "SELECT value FROM meta WHERE key='format'"), "decodeprof-native");
  EXPECT_EQ(QueryText(path, "SELECT value FROM meta WHERE key='format_version'"), "1");
  EXPECT_EQ(QueryText(path, "SELECT value FROM meta WHERE key='clock_domain'"), "monotonic");
  EXPECT_EQ(QueryText(path, "SELECT value FROM meta WHERE key='recorder'"), "test 1.0");
  EXPECT_EQ(QueryText(path, "SELECT value FROM meta WHERE key='complete'"), "1");
  EXPECT_EQ(QueryText(path,
                      "SELECT s.text || '|' || k.start_ns || '|' || k.end_ns || '|' || k.stream "
                      "|| '|' || (k.grid_x * k.grid_y) || '|' || k.graph_node_id FROM kernels k "
                      "JOIN strings s ON s.id = k.name_id"),
            "void gemm<float>(float*)|1000|2500|7|256|-1");
  EXPECT_EQ(QueryText(path, "SELECT kind || ':' || bytes FROM memory_ops"), "2:4");
  EXPECT_EQ(QueryText(path, "SELECT s.text FROM api_calls a JOIN strings s ON s.id=a.name_id"),
            "cudaLaunchKernel");
  EXPECT_EQ(QueryText(path, "SELECT start_ns || '-' || end_ns FROM ranges"), "500-5000");
  EXPECT_EQ(QueryText(path, "SELECT time_ns FROM marks"), "777");
  EXPECT_EQ(QueryText(path, "SELECT name FROM devices"), "NVIDIA H200");
  EXPECT_EQ(QueryText(path, "SELECT value FROM counters WHERE name='cupti_dropped_records'"), "5");
}

TEST(NativeWriterTest, ReplacesAnExistingFile) {
  const std::string path = TempPath("trace.sqlite");
  {
    auto first = NativeWriter::Create(path, "monotonic", "first");
    ASSERT_TRUE(first.ok());
    KernelRow k;
    ASSERT_TRUE((*first)->AddKernel(k).ok());
    ASSERT_TRUE((*first)->Close().ok());
  }
  auto second = NativeWriter::Create(path, "boottime", "second");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_TRUE((*second)->Close().ok());
  EXPECT_EQ(QueryText(path, "SELECT count(*) FROM kernels"), "0");
  EXPECT_EQ(QueryText(path, "SELECT value FROM meta WHERE key='recorder'"), "second");
}

TEST(NativeWriterTest, UnwritableDirectoryIsAnIoError) {
  auto writer = NativeWriter::Create("/nonexistent-dir/x/trace.sqlite", "monotonic", "t");
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.status().kind(), base::ErrorKind::kIo);
  EXPECT_NE(writer.status().where().find("/nonexistent-dir/x/trace.sqlite"), std::string::npos);
}

TEST(NativeWriterTest, SetMetaInFileAddsAndReplacesKeysOfAClosedFile) {
  const std::string path = TempPath("meta.sqlite");
  {
    auto writer = NativeWriter::Create(path, "monotonic", "t");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->SetMeta("peak_bandwidth_gbps", "1").ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  const base::Status status =
      SetMetaInFile(path, {{"peak_bandwidth_gbps", "4123.5"}, {"peak_bandwidth_device", "H200"}});
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(QueryText(path, "SELECT value FROM meta WHERE key='peak_bandwidth_gbps'"), "4123.5");
  EXPECT_EQ(QueryText(path, "SELECT value FROM meta WHERE key='peak_bandwidth_device'"), "H200");
  EXPECT_EQ(QueryText(path, "SELECT value FROM meta WHERE key='complete'"), "1");
}

TEST(NativeWriterTest, SetMetaInFileRefusesMissingAndForeignFiles) {
  base::Status status = SetMetaInFile(TempPath("absent.sqlite"), {{"k", "v"}});
  EXPECT_EQ(status.kind(), base::ErrorKind::kIo);
  EXPECT_FALSE(std::ifstream(TempPath("absent.sqlite")).good()) << "created a file";

  const std::string text = TempPath("text.sqlite");
  std::ofstream(text) << "not a database, just text that is long enough to have a header\n";
  status = SetMetaInFile(text, {{"k", "v"}});
  EXPECT_EQ(status.kind(), base::ErrorKind::kIo);
  EXPECT_EQ(status.where(), text);

  const std::string other = TempPath("other.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  status = SetMetaInFile(other, {{"k", "v"}});
  EXPECT_EQ(status.kind(), base::ErrorKind::kIo);
  EXPECT_NE(status.message().find("not a decodeprof native trace"), std::string::npos)
      << status.message();
}

// A writer killed with SIGKILL leaves every row up to its last commit readable, and the
// rows after it are rolled back (not half-written).
TEST(NativeWriterTest, SigkillKeepsEverythingUpToTheLastCommit) {
  const std::string path = TempPath("killed.sqlite");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto writer = NativeWriter::Create(path, "monotonic", "killed");
    if (!writer.ok()) ::_exit(3);
    KernelRow k;
    for (int i = 0; i < 1000; ++i) {
      k.start_ns = i;
      if (!(*writer)->AddKernel(k).ok()) ::_exit(4);
    }
    if (!(*writer)->Commit().ok()) ::_exit(5);
    // Enough uncommitted rows that SQLite spills pages into the file before the kill.
    for (int i = 0; i < 200000; ++i) {
      k.start_ns = -i;
      if (!(*writer)->AddKernel(k).ok()) ::_exit(6);
    }
    ::raise(SIGKILL);
    ::_exit(7);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_EQ(QueryText(path, "SELECT count(*) FROM kernels"), "1000");
  EXPECT_EQ(QueryText(path, "SELECT min(start_ns) FROM kernels"), "0");
  EXPECT_EQ(QueryText(path, "SELECT value FROM meta WHERE key='complete'"), "0");
  EXPECT_EQ(QueryText(path, "PRAGMA integrity_check"), "ok");
}

TEST(NativeWriterTest, DataLossCounters) {
  EXPECT_TRUE(IsDataLossCounter(kCounterCuptiDropped));
  EXPECT_TRUE(IsDataLossCounter(kCounterIncompleteKernels));
  EXPECT_FALSE(IsDataLossCounter(kCounterBufferPoolExhausted));
  EXPECT_FALSE(IsDataLossCounter(kCounterNvtxUnmatchedPops));
}

}  // namespace
}  // namespace decodeprof::native_format
