// The rocpd importer's read of the dispatches in parts on threads
// (RocpdReadOptions::read_in_parts, what a caller that keeps every record gets): the same
// dispatches, names (and their interning order), counts and errors as one pass. Label
// `threads`: the tsan preset runs it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "src/io/rocpd/rocpd_importer.h"
#include "src/io/rocpd/testing/rocpd_db_writer.h"
#include "src/trace/record_vector.h"
#include "tests/support/same_records.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::io {
namespace {

namespace fs = std::filesystem;
namespace rt = rocpd_testing;

class CollectSink : public trace::DispatchSink {
 public:
  void Add(const trace::Dispatch& d) override { dispatches.push_back(d); }
  trace::DispatchVector dispatches;
};

// Kernels in start order whose starts come in ties of three, copies on the same starts (ties
// across tables at every possible part boundary), names in a scattered order (some renamed),
// and a launch call per kernel; with `second_process`, some of the last kernels come from
// another process.
rt::RocpdDb PartsRun(int kernels, bool second_process = false) {
  rt::RocpdDb db;
  for (int i = 0; i < kernels; ++i) {
    rt::KernelDispatch k;
    k.start = 1'000 + int64_t{i / 3} * 100;
    k.end = k.start + 40 + (i * 7) % 30;
    k.queue_id = 1 + i % 2;
    k.display_name = "kernel_" + std::to_string((i * 31) % 97);
    k.kernel_name = "_Z6kernelv.kd";
    if (i % 17 == 0) k.region_name = "renamed_" + std::to_string(i % 5);
    k.grid[0] = 64 * (1 + i % 5);
    if (i % 11 != 0) k.correlation = 2 * i + 1;
    if (second_process && i >= kernels - 50 && i % 2 == 0) {
      k.pid = rt::kPid + 1;
      k.tid = rt::kPid + 1;
    }
    db.kernels.push_back(k);
    if (i % 5 == 0) {
      rt::MemoryCopy c;
      c.start = k.start;
      c.end = k.start + 3;
      c.operation = i % 10 == 0 ? "MEMORY_COPY_HOST_TO_DEVICE" : "MEMORY_COPY_DEVICE_TO_HOST";
      c.correlation = 100'000 + i;
      db.copies.push_back(c);
    }
    if (i % 3 == 0) {
      db.regions.push_back(rt::HipCall(2 * i + 1, i % 9 == 0 ? "hipLaunchKernel" : "hipMemsetAsync",
                                       k.start - 50, k.start - 40));
    }
    // roctx ranges, marks and a marker operation that is neither, among the calls.
    if (i % 50 == 0) {
      db.regions.push_back(
          rt::ThreadRange(2 * i + 2, "step " + std::to_string(i / 150), k.start, k.start + 500));
    }
    if (i % 70 == 0 && i % 50 != 0) {
      rt::Region r = rt::ThreadRange(2 * i + 2, "", k.start, k.start);
      r.name = i % 140 == 0 ? "roctxMarkA" : "roctxNameOsThread";
      r.message = "mark " + std::to_string(i % 3);
      db.regions.push_back(r);
    }
  }
  return db;
}

struct Read {
  base::Status status;
  RocpdImport result;
  trace::DispatchVector dispatches;
  std::vector<trace::ApiCall> launches;
  std::vector<trace::Range> ranges;
  std::string skipped;             // events_skipped: count and first example
  std::vector<std::string> names;  // the pool, in id order
  int64_t dangling_diagnostics = 0;
};

// One import of `path`, in parts of at least 100 rows when `in_parts`; with `in_place`, into
// sinks that give room (the window store's RecordVectors), which the parts fill in place.
// Otherwise one pass on the calling thread, or with `beside` a small window's import: the
// dispatches in spooled parts, the regions on a thread of their own meanwhile.
Read ReadRocpd(const std::string& path, bool in_parts, bool in_place = false, bool beside = false) {
  RocpdReadOptions options;
  options.read_in_parts = in_parts;
  options.rows_per_part = 100;
  options.regions_on_calling_thread = !beside;
  options.spool_parts = beside;
  options.force_part_count = beside;
  trace::StringPool names;
  CollectSink sink;
  trace::RecordVector<trace::Dispatch, trace::DispatchSink> store;
  trace::RecordVector<trace::ApiCall, trace::LaunchSink> launch_store;
  trace::TraceBuilder builder(names, in_place ? static_cast<trace::DispatchSink&>(store) : sink);
  if (in_place) builder.set_launch_sink(&launch_store);
  Read out;
  auto imported = ImportRocpd(path, builder, options);
  out.status = imported.status();
  if (imported.ok()) out.result = *imported;
  trace::ImportedTrace t = std::move(builder).Finish();
  out.dispatches = in_place ? std::move(store.records) : std::move(sink.dispatches);
  out.launches = in_place ? std::move(launch_store.records) : std::move(t.launches);
  out.ranges = std::move(t.ranges);
  for (const auto& entry : t.diagnostics.entries()) {
    if (entry.code == trace::Diag::kEventsSkipped) {
      out.skipped =
          std::to_string(entry.count) + " " + entry.first.position + " " + entry.first.detail;
    }
  }
  for (trace::StringId id = 0; id < names.size(); ++id) out.names.emplace_back(names.Get(id));
  out.dangling_diagnostics = t.diagnostics.count(trace::Diag::kDanglingStringId);
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
  ASSERT_TRUE(decodeprof::testing::SameRanges(one.ranges, parts.ranges));
  EXPECT_EQ(parts.skipped, one.skipped);
  EXPECT_EQ(parts.names, one.names);
  EXPECT_EQ(std::tie(parts.result.kernels, parts.result.memory_copies, parts.result.api_calls),
            std::tie(one.result.kernels, one.result.memory_copies, one.result.api_calls));
  EXPECT_EQ(std::tie(parts.result.ranges, parts.result.marks, parts.result.events_skipped),
            std::tie(one.result.ranges, one.result.marks, one.result.events_skipped));
}

class RocpdPartsTest : public ::testing::Test {
 protected:
  std::string Write(const rt::RocpdDb& db, const std::string& name = "parts.db") {
    const std::string path = (fs::path(temp_.path()) / name).string();
    const base::Status s = rt::WriteRocpdDb(path, db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return path;
  }
  static void Exec(const std::string& path, const std::string& sql) {
    const base::Status s = rt::ExecSql(path, sql);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // The table behind a view.
  static std::string T(const std::string& view) {
    return "`" + view + rt::TableSuffix(rt::kDefaultGuid) + "`";
  }

  decodeprof::testing::TempDir temp_{"dp_rocpd_parts_"};
};

TEST_F(RocpdPartsTest, DispatchesReadInPartsAreTheOnePassOnes) {
  const std::string path = Write(PartsRun(3000));
  const Read one = ReadRocpd(path, false);
  const Read parts = ReadRocpd(path, true);
  ASSERT_EQ(one.dispatches.size(), size_t{3000 + 600});
  ExpectSame(one, parts);
  ExpectSame(one, ReadRocpd(path, true, true));
  ExpectSame(one, ReadRocpd(path, false, false, true));
  // The names are interned in one order, whatever the threads' speeds.
  for (int run = 0; run < 3; ++run) {
    EXPECT_EQ(ReadRocpd(path, true).names, one.names);
    EXPECT_EQ(ReadRocpd(path, false, false, true).names, one.names);
  }
}

TEST_F(RocpdPartsTest, RegionIdsARunRepeatsAreReadAsOnePassReadsThem) {
  // A view over several runs repeats ids: the parts of the first ids meet more rows than ids
  // (each row there eight times), the others do not, and the calls leave the launch sink's
  // room; the same rows as one pass (each repeated row a copy).
  const std::string path = Write(PartsRun(3000));
  Exec(path, "DROP VIEW rocpd_region; CREATE VIEW rocpd_region AS SELECT * FROM " +
                 T("rocpd_region") + " UNION ALL SELECT R.* FROM " + T("rocpd_region") +
                 " R, (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION "
                 "ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7) WHERE R.id < 2000");
  const Read one = ReadRocpd(path, false);
  ASSERT_TRUE(one.status.ok()) << one.status.ToString();
  ASSERT_GT(one.result.api_calls, 3000);
  ExpectSame(one, ReadRocpd(path, true));
  ExpectSame(one, ReadRocpd(path, true, true));
  ExpectSame(one, ReadRocpd(path, false, false, true));
}

TEST_F(RocpdPartsTest, ProcessesAreFoundInParts) {
  const Read single = ReadRocpd(Write(PartsRun(3000), "single.db"), true);
  ASSERT_TRUE(single.status.ok()) << single.status.ToString();
  EXPECT_FALSE(single.result.per_process_correlation);
  const std::string two = Write(PartsRun(3000, true), "two.db");
  const Read one = ReadRocpd(two, false);
  const Read parts = ReadRocpd(two, true);
  EXPECT_TRUE(one.result.per_process_correlation);
  EXPECT_TRUE(parts.result.per_process_correlation);
  ExpectSame(one, parts);
  ExpectSame(one, ReadRocpd(two, true, true));
  // An empty table of copies: the others are still read in parts.
  rt::RocpdDb no_copies = PartsRun(3000, true);
  no_copies.copies.clear();
  const std::string path = Write(no_copies, "no_copies.db");
  const Read parts_without = ReadRocpd(path, true);
  EXPECT_TRUE(parts_without.result.per_process_correlation);
  ExpectSame(ReadRocpd(path, false), parts_without);
}

TEST_F(RocpdPartsTest, ATableOutOfStartOrderIsStillRight) {
  const std::string path = Write(PartsRun(3000));
  Exec(path, "UPDATE " + T("rocpd_kernel_dispatch") +
                 " SET start = start + 90000, \"end\" = \"end\" + 90000 WHERE id = 40; UPDATE " +
                 T("rocpd_memory_copy") + " SET start = 1000, \"end\" = 1001 WHERE id = 500");
  ExpectSame(ReadRocpd(path, false), ReadRocpd(path, true));
  ExpectSame(ReadRocpd(path, false), ReadRocpd(path, true, true));
}

TEST_F(RocpdPartsTest, TheFirstBadRowOfThePartsIsTheError) {
  const std::string path = Write(PartsRun(3000));
  // Bad rows in several parts and tables: the earliest in start order is the error.
  Exec(path, "UPDATE " + T("rocpd_kernel_dispatch") + " SET agent_id = 99 WHERE id = 2950");
  Exec(path, "UPDATE " + T("rocpd_memory_copy") + " SET \"end\" = start - 1 WHERE id = 100");
  Exec(path,
       "UPDATE " + T("rocpd_kernel_dispatch") + " SET region_name_id = 999999 WHERE id = 1800");
  const Read one = ReadRocpd(path, false);
  const Read parts = ReadRocpd(path, true);
  ASSERT_FALSE(one.status.ok());
  EXPECT_EQ(parts.status.ToString(), one.status.ToString());
  const Read in_place = ReadRocpd(path, true, true);
  EXPECT_EQ(in_place.status.ToString(), one.status.ToString());
  // The regions read beside stop with the dispatches' error, and are never handed on.
  const Read beside = ReadRocpd(path, false, false, true);
  EXPECT_EQ(beside.status.ToString(), one.status.ToString());
  EXPECT_EQ(beside.launches.size(), one.launches.size());
  EXPECT_EQ(beside.dispatches.size(), one.dispatches.size());
  // The rows before the bad one were handed on, as one pass hands them on.
  EXPECT_EQ(in_place.dispatches.size(), one.dispatches.size());
  EXPECT_NE(one.status.where().find("rocpd_memory_copy id 100"), std::string::npos);
  // A string id that is not in rocpd_string: the error, and counted alike.
  Exec(path, "UPDATE " + T("rocpd_memory_copy") + " SET \"end\" = start + 1 WHERE id = 100");
  const Read dangling_one = ReadRocpd(path, false);
  const Read dangling_parts = ReadRocpd(path, true);
  ASSERT_FALSE(dangling_one.status.ok());
  EXPECT_EQ(dangling_parts.status.ToString(), dangling_one.status.ToString());
  EXPECT_NE(dangling_one.status.message().find("999999"), std::string::npos);
  EXPECT_EQ(dangling_one.dangling_diagnostics, 1);
  EXPECT_EQ(dangling_parts.dangling_diagnostics, 1);
  const Read dangling_in_place = ReadRocpd(path, true, true);
  EXPECT_EQ(dangling_in_place.status.ToString(), dangling_one.status.ToString());
  EXPECT_EQ(dangling_in_place.dangling_diagnostics, 1);
  // Bad regions (read in id parts, after every dispatch): the first in id order is the error.
  Exec(path, "UPDATE " + T("rocpd_kernel_dispatch") +
                 " SET region_name_id = NULL WHERE id = 1800; UPDATE " +
                 T("rocpd_kernel_dispatch") + " SET agent_id = 1 WHERE id = 2950");
  Exec(path, "UPDATE " + T("rocpd_region") + " SET name_id = 999998 WHERE id = 4801");
  Exec(path, "UPDATE " + T("rocpd_region") + " SET \"end\" = start - 1 WHERE id = 5401");
  const Read region_one = ReadRocpd(path, false);
  const Read region_parts = ReadRocpd(path, true);
  ASSERT_FALSE(region_one.status.ok());
  EXPECT_EQ(region_parts.status.ToString(), region_one.status.ToString());
  EXPECT_NE(region_one.status.message().find("999998"), std::string::npos);
  EXPECT_EQ(region_parts.dangling_diagnostics, region_one.dangling_diagnostics);
  // Beside the dispatches: the same error, and the calls before the bad row handed on.
  const Read region_beside = ReadRocpd(path, false, false, true);
  EXPECT_EQ(region_beside.status.ToString(), region_one.status.ToString());
  EXPECT_EQ(region_beside.dangling_diagnostics, region_one.dangling_diagnostics);
  EXPECT_EQ(region_beside.launches.size(), region_one.launches.size());
  EXPECT_GT(region_one.launches.size(), 0u);
  Exec(path, "UPDATE " + T("rocpd_region") + " SET name_id = (SELECT name_id FROM " +
                 T("rocpd_region") + " WHERE id = 1) WHERE id = 4801");
  const Read end_one = ReadRocpd(path, false);
  const Read end_parts = ReadRocpd(path, true);
  ASSERT_FALSE(end_one.status.ok());
  EXPECT_EQ(end_parts.status.ToString(), end_one.status.ToString());
  EXPECT_EQ(ReadRocpd(path, false, false, true).status.ToString(), end_one.status.ToString());
  EXPECT_NE(end_one.status.where().find("rocpd_region id 5401"), std::string::npos);
  Exec(path, "UPDATE " + T("rocpd_region") + " SET \"end\" = start + 1 WHERE id = 5401");
  // A start that is not an integer: SQLite's sorted order, one pass.
  Exec(path, "UPDATE " + T("rocpd_kernel_dispatch") +
                 " SET region_name_id = NULL WHERE id = 1800; UPDATE " +
                 T("rocpd_kernel_dispatch") + " SET agent_id = 1 WHERE id = 2950");
  ExpectSame(ReadRocpd(path, false), ReadRocpd(path, true));
  Exec(path, "UPDATE " + T("rocpd_kernel_dispatch") + " SET start = 'late' WHERE id = 1500");
  const Read text_one = ReadRocpd(path, false);
  const Read text_parts = ReadRocpd(path, true);
  ASSERT_FALSE(text_one.status.ok());
  EXPECT_EQ(text_parts.status.ToString(), text_one.status.ToString());
}

}  // namespace
}  // namespace decodeprof::io
