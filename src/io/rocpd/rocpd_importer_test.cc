#include "src/io/rocpd/rocpd_importer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "src/io/common/file_probe.h"
#include "src/io/importer_registry.h"
#include "src/io/nsys_sqlite/testing/nsys_db_writer.h"
#include "src/io/rocpd/testing/rocpd_db_writer.h"
#include "src/native_format/native_writer.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::io {
namespace {

namespace fs = std::filesystem;
namespace rt = rocpd_testing;

constexpr int64_t kWorker = 4243;
// CLOCK_BOOTTIME about 5 days after boot.
constexpr int64_t kT = 432'000'000'000'000;

class CollectSink : public trace::DispatchSink {
 public:
  void Add(const trace::Dispatch& d) override { dispatches.push_back(d); }
  trace::DispatchVector dispatches;
};

struct Imported {
  base::Status status;
  RocpdImport result;
  trace::ImportedTrace trace;
  trace::DispatchVector dispatches;
  trace::StringPool names;

  std::string Name(trace::StringId id) const { return std::string(names.Get(id)); }
};

std::unique_ptr<Imported> Import(const std::string& path) {
  auto out = std::make_unique<Imported>();
  CollectSink sink;
  trace::TraceBuilder builder(out->names, sink);
  auto r = ImportRocpd(path, builder);
  out->status = r.status();
  if (r.ok()) out->result = *r;
  out->trace = std::move(builder).Finish();
  out->dispatches = std::move(sink.dispatches);
  return out;
}

rt::KernelDispatch Kernel(std::string display, int64_t start, int64_t end,
                          std::optional<int64_t> correlation) {
  rt::KernelDispatch k;
  k.display_name = std::move(display);
  k.kernel_name = "_Z6kernelv.kd";
  k.start = kT + start;
  k.end = kT + end;
  k.correlation = correlation;
  return k;
}

// A small run: kernels (one named only by its symbol, one renamed by --kernel-rename, one
// without an event), two memory copies, HIP and HSA calls on two threads, roctx ranges
// (nested push/pop, a start/stop range, a range on the worker), a mark, a profiler-control
// marker and an API call that took no time (a sample).
rt::RocpdDb SmallRun() {
  rt::RocpdDb db;
  rt::KernelDispatch k1 = Kernel("void gemv<float>(float*)", 1'000, 1'500, 11);
  k1.grid[0] = 64;
  k1.grid[1] = 0;  // counts as 1
  k1.grid[2] = 2;
  rt::KernelDispatch k2 = Kernel("", 3'000, 3'200, 13);
  k2.kernel_name = "_Z3addiPfS_.kd";
  k2.queue_id = 2;
  rt::KernelDispatch k3 = Kernel("rms_norm_kernel", 2'000, 2'600, std::nullopt);
  rt::KernelDispatch k4 = Kernel("softmax_kernel", 4'000, 4'100, 16);
  k4.region_name = "layer.softmax";
  db.kernels = {k1, k2, k3, k4};

  rt::MemoryCopy d2h;
  d2h.start = kT + 2'600;
  d2h.end = kT + 2'700;
  d2h.correlation = 14;
  rt::MemoryCopy h2d;
  h2d.operation = "MEMORY_COPY_HOST_TO_DEVICE";
  h2d.src_agent_id = 0;
  h2d.dst_agent_id = 1;
  h2d.start = kT + 1'000;
  h2d.end = kT + 1'100;
  h2d.queue_id = 5;
  h2d.stream_id = 3;
  h2d.correlation = 12;
  db.copies = {d2h, h2d};

  db.regions = {
      rt::ThreadRange(1, "decodeprof:decode", kT + 500, kT + 5'000),
      rt::ThreadRange(2, "decodeprof:step", kT + 600, kT + 2'000),
      rt::ProcessRange(3, "async", kT + 700, kT + 3'000),
      rt::HipCall(11, "hipLaunchKernel", kT + 900, kT + 950),
      rt::HipCall(12, "hipMemcpyAsync", kT + 960, kT + 990),
      rt::ThreadRange(4, "worker", kT + 1'000, kT + 1'200, kWorker),
      rt::ThreadRange(5, "decodeprof:step", kT + 2'000, kT + 4'500),
      rt::ThreadRange(6, "inner", kT + 2'100, kT + 2'200),
      rt::HipCall(14, "hipMemcpyAsync", kT + 2'500, kT + 2'550),
      rt::HipCall(13, "hipModuleLaunchKernel", kT + 2'900, kT + 2'950, kWorker),
      rt::HipCall(16, "hipLaunchKernel", kT + 3'900, kT + 3'950),
      rt::HipCall(17, "hsa_signal_wait_scacquire", kT + 4'200, kT + 4'300),
  };
  db.regions.back().category = "HSA_CORE_API";
  rt::Region pause = rt::ThreadRange(18, "", kT + 4'400, kT + 4'410);
  pause.name = "roctxProfilerPause";
  pause.category = "MARKER_CONTROL_API";
  pause.message.reset();
  db.regions.push_back(pause);
  rt::Sample tick;
  tick.id = 20;
  tick.timestamp = kT + 2'150;
  tick.message = "tick";
  rt::Sample quick;
  quick.id = 21;
  quick.timestamp = kT + 4'600;
  quick.category = "HIP_RUNTIME_API_EXT";
  db.samples = {tick, quick};
  return db;
}

class RocpdImporterTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }

  std::string Write(const rt::RocpdDb& db, const std::string& name = "run_results.db") {
    const std::string path = (dir_ / name).string();
    const base::Status s = rt::WriteRocpdDb(path, db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return path;
  }
  // The uuid-suffixed table behind view `view` (for damaging a file).
  static std::string T(const std::string& view) {
    return "\"" + view + rt::TableSuffix(rt::kDefaultGuid) + "\"";
  }
  // Runs `sql` on a fresh SmallRun file and imports it: the import must fail with kData at
  // "<path>: <where>".
  void ExpectRowError(const std::string& sql, const std::string& where, const std::string& message,
                      const rt::RocpdDb& db = SmallRun()) {
    SCOPED_TRACE(sql);
    const std::string path = Write(db);
    const base::Status s = rt::ExecSql(path, sql);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const auto t = Import(path);
    ASSERT_FALSE(t->status.ok());
    EXPECT_EQ(t->status.kind(), base::ErrorKind::kData);
    EXPECT_EQ(t->status.exit_code(), 65);
    EXPECT_EQ(t->status.where(), path + ": " + where);
    EXPECT_EQ(t->status.message(), message);
  }

  decodeprof::testing::TempDir temp_{"dp_rocpd_"};
  fs::path dir_;
};

TEST_F(RocpdImporterTest, ReadsKernelsMemoryCopiesLaunchesAndRanges) {
  const auto t = Import(Write(SmallRun()));
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();

  // Dispatches in start order; the kernel before the copy of the same start.
  const auto& d = t->dispatches;
  ASSERT_EQ(d.size(), 6u);
  const std::vector<std::string> names = {"void gemv<float>(float*)", "[HIP memcpy Host-to-Device]",
                                          "rms_norm_kernel",          "[HIP memcpy Device-to-Host]",
                                          "add(int, float*, float*)", "layer.softmax"};
  const std::vector<trace::DispatchKind> kinds = {
      trace::DispatchKind::kKernel, trace::DispatchKind::kMemcpy, trace::DispatchKind::kKernel,
      trace::DispatchKind::kMemcpy, trace::DispatchKind::kKernel, trace::DispatchKind::kKernel};
  const std::vector<int64_t> starts = {1'000, 1'000, 2'000, 2'600, 3'000, 4'000};
  const std::vector<uint64_t> correlations = {11, 12, 0, 14, 13, 16};
  // Kernels: the queue; copies: the queue where present, else the HIP stream.
  const std::vector<uint32_t> streams = {1, 5, 1, 0, 2, 1};
  const std::vector<int64_t> grids = {128, 0, 256, 0, 256, 256};
  for (size_t i = 0; i < d.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(t->Name(d[i].name), names[i]);
    EXPECT_EQ(d[i].kind, kinds[i]);
    EXPECT_EQ(d[i].start, kT + starts[i]);
    EXPECT_EQ(d[i].line, i + 1);
    EXPECT_EQ(d[i].correlation, correlations[i]);
    EXPECT_EQ(d[i].stream, streams[i]);
    EXPECT_EQ(d[i].device, 1);  // the GPU's logical index; copies: their GPU end
    EXPECT_EQ(d[i].grid, grids[i]);
  }
  EXPECT_EQ(d[0].end, kT + 1'500);
  EXPECT_EQ(t->result.kernels, 4);
  EXPECT_EQ(t->result.memory_copies, 2);
  EXPECT_EQ(t->trace.kernels, 4);
  EXPECT_EQ(t->trace.memory_ops, 2);
  EXPECT_EQ(t->trace.dispatches_per_device.size(), 1u);
  EXPECT_TRUE(t->trace.has_grid);

  // Launch calls: every non-marker region, with its thread and its event's stack_id.
  const auto& l = t->trace.launches;
  ASSERT_EQ(l.size(), 6u);
  EXPECT_EQ(t->result.api_calls, 6);
  EXPECT_EQ(t->Name(l[0].name), "hipLaunchKernel");
  EXPECT_EQ(l[0].start, kT + 900);
  EXPECT_EQ(l[0].end, kT + 950);
  EXPECT_EQ(l[0].thread, uint64_t{rt::kPid});
  EXPECT_EQ(l[0].correlation, 11u);
  const trace::LaunchIndex index(l);
  ASSERT_NE(index.Find(d[4].correlation), nullptr);
  EXPECT_EQ(t->Name(index.Find(d[4].correlation)->name), "hipModuleLaunchKernel");
  EXPECT_EQ(index.Find(d[4].correlation)->thread, uint64_t{kWorker});
  ASSERT_NE(index.Find(d[3].correlation), nullptr);
  EXPECT_EQ(t->Name(index.Find(d[3].correlation)->name), "hipMemcpyAsync");
  EXPECT_EQ(t->Name(l.back().name), "hsa_signal_wait_scacquire");

  // Ranges by start, then depth: messages as names; the start/stop range does not nest; the
  // mark nests inside the ranges open around it.
  struct Expect {
    const char* name;
    int64_t start;
    int64_t end;
    int32_t depth;
    int64_t thread;
  };
  const std::vector<Expect> ranges = {{"decodeprof:decode", 500, 5'000, 0, rt::kPid},
                                      {"decodeprof:step", 600, 2'000, 1, rt::kPid},
                                      {"async", 700, 3'000, -1, rt::kPid},
                                      {"worker", 1'000, 1'200, 0, kWorker},
                                      {"decodeprof:step", 2'000, 4'500, 1, rt::kPid},
                                      {"inner", 2'100, 2'200, 2, rt::kPid},
                                      {"tick", 2'150, 2'150, 3, rt::kPid}};
  ASSERT_EQ(t->trace.ranges.size(), ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    SCOPED_TRACE(i);
    const trace::Range& r = t->trace.ranges[i];
    EXPECT_EQ(t->Name(r.name), ranges[i].name);
    EXPECT_EQ(r.start, kT + ranges[i].start);
    EXPECT_EQ(r.end, kT + ranges[i].end);
    EXPECT_EQ(r.depth, ranges[i].depth);
    EXPECT_EQ(r.thread, static_cast<uint64_t>(ranges[i].thread));
  }
  EXPECT_EQ(t->result.ranges, 6);
  EXPECT_EQ(t->result.marks, 1);
  const trace::Diagnostics& diag = t->trace.diagnostics;
  EXPECT_EQ(diag.count(trace::Diag::kEventsSkipped), 2);  // the pause and the quick call
  EXPECT_EQ(t->result.events_skipped, 2);
  EXPECT_EQ(diag.count(trace::Diag::kDanglingStringId), 0);
  EXPECT_EQ(diag.count(trace::Diag::kSchemaVariant), 0);
  EXPECT_FALSE(diag.has_error());

  // Devices (the GPU agents), meta and the clock.
  ASSERT_EQ(t->trace.devices.size(), 1u);
  EXPECT_EQ(t->trace.devices[0].id, 1);
  EXPECT_EQ(t->trace.devices[0].name, "AMD Radeon 8060S");
  EXPECT_EQ(t->trace.meta.at("rocpd_schema_version"), "3");
  EXPECT_EQ(t->trace.meta.at("rocpd_guid"), rt::kDefaultGuid);
  EXPECT_EQ(t->result.schema_version, "3");
  ASSERT_TRUE(t->trace.clock.has_value());
  EXPECT_EQ(*t->trace.clock, trace::ClockDomain::kBoottime);
  EXPECT_FALSE(t->result.per_process_correlation);
}

TEST_F(RocpdImporterTest, IsRegisteredWithItsDescriptor) {
  const Importer* importer = FindImporter("rocpd");
  ASSERT_NE(importer, nullptr);
  EXPECT_EQ(importer, &RocpdImporter());
  EXPECT_EQ(importer->default_pack(), "mlx-rocm");
  EXPECT_TRUE(importer->carries_ranges());
  EXPECT_EQ(importer->position_word(), "record");
  EXPECT_NE(FormatChoices().find("|rocpd|"), std::string::npos);
}

TEST_F(RocpdImporterTest, RecognizesRocpdAndOldRpdButNotNsysOrNativeFiles) {
  const Importer& rocpd = RocpdImporter();
  const std::string sqlite("SQLite format 3\0......", 22);
  using R = Recognition;
  EXPECT_EQ(rocpd.Recognize(FileProbe("a", sqlite, {"rocpd_event", "rocpd_kernel_dispatch"})),
            R::kYes);
  EXPECT_EQ(rocpd.Recognize(FileProbe(
                "a", sqlite, {"rocpd_kernel_dispatch_0198a1b2_c3d4_7e5f_8a9b_0c1d2e3f4a5b"})),
            R::kYes);
  EXPECT_EQ(rocpd.Recognize(FileProbe("a", sqlite, {"api", "rocpd_api", "rocpd_op"})), R::kYes);
  EXPECT_EQ(rocpd.Recognize(FileProbe("a", sqlite, {"rocpd_metadata", "rocpd_string"})), R::kNo);
  EXPECT_EQ(rocpd.Recognize(FileProbe("a", sqlite, {"StringIds", "CUPTI_ACTIVITY_KIND_KERNEL"})),
            R::kNo);
  EXPECT_EQ(rocpd.Recognize(FileProbe("a", sqlite, {"kernels", "meta", "strings"})), R::kNo);
  EXPECT_EQ(rocpd.Recognize(FileProbe("a", "\"Kind\",\"Kernel_Name\"\n")), R::kNo);

  // Through the registry, on real files: rocpd with and without its views, an old RPD file,
  // and the other SQLite formats, which are not taken for rocpd.
  auto resolve = [](const std::string& path) {
    auto r = ResolveImporter(path, "auto");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::string((*r)->name()) : std::string();
  };
  EXPECT_EQ(resolve(Write(SmallRun())), "rocpd");
  rt::RocpdDb tables_only = SmallRun();
  tables_only.views = false;
  EXPECT_EQ(resolve(Write(tables_only, "tables.db")), "rocpd");
  const std::string old = (dir_ / "old.rpd").string();
  ASSERT_TRUE(rt::WriteOldRpdDb(old).ok());
  EXPECT_EQ(resolve(old), "rocpd");

  const std::string nsys = (dir_ / "nsys.sqlite").string();
  nsys_testing::NsysDb ndb;
  nsys_testing::Kernel nk;
  nk.start = 1;
  nk.end = 2;
  nk.demangled = "k";
  ndb.kernels = {nk};
  ASSERT_TRUE(nsys_testing::WriteNsysDb(nsys, ndb).ok());
  EXPECT_EQ(resolve(nsys), "nsys-sqlite");
  auto nsys_probe = FileProbe::Open(nsys);
  ASSERT_TRUE(nsys_probe.ok());
  EXPECT_EQ(rocpd.Recognize(*nsys_probe), R::kNo);

  const std::string native = (dir_ / "native.sqlite").string();
  {
    auto w = native_format::NativeWriter::Create(native, "monotonic", "test");
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  EXPECT_EQ(resolve(native), "native");
  auto native_probe = FileProbe::Open(native);
  ASSERT_TRUE(native_probe.ok());
  EXPECT_EQ(rocpd.Recognize(*native_probe), R::kNo);
}

TEST_F(RocpdImporterTest, AnOldRocmProfileDataFileIsRefusedWithWhatToDo) {
  const std::string path = (dir_ / "trace.rpd").string();
  ASSERT_TRUE(rt::WriteOldRpdDb(path).ok());
  const auto t = Import(path);
  ASSERT_FALSE(t->status.ok());
  EXPECT_EQ(t->status.kind(), base::ErrorKind::kData);
  EXPECT_EQ(t->status.exit_code(), 65);
  EXPECT_EQ(t->status.where(), path);
  EXPECT_EQ(t->status.message(),
            "an old rocmProfileData (RPD) database (tables rocpd_api, rocpd_op), not rocprofv3's "
            "rocpd");
  EXPECT_NE(t->status.hint().find("re-record with rocprofv3 of ROCm 7.0 or later"),
            std::string::npos)
      << t->status.hint();
  EXPECT_NE(t->status.hint().find("--output-format rocpd"), std::string::npos);
  EXPECT_TRUE(t->dispatches.empty());
}

TEST_F(RocpdImporterTest, ReadsTheTablesWhenThePlainViewsAreMissing) {
  rt::RocpdDb db = SmallRun();
  db.views = false;
  const auto t = Import(Write(db));
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  EXPECT_EQ(t->dispatches.size(), 6u);
  EXPECT_EQ(t->trace.ranges.size(), 7u);
  EXPECT_EQ(t->trace.launches.size(), 6u);
  ASSERT_EQ(t->result.schema_variants.size(), 1u);
  EXPECT_EQ(t->result.schema_variants[0].rfind("no plain view for rocpd_metadata, rocpd_string", 0),
            0u)
      << t->result.schema_variants[0];
  EXPECT_NE(t->result.schema_variants[0].find(rt::TableSuffix(rt::kDefaultGuid)),
            std::string::npos);
  EXPECT_EQ(t->trace.diagnostics.count(trace::Diag::kSchemaVariant), 1);
}

TEST_F(RocpdImporterTest, SchemaVersionsOtherThanThree) {
  rt::RocpdDb db = SmallRun();
  db.schema_version = "3.0.2";
  auto t = Import(Write(db, "v302.db"));
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  EXPECT_TRUE(t->result.schema_variants.empty());

  db.metadata = false;
  t = Import(Write(db, "nometa.db"));
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  EXPECT_EQ(t->result.schema_variants,
            std::vector<std::string>{"no schema_version in rocpd_metadata (read as schema 3)"});

  db.metadata = true;
  db.schema_version = "4.1.0";
  const std::string v4 = Write(db, "v4.db");
  t = Import(v4);
  ASSERT_FALSE(t->status.ok());
  EXPECT_EQ(t->status.where(), v4);
  EXPECT_EQ(t->status.message(),
            "a rocpd database of schema version 4 (rocpd_metadata schema_version 4.1.0)");

  // A v4-shaped region table labelled "3" (B3).
  db.schema_version = "3";
  const std::string shaped = Write(db, "shaped.db");
  ASSERT_TRUE(
      rt::ExecSql(shaped, "ALTER TABLE " + T("rocpd_region") + " ADD COLUMN track_id").ok());
  t = Import(shaped);
  EXPECT_EQ(t->status.message(),
            "a rocpd database of schema version 4 (rocpd_region has a track_id column)");
}

TEST_F(RocpdImporterTest, OtherFilesAreRefusedWithTheirReason) {
  const std::string text = (dir_ / "notes.txt").string();
  std::ofstream(text) << "hello, this is not a database at all\n";
  auto t = Import(text);
  EXPECT_EQ(t->status.message(), "not an SQLite database");
  EXPECT_EQ(t->status.exit_code(), 65);

  const std::string full = Write(SmallRun());
  const std::string truncated = (dir_ / "truncated.db").string();
  {
    std::ifstream in(full, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 3);
  }
  t = Import(truncated);
  ASSERT_FALSE(t->status.ok());
  EXPECT_EQ(t->status.kind(), base::ErrorKind::kData);
  EXPECT_EQ(t->status.where(), truncated);
  EXPECT_NE(t->status.message().find("cut short"), std::string::npos) << t->status.message();

  const std::string other = Write(SmallRun(), "other.db");
  ASSERT_TRUE(rt::ExecSql(other, "DROP VIEW rocpd_kernel_dispatch; DROP TABLE " +
                                     T("rocpd_kernel_dispatch"))
                  .ok());
  t = Import(other);
  EXPECT_EQ(t->status.message(), "not a rocpd database (no table or view rocpd_kernel_dispatch)");

  const std::string no_events = Write(SmallRun(), "noevents.db");
  ASSERT_TRUE(rt::ExecSql(no_events, "DROP VIEW rocpd_event").ok());
  ASSERT_TRUE(rt::ExecSql(no_events, "ALTER TABLE " + T("rocpd_event") + " RENAME TO gone").ok());
  t = Import(no_events);
  EXPECT_EQ(t->status.message(), "no table or view rocpd_event");

  const std::string no_column = Write(SmallRun(), "nocolumn.db");
  ASSERT_TRUE(rt::ExecSql(no_column, "DROP VIEW rocpd_kernel_dispatch; ALTER TABLE " +
                                         T("rocpd_kernel_dispatch") +
                                         " DROP COLUMN grid_size_y; CREATE VIEW "
                                         "rocpd_kernel_dispatch AS SELECT * FROM " +
                                         T("rocpd_kernel_dispatch"))
                  .ok());
  t = Import(no_column);
  EXPECT_EQ(t->status.where(), no_column);
  EXPECT_EQ(t->status.message(), "table rocpd_kernel_dispatch has no column grid_size_y");

  t = Import((dir_ / "missing.db").string());
  EXPECT_EQ(t->status.exit_code(), 66);
}

TEST_F(RocpdImporterTest, SeveralRunsWithoutViewsAreAnError) {
  rt::RocpdDb db = SmallRun();
  db.views = false;
  const std::string path = Write(db);
  const std::string other = T("rocpd_kernel_dispatch");
  ASSERT_TRUE(rt::ExecSql(path,
                          "CREATE TABLE rocpd_kernel_dispatch_0198a1b2_c3d4_7e5f_8a9b_"
                          "ffffffffffff AS SELECT * FROM " +
                              other)
                  .ok());
  const auto t = Import(path);
  ASSERT_FALSE(t->status.ok());
  EXPECT_EQ(t->status.message().rfind("several runs in one file (tables rocpd_kernel_dispatch_", 0),
            0u)
      << t->status.message();
}

// Each table is read in its own start order and merged: ties go to kernels, then id, whether
// a table's rows lie in start order in the file or not.
TEST_F(RocpdImporterTest, DispatchesOfBothTablesMergeInStartTableAndIdOrder) {
  for (const bool copies_in_order : {true, false}) {
    SCOPED_TRACE(copies_in_order);
    rt::RocpdDb db = SmallRun();
    db.kernels.clear();
    for (const int64_t start : {100, 200, 200, 300}) {
      db.kernels.push_back(Kernel("k" + std::to_string(db.kernels.size() + 1), start, start + 10,
                                  static_cast<uint32_t>(db.kernels.size() + 11)));
    }
    db.copies.clear();
    for (const int64_t start : copies_in_order ? std::vector<int64_t>{50, 200, 300}
                                               : std::vector<int64_t>{200, 50, 300}) {
      rt::MemoryCopy c;
      c.start = kT + start;
      c.end = kT + start + 5;
      c.correlation = static_cast<uint32_t>(db.copies.size() + 21);
      db.copies.push_back(c);
    }
    const auto t = Import(Write(db, copies_in_order ? "in_order.db" : "unordered.db"));
    ASSERT_TRUE(t->status.ok()) << t->status.ToString();
    const uint64_t c200 = copies_in_order ? 22 : 21;
    const uint64_t c50 = copies_in_order ? 21 : 22;
    const std::vector<uint64_t> correlations = {c50, 11, 12, 13, c200, 14, 23};
    const std::vector<int64_t> starts = {50, 100, 200, 200, 200, 300, 300};
    ASSERT_EQ(t->dispatches.size(), correlations.size());
    for (size_t i = 0; i < correlations.size(); ++i) {
      SCOPED_TRACE(i);
      EXPECT_EQ(t->dispatches[i].correlation, correlations[i]);
      EXPECT_EQ(t->dispatches[i].start, kT + starts[i]);
      EXPECT_EQ(t->dispatches[i].line, i + 1);
    }
  }
}

TEST_F(RocpdImporterTest, EndBeforeStartIsADataErrorNamingTableAndRow) {
  ExpectRowError(
      "UPDATE " + T("rocpd_kernel_dispatch") + " SET \"end\" = start - 1 WHERE id = 2",
      "rocpd_kernel_dispatch id 2",
      "end before start (" + std::to_string(kT + 2'999) + " < " + std::to_string(kT + 3'000) + ")");
  ExpectRowError("UPDATE " + T("rocpd_memory_copy") + " SET \"end\" = 5 WHERE id = 1",
                 "rocpd_memory_copy id 1",
                 "end before start (5 < " + std::to_string(kT + 2'600) + ")");
  ExpectRowError("UPDATE " + T("rocpd_region") + " SET \"end\" = 7 WHERE id = 2",
                 "rocpd_region id 2", "end before start (7 < " + std::to_string(kT + 600) + ")");
}

TEST_F(RocpdImporterTest, DanglingStringIdsAreCountedAndADataError) {
  struct Case {
    std::string sql, where, message;
  };
  const std::vector<Case> cases = {
      {"UPDATE " + T("rocpd_region") + " SET name_id = 999 WHERE id = 11", "rocpd_region id 11",
       "name_id 999 is not in table rocpd_string"},
      {"UPDATE " + T("rocpd_memory_copy") + " SET name_id = 998 WHERE id = 2",
       "rocpd_memory_copy id 2", "name_id 998 is not in table rocpd_string"},
      {"UPDATE " + T("rocpd_kernel_dispatch") + " SET region_name_id = 997 WHERE id = 1",
       "rocpd_kernel_dispatch id 1", "region_name_id 997 is not in table rocpd_string"},
      {"UPDATE " + T("rocpd_event") + " SET category_id = 996 WHERE id = 1", "rocpd_event id 1",
       "category_id 996 is not in table rocpd_string"},
      {"UPDATE " + T("rocpd_track") + " SET name_id = 995; UPDATE " + T("rocpd_sample") +
           " SET event_id = NULL",
       "rocpd_track id 2", "name_id 995 is not in table rocpd_string"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sql);
    const std::string path = Write(SmallRun());
    ASSERT_TRUE(rt::ExecSql(path, c.sql).ok());
    const auto t = Import(path);
    ASSERT_FALSE(t->status.ok());
    EXPECT_EQ(t->status.where(), path + ": " + c.where);
    EXPECT_EQ(t->status.message(), c.message);
    EXPECT_EQ(t->trace.diagnostics.count(trace::Diag::kDanglingStringId), 1);
  }
}

TEST_F(RocpdImporterTest, AReferenceToAMissingRowIsADataError) {
  ExpectRowError("UPDATE " + T("rocpd_kernel_dispatch") + " SET agent_id = 9 WHERE id = 3",
                 "rocpd_kernel_dispatch id 3", "agent_id 9 is not in table rocpd_info_agent");
  ExpectRowError("UPDATE " + T("rocpd_kernel_dispatch") + " SET kernel_id = 77 WHERE id = 2",
                 "rocpd_kernel_dispatch id 2",
                 "kernel_id 77 is not in table rocpd_info_kernel_symbol");
  ExpectRowError("UPDATE " + T("rocpd_kernel_dispatch") + " SET event_id = 500 WHERE id = 1",
                 "rocpd_kernel_dispatch id 1", "event_id 500 is not in table rocpd_event");
  ExpectRowError("UPDATE " + T("rocpd_memory_copy") + " SET src_agent_id = 4 WHERE id = 1",
                 "rocpd_memory_copy id 1", "src_agent_id 4 is not in table rocpd_info_agent");
  ExpectRowError("UPDATE " + T("rocpd_region") + " SET tid = 31337 WHERE id = 12",
                 "rocpd_region id 12", "tid 31337 is not in table rocpd_info_thread");
  ExpectRowError("UPDATE " + T("rocpd_region") + " SET event_id = 501 WHERE id = 13",
                 "rocpd_region id 13", "event_id 501 is not in table rocpd_event");
  ExpectRowError("UPDATE " + T("rocpd_sample") + " SET track_id = 8 WHERE id = 20",
                 "rocpd_sample id 20", "track_id 8 is not in table rocpd_track");
}

TEST_F(RocpdImporterTest, AValueOfTheWrongTypeIsADataError) {
  ExpectRowError("UPDATE " + T("rocpd_kernel_dispatch") + " SET start = 'soon' WHERE id = 2",
                 "rocpd_kernel_dispatch id 2", "start is not an integer (text 'soon')");
  ExpectRowError("UPDATE " + T("rocpd_kernel_dispatch") + " SET grid_size_x = 1.5 WHERE id = 1",
                 "rocpd_kernel_dispatch id 1", "grid_size_x is not an integer (real 1.5)");
  ExpectRowError("UPDATE " + T("rocpd_region") + " SET start = x'00ff' WHERE id = 4",
                 "rocpd_region id 4", "start is not an integer (blob of 2 bytes)");
  ExpectRowError("UPDATE " + T("rocpd_string") + " SET string = x'41' WHERE id = 1",
                 "rocpd_string id 1", "string is not text (blob of 1 bytes)");
  ExpectRowError("UPDATE " + T("rocpd_info_agent") + " SET logical_index = 'one' WHERE id = 1",
                 "rocpd_info_agent id 1", "logical_index is not an integer (text 'one')");
  ExpectRowError("UPDATE " + T("rocpd_event") + " SET stack_id = 'x' WHERE id = 4",
                 "rocpd_region id 11", "the event's stack_id is not an integer (text 'x')");
  // NOT NULL columns set NULL (after the table lost its constraints).
  const std::string dispatch = T("rocpd_kernel_dispatch");
  ExpectRowError("PRAGMA legacy_alter_table = ON; CREATE TABLE k AS SELECT * FROM " + dispatch +
                     "; DROP TABLE " + dispatch + "; ALTER TABLE k RENAME TO " + dispatch +
                     "; UPDATE " + dispatch + " SET queue_id = NULL WHERE id = 4",
                 "rocpd_kernel_dispatch id 4", "queue_id is NULL");
}

TEST_F(RocpdImporterTest, ImpossibleValuesAreDataErrors) {
  ExpectRowError("UPDATE " + T("rocpd_event") + " SET extdata = 'not json' WHERE id = 1",
                 "rocpd_event id 1", "extdata is not a JSON object: 'not json'");
  ExpectRowError("UPDATE " + T("rocpd_event") + " SET extdata = '{\"message\": 5}' WHERE id = 2",
                 "rocpd_event id 2", "extdata's message is not a string");
  ExpectRowError("UPDATE " + T("rocpd_event") + " SET stack_id = -3 WHERE id = 4",
                 "rocpd_region id 11", "stack_id -3 is negative");
  ExpectRowError("UPDATE " + T("rocpd_info_kernel_symbol") +
                     " SET display_name = NULL, kernel_name = '' WHERE id = 1",
                 "rocpd_kernel_dispatch id 1",
                 "the kernel has no name (kernel symbol 1 has neither display_name nor "
                 "kernel_name)");
  ExpectRowError("UPDATE " + T("rocpd_kernel_dispatch") + " SET queue_id = -1 WHERE id = 2",
                 "rocpd_kernel_dispatch id 2", "queue_id -1 is out of range (0..4294967295)");
  ExpectRowError("UPDATE " + T("rocpd_info_agent") + " SET logical_index = 40000 WHERE id = 1",
                 "rocpd_info_agent id 1",
                 "device number 40000 (logical_index) is out of range (0..32767)");
  ExpectRowError("UPDATE " + T("rocpd_kernel_dispatch") +
                     " SET grid_size_x = 4294967296, grid_size_y = 4294967296 WHERE id = 2",
                 "rocpd_kernel_dispatch id 2", "grid size does not fit in 64 bits");
  ExpectRowError("UPDATE " + T("rocpd_info_thread") + " SET tid = -2 WHERE id = 4243",
                 "rocpd_info_thread id 4243", "tid -2 is negative");
}

TEST_F(RocpdImporterTest, DevicesFollowTheLogicalIndexThenTheAbsoluteOne) {
  rt::RocpdDb db = SmallRun();
  rt::Agent second;
  second.id = 2;
  second.absolute_index = 2;
  second.logical_index.reset();  // absolute_index stands in
  second.product_name = "";      // the name stands in
  second.name = "gfx942";
  db.agents.push_back(second);
  db.kernels[1].agent_id = 2;
  const auto t = Import(Write(db));
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  ASSERT_EQ(t->trace.devices.size(), 2u);
  EXPECT_EQ(t->trace.devices[1].id, 2);
  EXPECT_EQ(t->trace.devices[1].name, "gfx942");
  EXPECT_EQ(t->dispatches[4].device, 2);
  EXPECT_EQ(t->trace.dispatches_per_device.size(), 2u);
  EXPECT_EQ(t->trace.dispatches_per_device.at(1), 5);
  EXPECT_EQ(t->trace.dispatches_per_device.at(2), 1);

  // With a device filter, only that device's dispatches reach the sink (every count stays).
  CollectSink sink;
  trace::StringPool names;
  trace::TraceBuilder builder(names, sink);
  builder.set_device_filter(2);
  ASSERT_TRUE(ImportRocpd((dir_ / "run_results.db").string(), builder).ok());
  EXPECT_EQ(sink.dispatches.size(), 1u);
  EXPECT_EQ(std::move(builder).Finish().kernels, 4);
}

TEST_F(RocpdImporterTest, CorrelationsArePerProcessWhenSeveralProcessesRun) {
  rt::RocpdDb db;
  for (int64_t pid : {200, 300}) {
    rt::KernelDispatch k = Kernel("k" + std::to_string(pid), pid * 10, pid * 10 + 5, 1);
    k.pid = pid;
    k.tid = pid;
    db.kernels.push_back(k);
    rt::Region call =
        rt::HipCall(pid, "hipLaunchKernel", kT + pid * 10 - 5, kT + pid * 10 - 4, pid + 1);
    call.pid = pid;
    db.regions.push_back(call);
    db.regions.back().id = pid;  // a region id of its own; the event's stack_id is 1 below
  }
  const std::string path = Write(db);
  // Both calls carry internal correlation 1, as two processes' first calls do.
  ASSERT_TRUE(rt::ExecSql(path, "UPDATE " + T("rocpd_event") + " SET stack_id = 1").ok());
  const auto t = Import(path);
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  EXPECT_TRUE(t->result.per_process_correlation);
  ASSERT_EQ(t->dispatches.size(), 2u);
  EXPECT_EQ(t->dispatches[0].correlation, (uint64_t{1} << 32) | 1);
  EXPECT_EQ(t->dispatches[1].correlation, (uint64_t{2} << 32) | 1);
  const trace::LaunchIndex index(t->trace.launches);
  for (size_t i = 0; i < 2; ++i) {
    const trace::ApiCall* call = index.Find(t->dispatches[i].correlation);
    ASSERT_NE(call, nullptr);
    EXPECT_EQ(call->thread, i == 0 ? 201u : 301u);
  }
  EXPECT_FALSE(Import(Write(SmallRun(), "single.db"))->result.per_process_correlation);
}

TEST(RocpdNamesTest, MemoryCopyOperationsMapOntoTheModelsNames) {
  EXPECT_EQ(RocpdMemcpyName("MEMORY_COPY_HOST_TO_DEVICE"), "[HIP memcpy Host-to-Device]");
  EXPECT_EQ(RocpdMemcpyName("MEMORY_COPY_DEVICE_TO_HOST"), "[HIP memcpy Device-to-Host]");
  EXPECT_EQ(RocpdMemcpyName("DEVICE_TO_DEVICE"), "[HIP memcpy Device-to-Device]");
  EXPECT_EQ(RocpdMemcpyName("MEMORY_COPY_HOST_TO_HOST"), "[HIP memcpy Host-to-Host]");
  EXPECT_EQ(RocpdMemcpyName("MEMORY_COPY_NONE"), "[HIP memcpy]");
  EXPECT_EQ(RocpdMemcpyName("something"), "[HIP memcpy]");
}

}  // namespace
}  // namespace decodeprof::io
