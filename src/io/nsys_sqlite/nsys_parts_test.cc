// The nsys importer's read in parts on threads (NsysReadOptions::read_in_parts, what a caller
// that keeps every record gets): the same dispatches, launch calls, names (and their interning
// order), counts and errors as one pass. Label `threads`: the tsan preset runs it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "src/io/nsys_sqlite/nsys_sqlite_importer.h"
#include "src/io/nsys_sqlite/testing/nsys_db_writer.h"
#include "src/trace/record_vector.h"
#include "tests/support/same_records.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::io {
namespace {

namespace fs = std::filesystem;
using nsys_testing::GlobalTid;
using nsys_testing::NsysDb;

class CollectSink : public trace::DispatchSink {
 public:
  void Add(const trace::Dispatch& d) override { dispatches.push_back(d); }
  trace::DispatchVector dispatches;
};

// Kernels in start order whose starts come in ties of three, memcpys, memsets and graph
// launches on the same starts (ties across tables at every possible part boundary), names in
// a scattered order, and a runtime and a driver call per kernel; with `second_process`, the
// last kernels and their calls come from another process.
NsysDb PartsRun(int kernels, bool second_process = false) {
  NsysDb db;
  db.gpus = {{0, "NVIDIA H200"}};
  for (int i = 0; i < kernels; ++i) {
    nsys_testing::Kernel k;
    k.start = 1'000 + int64_t{i / 3} * 100;
    k.end = k.start + 40 + (i * 7) % 30;
    k.stream = 7 + static_cast<int32_t>(i % 2);
    if (i % 11 != 0) k.correlation = static_cast<uint32_t>(i + 1);
    k.demangled = "kernel_" + std::to_string((i * 31) % 97);
    k.grid[0] = 1 + i % 5;
    db.kernels.push_back(k);
    nsys_testing::ApiCall call;
    call.start = k.start - 50;
    call.end = k.start - 40;
    call.name = i % 4 == 0 ? "cudaLaunchKernel_v7000" : "cudaGraphLaunch_v10000";
    call.global_tid = GlobalTid(100, 100 + static_cast<uint32_t>(i % 3));
    call.correlation = static_cast<uint32_t>(i + 1);
    call.driver = i % 9 == 0;
    if (i % 13 == 0) call.name = "cuLaunchKernel";
    if (second_process && i >= kernels - 50 && i % 2 == 0) {
      db.kernels.back().global_pid = nsys_testing::GlobalPid(200);
      call.global_tid = GlobalTid(200, 201);
    }
    db.api_calls.push_back(call);
    if (i % 5 == 0) {
      nsys_testing::MemoryOp op;
      op.memset = i % 15 == 0;
      op.start = k.start;
      op.end = k.start + 3;
      op.copy_kind = 1 + (i / 5) % 10;
      db.memory_ops.push_back(op);
    }
    // NVTX: a push/pop range around each launch call and one around every ten of them, a
    // start/end range now and then, registered and plain texts, a range left open and marks.
    nsys_testing::NvtxEvent op;
    op.start = call.start - 5;
    op.end = call.end + 5;
    op.text = "op_" + std::to_string((i * 13) % 41);
    op.registered = i % 3 == 0;
    op.global_tid = call.global_tid;
    db.nvtx.push_back(op);
    if (i % 10 == 0) {
      nsys_testing::NvtxEvent outer = op;
      outer.end = op.start + 10 * 100;
      outer.text = "model.layers." + std::to_string(i / 10) + ".mlp";
      db.nvtx.push_back(outer);
    }
    if (i % 97 == 0) {
      nsys_testing::NvtxEvent other = op;
      other.event_type = i % 2 == 0 ? 60 : 34;  // start/end; a mark (not a range)
      other.text = "phase " + std::to_string(i);
      if (i == 97 * 4) other.end.reset();  // never ended
      db.nvtx.push_back(other);
    }
    if (i % 40 == 0) {
      nsys_testing::GraphLaunch g;
      g.start = k.start;
      g.end = k.start + 20;
      g.graph_id = 1 + (i / 40) % 4;
      db.graphs.push_back(g);
    }
  }
  return db;
}

struct Read {
  base::Status status;
  NsysImport result;
  trace::DispatchVector dispatches;
  std::vector<trace::ApiCall> launches;
  std::vector<std::string> names;  // the pool, in id order
  int64_t graph_diagnostics = 0;
  std::vector<trace::Range> ranges;
  std::vector<std::string> diagnostics;  // every entry: code, count, first example
};

// One import of `path`, in parts of at least 100 rows when `in_parts`; with `in_place`, into
// sinks that give room (the window store's RecordVectors), which the parts fill in place.
// Otherwise one pass on the calling thread, or with `beside` a small window's import: the
// dispatches in spooled parts, the launch calls on threads of their own meanwhile.
Read ReadNsys(const std::string& path, bool in_parts, bool in_place = false, bool beside = false) {
  NsysReadOptions options;
  options.read_in_parts = in_parts;
  options.rows_per_part = 100;
  options.launches_on_calling_thread = !beside;
  options.spool_parts = beside;
  options.force_part_count = beside;
  trace::StringPool names;
  CollectSink sink;
  trace::RecordVector<trace::Dispatch, trace::DispatchSink> store;
  trace::TraceBuilder builder(names, in_place ? static_cast<trace::DispatchSink&>(store) : sink);
  trace::RecordVector<trace::ApiCall, trace::LaunchSink> calls;
  if (in_place) builder.set_launch_sink(&calls);
  Read out;
  auto imported = ImportNsysSqlite(path, builder, options);
  out.status = imported.status();
  if (imported.ok()) out.result = *imported;
  trace::ImportedTrace t = std::move(builder).Finish();
  out.dispatches = in_place ? std::move(store.records) : std::move(sink.dispatches);
  out.launches = in_place ? std::move(calls.records) : std::move(t.launches);
  for (trace::StringId id = 0; id < names.size(); ++id) out.names.emplace_back(names.Get(id));
  for (const auto& entry : t.diagnostics.entries()) {
    if (entry.code == trace::Diag::kGraphLevelTrace) out.graph_diagnostics += entry.count;
    out.diagnostics.push_back(std::string(trace::Describe(entry.code).name) + " " +
                              std::to_string(entry.count) + " " + entry.first.file + " " +
                              entry.first.position + " " + entry.first.detail);
  }
  out.ranges = std::move(t.ranges);
  return out;
}

void ExpectSame(const Read& one, const Read& parts) {
  ASSERT_TRUE(one.status.ok()) << one.status.ToString();
  ASSERT_TRUE(parts.status.ok()) << parts.status.ToString();
  ASSERT_EQ(parts.dispatches.size(), one.dispatches.size());
  for (size_t i = 0; i < one.dispatches.size(); ++i) {
    const trace::Dispatch& a = one.dispatches[i];
    const trace::Dispatch& b = parts.dispatches[i];
    ASSERT_EQ(std::tie(a.start, a.end, a.grid, a.correlation, a.name, a.line, a.stream, a.device),
              std::tie(b.start, b.end, b.grid, b.correlation, b.name, b.line, b.stream, b.device))
        << "dispatch " << i;
    ASSERT_EQ(a.kind, b.kind) << "dispatch " << i;
  }
  ASSERT_EQ(parts.launches.size(), one.launches.size());
  for (size_t i = 0; i < one.launches.size(); ++i) {
    const trace::ApiCall& a = one.launches[i];
    const trace::ApiCall& b = parts.launches[i];
    ASSERT_EQ(std::tie(a.name, a.start, a.end, a.thread, a.correlation),
              std::tie(b.name, b.start, b.end, b.thread, b.correlation))
        << "launch " << i;
  }
  EXPECT_EQ(parts.names, one.names);
  EXPECT_EQ(std::tie(parts.result.kernels, parts.result.memcpys, parts.result.memsets,
                     parts.result.graph_launches, parts.result.api_calls),
            std::tie(one.result.kernels, one.result.memcpys, one.result.memsets,
                     one.result.graph_launches, one.result.api_calls));
  EXPECT_EQ(parts.graph_diagnostics, one.graph_diagnostics);
  ASSERT_TRUE(decodeprof::testing::SameRanges(one.ranges, parts.ranges));
  EXPECT_EQ(std::tie(parts.result.ranges, parts.result.unended_ranges),
            std::tie(one.result.ranges, one.result.unended_ranges));
  EXPECT_EQ(parts.diagnostics, one.diagnostics);
}

class NsysPartsTest : public ::testing::Test {
 protected:
  std::string Write(const NsysDb& db, const std::string& name = "parts.sqlite") {
    const std::string path = (fs::path(temp_.path()) / name).string();
    const base::Status s = nsys_testing::WriteNsysDb(path, db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return path;
  }
  static void Exec(const std::string& path, const std::string& sql) {
    const base::Status s = nsys_testing::ExecSql(path, sql);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  decodeprof::testing::TempDir temp_{"dp_nsys_parts_"};
};

TEST_F(NsysPartsTest, DispatchesAndLaunchCallsReadInPartsAreTheOnePassOnes) {
  const std::string path = Write(PartsRun(3000));
  const Read one = ReadNsys(path, false);
  const Read parts = ReadNsys(path, true);
  ASSERT_EQ(one.dispatches.size(), size_t{3000 + 600 + 75});
  ExpectSame(one, parts);
  ExpectSame(one, ReadNsys(path, true, true));
  ExpectSame(one, ReadNsys(path, false, false, true));
  EXPECT_GT(one.graph_diagnostics, 1);
  // The names are interned in one order, whatever the threads' speeds.
  for (int run = 0; run < 3; ++run) {
    EXPECT_EQ(ReadNsys(path, true).names, one.names);
    EXPECT_EQ(ReadNsys(path, false, false, true).names, one.names);
  }
  // Launch calls missing (rowids with no row) and calls without a correlation: the pieces
  // read in place close up.
  Exec(path,
       "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE rowid % 7 = 3 OR rowid BETWEEN 900 "
       "AND 1300; UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = 0 WHERE rowid % 11 "
       "= 5");
  const Read gaps = ReadNsys(path, false);
  ASSERT_LT(gaps.launches.size(), one.launches.size());
  ExpectSame(gaps, ReadNsys(path, true));
  ExpectSame(gaps, ReadNsys(path, true, true));
  ExpectSame(gaps, ReadNsys(path, false, false, true));
}

// The NVTX ranges read on a thread of their own beside the dispatches: the ranges, names,
// counts and diagnostics of one pass (ExpectSame), and its errors.
TEST_F(NsysPartsTest, RangesReadBesideTheDispatchesAreTheOnePassOnes) {
  const std::string path = Write(PartsRun(3000));
  const Read one = ReadNsys(path, false);
  ASSERT_TRUE(one.status.ok()) << one.status.ToString();
  // Each launch's, every tenth's, and 16 start/end ranges of which one never ends.
  EXPECT_EQ(one.result.ranges, 3000 + 300 + 15);
  EXPECT_EQ(one.result.unended_ranges, 1);
  ExpectSame(one, ReadNsys(path, true));
  ExpectSame(one, ReadNsys(path, true, true));
  // A textId StringIds lacks; an end before its start: the same error, the same diagnostic.
  for (const std::string sql :
       {"UPDATE NVTX_EVENTS SET textId = 999999 WHERE rowid = 2000",
        "UPDATE NVTX_EVENTS SET end = start - 1 WHERE rowid = 2500",
        // Bad rows in two parts: the first in rowid order is the error.
        "UPDATE NVTX_EVENTS SET end = start - 1 WHERE rowid IN (2900, 450)"}) {
    const std::string broken = (fs::path(temp_.path()) / "broken.sqlite").string();
    fs::copy_file(path, broken, fs::copy_options::overwrite_existing);
    Exec(broken, sql);
    const Read a = ReadNsys(broken, false);
    const Read b = ReadNsys(broken, true);
    ASSERT_FALSE(a.status.ok()) << sql;
    EXPECT_EQ(b.status.ToString(), a.status.ToString()) << sql;
    EXPECT_EQ(b.diagnostics, a.diagnostics) << sql;
    if (sql.find("450") != std::string::npos) {
      EXPECT_NE(a.status.ToString().find("rowid 450"), std::string::npos) << a.status.ToString();
    }
  }
}

TEST_F(NsysPartsTest, ProcessesAreFoundInParts) {
  const std::string single = Write(PartsRun(3000), "single.sqlite");
  const Read one = ReadNsys(single, true);
  ASSERT_TRUE(one.status.ok()) << one.status.ToString();
  EXPECT_FALSE(one.result.per_process_correlation);
  const std::string two = Write(PartsRun(3000, true), "two.sqlite");
  const Read one_pass = ReadNsys(two, false);
  const Read parts = ReadNsys(two, true);
  EXPECT_TRUE(one_pass.result.per_process_correlation);
  EXPECT_TRUE(parts.result.per_process_correlation);
  ExpectSame(one_pass, parts);
  ExpectSame(one_pass, ReadNsys(two, true, true));
  ExpectSame(one_pass, ReadNsys(two, false, false, true));
}

TEST_F(NsysPartsTest, ATableOutOfStartOrderIsStillRight) {
  const std::string path = Write(PartsRun(3000));
  // Two kernels far apart swap their starts (the table is sorted then); a memcpy moves too.
  Exec(path,
       "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = start + 90000, end = end + 90000 WHERE "
       "rowid = 40; UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 1000, end = 1010 WHERE rowid = "
       "2900; UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET start = 1000, end = 1001 WHERE rowid = 500");
  ExpectSame(ReadNsys(path, false), ReadNsys(path, true));
  ExpectSame(ReadNsys(path, false), ReadNsys(path, true, true));
}

TEST_F(NsysPartsTest, TheFirstBadRowOfThePartsIsTheError) {
  const std::string path = Write(PartsRun(3000));
  // Bad rows in several parts and tables: the earliest in start order is the error.
  Exec(path, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = -1 WHERE rowid = 2950");
  Exec(path, "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET end = start - 1 WHERE rowid = 100");
  Exec(path, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 999999 WHERE rowid = 1800");
  const Read one = ReadNsys(path, false);
  const Read parts = ReadNsys(path, true);
  ASSERT_FALSE(one.status.ok());
  EXPECT_EQ(parts.status.ToString(), one.status.ToString());
  const Read in_place = ReadNsys(path, true, true);
  EXPECT_EQ(in_place.status.ToString(), one.status.ToString());
  // The launch calls read beside stop with the dispatches' error, never handed on.
  const Read beside = ReadNsys(path, false, false, true);
  EXPECT_EQ(beside.status.ToString(), one.status.ToString());
  EXPECT_EQ(beside.launches.size(), one.launches.size());
  EXPECT_EQ(beside.dispatches.size(), one.dispatches.size());
  // The rows before the bad one were handed on, as one pass hands them on.
  EXPECT_EQ(in_place.dispatches.size(), one.dispatches.size());
  EXPECT_NE(one.status.where().find("CUPTI_ACTIVITY_KIND_MEMCPY rowid 100"), std::string::npos);
  // A dangling name before the first bad row of its part is the error.
  Exec(path, "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET end = start + 1 WHERE rowid = 100");
  Exec(path,
       "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 4294967296, gridY = 4294967296 "
       "WHERE rowid = 1800");
  const Read dangling_one = ReadNsys(path, false);
  const Read dangling_parts = ReadNsys(path, true);
  ASSERT_FALSE(dangling_one.status.ok());
  EXPECT_EQ(dangling_parts.status.ToString(), dangling_one.status.ToString());
  EXPECT_EQ(ReadNsys(path, true, true).status.ToString(), dangling_one.status.ToString());
  EXPECT_NE(dangling_one.status.message().find("999999"), std::string::npos);
  // A bad launch call: the first in rowid order, after every dispatch is in.
  Exec(path,
       "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 0, demangledName = "
       "(SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = 1), gridX = 1, "
       "gridY = 1");
  Exec(path, "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = 999998 WHERE rowid = 2500");
  Exec(path, "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = start - 1 WHERE rowid = 1200");
  const Read launch_one = ReadNsys(path, false);
  const Read launch_parts = ReadNsys(path, true);
  ASSERT_FALSE(launch_one.status.ok());
  EXPECT_EQ(launch_parts.status.ToString(), launch_one.status.ToString());
  // Beside the dispatches: the same error, and the calls before the bad row handed on.
  const Read launch_beside = ReadNsys(path, false, false, true);
  EXPECT_EQ(launch_beside.status.ToString(), launch_one.status.ToString());
  EXPECT_EQ(launch_beside.launches.size(), launch_one.launches.size());
  EXPECT_GT(launch_one.launches.size(), 0u);
  EXPECT_NE(launch_one.status.where().find("rowid 1200"), std::string::npos);
  // A start that is not an integer: SQLite's sorted order, one pass.
  Exec(path, "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = start + 1");
  Exec(path,
       "CREATE TABLE k AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL; "
       "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; ALTER TABLE k RENAME TO CUPTI_ACTIVITY_KIND_KERNEL; "
       "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'late' WHERE rowid = 1500");
  const Read text_one = ReadNsys(path, false);
  const Read text_parts = ReadNsys(path, true);
  ASSERT_FALSE(text_one.status.ok());
  EXPECT_EQ(text_parts.status.ToString(), text_one.status.ToString());
}

}  // namespace
}  // namespace decodeprof::io
