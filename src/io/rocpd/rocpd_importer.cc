#include "src/io/rocpd/rocpd_importer.h"

#include <utility>

#include "src/base/file_io.h"
#include "src/base/stage_times.h"
#include "src/io/common/sqlite_db.h"
#include "src/io/format_names.h"
#include "src/io/rocpd/rocpd_reader.h"

namespace decodeprof::io {
namespace {

constexpr std::string_view kRerecord =
    "re-record with rocprofv3 of ROCm 7.0 or later (rocprofiler-sdk 1.0+), which writes rocpd "
    "schema 3: rocprofv3 --kernel-trace --marker-trace --output-format rocpd -- CMD, or "
    "decodeprof record --backend rocprofv3 -- CMD";

bool StartsWithAny(const std::vector<std::string>& names,
                   std::initializer_list<const char*> bases) {
  for (const std::string& name : names) {
    for (const char* base : bases) {
      if (name.starts_with(base)) return true;
    }
  }
  return false;
}

bool Has(const std::vector<std::string>& names, std::string_view name) {
  for (const std::string& n : names) {
    if (n == name) return true;
  }
  return false;
}

// rocmProfileData's tables (Part C), and no table of the rocprofiler-sdk schema.
bool IsOldRpd(const std::vector<std::string>& names) {
  return Has(names, "rocpd_api") && Has(names, "rocpd_op") &&
         !StartsWithAny(names, {"rocpd_kernel_dispatch", "rocpd_event"});
}

class RocpdImporterImpl final : public Importer {
 public:
  std::string_view name() const override { return kRocpdFormat; }
  std::string_view description() const override {
    return "rocprofv3's rocpd SQLite database (<name>_results.db, rocpd schema 3)";
  }
  std::string_view produced_by() const override {
    return "rocprofv3 --kernel-trace --marker-trace --output-format rocpd -- CMD (ROCm 7+)";
  }
  std::string_view default_pack() const override { return "mlx-rocm"; }
  Recognition Recognize(const FileProbe& probe) const override {
    if (!probe.is_sqlite()) return Recognition::kNo;
    const std::vector<std::string>& names = probe.sqlite_tables();
    if (StartsWithAny(names, {"rocpd_kernel_dispatch", "rocpd_event"}) || IsOldRpd(names)) {
      return Recognition::kYes;
    }
    return Recognition::kNo;
  }
  base::Status Import(const std::string& path, trace::TraceBuilder& builder) const override {
    return ImportRocpd(path, builder).status();
  }
};

}  // namespace

const Importer& RocpdImporter() {
  static const RocpdImporterImpl importer;
  return importer;
}

base::StatusOr<RocpdImport> ImportRocpd(const std::string& path, trace::TraceBuilder& builder,
                                        const RocpdReadOptions& options) {
  DP_ASSIGN_OR_RETURN(const std::string head, base::ReadFilePrefix(path, 16));
  if (const Compression c = DetectCompression(head); c != Compression::kNone) {
    return CompressedSqliteError(path, c);
  }
  if (!LooksLikeSqlite(head)) return base::DataError(path, "not an SQLite database");
  DP_ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::Open(path));
  DP_ASSIGN_OR_RETURN(const std::vector<std::string> names, db.TableNames());
  if (IsOldRpd(names)) {
    return base::DataError(path,
                           "an old rocmProfileData (RPD) database (tables rocpd_api, rocpd_op), "
                           "not rocprofv3's rocpd",
                           std::string(kRerecord));
  }
  RocpdImport result;
  rocpd::Context ctx{path, db, builder, result, options};
  trace::ImportedTrace& t = builder.trace();
  DP_RETURN_IF_ERROR(rocpd::ResolveSchema(ctx));
  // B7: rocprofiler-sdk stamps everything with CLOCK_BOOTTIME.
  t.clock = trace::ClockDomain::kBoottime;
  t.runtime = trace::Runtime::kHip;
  t.meta["clock_mapping"] = "CLOCK_BOOTTIME nanoseconds, as rocprofiler-sdk stamps them";
  base::MarkStage("rocpd schema");
  DP_RETURN_IF_ERROR(rocpd::DetectProcesses(ctx));
  base::MarkStage("rocpd processes");
  DP_RETURN_IF_ERROR(rocpd::LoadTables(ctx));
  base::MarkStage("rocpd tables");
  // The regions are read on threads of their own while the dispatches are (a caller that keeps
  // everything); the dispatches are handed on first, as one pass would.
  const auto regions = rocpd::StartRegions(ctx);
  DP_RETURN_IF_ERROR(rocpd::ReadDispatches(ctx));
  base::MarkStage("rocpd dispatches");
  DP_RETURN_IF_ERROR(rocpd::FinishRegions(*regions));
  base::MarkStage("rocpd regions");
  AddSchemaVariants(ctx.builder.diagnostics(), ctx.path, ctx.result.schema_variants);
  return result;
}

}  // namespace decodeprof::io
