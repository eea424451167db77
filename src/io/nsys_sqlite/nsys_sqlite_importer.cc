#include "src/io/nsys_sqlite/nsys_sqlite_importer.h"

#include <filesystem>
#include <map>
#include <utility>

#include "src/base/file_io.h"
#include "src/base/stage_times.h"
#include "src/io/common/sqlite_db.h"
#include "src/io/format_names.h"
#include "src/io/nsys_sqlite/nsys_reader.h"

namespace decodeprof::io {
namespace {

constexpr std::string_view kReportMagic = "NVIDIA Tegra Profiler Report";

// The export metadata table: META_DATA_EXPORT, or EXPORT_META_DATA in 2022 exports (seen in a
// 2022.2.1 export; A2 lists only the newer name).
base::Status ReadMeta(nsys::Context& ctx) {
  std::string table = "META_DATA_EXPORT";
  if (!ctx.db.HasTable(table)) {
    table = "EXPORT_META_DATA";
    if (!ctx.db.HasTable(table)) return base::OkStatus();
    ctx.Variant("export metadata in table EXPORT_META_DATA (not META_DATA_EXPORT)");
  }
  const nsys::TableShape shape(ctx.db, table);
  DP_RETURN_IF_ERROR(ctx.Require(shape, {"name", "value"}));
  SqliteQuery q(ctx.db, "SELECT name, value FROM " + table + " ORDER BY rowid");
  if (!q.prepared()) return ctx.SqlError(q, table);
  const std::map<std::string, std::string, std::less<>> keys = {
      {"EXPORT_PRODUCT_VERSION", "nsys_product_version"},
      {"EXPORT_SCHEMA_VERSION", "nsys_schema_version"}};
  while (q.Step() == SQLITE_ROW) {
    auto it = keys.find(q.TextView(0));
    if (it != keys.end()) ctx.builder.trace().meta[it->second] = q.Text(1);
  }
  if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, table);

  if (ctx.db.HasColumn("META_DATA_CAPTURE", "name") &&
      ctx.db.HasColumn("META_DATA_CAPTURE", "value")) {
    SqliteQuery c(ctx.db,
                  "SELECT value FROM META_DATA_CAPTURE WHERE name = "
                  "'CUDA_GRAPH_TRACE_OPTIONS:MODE' ORDER BY rowid LIMIT 1");
    if (c.prepared() && c.Step() == SQLITE_ROW && !c.IsNull(0)) {
      ctx.builder.trace().meta["nsys_cuda_graph_trace"] = c.Text(0);
    }
  }
  return base::OkStatus();
}

// The clock (A6): systemClockNs + session time on the target's monotonic clock when the
// export has it. That nsys's "target system clock" is CLOCK_MONOTONIC is inferred (its values
// look like time since boot; reference A6 and Part E 2), not documented by NVIDIA.
base::Status ReadClock(nsys::Context& ctx) {
  constexpr std::string_view kTable = "TARGET_INFO_SESSION_START_TIME";
  trace::ImportedTrace& t = ctx.builder.trace();
  std::string why;
  if (!ctx.db.HasTable(kTable)) {
    why = "no TARGET_INFO_SESSION_START_TIME table";
  } else if (!ctx.db.HasColumn(kTable, "systemClockNs")) {
    why = "TARGET_INFO_SESSION_START_TIME has no systemClockNs column (nsys before 2025.6)";
  } else {
    SqliteQuery q(ctx.db,
                  "SELECT systemClockNs FROM " + std::string(kTable) + " ORDER BY rowid LIMIT 1");
    if (!q.prepared()) return ctx.SqlError(q, kTable);
    q.Numbers();
    const int rc = q.Step();
    if (rc == SQLITE_ROW && !q.IsNull(0)) {
      ctx.time_offset = q.Int(0);
      ctx.result.system_clock_ns = ctx.time_offset;
      t.clock = trace::ClockDomain::kMonotonic;
      t.meta["clock_mapping"] = "session time + TARGET_INFO_SESSION_START_TIME.systemClockNs (" +
                                std::to_string(ctx.time_offset) +
                                "), taken as CLOCK_MONOTONIC (inferred)";
      return base::OkStatus();
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return ctx.SqlError(q, kTable);
    why = "TARGET_INFO_SESSION_START_TIME.systemClockNs is NULL or missing";
  }
  t.clock = trace::ClockDomain::kSession;
  t.meta["clock_mapping"] = "session time (ns since the capture started): " + why;
  t.diagnostics.Add(trace::Diag::kSessionClock, 1, {ctx.path, std::string(kTable), why});
  return base::OkStatus();
}

base::Status ReadDevices(nsys::Context& ctx) {
  if (!ctx.db.HasColumn("TARGET_INFO_GPU", "id")) return base::OkStatus();
  const std::string name =
      ctx.db.HasColumn("TARGET_INFO_GPU", "name") ? "max(coalesce(name, ''))" : "''";
  SqliteQuery q(ctx.db, "SELECT id, " + name + " FROM TARGET_INFO_GPU GROUP BY id ORDER BY id");
  if (!q.prepared()) return ctx.SqlError(q, "TARGET_INFO_GPU");
  q.Numbers({1});
  while (q.Step() == SQLITE_ROW) {
    if (q.Int(0) < 0 || q.Int(0) > INT16_MAX) {
      return ctx.RowError("TARGET_INFO_GPU", q.Int(0),
                          "id " + std::to_string(q.Int(0)) + " is beyond its range (0 to 32767)");
    }
    ctx.builder.trace().devices.push_back(trace::Device{static_cast<int32_t>(q.Int(0)), q.Text(1)});
  }
  if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, "TARGET_INFO_GPU");
  return base::OkStatus();
}

class NsysSqliteImporterImpl final : public Importer {
 public:
  std::string_view name() const override { return kNsysSqliteFormat; }
  std::string_view description() const override {
    return "Nsight Systems SQLite export (nsys export --type sqlite)";
  }
  std::string_view produced_by() const override {
    return "nsys export --type sqlite -o FILE.sqlite FILE.nsys-rep (or nsys profile --export "
           "sqlite)";
  }
  std::string_view default_pack() const override { return "pytorch-cuda"; }
  Recognition Recognize(const FileProbe& probe) const override {
    if (LooksLikeNsysReport(probe.head())) return Recognition::kYes;
    if (!probe.is_sqlite() || !probe.HasTable("StringIds") || probe.HasTable("StringTable")) {
      return Recognition::kNo;
    }
    for (const std::string& table : probe.sqlite_tables()) {
      if (table == "TARGET_INFO_SESSION_START_TIME" || table == "META_DATA_EXPORT" ||
          table == "EXPORT_META_DATA" || table == "NVTX_EVENTS" || table == "ThreadNames" ||
          table.starts_with("CUPTI_ACTIVITY_KIND_")) {
        return Recognition::kYes;
      }
    }
    return Recognition::kNo;
  }
  base::Status Import(const std::string& path, trace::TraceBuilder& builder) const override {
    return ImportNsysSqlite(path, builder).status();
  }
};

}  // namespace

const Importer& NsysSqliteImporter() {
  static const NsysSqliteImporterImpl importer;
  return importer;
}

bool LooksLikeNsysReport(std::string_view head) { return head.starts_with(kReportMagic); }

std::string NsysExportCommand(const std::string& report_path) {
  const std::string out = std::filesystem::path(report_path).replace_extension(".sqlite").string();
  return "nsys export --type sqlite -o " + out + " " + report_path;
}

base::StatusOr<NsysImport> ImportNsysSqlite(const std::string& path, trace::TraceBuilder& builder,
                                            const NsysReadOptions& options) {
  DP_ASSIGN_OR_RETURN(const std::string head, base::ReadFilePrefix(path, kReportMagic.size()));
  if (LooksLikeNsysReport(head)) {
    return base::DataError(path, "an Nsight Systems report, not its SQLite export",
                           NsysExportCommand(path));
  }
  if (const Compression c = DetectCompression(head); c != Compression::kNone) {
    return CompressedSqliteError(path, c);
  }
  if (!LooksLikeSqlite(head)) return base::DataError(path, "not an SQLite database");
  DP_ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::Open(path));
  if (db.HasTable("StringTable")) {
    return base::DataError(path,
                           "a legacy nvprof export (table StringTable), not an Nsight Systems one",
                           "decodeprof reads nsys exports: nsys export --type sqlite");
  }
  if (!db.HasTable("StringIds")) {
    return base::DataError(path, "not an Nsight Systems SQLite export (no table StringIds)",
                           "export the report with: nsys export --type sqlite -o FILE.sqlite "
                           "FILE.nsys-rep");
  }
  NsysImport result;
  builder.trace().in_order_streams = true;  // CUDA streams
  nsys::Context ctx{path, db, builder, result};
  ctx.options = options;
  DP_RETURN_IF_ERROR(ctx.strings.Load(db));
  DP_RETURN_IF_ERROR(ReadMeta(ctx));
  DP_RETURN_IF_ERROR(ReadClock(ctx));
  DP_RETURN_IF_ERROR(ReadDevices(ctx));
  DP_RETURN_IF_ERROR(nsys::DetectProcesses(ctx));
  // The launch calls are read beside the dispatches: in parts when the caller keeps every
  // record, else each table on a thread of its own into a spool.
  const nsys::LaunchPartsPtr launches = nsys::StartLaunchParts(ctx);
  const nsys::RangeReadPtr ranges = nsys::StartRanges(ctx);  // beside them, likewise
  DP_RETURN_IF_ERROR(nsys::ReadDispatches(ctx));
  base::MarkStage("nsys dispatches");
  DP_RETURN_IF_ERROR(nsys::ReadLaunches(ctx, launches.get()));
  base::MarkStage("nsys launches");  // what is left of the launch calls' read
  DP_RETURN_IF_ERROR(nsys::ReadRanges(ctx, ranges.get()));
  base::MarkStage("nsys ranges");  // likewise the ranges', then their names into the trace
  AddSchemaVariants(ctx.builder.diagnostics(), ctx.path, ctx.result.schema_variants);
  return result;
}

}  // namespace decodeprof::io
