#include "src/io/native/native_importer.h"

#include "src/io/common/sqlite_db.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "src/native_format/native_writer.h"
#include "tests/support/same_records.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::io {
namespace {

namespace nf = native_format;

std::string TempPath(const std::string& name) {
  return decodeprof::testing::ScratchDir("native_importer_") + "/" + name;
}

// Keeps every record; with `give_room`, gives an importer room to fill in place (as the
// pipeline's store of a whole-trace window does).
template <typename Record, typename Sink>
class Collect : public Sink {
 public:
  void Add(const Record& r) override { records.push_back(r); }
  std::span<Record> Room(size_t n) override {
    if (!give_room) return {};
    room_at = records.size();
    records.resize(room_at + n);
    ++rooms;
    return {records.data() + room_at, n};
  }
  void AddFilled(std::span<const Record> filled) override {
    EXPECT_EQ(filled.data(), records.data() + room_at);
    records.resize(room_at + filled.size());
  }
  std::conditional_t<std::is_same_v<Record, trace::Dispatch>, trace::DispatchVector,
                     std::vector<Record>>
      records;
  bool give_room = false;
  int rooms = 0;
  size_t room_at = 0;
};

class CollectSink : public Collect<trace::Dispatch, trace::DispatchSink> {
 public:
  trace::DispatchVector& dispatches = records;
};

void Exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
}

nf::KernelRow Kernel(nf::NativeWriter& w, const std::string& name, int64_t start, int64_t end) {
  nf::KernelRow k;
  k.name = *w.Intern(name);
  k.mangled = *w.Intern("_Z" + name);
  k.start_ns = start;
  k.end_ns = end;
  k.grid[0] = 4;
  k.grid[1] = 0;  // counts as 1
  k.grid[2] = 2;
  return k;
}

// A small complete trace: three kernels written out of start order, a memset, a memcpy, two
// nested ranges, a start/end range, a mark and two counters.
std::string WriteSample() {
  const std::string path = TempPath("sample.sqlite");
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  EXPECT_TRUE(writer.ok());
  nf::NativeWriter& w = **writer;
  EXPECT_TRUE(w.AddKernel(Kernel(w, "b", 300, 400)).ok());
  EXPECT_TRUE(w.AddKernel(Kernel(w, "a", 100, 200)).ok());
  EXPECT_TRUE(w.AddKernel(Kernel(w, "a", 300, 350)).ok());  // same start as "b": row id breaks
  nf::MemoryOpRow memset;
  memset.kind = nf::MemoryOpKind::kMemset;
  memset.start_ns = 150;
  memset.end_ns = 160;
  EXPECT_TRUE(w.AddMemoryOp(memset).ok());
  nf::MemoryOpRow memcpy;
  memcpy.kind = nf::MemoryOpKind::kMemcpy;
  memcpy.copy_kind = 2;
  memcpy.start_ns = 300;  // ties with kernels: kernels first
  memcpy.end_ns = 310;
  EXPECT_TRUE(w.AddMemoryOp(memcpy).ok());
  const auto domain = *w.Intern("");
  nf::RangeRow step{.start_ns = 250,
                    .end_ns = 450,
                    .name = *w.Intern("decodeprof:step"),
                    .domain = domain,
                    .thread = 11,
                    .depth = 1};
  nf::RangeRow decode{.start_ns = 50,
                      .end_ns = 500,
                      .name = *w.Intern("decodeprof:decode"),
                      .domain = domain,
                      .thread = 11,
                      .depth = 0};
  nf::RangeRow startend{.start_ns = 250,
                        .end_ns = 260,
                        .name = *w.Intern("io"),
                        .domain = *w.Intern("mydomain"),
                        .thread = 12,
                        .depth = -1,
                        .kind = nf::RangeKind::kStartEnd};
  EXPECT_TRUE(w.AddRange(step).ok());
  EXPECT_TRUE(w.AddRange(decode).ok());
  EXPECT_TRUE(w.AddRange(startend).ok());
  nf::MarkRow mark{.time_ns = 120, .name = *w.Intern("token"), .domain = domain, .thread = 11};
  EXPECT_TRUE(w.AddMark(mark).ok());
  nf::ApiCallRow api{.start_ns = 90, .end_ns = 95, .name = *w.Intern("cudaLaunchKernel")};
  EXPECT_TRUE(w.AddApiCall(api).ok());
  EXPECT_TRUE(w.SetCounter(nf::kCounterCuptiDropped, 2).ok());
  EXPECT_TRUE(w.SetCounter(nf::kCounterIncompleteKernels, 1).ok());
  EXPECT_TRUE(w.SetCounter(nf::kCounterNvtxUnmatchedPops, 5).ok());  // not data loss
  EXPECT_TRUE(w.SetMeta(nf::kMetaRecordingStatus, "ok").ok());
  EXPECT_TRUE(w.Close().ok());
  return path;
}

TEST(NativeImporterTest, StreamsKernelsInStartOrderAndReturnsTheRest) {
  const std::string path = WriteSample();
  trace::StringPool names;
  CollectSink sink;
  auto result = ImportNative(path, names, sink);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(sink.dispatches.size(), 3u);
  EXPECT_EQ(names.Get(sink.dispatches[0].name), "a");
  EXPECT_EQ(sink.dispatches[0].start, 100);
  EXPECT_EQ(names.Get(sink.dispatches[1].name), "b");  // start 300, row id 1
  EXPECT_EQ(names.Get(sink.dispatches[2].name), "a");  // start 300, row id 3
  EXPECT_EQ(sink.dispatches[2].end, 350);
  EXPECT_EQ(sink.dispatches[0].grid, 8);
  EXPECT_EQ(sink.dispatches[0].line, 1u);
  EXPECT_EQ(sink.dispatches[2].line, 3u);

  const NativeImport& n = *result;
  EXPECT_EQ(n.clock, trace::ClockDomain::kMonotonic);
  EXPECT_TRUE(n.complete);
  EXPECT_EQ(n.recording_status, "ok");
  EXPECT_EQ(n.kernels, 3);
  EXPECT_EQ(n.memory_ops, 2);
  EXPECT_EQ(n.api_calls, 1);
  EXPECT_EQ(n.dropped_records, 3);
  EXPECT_EQ(n.counters.at("nvtx_unmatched_pops"), 5);
  EXPECT_EQ(n.meta.at("recorder"), "test");
  ASSERT_EQ(n.ranges.size(), 3u);
  EXPECT_EQ(names.Get(n.ranges[0].name), "decodeprof:decode");
  EXPECT_EQ(n.ranges[0].depth, 0);
  EXPECT_EQ(names.Get(n.ranges[1].name), "io");  // start 250, depth -1 sorts first
  EXPECT_EQ(names.Get(n.ranges[1].domain), "mydomain");
  EXPECT_EQ(names.Get(n.ranges[2].name), "decodeprof:step");
  EXPECT_EQ(n.ranges[2].thread, 11u);
  EXPECT_EQ(n.ranges[2].end, 450);
  ASSERT_EQ(n.marks.size(), 1u);
  EXPECT_EQ(names.Get(n.marks[0].name), "token");
  EXPECT_EQ(n.marks[0].time, 120);
}

TEST(NativeImporterTest, MemoryOpsAsDispatchesWhenAskedFor) {
  const std::string path = WriteSample();
  trace::StringPool names;
  CollectSink sink;
  auto result = ImportNative(path, names, sink, {.memory_ops_as_dispatches = true});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(sink.dispatches.size(), 5u);
  EXPECT_EQ(names.Get(sink.dispatches[1].name), "[CUDA memset]");
  EXPECT_EQ(sink.dispatches[1].grid, 0);
  EXPECT_EQ(names.Get(sink.dispatches[4].name), "[CUDA memcpy Device-to-Host]");
  for (size_t i = 0; i < sink.dispatches.size(); ++i) {
    EXPECT_EQ(sink.dispatches[i].line, i + 1);
  }
}

// A file without the start-time indexes (a killed recording, or one written before them) is
// read in the same order, and the staged import (annotations, then the dispatches and only the
// launch calls kept) gives the same dispatches.
TEST(NativeImporterTest, SameOrderWithoutTheStartIndexesAndStaged) {
  const std::string path = WriteSample();
  trace::StringPool names;
  CollectSink indexed;
  ASSERT_TRUE(ImportNative(path, names, indexed, {.memory_ops_as_dispatches = true}).ok());
  Exec(path, "DROP INDEX kernels_by_start; DROP INDEX memory_ops_by_start;");
  CollectSink plain;
  ASSERT_TRUE(ImportNative(path, names, plain, {.memory_ops_as_dispatches = true}).ok());
  ASSERT_EQ(plain.dispatches.size(), indexed.dispatches.size());
  for (size_t i = 0; i < plain.dispatches.size(); ++i) {
    EXPECT_EQ(plain.dispatches[i].start, indexed.dispatches[i].start) << i;
    EXPECT_EQ(plain.dispatches[i].name, indexed.dispatches[i].name) << i;
    EXPECT_EQ(plain.dispatches[i].line, indexed.dispatches[i].line) << i;
  }

  Exec(path, "UPDATE api_calls SET correlation = 7 WHERE id = 1");
  const StagedImporter* staged = NativeImporter().staged();
  ASSERT_NE(staged, nullptr);
  trace::NullSink none;
  trace::TraceBuilder annotations(names, none);
  ASSERT_TRUE(staged->ImportAnnotations(path, annotations).ok());
  const trace::ImportedTrace info = std::move(annotations).Finish();
  EXPECT_EQ(info.ranges.size(), 3u);
  EXPECT_TRUE(info.launches.empty());
  EXPECT_EQ(info.kernels, 0);
  CollectSink streamed;
  trace::TraceBuilder dispatches(names, streamed);
  int asked = 0;
  ASSERT_TRUE(staged
                  ->ImportDispatches(path, dispatches,
                                     [&](uint64_t) {
                                       ++asked;
                                       return false;
                                     })
                  .ok());
  const trace::ImportedTrace rest = std::move(dispatches).Finish();
  EXPECT_EQ(streamed.dispatches.size(), indexed.dispatches.size());
  EXPECT_EQ(rest.kernels, 3);
  EXPECT_EQ(asked, 1);  // the one launch call, refused
  EXPECT_TRUE(rest.launches.empty());
}

// Kernels launched by API calls on two threads, one without a launch record, one with
// correlation 0, and a memcpy; written out of start order.
TEST(NativeImporterTest, ReturnsTheLaunchContextPerLine) {
  const std::string path = TempPath("launch.sqlite");
  {
    auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(writer.ok());
    nf::NativeWriter& w = **writer;
    const auto launch = *w.Intern("cudaLaunchKernel");
    auto kernel = [&](const std::string& name, int64_t start, uint32_t correlation) {
      nf::KernelRow k = Kernel(w, name, start, start + 10);
      k.correlation = correlation;
      EXPECT_TRUE(w.AddKernel(k).ok());
    };
    kernel("late", 500, 3);    // line 4
    kernel("early", 100, 1);   // line 1
    kernel("orphan", 200, 9);  // line 2: no API call has correlation 9
    kernel("uncorr", 300, 0);  // line 3: correlation 0 = none
    nf::MemoryOpRow copy;
    copy.kind = nf::MemoryOpKind::kMemcpy;
    copy.start_ns = 400;
    copy.end_ns = 410;
    copy.correlation = 2;
    EXPECT_TRUE(w.AddMemoryOp(copy).ok());
    auto api = [&](int64_t start, uint64_t thread, uint32_t correlation) {
      nf::ApiCallRow a{.start_ns = start,
                       .end_ns = start + 5,
                       .name = launch,
                       .thread = thread,
                       .correlation = correlation};
      EXPECT_TRUE(w.AddApiCall(a).ok());
    };
    api(90, 11, 1);
    api(95, 12, 2);
    api(480, 12, 3);
    api(470, 13, 3);  // a second call with the same correlation: the earliest wins
    api(50, 11, 0);   // correlation 0 matches nothing
    ASSERT_TRUE(w.Close().ok());
  }
  // Through the plug-in: memory operations are dispatches, launches are the model's table
  // and the join is the model's (trace::LaunchIndex).
  trace::StringPool names;
  CollectSink sink;
  trace::TraceBuilder builder(names, sink);
  ASSERT_TRUE(NativeImporter().Import(path, builder).ok());
  const trace::ImportedTrace t = std::move(builder).Finish();
  ASSERT_EQ(sink.dispatches.size(), 5u);
  EXPECT_EQ(names.Get(sink.dispatches[4].name), "late");
  EXPECT_EQ(sink.dispatches[3].kind, trace::DispatchKind::kMemcpy);
  EXPECT_EQ(t.kernels, 4);
  EXPECT_EQ(t.memory_ops, 1);
  ASSERT_EQ(t.launches.size(), 4u);  // the call with correlation 0 is not a launch
  const trace::LaunchIndex index(t.launches);
  const auto launch = [&](size_t i) { return index.Find(sink.dispatches[i].correlation); };
  ASSERT_NE(launch(0), nullptr);
  EXPECT_EQ(launch(0)->thread, 11u);
  EXPECT_EQ(launch(0)->start, 90);
  EXPECT_EQ(launch(1), nullptr);  // orphan
  EXPECT_EQ(launch(2), nullptr);  // correlation 0
  ASSERT_NE(launch(3), nullptr);  // the memcpy has its own launch
  EXPECT_EQ(launch(3)->thread, 12u);
  EXPECT_EQ(launch(3)->start, 95);
  ASSERT_NE(launch(4), nullptr);
  EXPECT_EQ(launch(4)->thread, 13u);  // the earliest of two calls with correlation 3
  EXPECT_EQ(launch(4)->start, 470);
  EXPECT_EQ(names.Get(launch(4)->name), "cudaLaunchKernel");
}

TEST(NativeImporterTest, NoLaunchContextWithoutApiCalls) {
  const std::string path = TempPath("noapi.sqlite");
  {
    auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(writer.ok());
    EXPECT_TRUE((*writer)->AddKernel(Kernel(**writer, "k", 10, 20)).ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  trace::StringPool names;
  CollectSink sink;
  auto result = ImportNative(path, names, sink);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(sink.dispatches.size(), 1u);
  EXPECT_EQ(result->api_calls, 0);
}

TEST(NativeImporterTest, ReadsAFileWhoseRecorderWasKilled) {
  const std::string path = TempPath("killed.sqlite");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto writer = nf::NativeWriter::Create(path, "monotonic", "killed");
    if (!writer.ok()) ::_exit(3);
    nf::NativeWriter& w = **writer;
    for (int i = 0; i < 100; ++i) (void)w.AddKernel(Kernel(w, "k", i, i + 1));
    if (!w.Commit().ok()) ::_exit(4);
    for (int i = 0; i < 200000; ++i) (void)w.AddKernel(Kernel(w, "late", i, i + 1));
    ::raise(SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(::access((path + "-journal").c_str(), F_OK), 0) << "expected a hot journal";
  trace::StringPool names;
  CollectSink sink;
  auto result = ImportNative(path, names, sink);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(result->complete);
  EXPECT_EQ(result->kernels, 100);
  EXPECT_EQ(sink.dispatches.size(), 100u);
}

TEST(NativeImporterTest, MissingFileIsAnIoError) {
  trace::StringPool names;
  CollectSink sink;
  auto result = ImportNative("/nonexistent/trace.sqlite", names, sink);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), base::ErrorKind::kIo);
  EXPECT_EQ(result.status().where(), "/nonexistent/trace.sqlite");
}

TEST(NativeImporterTest, GarbageIsADataError) {
  const std::string path = TempPath("garbage.sqlite");
  std::ofstream(path) << "this is not a database, just some text that is long enough\n";
  trace::StringPool names;
  CollectSink sink;
  auto result = ImportNative(path, names, sink);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), base::ErrorKind::kData);
  EXPECT_NE(result.status().message().find("not an SQLite database"), std::string::npos)
      << result.status().ToString();
}

TEST(NativeImporterTest, ForeignSqliteIsADataError) {
  const std::string path = TempPath("foreign.sqlite");
  Exec(path, "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER)");
  trace::StringPool names;
  CollectSink sink;
  auto result = ImportNative(path, names, sink);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), base::ErrorKind::kData);
  EXPECT_NE(result.status().message().find("not a decodeprof native trace"), std::string::npos);
}

TEST(NativeImporterTest, NewerVersionAndUnknownClockAreDataErrors) {
  {
    const std::string path = WriteSample();
    Exec(path, "UPDATE meta SET value='99' WHERE key='format_version'");
    trace::StringPool names;
    CollectSink sink;
    auto result = ImportNative(path, names, sink);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find("newer"), std::string::npos);
    EXPECT_EQ(result.status().hint(), "update decodeprof");
  }
  {
    const std::string path = WriteSample();
    Exec(path, "UPDATE meta SET value='tai' WHERE key='clock_domain'");
    trace::StringPool names;
    CollectSink sink;
    auto result = ImportNative(path, names, sink);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find("clock_domain 'tai'"), std::string::npos);
  }
  {
    const std::string path = WriteSample();
    Exec(path, "UPDATE meta SET value='unknown' WHERE key='clock_domain'");
    trace::StringPool names;
    CollectSink sink;
    auto result = ImportNative(path, names, sink);
    ASSERT_TRUE(result.ok());
    EXPECT_FALSE(result->clock.has_value());
  }
}

TEST(NativeImporterTest, RankOfAMultiProcessJob) {
  {
    const std::string path = WriteSample();
    trace::StringPool names;
    CollectSink sink;
    auto result = ImportNative(path, names, sink);
    ASSERT_TRUE(result.ok());
    EXPECT_FALSE(result->rank.has_value());  // files without the keys read as before
  }
  const auto with_meta = [](const std::string& rows) {
    const std::string path = WriteSample();
    Exec(path, "INSERT OR REPLACE INTO meta(key, value) VALUES " + rows);
    return path;
  };
  {
    const std::string path = with_meta(
        "('rank','1'),('world_size','2'),('local_rank','1'),('run_id','7:/t/x.sqlite'),"
        "('devices_used','1,3')");
    trace::StringPool names;
    CollectSink sink;
    auto result = ImportNative(path, names, sink);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    ASSERT_TRUE(result->rank.has_value());
    EXPECT_EQ(result->rank->rank, 1);
    EXPECT_EQ(result->rank->world_size, 2);
    EXPECT_EQ(result->rank->local_rank, 1);
    EXPECT_EQ(result->rank->run_id, "7:/t/x.sqlite");
    EXPECT_EQ(result->rank->devices_used, (std::vector<int32_t>{1, 3}));
  }
  for (const auto& [rows, message] : std::vector<std::pair<std::string, std::string>>{
           {"('rank','-1')", "meta rank is '-1', not an integer from 0"},
           {"('rank','2'),('world_size','2')", "meta rank 2 is not below world_size 2"},
           {"('rank','0'),('world_size','0')", "meta world_size is '0', not an integer from 1"},
           {"('rank','0'),('devices_used','0,,1')", "meta devices_used is '0,,1'"},
       }) {
    const std::string path = with_meta(rows);
    trace::StringPool names;
    CollectSink sink;
    auto result = ImportNative(path, names, sink);
    ASSERT_FALSE(result.ok()) << rows;
    EXPECT_EQ(result.status().exit_code(), 65);
    EXPECT_NE(result.status().message().find(message), std::string::npos)
        << result.status().message();
  }
}

TEST(NativeImporterTest, BadRowsNameTableAndId) {
  {
    const std::string path = WriteSample();
    Exec(path, "UPDATE kernels SET end_ns = 0 WHERE id = 2");
    trace::StringPool names;
    CollectSink sink;
    auto result = ImportNative(path, names, sink);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().kind(), base::ErrorKind::kData);
    EXPECT_EQ(result.status().where(), path + ": kernels id 2");
    EXPECT_NE(result.status().message().find("end before start"), std::string::npos);
  }
  {
    const std::string path = WriteSample();
    Exec(path, "UPDATE kernels SET name_id = 999 WHERE id = 1");
    trace::StringPool names;
    CollectSink sink;
    auto result = ImportNative(path, names, sink);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().where(), path + ": kernels id 1");
  }
  {
    // Found by tests/fuzz/native_fuzzer: a launch call ending before its start reached the
    // model (the nsys and Kineto importers refuse one).
    const std::string path = WriteSample();
    Exec(path, "UPDATE api_calls SET correlation = 7, end_ns = 80 WHERE id = 1");
    trace::StringPool names;
    CollectSink sink;
    auto result = ImportNative(path, names, sink);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().where(), path + ": api_calls id 1");
    EXPECT_EQ(result.status().message(), "end before start");
  }
  {
    // Found by tests/fuzz/native_fuzzer: the grid product overflowed int64 (UB).
    const std::string path = WriteSample();
    Exec(path, "UPDATE kernels SET grid_x = 4294967296, grid_y = 4294967296 WHERE id = 3");
    trace::StringPool names;
    CollectSink sink;
    auto result = ImportNative(path, names, sink);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().where(), path + ": kernels id 3");
    EXPECT_EQ(result.status().message(), "grid size does not fit in 64 bits");
  }
  {
    const std::string path = WriteSample();
    Exec(path, "DROP TABLE marks");
    trace::StringPool names;
    CollectSink sink;
    auto result = ImportNative(path, names, sink);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find("marks"), std::string::npos);
  }
}

// Launch calls are read on a second thread, in chunks, in step with the dispatches: a trace
// of several chunks of each gives every launch call in id order with its name, and the first
// bad row is the error whichever thread read it (dispatches first, as on one thread).
class LaunchCollector : public Collect<trace::ApiCall, trace::LaunchSink> {
 public:
  std::vector<trace::ApiCall>& calls = records;
};

std::string WriteManyLaunches(int kernels) {
  const std::string path = TempPath("many_launches.sqlite");
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  EXPECT_TRUE(writer.ok());
  nf::NativeWriter& w = **writer;
  const auto launch = *w.Intern("cudaLaunchKernel");
  const auto graph = *w.Intern("cudaGraphLaunch");
  for (int i = 0; i < kernels; ++i) {
    nf::KernelRow k =
        Kernel(w, i % 2 == 0 ? "even" : "odd", 1000 + 10 * int64_t{i}, 1005 + 10 * int64_t{i});
    k.correlation = static_cast<uint32_t>(i + 1);
    EXPECT_TRUE(w.AddKernel(k).ok());
    nf::ApiCallRow a{.start_ns = 990 + 10 * int64_t{i},
                     .end_ns = 995 + 10 * int64_t{i},
                     .name = i % 3 == 0 ? graph : launch,
                     .thread = static_cast<uint64_t>(i % 5),
                     .correlation = static_cast<uint32_t>(i + 1)};
    EXPECT_TRUE(w.AddApiCall(a).ok());
  }
  EXPECT_TRUE(w.Close().ok());
  return path;
}

base::Status ImportWithLaunches(const std::string& path, trace::StringPool& names,
                                CollectSink& sink, LaunchCollector& launches) {
  trace::TraceBuilder builder(names, sink);
  builder.set_launch_sink(&launches);
  return NativeImporter().Import(path, builder);
}

TEST(NativeImporterTest, LaunchCallsReadBesideTheDispatchesComeInIdOrder) {
  constexpr int kKernels = 70000;  // two chunks of each and a part
  const std::string path = WriteManyLaunches(kKernels);
  trace::StringPool names;
  CollectSink sink;
  LaunchCollector launches;
  ASSERT_TRUE(ImportWithLaunches(path, names, sink, launches).ok());
  ASSERT_EQ(sink.dispatches.size(), size_t{kKernels});
  ASSERT_EQ(launches.calls.size(), size_t{kKernels});
  for (int i = 0; i < kKernels; ++i) {
    const trace::ApiCall& call = launches.calls[static_cast<size_t>(i)];
    ASSERT_EQ(call.correlation, static_cast<uint64_t>(i + 1));
    ASSERT_EQ(call.start, 990 + 10 * int64_t{i});
    ASSERT_EQ(call.thread, static_cast<uint64_t>(i % 5));
    ASSERT_EQ(names.Get(call.name), i % 3 == 0 ? "cudaGraphLaunch" : "cudaLaunchKernel");
  }
  // The names are interned in one order, whatever the threads' speeds.
  for (int run = 0; run < 3; ++run) {
    trace::StringPool again;
    CollectSink s;
    LaunchCollector l;
    ASSERT_TRUE(ImportWithLaunches(path, again, s, l).ok());
    ASSERT_EQ(again.size(), names.size());
    for (trace::StringId id = 0; id < names.size(); ++id) EXPECT_EQ(again.Get(id), names.Get(id));
  }
}

struct Read {
  base::Status status;
  trace::DispatchVector dispatches;
  std::vector<trace::ApiCall> launches;
  std::vector<std::string> names;  // the pool, in id order
  std::vector<trace::Range> ranges;
};

// One import of `path`, in parts of 500 kernels when `in_parts`, into the sinks' room when
// `in_place`. Otherwise one pass on the calling thread, or with `spooled` the parts a caller
// that keeps a window gets (each into a spool of its own, replayed in order).
Read ReadNative(const std::string& path, bool in_parts, bool in_place = false,
                bool spooled = false) {
  NativeImportOptions options;
  options.memory_ops_as_dispatches = true;
  options.read_in_parts = in_parts;
  options.rows_per_part = 500;
  options.spool_parts = spooled;
  options.force_part_count = spooled;
  trace::StringPool names;
  CollectSink sink;
  LaunchCollector launches;
  sink.give_room = in_place;
  launches.give_room = in_place;
  trace::TraceBuilder builder(names, sink);
  builder.set_launch_sink(&launches);
  Read out;
  out.status = ImportNative(path, builder, options).status();
  if (in_place && out.status.ok()) {
    EXPECT_EQ(sink.rooms, 1);  // the parts were read in place
    EXPECT_EQ(launches.rooms, launches.records.empty() ? 0 : 1);
  }
  out.dispatches = std::move(sink.dispatches);
  out.launches = std::move(launches.calls);
  out.ranges = builder.trace().ranges;
  for (trace::StringId id = 0; id < names.size(); ++id) out.names.emplace_back(names.Get(id));
  return out;
}

void ExpectSameLaunches(const Read& one_read, const Read& parts_read) {
  ASSERT_TRUE(one_read.status.ok()) << one_read.status.message();
  ASSERT_TRUE(parts_read.status.ok()) << parts_read.status.message();
  const std::vector<trace::ApiCall>& one = one_read.launches;
  const std::vector<trace::ApiCall>& parts = parts_read.launches;
  ASSERT_EQ(parts.size(), one.size());
  for (size_t i = 0; i < one.size(); ++i) {
    ASSERT_EQ(std::tie(one[i].name, one[i].start, one[i].end, one[i].thread, one[i].correlation),
              std::tie(parts[i].name, parts[i].start, parts[i].end, parts[i].thread,
                       parts[i].correlation))
        << "launch call " << i;
  }
  EXPECT_EQ(parts_read.names, one_read.names);
}

TEST(NativeImporterTest, LaunchCallsReadInPartsAreTheOnePassOnes) {
  const std::string path = WriteManyLaunches(4000);
  const Read one_read = ReadNative(path, false);
  ASSERT_EQ(one_read.launches.size(), size_t{4000});
  ExpectSameLaunches(one_read, ReadNative(path, true));
  ExpectSameLaunches(one_read, ReadNative(path, true, true));
  // Spooled dispatch parts take the launch reader's chunks in step: the same names, in order.
  ExpectSameLaunches(one_read, ReadNative(path, false, false, true));
  // Ids missing and calls without correlation, in several parts: the parts' calls close up.
  Exec(path, "DELETE FROM api_calls WHERE id % 7 = 3 OR id BETWEEN 1000 AND 1600");
  Exec(path, "UPDATE api_calls SET correlation = 0 WHERE id % 11 = 5 OR id > 3800");
  const Read gaps = ReadNative(path, false);
  ASSERT_LT(gaps.launches.size(), size_t{2900});
  ExpectSameLaunches(gaps, ReadNative(path, true));
  ExpectSameLaunches(gaps, ReadNative(path, true, true));
  // The first bad launch call of the parts, in id order, is the error.
  Exec(path, "UPDATE api_calls SET end_ns = 1 WHERE id IN (3900, 1700)");
  for (const bool in_place : {false, true}) {
    const Read bad = ReadNative(path, true, in_place);
    ASSERT_FALSE(bad.status.ok());
    EXPECT_EQ(bad.status.where(), path + ": api_calls id 1700");
  }
}

TEST(NativeImporterTest, ABadLaunchRowOnTheSecondThreadIsTheError) {
  const std::string path = WriteManyLaunches(70000);
  Exec(path, "UPDATE api_calls SET end_ns = 1 WHERE id = 60000");
  Exec(path, "UPDATE api_calls SET name_id = 99999 WHERE id = 65000");
  trace::StringPool names;
  CollectSink sink;
  LaunchCollector launches;
  const base::Status status = ImportWithLaunches(path, names, sink, launches);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.where(), path + ": api_calls id 60000");
  EXPECT_EQ(status.message(), "end before start");
  // A bad name before it is the first error.
  Exec(path, "UPDATE api_calls SET name_id = 99999 WHERE id = 40000");
  const base::Status name = ImportWithLaunches(path, names, sink, launches);
  EXPECT_EQ(name.where(), path + ": api_calls id 40000");
  EXPECT_EQ(name.message(), "name_id is not in table strings");
  // A bad dispatch is the error before any launch call's (the dispatches are read first).
  Exec(path, "UPDATE kernels SET end_ns = 0 WHERE id = 69000");
  const base::Status kernel = ImportWithLaunches(path, names, sink, launches);
  EXPECT_EQ(kernel.where(), path + ": kernels id 69000");
}

// A caller that keeps every dispatch gets them read in start-time parts on several threads:
// the same dispatches in the same order, numbered alike, names interned alike, and the first
// bad row in start order is the error.
std::string WriteShuffled(int kernels) {
  const std::string path = TempPath("shuffled.sqlite");
  auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
  EXPECT_TRUE(writer.ok());
  nf::NativeWriter& w = **writer;
  for (int i = 0; i < kernels; ++i) {
    // Out of start order, with ties (every start three times), names in a scattered order.
    const int64_t start = 1000 + 7 * int64_t{(i * 7919) % kernels / 3};
    nf::KernelRow k = Kernel(w, "k" + std::to_string((i * 31) % 97), start, start + 5);
    k.correlation = static_cast<uint32_t>(i + 1);
    EXPECT_TRUE(w.AddKernel(k).ok());
    if (i % 50 == 0) {
      nf::MemoryOpRow op;
      op.kind = i % 100 == 0 ? nf::MemoryOpKind::kMemset : nf::MemoryOpKind::kMemcpy;
      op.copy_kind = 1;
      op.start_ns = start;  // ties with kernels: kernels first
      op.end_ns = start + 3;
      EXPECT_TRUE(w.AddMemoryOp(op).ok());
    }
  }
  EXPECT_TRUE(w.Close().ok());
  return path;
}

TEST(NativeImporterTest, DispatchesReadInPartsAreTheOnePassOnes) {
  const std::string path = WriteShuffled(4000);  // 8 parts of 500
  const Read one = ReadNative(path, false);
  for (const int mode : {0, 1, 2}) {  // in parts, in place, spooled
    const Read parts =
        mode == 2 ? ReadNative(path, false, false, true) : ReadNative(path, true, mode == 1);
    ASSERT_TRUE(one.status.ok()) << one.status.message();
    ASSERT_TRUE(parts.status.ok()) << parts.status.message();
    ASSERT_EQ(one.dispatches.size(), size_t{4080});
    ASSERT_EQ(parts.dispatches.size(), one.dispatches.size());
    for (size_t i = 0; i < one.dispatches.size(); ++i) {
      const trace::Dispatch& a = one.dispatches[i];
      const trace::Dispatch& b = parts.dispatches[i];
      ASSERT_EQ(std::tie(a.start, a.end, a.grid, a.correlation, a.name, a.line, a.stream, a.device),
                std::tie(b.start, b.end, b.grid, b.correlation, b.name, b.line, b.stream, b.device))
          << "dispatch " << i;
      ASSERT_EQ(a.kind, b.kind);
    }
    EXPECT_EQ(parts.names, one.names);
  }
}

TEST(NativeImporterTest, TheFirstBadRowOfThePartsIsTheError) {
  const std::string path = WriteShuffled(4000);
  // Two bad rows in different parts: the earlier in start order is the error.
  Exec(path, "UPDATE kernels SET device = -1 WHERE start_ns = (SELECT max(start_ns) FROM kernels)");
  Exec(path,
       "UPDATE kernels SET stream = -1 WHERE id = (SELECT id FROM kernels ORDER BY "
       "start_ns, id LIMIT 1 OFFSET 2100)");
  const Read one = ReadNative(path, false);
  ASSERT_FALSE(one.status.ok());
  for (const int mode : {0, 1, 2}) {  // in parts, in place, spooled
    const Read parts =
        mode == 2 ? ReadNative(path, false, false, true) : ReadNative(path, true, mode == 1);
    EXPECT_EQ(parts.status.where(), one.status.where());
    EXPECT_EQ(parts.status.message(), one.status.message());
    // The rows before the bad one were handed on, as one pass hands them on.
    if (mode == 2) {
      EXPECT_EQ(parts.dispatches.size(), one.dispatches.size());
    }
  }
  EXPECT_NE(one.status.message().find("stream"), std::string::npos);
  // A start that is not a number sorts after every number: the last part finds it.
  Exec(path, "UPDATE kernels SET stream = 0, device = 0");
  Exec(path, "UPDATE kernels SET start_ns = 'soon' WHERE id = 17");
  const Read text_one = ReadNative(path, false);
  const Read text_parts = ReadNative(path, true);
  ASSERT_FALSE(text_one.status.ok());
  EXPECT_EQ(text_parts.status.where(), text_one.status.where());
  EXPECT_EQ(text_parts.status.message(), text_one.status.message());
  const Read text_spooled = ReadNative(path, false, false, true);
  EXPECT_EQ(text_spooled.status.where(), text_one.status.where());
  EXPECT_EQ(text_spooled.status.message(), text_one.status.message());
}

// The ranges of a caller that keeps every record are read in id parts on threads, each part
// sorted, then merged: the ranges, their order and the names' interning order of one ordered
// read; and its error where a row is bad.
TEST(NativeImporterTest, RangesReadInPartsAreTheOnePassOnes) {
  const std::string path = TempPath("ranges.sqlite");
  {
    auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(writer.ok());
    nf::NativeWriter& w = **writer;
    const auto domain = *w.Intern("");
    for (int i = 0; i < 4000; ++i) {
      nf::KernelRow k = Kernel(w, "k" + std::to_string(i % 7), 1000 + 10 * i, 1005 + 10 * i);
      ASSERT_TRUE(w.AddKernel(k).ok());
      // Written in end order (an inner range before the one around it, as pops come), with
      // ties of start and of start and depth, on three threads, names in a scattered order.
      const int64_t at = 1000 + 10 * int64_t{(i * 7919) % 4000};
      nf::RangeRow inner{.start_ns = at,
                         .end_ns = at + 4,
                         .name = *w.Intern("op_" + std::to_string((i * 31) % 53)),
                         .domain = domain,
                         .thread = static_cast<uint64_t>(7 + i % 3),
                         .depth = 1 + i % 2};
      nf::RangeRow outer = inner;
      outer.end_ns = at + 8;
      outer.depth = 0;
      outer.name = *w.Intern("model.layers." + std::to_string(i % 29));
      ASSERT_TRUE(w.AddRange(inner).ok());
      ASSERT_TRUE(w.AddRange(outer).ok());
    }
    ASSERT_TRUE(w.Close().ok());
  }
  const Read one = ReadNative(path, false);
  const Read parts = ReadNative(path, true);
  ASSERT_TRUE(one.status.ok()) << one.status.message();
  ASSERT_TRUE(parts.status.ok()) << parts.status.message();
  ASSERT_EQ(one.ranges.size(), size_t{8000});
  ASSERT_TRUE(decodeprof::testing::SameRanges(one.ranges, parts.ranges));
  EXPECT_TRUE(std::is_sorted(one.ranges.begin(), one.ranges.end(),
                             [](const trace::Range& a, const trace::Range& b) {
                               return std::tie(a.start, a.depth) < std::tie(b.start, b.depth);
                             }));
  EXPECT_EQ(parts.names, one.names);
  // Two bad rows in different parts: the first in the ordered read's order is the error.
  Exec(path, "UPDATE ranges SET end_ns = 0 WHERE id IN (7001, 1201)");
  const Read bad_one = ReadNative(path, false);
  const Read bad_parts = ReadNative(path, true);
  ASSERT_FALSE(bad_one.status.ok());
  EXPECT_EQ(bad_parts.status.where(), bad_one.status.where());
  EXPECT_EQ(bad_parts.status.message(), bad_one.status.message());
}

TEST(NativeImporterTest, DataLossCountersBeyondInt64Saturate) {
  // Found by tests/fuzz/native_fuzzer: the sum of the data-loss counters overflowed (UB).
  const std::string path = WriteSample();  // cupti_dropped_records 2, incomplete_kernel_records 1
  Exec(path,
       "UPDATE counters SET value = 9223372036854775807 WHERE name = "
       "'cupti_dropped_records'");
  trace::StringPool names;
  CollectSink sink;
  auto result = ImportNative(path, names, sink);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->dropped_records, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(result->counters.at("cupti_dropped_records"), std::numeric_limits<int64_t>::max());
}

TEST(NativeImporterTest, SniffsSqliteMagic) {
  EXPECT_TRUE(LooksLikeSqlite(std::string_view("SQLite format 3\0rest", 20)));
  EXPECT_FALSE(LooksLikeSqlite("Kind,Agent_Id,Queue_Id"));
  EXPECT_FALSE(LooksLikeSqlite(""));
}

}  // namespace
}  // namespace decodeprof::io

namespace decodeprof::io {
namespace {

TEST(NativeImporterDemangleTest, AKernelNameLeftMangledIsDemangled) {
  const std::string path = TempPath("mangled.sqlite");
  {
    auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
    ASSERT_TRUE(writer.ok());
    nf::NativeWriter& w = **writer;
    nf::KernelRow k;
    k.name = k.mangled = *w.Intern("_ZN7cutlass13device_kernelIiEEvT_");
    k.start_ns = 1;
    k.end_ns = 2;
    ASSERT_TRUE(w.AddKernel(k).ok());
    k.name = k.mangled = *w.Intern("_Z_not_a_valid_mangling");
    ASSERT_TRUE(w.AddKernel(k).ok());
    ASSERT_TRUE(w.Close().ok());
  }
  trace::StringPool names;
  CollectSink sink;
  ASSERT_TRUE(ImportNative(path, names, sink).ok());
  ASSERT_EQ(sink.dispatches.size(), 2u);
  EXPECT_EQ(names.Get(sink.dispatches[0].name), "void cutlass::device_kernel<int>(int)");
  EXPECT_EQ(names.Get(sink.dispatches[1].name), "_Z_not_a_valid_mangling");  // kept as is
}

}  // namespace
}  // namespace decodeprof::io
