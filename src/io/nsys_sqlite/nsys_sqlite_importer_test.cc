#include "src/io/nsys_sqlite/nsys_sqlite_importer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "src/io/common/file_probe.h"
#include "src/io/importer_registry.h"
#include "src/io/nsys_sqlite/testing/nsys_db_writer.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::io {
namespace {

namespace fs = std::filesystem;
using nsys_testing::GlobalPid;
using nsys_testing::GlobalTid;
using nsys_testing::NsysDb;
using nsys_testing::NsysSchema;

constexpr uint32_t kPid = 100;
constexpr uint64_t kMainThread = GlobalTid(kPid, 101);
constexpr uint64_t kWorkerThread = GlobalTid(kPid, 102);

class CollectSink : public trace::DispatchSink {
 public:
  void Add(const trace::Dispatch& d) override { dispatches.push_back(d); }
  trace::DispatchVector dispatches;
};

struct Imported {
  base::Status status;
  NsysImport result;
  trace::ImportedTrace trace;
  trace::DispatchVector dispatches;
  trace::StringPool names;

  std::string Name(trace::StringId id) const { return std::string(names.Get(id)); }
};

std::unique_ptr<Imported> Import(const std::string& path) {
  auto out = std::make_unique<Imported>();
  CollectSink sink;
  trace::TraceBuilder builder(out->names, sink);
  auto r = ImportNsysSqlite(path, builder);
  out->status = r.status();
  if (r.ok()) out->result = *r;
  out->trace = std::move(builder).Finish();
  out->dispatches = std::move(sink.dispatches);
  return out;
}

// A small run: kernels (one named only by its mangled name, one without correlation), two
// memcpys (one sharing its start with a kernel), a memset, runtime and driver launch calls,
// and NVTX ranges on two threads: nested push/pop ranges, a start/end range, a push/pop range
// that never ended (with one opened inside it), a mark and a domain name.
NsysDb SmallRun(NsysSchema schema) {
  NsysDb db;
  db.schema = schema;
  db.gpus = {{0, "NVIDIA H200"}};
  nsys_testing::Kernel k1;
  k1.start = 1'000;
  k1.end = 1'500;
  k1.correlation = 11;
  k1.demangled = "void gemv<float>(float*)";
  k1.short_name = "gemv";
  k1.mangled = "_Z4gemvIfEvPf";
  k1.grid[0] = 4;
  k1.grid[1] = 0;  // counts as 1
  k1.grid[2] = 2;
  nsys_testing::Kernel k2;
  k2.start = 3'000;
  k2.end = 3'200;
  k2.correlation = 13;
  k2.demangled = "_Z3addiPfS_";  // nsys could not demangle it
  k2.short_name = "add";
  nsys_testing::Kernel k3;
  k3.start = 2'000;
  k3.end = 2'600;
  k3.stream = 9;
  k3.device = 0;
  k3.demangled = "rms_norm_kernel";  // correlationId NULL
  db.kernels = {k1, k2, k3};

  nsys_testing::MemoryOp h2d;
  h2d.start = 1'000;
  h2d.end = 1'100;
  h2d.copy_kind = 1;
  h2d.correlation = 12;
  nsys_testing::MemoryOp d2h;
  d2h.start = 2'600;
  d2h.end = 2'700;
  d2h.copy_kind = 2;
  d2h.stream = 9;
  d2h.correlation = 14;
  nsys_testing::MemoryOp set;
  set.memset = true;
  set.start = 4'000;
  set.end = 4'050;
  set.correlation = 15;
  db.memory_ops = {h2d, d2h, set};

  const auto call = [&](const char* name, int64_t start, uint32_t correlation, bool driver) {
    db.api_calls.push_back({start, start + 50, name, kMainThread, correlation, driver});
  };
  call("cudaLaunchKernel_v7000", 900, 11, false);
  call("cudaMemcpyAsync_v3020", 960, 12, false);
  call("cudaMemcpyAsync_v3020", 2'500, 14, false);
  call("cuLaunchKernel", 2'900, 13, true);
  call("cudaMemsetAsync_v3020", 3'900, 15, false);
  call("cudaGetDevice_v3020", 4'100, 0, false);  // correlation 0: not a launch

  const auto range = [&](const char* text, int64_t start, std::optional<int64_t> end, int32_t type,
                         bool registered, uint64_t thread) {
    nsys_testing::NvtxEvent e;
    e.start = start;
    e.end = end;
    e.event_type = type;
    e.text = text;
    e.registered = registered;
    e.global_tid = thread;
    db.nvtx.push_back(e);
  };
  range("mydomain", 400, std::nullopt, 75, false, kMainThread);
  range("decodeprof:decode", 500, 5'000, 59, true, kMainThread);
  range("decodeprof:step", 600, 2'000, 59, false, kMainThread);
  range("async", 700, 3'000, 60, true, kMainThread);
  range("tick", 800, std::nullopt, 34, false, kMainThread);
  range("worker", 1'000, 1'200, 59, false, kWorkerThread);
  range("decodeprof:step", 2'000, 4'500, 59, true, kMainThread);
  range("inner", 2'100, 2'200, 70, false, kMainThread);
  range("open", 4'600, std::nullopt, 59, false, kMainThread);
  range("after_open", 4'700, 4'800, 59, false, kMainThread);
  return db;
}

class NsysImporterTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }

  std::string Write(const NsysDb& db, const std::string& name = "run.sqlite") {
    const std::string path = (dir_ / name).string();
    const base::Status s = nsys_testing::WriteNsysDb(path, db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return path;
  }

  decodeprof::testing::TempDir temp_{"dp_nsys_"};
  fs::path dir_;
};

class NsysSchemaTest : public NsysImporterTest, public ::testing::WithParamInterface<NsysSchema> {};

TEST_P(NsysSchemaTest, ReadsKernelsMemoryOpsLaunchesAndRanges) {
  const NsysSchema schema = GetParam();
  const NsysDb db = SmallRun(schema);
  const auto t = Import(Write(db));
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  const bool system_clock = schema == NsysSchema::k2025_6;
  const int64_t offset = system_clock ? *db.system_clock_ns : 0;

  // Dispatches in start order; the kernel before the memcpy of the same start.
  const auto& d = t->dispatches;
  ASSERT_EQ(d.size(), 6u);
  const std::vector<std::string> names = {
      "void gemv<float>(float*)",     "[CUDA memcpy Host-to-Device]", "rms_norm_kernel",
      "[CUDA memcpy Device-to-Host]", "add(int, float*, float*)",     "[CUDA memset]"};
  const std::vector<trace::DispatchKind> kinds = {
      trace::DispatchKind::kKernel, trace::DispatchKind::kMemcpy, trace::DispatchKind::kKernel,
      trace::DispatchKind::kMemcpy, trace::DispatchKind::kKernel, trace::DispatchKind::kMemset};
  const std::vector<int64_t> starts = {1'000, 1'000, 2'000, 2'600, 3'000, 4'000};
  const std::vector<uint64_t> correlations = {11, 12, 0, 14, 13, 15};
  const std::vector<uint32_t> streams = {7, 7, 9, 9, 7, 7};
  const std::vector<int64_t> grids = {8, 0, 1, 0, 1, 0};
  for (size_t i = 0; i < d.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(t->Name(d[i].name), names[i]);
    EXPECT_EQ(d[i].kind, kinds[i]);
    EXPECT_EQ(d[i].start, starts[i] + offset);
    EXPECT_EQ(d[i].line, i + 1);
    EXPECT_EQ(d[i].correlation, correlations[i]);
    EXPECT_EQ(d[i].stream, streams[i]);
    EXPECT_EQ(d[i].device, 0);
    EXPECT_EQ(d[i].grid, grids[i]);
  }
  EXPECT_EQ(d[0].end, 1'500 + offset);
  EXPECT_EQ(t->result.kernels, 3);
  EXPECT_EQ(t->result.memcpys, 2);
  EXPECT_EQ(t->result.memsets, 1);
  EXPECT_EQ(t->trace.kernels, 3);
  EXPECT_EQ(t->trace.memory_ops, 3);

  // Launch calls: the correlation-0 call is dropped; API-version suffixes are stripped.
  const auto& l = t->trace.launches;
  ASSERT_EQ(l.size(), 5u);
  EXPECT_EQ(t->result.api_calls, 6);
  EXPECT_EQ(t->Name(l[0].name), "cudaLaunchKernel");
  EXPECT_EQ(l[0].start, 900 + offset);
  EXPECT_EQ(l[0].end, 950 + offset);
  EXPECT_EQ(l[0].thread, 101u);
  EXPECT_EQ(l[0].correlation, 11u);
  EXPECT_EQ(t->Name(l[1].name), "cudaMemcpyAsync");
  EXPECT_EQ(t->Name(l[3].name), "cuLaunchKernel");
  EXPECT_EQ(l[3].correlation, 13u);
  const trace::LaunchIndex index(l);
  ASSERT_NE(index.Find(d[4].correlation), nullptr);
  EXPECT_EQ(t->Name(index.Find(d[4].correlation)->name), "cuLaunchKernel");

  // Ranges by start, then depth; text and textId alike; the unended one left out, but the
  // range opened inside it is one level deeper.
  struct Expect {
    const char* name;
    int64_t start;
    int64_t end;
    int32_t depth;
    uint64_t thread;
  };
  const std::vector<Expect> ranges = {{"decodeprof:decode", 500, 5'000, 0, 101},
                                      {"decodeprof:step", 600, 2'000, 1, 101},
                                      {"async", 700, 3'000, -1, 101},
                                      {"worker", 1'000, 1'200, 0, 102},
                                      {"decodeprof:step", 2'000, 4'500, 1, 101},
                                      {"inner", 2'100, 2'200, 2, 101},
                                      {"after_open", 4'700, 4'800, 2, 101}};
  ASSERT_EQ(t->trace.ranges.size(), ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    SCOPED_TRACE(i);
    const trace::Range& r = t->trace.ranges[i];
    EXPECT_EQ(t->Name(r.name), ranges[i].name);
    EXPECT_EQ(r.start, ranges[i].start + offset);
    EXPECT_EQ(r.end, ranges[i].end + offset);
    EXPECT_EQ(r.depth, ranges[i].depth);
    EXPECT_EQ(r.thread, ranges[i].thread);
  }
  const trace::Diagnostics& diag = t->trace.diagnostics;
  EXPECT_EQ(diag.count(trace::Diag::kUnendedRanges), 1);
  EXPECT_EQ(t->result.unended_ranges, 1);
  EXPECT_EQ(diag.count(trace::Diag::kEventsSkipped), 2);  // the mark and the domain name
  EXPECT_EQ(diag.count(trace::Diag::kGraphLevelTrace), 0);
  EXPECT_EQ(diag.count(trace::Diag::kDanglingStringId), 0);

  // Devices, meta and clock.
  ASSERT_EQ(t->trace.devices.size(), 1u);
  EXPECT_EQ(t->trace.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(t->trace.meta.at("nsys_product_version").substr(0, 4),
            std::string(nsys_testing::SchemaName(schema)).substr(0, 4));
  EXPECT_FALSE(t->trace.meta.at("nsys_schema_version").empty());
  ASSERT_TRUE(t->trace.clock.has_value());
  if (system_clock) {
    EXPECT_EQ(*t->trace.clock, trace::ClockDomain::kMonotonic);
    EXPECT_EQ(t->result.system_clock_ns, db.system_clock_ns);
    EXPECT_EQ(diag.count(trace::Diag::kSessionClock), 0);
  } else {
    EXPECT_EQ(*t->trace.clock, trace::ClockDomain::kSession);
    EXPECT_EQ(diag.count(trace::Diag::kSessionClock), 1);
  }
}

TEST_P(NsysSchemaTest, CountsTheSchemaVariantsItAdaptsTo) {
  const NsysSchema schema = GetParam();
  const auto t = Import(Write(SmallRun(schema)));
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  const std::vector<std::string>& v = t->result.schema_variants;
  const trace::Diagnostics& diag = t->trace.diagnostics;
  EXPECT_EQ(diag.count(trace::Diag::kSchemaVariant), static_cast<int64_t>(v.size()));
  if (schema == NsysSchema::k2022) {
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0], "export metadata in table EXPORT_META_DATA (not META_DATA_EXPORT)");
    EXPECT_EQ(v[1], "NVTX_EVENTS has no textId column (NVTX text only)");
    const auto entries = diag.entries();
    auto it = std::find_if(entries.begin(), entries.end(), [](const trace::DiagnosticEntry& e) {
      return e.code == trace::Diag::kSchemaVariant;
    });
    ASSERT_NE(it, entries.end());
    EXPECT_EQ(it->first.detail, v[0] + "; " + v[1]);
  } else {
    EXPECT_TRUE(v.empty()) << v[0];
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, NsysSchemaTest, ::testing::ValuesIn(nsys_testing::kAllSchemas),
                         [](const ::testing::TestParamInfo<NsysSchema>& p) {
                           std::string name = nsys_testing::SchemaName(p.param);
                           std::replace(name.begin(), name.end(), '.', '_');
                           return "nsys" + name;
                         });

TEST_F(NsysImporterTest, IsRegisteredWithItsDescriptor) {
  const Importer* importer = FindImporter("nsys-sqlite");
  ASSERT_NE(importer, nullptr);
  EXPECT_EQ(importer, &NsysSqliteImporter());
  EXPECT_EQ(importer->default_pack(), "pytorch-cuda");
  EXPECT_EQ(importer->produced_by(),
            "nsys export --type sqlite -o FILE.sqlite FILE.nsys-rep (or nsys profile --export "
            "sqlite)");
  EXPECT_TRUE(importer->carries_ranges());
  EXPECT_NE(FormatChoices().find("|nsys-sqlite|"), std::string::npos);
}

TEST_F(NsysImporterTest, RecognizesExportsAndReportsButNotNativeOrNvprofFiles) {
  const Importer& nsys = NsysSqliteImporter();
  const std::string sqlite("SQLite format 3\0......", 22);
  using R = Recognition;
  EXPECT_EQ(nsys.Recognize(FileProbe("a", sqlite, {"StringIds", "CUPTI_ACTIVITY_KIND_KERNEL"})),
            R::kYes);
  EXPECT_EQ(nsys.Recognize(FileProbe("a", sqlite, {"NVTX_EVENTS", "StringIds"})), R::kYes);
  EXPECT_EQ(nsys.Recognize(FileProbe("a", sqlite, {"EXPORT_META_DATA", "StringIds"})), R::kYes);
  EXPECT_EQ(nsys.Recognize(FileProbe("a", sqlite, {"StringIds", "ThreadNames"})), R::kYes);
  EXPECT_EQ(nsys.Recognize(FileProbe("a", sqlite, {"StringIds"})), R::kNo);
  EXPECT_EQ(nsys.Recognize(FileProbe("a", sqlite, {"counters", "kernels", "meta", "strings"})),
            R::kNo);
  // nvprof: CUPTI tables and a StringTable.
  EXPECT_EQ(nsys.Recognize(FileProbe(
                "a", sqlite,
                {"CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_KERNEL", "StringTable"})),
            R::kNo);
  EXPECT_EQ(nsys.Recognize(
                FileProbe("a", sqlite, {"CUPTI_ACTIVITY_KIND_KERNEL", "StringIds", "StringTable"})),
            R::kNo);
  EXPECT_EQ(nsys.Recognize(FileProbe("a", "NVIDIA Tegra Profiler Report 1.\n\x0bLocal (CLI)")),
            R::kYes);
  EXPECT_EQ(nsys.Recognize(FileProbe("a", "NVIDIA Tegra Profiler Report 2025@6@1@190-256136")),
            R::kYes);
  EXPECT_EQ(nsys.Recognize(FileProbe("a", "{\"traceEvents\": []}")), R::kNo);

  // Through the registry, on real files of every version.
  for (NsysSchema schema : nsys_testing::kAllSchemas) {
    const std::string path =
        Write(SmallRun(schema), std::string("run") + nsys_testing::SchemaName(schema) + ".sqlite");
    auto resolved = ResolveImporter(path, "auto");
    ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
    EXPECT_EQ((*resolved)->name(), "nsys-sqlite") << nsys_testing::SchemaName(schema);
  }
}

TEST_F(NsysImporterTest, AReportIsRefusedWithTheExactExportCommand) {
  for (const char* name : {"report1.nsys-rep", "old.qdrep"}) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << "NVIDIA Tegra Profiler Report 1.\n\x0bLocal (CLI)";
    auto resolved = ResolveImporter(path, "auto");
    ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
    EXPECT_EQ((*resolved)->name(), "nsys-sqlite");
    const auto t = Import(path);
    ASSERT_FALSE(t->status.ok());
    EXPECT_EQ(t->status.kind(), base::ErrorKind::kData);
    EXPECT_EQ(t->status.where(), path);
    EXPECT_EQ(t->status.message(), "an Nsight Systems report, not its SQLite export");
    const std::string stem = (dir_ / fs::path(name).stem()).string();
    EXPECT_EQ(t->status.hint(), "nsys export --type sqlite -o " + stem + ".sqlite " + path);
  }
  EXPECT_EQ(NsysExportCommand("report3"), "nsys export --type sqlite -o report3.sqlite report3");
  EXPECT_EQ(NsysExportCommand("a.b/r.nsys-rep"),
            "nsys export --type sqlite -o a.b/r.sqlite a.b/r.nsys-rep");
}

TEST_F(NsysImporterTest, ReadsAnExportWithOnlyKernels) {
  NsysDb db;
  db.schema = NsysSchema::k2022;
  nsys_testing::Kernel k;
  k.start = 10;
  k.end = 20;
  k.demangled = "only";
  db.kernels = {k};
  const std::string path = Write(db);
  const auto t = Import(path);
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  ASSERT_EQ(t->dispatches.size(), 1u);
  EXPECT_EQ(t->Name(t->dispatches[0].name), "only");
  EXPECT_EQ(t->dispatches[0].correlation, 0u);
  EXPECT_TRUE(t->trace.launches.empty());
  EXPECT_TRUE(t->trace.ranges.empty());
  EXPECT_TRUE(t->trace.devices.empty());
  // There was no ENUM_*, memcpy, memset, runtime or NVTX table at all.
  auto probe = FileProbe::Open(path);
  ASSERT_TRUE(probe.ok());
  for (const char* table :
       {"ENUM_CUDA_MEMCPY_OPER", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
        "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"}) {
    EXPECT_FALSE(probe->HasTable(table)) << table;
  }
  EXPECT_TRUE(probe->HasTable("CUPTI_ACTIVITY_KIND_KERNEL"));
}

TEST_F(NsysImporterTest, ReadsKernelsWithoutAMangledNameColumn) {
  NsysDb db = SmallRun(NsysSchema::k2024);
  db.kernel_mangled_name_column = false;
  const auto t = Import(Write(db));
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  EXPECT_EQ(t->Name(t->dispatches[0].name), "void gemv<float>(float*)");
  ASSERT_EQ(t->result.schema_variants.size(), 1u);
  EXPECT_EQ(t->result.schema_variants[0],
            "CUPTI_ACTIVITY_KIND_KERNEL has no mangledName column (names from the others)");
}

TEST_F(NsysImporterTest, FallsBackToTheMangledThenTheShortName) {
  const std::string path = Write(SmallRun(NsysSchema::k2025_6));
  // Row 1 (gemv) loses its demangled name: the mangled one, demangled, stands in; row 2
  // (add) has no mangled name: its short name does.
  ASSERT_TRUE(nsys_testing::ExecSql(path,
                                    "CREATE TABLE k AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL; "
                                    "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; "
                                    "ALTER TABLE k RENAME TO CUPTI_ACTIVITY_KIND_KERNEL; "
                                    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = NULL "
                                    "WHERE rowid IN (1, 2)")
                  .ok());
  const auto t = Import(path);
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  EXPECT_EQ(t->Name(t->dispatches[0].name), "void gemv<float>(float*)");
  EXPECT_EQ(t->Name(t->dispatches[4].name), "add");
}

TEST_F(NsysImporterTest, GraphLevelLaunchesAreDispatchesAndAWarning) {
  NsysDb db = SmallRun(NsysSchema::k2025_6);
  db.graphs.push_back({5'000, 5'800, 0, 7, 21, 5, 6, GlobalPid(kPid)});
  db.graphs.push_back({6'000, 6'700, 0, 7, 22, 5, 6, GlobalPid(kPid)});
  db.api_calls.push_back({4'950, 4'990, "cudaGraphLaunch_v10000", kMainThread, 21, false});
  const auto t = Import(Write(db));
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  ASSERT_EQ(t->dispatches.size(), 8u);
  const trace::Dispatch& g = t->dispatches[6];
  EXPECT_EQ(t->Name(g.name), "[CUDA graph 5]");
  EXPECT_EQ(g.kind, trace::DispatchKind::kKernel);
  EXPECT_EQ(g.grid, 0);
  EXPECT_EQ(g.correlation, 21u);
  EXPECT_EQ(g.line, 7u);
  EXPECT_EQ(t->result.graph_launches, 2);
  EXPECT_EQ(t->trace.diagnostics.count(trace::Diag::kGraphLevelTrace), 2);
  EXPECT_EQ(t->trace.meta.at("nsys_cuda_graph_trace"), "Graph");
  EXPECT_EQ(t->Name(t->trace.launches.back().name), "cudaGraphLaunch");
}

TEST_F(NsysImporterTest, ADanglingStringIdIsADataErrorNamingTableAndRow) {
  struct Case {
    const char* sql;
    const char* where;
    const char* message;
  };
  const Case cases[] = {
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 999 WHERE rowid = 2",
       "CUPTI_ACTIVITY_KIND_KERNEL rowid 2", "demangledName 999 is not in table StringIds"},
      {"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = 998 WHERE rowid = 4",
       "CUPTI_ACTIVITY_KIND_RUNTIME rowid 4", "nameId 998 is not in table StringIds"},
      {"UPDATE NVTX_EVENTS SET textId = 997 WHERE rowid = 2", "NVTX_EVENTS rowid 2",
       "textId 997 is not in table StringIds"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sql);
    const std::string path = Write(SmallRun(NsysSchema::k2024));
    ASSERT_TRUE(nsys_testing::ExecSql(path, c.sql).ok());
    const auto t = Import(path);
    ASSERT_FALSE(t->status.ok());
    EXPECT_EQ(t->status.kind(), base::ErrorKind::kData);
    EXPECT_EQ(t->status.where(), path + ": " + c.where);
    EXPECT_EQ(t->status.message(), c.message);
    EXPECT_EQ(t->trace.diagnostics.count(trace::Diag::kDanglingStringId), 1);
  }
}

TEST_F(NsysImporterTest, EndBeforeStartIsADataErrorNamingTableAndRow) {
  struct Case {
    const char* sql;
    const char* where;
  };
  const Case cases[] = {
      {"UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET end = start - 1 WHERE rowid = 2",
       "CUPTI_ACTIVITY_KIND_MEMCPY rowid 2"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 10 WHERE rowid = 1",
       "CUPTI_ACTIVITY_KIND_KERNEL rowid 1"},
      {"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = 0 WHERE rowid = 3",
       "CUPTI_ACTIVITY_KIND_RUNTIME rowid 3"},
      {"UPDATE NVTX_EVENTS SET end = 1 WHERE rowid = 3", "NVTX_EVENTS rowid 3"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sql);
    const std::string path = Write(SmallRun(NsysSchema::k2025_6));
    ASSERT_TRUE(nsys_testing::ExecSql(path, c.sql).ok());
    const auto t = Import(path);
    ASSERT_FALSE(t->status.ok());
    EXPECT_EQ(t->status.kind(), base::ErrorKind::kData);
    EXPECT_EQ(t->status.where(), path + ": " + c.where);
    EXPECT_EQ(t->status.message().rfind("end before start (", 0), 0u) << t->status.message();
  }
}

// Each table is read in its own start order and merged: ties go to kernels, then graph
// launches, memcpys and memsets, then rowid, whether a table's rows lie in start order in the
// file (kernels, memsets) or not (memcpys).
TEST_F(NsysImporterTest, DispatchesOfEveryTableMergeInStartTableAndRowidOrder) {
  NsysDb db;
  db.schema = NsysSchema::k2024;
  for (const int64_t start : {100, 200, 200, 300}) {
    nsys_testing::Kernel k;
    k.start = start;
    k.end = start + 10;
    k.demangled = "k" + std::to_string(db.kernels.size() + 1);
    db.kernels.push_back(k);
  }
  for (const int64_t start : {200, 50, 300}) {
    nsys_testing::MemoryOp m;
    m.start = start;
    m.end = start + 5;
    m.copy_kind = std::vector<int32_t>{2, 1, 8}[db.memory_ops.size()];
    db.memory_ops.push_back(m);
  }
  nsys_testing::MemoryOp set;
  set.memset = true;
  set.start = 200;
  set.end = 210;
  db.memory_ops.push_back(set);
  const std::string path = Write(db);
  const auto t = Import(path);
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  const std::vector<std::string> names = {"[CUDA memcpy Host-to-Device]",
                                          "k1",
                                          "k2",
                                          "k3",
                                          "[CUDA memcpy Device-to-Host]",
                                          "[CUDA memset]",
                                          "k4",
                                          "[CUDA memcpy Device-to-Device]"};
  const std::vector<int64_t> starts = {50, 100, 200, 200, 200, 200, 300, 300};
  ASSERT_EQ(t->dispatches.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(t->Name(t->dispatches[i].name), names[i]);
    EXPECT_EQ(t->dispatches[i].start, starts[i]);
    EXPECT_EQ(t->dispatches[i].line, i + 1);
  }

  // A start that is no integer: SQLite's order of mixed types (NULL first, as 0; text after
  // every number), so a text start is the error of the last row.
  // (The kernel table made again without its NOT NULL constraints.)
  const base::Status edited = nsys_testing::ExecSql(
      path,
      "CREATE TABLE k AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL; "
      "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; ALTER TABLE k RENAME TO CUPTI_ACTIVITY_KIND_KERNEL; "
      "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = NULL WHERE rowid = 3; "
      "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET start = 'late' WHERE rowid = 2");
  ASSERT_TRUE(edited.ok()) << edited.ToString();
  const auto mixed = Import(path);
  ASSERT_FALSE(mixed->status.ok());
  EXPECT_EQ(mixed->status.message(),
            "table CUPTI_ACTIVITY_KIND_MEMCPY, row 2: column start holds text 'late' where an "
            "integer belongs");
  ASSERT_EQ(mixed->dispatches.size(), 7u);
  EXPECT_EQ(mixed->Name(mixed->dispatches[0].name), "k3");
  EXPECT_EQ(mixed->dispatches[0].start, 0);
  EXPECT_EQ(mixed->Name(mixed->dispatches[6].name), "[CUDA memcpy Device-to-Device]");
}

TEST_F(NsysImporterTest, AMissingRequiredColumnIsADataError) {
  const std::string path = Write(SmallRun(NsysSchema::k2024));
  ASSERT_TRUE(
      nsys_testing::ExecSql(path, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP gridY").ok());
  const auto t = Import(path);
  ASSERT_FALSE(t->status.ok());
  EXPECT_EQ(t->status.where(), path);
  EXPECT_EQ(t->status.message(), "table CUPTI_ACTIVITY_KIND_KERNEL has no column gridY");
}

TEST_F(NsysImporterTest, OtherFilesAreRefusedWithTheirReason) {
  const std::string text = (dir_ / "notes.txt").string();
  std::ofstream(text) << "hello, this is not a database at all\n";
  auto t = Import(text);
  EXPECT_EQ(t->status.message(), "not an SQLite database");

  const std::string nvprof = Write(SmallRun(NsysSchema::k2022), "nvprof.sqlite");
  ASSERT_TRUE(
      nsys_testing::ExecSql(nvprof, "CREATE TABLE StringTable (_id_ INTEGER, value TEXT)").ok());
  t = Import(nvprof);
  EXPECT_EQ(t->status.kind(), base::ErrorKind::kData);
  EXPECT_EQ(t->status.message(),
            "a legacy nvprof export (table StringTable), not an Nsight Systems one");

  const std::string other = Write(SmallRun(NsysSchema::k2022), "other.sqlite");
  ASSERT_TRUE(nsys_testing::ExecSql(other, "DROP TABLE StringIds").ok());
  t = Import(other);
  EXPECT_EQ(t->status.message(), "not an Nsight Systems SQLite export (no table StringIds)");

  t = Import((dir_ / "missing.sqlite").string());
  EXPECT_EQ(t->status.exit_code(), 66);
}

TEST_F(NsysImporterTest, CorrelationsArePerProcessWhenSeveralProcessesLaunch) {
  NsysDb db;
  for (uint32_t pid : {200u, 300u}) {
    nsys_testing::Kernel k;
    k.start = pid * 10;
    k.end = pid * 10 + 5;
    k.correlation = 1;
    k.demangled = "k" + std::to_string(pid);
    k.global_pid = GlobalPid(pid);
    db.kernels.push_back(k);
    db.api_calls.push_back(
        {pid * 10 - 5, pid * 10 - 4, "cudaLaunchKernel_v7000", GlobalTid(pid, pid + 1), 1, false});
  }
  const auto t = Import(Write(db));
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  EXPECT_TRUE(t->result.per_process_correlation);
  ASSERT_EQ(t->dispatches.size(), 2u);
  EXPECT_EQ(t->dispatches[0].correlation, (uint64_t{200} << 32) | 1);
  EXPECT_EQ(t->dispatches[1].correlation, (uint64_t{300} << 32) | 1);
  const trace::LaunchIndex index(t->trace.launches);
  for (const trace::Dispatch& d : t->dispatches) {
    const trace::ApiCall* call = index.Find(d.correlation);
    ASSERT_NE(call, nullptr);
    EXPECT_EQ(call->thread, (d.correlation >> 32) + 1);
  }

  // One process: nsys's ids as they are.
  const auto single = Import(Write(SmallRun(NsysSchema::k2025_6), "single.sqlite"));
  EXPECT_FALSE(single->result.per_process_correlation);
}

TEST_F(NsysImporterTest, ATimeBeyondInt64OnceMappedIsADataError) {
  NsysDb db = SmallRun(NsysSchema::k2025_6);
  db.system_clock_ns = std::numeric_limits<int64_t>::max() - 2'000;
  const std::string path = Write(db);
  const auto t = Import(path);
  ASSERT_FALSE(t->status.ok());
  // The first row's time, mapped, is already past 2^62 ns (times range from 0 to 2^62).
  EXPECT_EQ(t->status.where(), path + ": CUPTI_ACTIVITY_KIND_KERNEL rowid 1");
  EXPECT_NE(t->status.message().find("is beyond its range (0 to 2^62"), std::string::npos)
      << t->status.message();
}

TEST_F(NsysImporterTest, AGridSizeBeyondInt64IsADataError) {
  // Found by tests/fuzz/nsys_sqlite_fuzzer: the grid product overflowed int64 (UB).
  const std::string path = Write(SmallRun(NsysSchema::k2025_6));
  ASSERT_TRUE(nsys_testing::ExecSql(path,
                                    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 4294967296, "
                                    "gridY = 4294967296 WHERE rowid = 2")
                  .ok());
  const auto t = Import(path);
  ASSERT_FALSE(t->status.ok());
  EXPECT_EQ(t->status.kind(), base::ErrorKind::kData);
  EXPECT_EQ(t->status.where(), path + ": CUPTI_ACTIVITY_KIND_KERNEL rowid 2");
  EXPECT_EQ(t->status.message(), "grid size does not fit in 64 bits");
}

TEST_F(NsysImporterTest, ANullSystemClockKeepsTheSessionClock) {
  NsysDb db = SmallRun(NsysSchema::k2025_6);
  db.system_clock_ns = std::nullopt;
  const auto t = Import(Write(db));
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  EXPECT_EQ(t->trace.clock, trace::ClockDomain::kSession);
  EXPECT_EQ(t->dispatches[0].start, 1'000);
  EXPECT_EQ(t->trace.diagnostics.count(trace::Diag::kSessionClock), 1);
}

TEST(NsysNamesTest, StripsApiVersionSuffixesOfFourDigitsOrMore) {
  EXPECT_EQ(StripApiVersion("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(StripApiVersion("cudaGraphLaunch_v10000"), "cudaGraphLaunch");
  EXPECT_EQ(StripApiVersion("cudaMemcpyAsync_v3020"), "cudaMemcpyAsync");
  EXPECT_EQ(StripApiVersion("cuGetProcAddress_v2"), "cuGetProcAddress_v2");
  EXPECT_EQ(StripApiVersion("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(StripApiVersion("_v7000"), "_v7000");
  EXPECT_EQ(StripApiVersion("cudaFoo_vABCD"), "cudaFoo_vABCD");
}

// The real export of nsys 2022.2.1 (shared/fixtures; never committed): one vector-add kernel
// and unified-memory page migrations, no NVTX, session clock.
TEST(NsysRealExportTest, ImportsTheVectorAddExportOfNsys2022) {
  const std::string path = "/work/shared/fixtures/nsys/nsys-2022.2.1-vectoradd.sqlite";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is not on this machine";
  auto resolved = ResolveImporter(path, "auto");
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ((*resolved)->name(), "nsys-sqlite");
  const auto t = Import(path);
  ASSERT_TRUE(t->status.ok()) << t->status.ToString();
  EXPECT_GT(t->result.kernels, 0);
  EXPECT_EQ(t->result.kernels, 1);
  EXPECT_EQ(t->result.memcpys, 4608);  // unified-memory migrations (copyKind 11 and 12)
  EXPECT_EQ(t->result.api_calls, 7);
  EXPECT_EQ(t->trace.clock, trace::ClockDomain::kSession);
  EXPECT_EQ(t->trace.diagnostics.count(trace::Diag::kSessionClock), 1);
  EXPECT_EQ(
      t->result.schema_variants,
      std::vector<std::string>{"export metadata in table EXPORT_META_DATA (not META_DATA_EXPORT)"});
  EXPECT_EQ(t->trace.meta.at("nsys_product_version"), "2022.2.1.31");
  const auto kernel = std::find_if(t->dispatches.begin(), t->dispatches.end(), [](const auto& d) {
    return d.kind == trace::DispatchKind::kKernel;
  });
  ASSERT_NE(kernel, t->dispatches.end());
  EXPECT_EQ(t->Name(kernel->name), "add(int, float *, float *)");
  const trace::LaunchIndex index(t->trace.launches);
  ASSERT_NE(index.Find(kernel->correlation), nullptr);
  EXPECT_EQ(t->Name(index.Find(kernel->correlation)->name), "cudaLaunchKernel");
  ASSERT_EQ(t->trace.devices.size(), 1u);
  EXPECT_EQ(t->trace.devices[0].name, "NVIDIA A100-SXM4-40GB");

  const std::string report = "/work/shared/fixtures/nsys/nsys-2022.2.1-vectoradd.nsys-rep";
  if (fs::exists(report)) {
    const auto r = Import(report);
    EXPECT_EQ(r->status.message(), "an Nsight Systems report, not its SQLite export");
  }
}

}  // namespace
}  // namespace decodeprof::io
