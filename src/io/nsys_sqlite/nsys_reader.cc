#include "src/io/nsys_sqlite/nsys_reader.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/base/demangle.h"

namespace decodeprof::io::nsys {
namespace {

// The tables of GPU work, in the order that breaks start-time ties.
enum class Source : int64_t { kKernel = 0, kGraph = 1, kMemcpy = 2, kMemset = 3 };

std::string_view SourceTable(int64_t source) {
  switch (static_cast<Source>(source)) {
    case Source::kKernel:
      return kKernelTable;
    case Source::kGraph:
      return kGraphTraceTable;
    case Source::kMemcpy:
      return kMemcpyTable;
    case Source::kMemset:
      break;
  }
  return kMemsetTable;
}

// Result columns of the dispatch query.
enum Col : int {
  kSource,
  kRowid,
  kStart,
  kEnd,
  kDevice,
  kStream,
  kCorrelation,
  kPid,  // globalPid as the table has it
  kDemangled,
  kMangled,
  kShort,
  kGridX,
  kGridY,
  kGridZ,
  kExtra,  // memcpy: copyKind; graph launch: graphId
};
constexpr const char* kNameColumns[] = {"demangledName", "mangledName", "shortName"};

// One table's dispatch query, and its current row (`rc`: SQLite's result of the last Step).
struct TableScan {
  Source source;
  std::string table;
  std::string sql;
  std::unique_ptr<SqliteQuery> q;
  int rc = SQLITE_DONE;
};

enum class StartOrder { kInOrder, kUnordered, kMixedTypes };

// Whether `table`'s rows, in rowid order, are in start order (every start an integer, none
// below the one before): a scan of its start column.
base::StatusOr<StartOrder> CheckStartOrder(const Context& ctx, std::string_view table) {
  SqliteQuery q(ctx.db, "SELECT start FROM " + std::string(table));
  if (!q.prepared()) return ctx.SqlError(q, kKernelTable);
  StartOrder order = StartOrder::kInOrder;
  int64_t last = std::numeric_limits<int64_t>::min();
  while (q.Step() == SQLITE_ROW) {
    if (q.Type(0) != SQLITE_INTEGER) return StartOrder::kMixedTypes;
    const int64_t start = q.Int(0);
    if (start < last) order = StartOrder::kUnordered;
    last = start;
  }
  if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, kKernelTable);
  return order;
}

// One dispatch row of any table (the query's columns are Col) into the model, numbered in
// the order the rows come.
class DispatchRows {
 public:
  explicit DispatchRows(Context& ctx)
      : ctx_(ctx), names_(ctx.names()), memset_name_(names_.Intern(trace::kMemsetName)) {}

  base::Status Add(const SqliteQuery& q) {
    const int64_t source = q.Int(kSource);
    const std::string_view table = SourceTable(source);
    const int64_t rowid = q.Int(kRowid);
    trace::Dispatch d;
    DP_ASSIGN_OR_RETURN(d.start, ctx_.Time(q.Int(kStart), table, rowid));
    DP_ASSIGN_OR_RETURN(d.end, ctx_.Time(q.Int(kEnd), table, rowid));
    if (d.end < d.start) {
      return ctx_.RowError(table, rowid,
                           "end before start (" + std::to_string(q.Int(kEnd)) + " < " +
                               std::to_string(q.Int(kStart)) + ")");
    }
    const int64_t device = q.Int(kDevice);
    const int64_t stream = q.Int(kStream);
    if (device < 0 || device > std::numeric_limits<int16_t>::max()) {
      return ctx_.RowError(
          table, rowid, "deviceId " + std::to_string(device) + " is beyond its range (0 to 32767)");
    }
    if (stream < 0 || stream > std::numeric_limits<uint32_t>::max()) {
      return ctx_.RowError(
          table, rowid,
          "streamId " + std::to_string(stream) + " is beyond its range (0 to 4294967295)");
    }
    d.device = static_cast<int16_t>(device);
    d.stream = static_cast<uint32_t>(stream);
    // The process of globalPid (PidExpr, here rather than in SQL for each row).
    std::optional<int64_t> pid = q.OptInt(kPid);
    if (pid) pid = (*pid >> 24) & 0xFFFFFF;
    d.correlation = ctx_.Correlation(q.OptInt(kCorrelation), pid);
    switch (static_cast<Source>(source)) {
      case Source::kKernel: {
        ++ctx_.result.kernels;
        int col = kDemangled;
        while (col <= kShort && q.IsNull(col)) ++col;
        if (col > kShort) {
          return ctx_.RowError(table, rowid, "the kernel has no name (its name ids are NULL)");
        }
        auto name = ctx_.strings.KernelName(q.Int(col), names_);
        if (!name)
          return ctx_.DanglingString(table, rowid, kNameColumns[col - kDemangled], q.Int(col));
        d.name = *name;
        d.grid = 1;
        for (int c = kGridX; c <= kGridZ; ++c) {
          if (__builtin_mul_overflow(d.grid, std::max<int64_t>(q.Int(c), 1), &d.grid)) {
            return ctx_.RowError(table, rowid, "grid size does not fit in 64 bits");
          }
        }
        break;
      }
      case Source::kGraph: {
        ++ctx_.result.graph_launches;
        const int64_t graph = q.IsNull(kExtra) ? -1 : q.Int(kExtra);
        auto [it, added] = graph_names_.emplace(graph, 0);
        if (added) {
          it->second = names_.Intern(graph < 0 ? std::string("[CUDA graph]")
                                               : "[CUDA graph " + std::to_string(graph) + "]");
        }
        d.name = it->second;
        if (ctx_.result.graph_launches == 1) {
          ctx_.builder.diagnostics().Add(trace::Message<trace::Msg::kGraphTracedWhole>(), 1,
                                         ctx_.path,
                                         std::string(table) + " rowid " + std::to_string(rowid));
        } else {
          ctx_.builder.diagnostics().Add(trace::Diag::kGraphLevelTrace, 1);
        }
        break;
      }
      case Source::kMemcpy: {
        ++ctx_.result.memcpys;
        d.kind = trace::DispatchKind::kMemcpy;
        const int64_t kind = q.Int(kExtra);
        auto [it, added] = memcpy_names_.emplace(kind, 0);
        if (added) it->second = names_.Intern(trace::MemcpyName(kind));
        d.name = it->second;
        break;
      }
      case Source::kMemset:
        ++ctx_.result.memsets;
        d.kind = trace::DispatchKind::kMemset;
        d.name = memset_name_;
        break;
    }
    d.line = line_ < UINT32_MAX ? ++line_ : line_;
    ctx_.builder.AddDispatch(d);
    return base::OkStatus();
  }

 private:
  Context& ctx_;
  trace::StringPool& names_;
  const trace::StringId memset_name_;
  std::unordered_map<int64_t, trace::StringId> memcpy_names_;
  std::unordered_map<int64_t, trace::StringId> graph_names_;
  uint32_t line_ = 0;
};

// The dispatches of every table as one query sorted by SQLite (start, source, rowid): the
// order of a start column that holds something other than integers (NULL, text, ...).
base::Status ReadDispatchesSorted(Context& ctx, const std::vector<TableScan>& scans) {
  std::string sql;
  for (const TableScan& scan : scans) sql += (sql.empty() ? "" : " UNION ALL ") + scan.sql;
  sql += " ORDER BY 3, 1, 2";
  SqliteQuery q(ctx.db, sql);
  if (!q.prepared()) return ctx.SqlError(q, kKernelTable);
  q.Numbers();
  DispatchRows rows(ctx);
  while (q.Step() == SQLITE_ROW) DP_RETURN_IF_ERROR(rows.Add(q));
  if (q.rc() == SQLITE_MISMATCH) {  // the row's own table, not the union's first
    return ctx.db.Error(q, "cannot read table", SourceTable(q.Int(kSource)));
  }
  if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, kKernelTable);
  return base::OkStatus();
}

}  // namespace

base::Status StringTable::Load(const SqliteDb& db) {
  SqliteQuery q(db, "SELECT id, value FROM StringIds");
  if (!q.prepared()) return db.Error(q, "cannot read table StringIds");
  q.Numbers({1});
  while (q.Step() == SQLITE_ROW) entries_[q.Int(0)].text = q.Text(1);
  if (q.rc() != SQLITE_DONE) return db.Error(q, "cannot read table StringIds");
  return base::OkStatus();
}

std::optional<trace::StringId> StringTable::Text(int64_t id, trace::StringPool& pool) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return std::nullopt;
  Entry& e = it->second;
  if (e.plain == kUnset) e.plain = pool.Intern(e.text);
  return static_cast<trace::StringId>(e.plain);
}

std::optional<trace::StringId> StringTable::KernelName(int64_t id, trace::StringPool& pool) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return std::nullopt;
  Entry& e = it->second;
  if (e.kernel == kUnset) e.kernel = pool.Intern(base::DemangledOrSelf(e.text));
  return static_cast<trace::StringId>(e.kernel);
}

std::optional<trace::StringId> StringTable::ApiName(int64_t id, trace::StringPool& pool) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return std::nullopt;
  Entry& e = it->second;
  if (e.api == kUnset) e.api = pool.Intern(StripApiVersion(e.text));
  return static_cast<trace::StringId>(e.api);
}

TableShape::TableShape(const SqliteDb& db, std::string name)
    : name_(std::move(name)), columns_(db.Columns(name_)) {}

bool TableShape::Has(std::string_view column) const {
  return std::find(columns_.begin(), columns_.end(), column) != columns_.end();
}

std::string TableShape::Or(std::string_view column, std::string_view expr) const {
  return Has(column) ? std::string(expr) : std::string("NULL");
}

base::Status Context::RowError(std::string_view table, int64_t rowid, std::string message) const {
  return base::DataError(path + ": " + std::string(table) + " rowid " + std::to_string(rowid),
                         std::move(message));
}

base::Status Context::DanglingString(std::string_view table, int64_t rowid, std::string_view column,
                                     int64_t id) {
  const std::string message =
      std::string(column) + " " + std::to_string(id) + " is not in table StringIds";
  builder.diagnostics().Add(
      trace::Diag::kDanglingStringId, 1,
      {path, std::string(table) + " rowid " + std::to_string(rowid), message});
  return RowError(table, rowid, message);
}

base::Status Context::Require(const TableShape& table,
                              std::initializer_list<const char*> columns) const {
  for (const char* column : columns) {
    if (!table.Has(column)) {
      return base::DataError(path, "table " + table.name() + " has no column " + column,
                             "not an Nsight Systems export of a known version");
    }
  }
  return base::OkStatus();
}

void Context::NoteMissing(const TableShape& table, std::initializer_list<const char*> columns,
                          std::string_view what) {
  for (const char* column : columns) {
    if (!table.Has(column)) {
      Variant(table.name() + " has no " + column + " column " + std::string(what));
    }
  }
}

base::StatusOr<int64_t> Context::Time(int64_t session_ns, std::string_view table,
                                      int64_t rowid) const {
  int64_t out = 0;
  if (__builtin_add_overflow(session_ns, time_offset, &out)) {
    return RowError(table, rowid,
                    "time " + std::to_string(session_ns) + " + systemClockNs " +
                        std::to_string(time_offset) + " is beyond int64");
  }
  if (!trace::IsTimestamp(out)) {
    return RowError(table, rowid,
                    "time " + std::to_string(out) + " ns is beyond its range (0 to 2^62 = " +
                        std::to_string(trace::kMaxTimestampNs) + ")");
  }
  return out;
}

uint64_t Context::Correlation(std::optional<int64_t> correlation,
                              std::optional<int64_t> pid) const {
  const uint64_t id = static_cast<uint64_t>(correlation.value_or(0)) & 0xFFFFFFFFu;
  if (id == 0 || !result.per_process_correlation) return id;
  return (static_cast<uint64_t>(pid.value_or(0)) << 32) | id;
}

std::string PidExpr(std::string_view column) {
  // A value that is not an integer passes unchanged, so that the query's Numbers() names it.
  const std::string c(column);
  return "(CASE WHEN typeof(" + c + ") = 'integer' THEN ((" + c + " >> 24) & 16777215) ELSE " + c +
         " END)";
}

base::Status DetectProcesses(Context& ctx) {
  std::vector<std::string> tables;
  for (std::string_view name : {kRuntimeTable, kDriverTable}) {
    if (TableShape(ctx.db, std::string(name)).Has("globalTid")) tables.emplace_back(name);
  }
  // Two processes or more: the first call's process, then any call of another one (two
  // scans that stop at the first row found, not a DISTINCT of every call).
  const std::string pid = PidExpr("globalTid");
  sqlite3_value* first = nullptr;
  for (const std::string& table : tables) {
    SqliteQuery q(ctx.db,
                  "SELECT " + pid + " FROM " + table + " WHERE globalTid IS NOT NULL LIMIT 1");
    if (!q.prepared()) return ctx.SqlError(q, kRuntimeTable);
    if (q.Step() == SQLITE_ROW) {
      first = sqlite3_value_dup(sqlite3_column_value(q.stmt(), 0));
      break;
    }
    if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, kRuntimeTable);
  }
  if (first == nullptr) return base::OkStatus();
  bool several = false;
  base::Status status = base::OkStatus();
  for (const std::string& table : tables) {
    SqliteQuery q(ctx.db, "SELECT 1 FROM " + table + " WHERE globalTid IS NOT NULL AND " + pid +
                              " != ?1 LIMIT 1");
    if (!q.prepared() || sqlite3_bind_value(q.stmt(), 1, first) != SQLITE_OK) {
      status = ctx.SqlError(q, kRuntimeTable);
      break;
    }
    if (q.Step() == SQLITE_ROW) {
      several = true;
      break;
    }
    if (q.rc() != SQLITE_DONE) {
      status = ctx.SqlError(q, kRuntimeTable);
      break;
    }
  }
  sqlite3_value_free(first);
  if (!status.ok() || !several) return status;
  for (std::string_view name : {kKernelTable, kGraphTraceTable, kMemcpyTable, kMemsetTable}) {
    const TableShape t(ctx.db, std::string(name));
    if (t.present() && !t.Has("globalPid")) {
      ctx.Variant(t.name() +
                  " has no globalPid column (correlations of several processes may collide)");
      return base::OkStatus();
    }
  }
  ctx.result.per_process_correlation = true;
  return base::OkStatus();
}

base::Status ReadDispatches(Context& ctx) {
  std::vector<TableScan> scans;  // in Source order: the order that breaks start-time ties
  const auto add = [&](Source source, const TableShape& t, const std::string& names,
                       const std::string& grid, const std::string& extra) {
    scans.push_back(TableScan{source, t.name(),
                              "SELECT " + std::to_string(static_cast<int64_t>(source)) +
                                  ", rowid, start, end, deviceId, streamId, " +
                                  t.Or("correlationId") + ", " + t.Or("globalPid") + ", " + names +
                                  ", " + grid + ", " + extra + " FROM " + t.name()});
  };
  const TableShape kernels(ctx.db, std::string(kKernelTable));
  if (kernels.present()) {
    DP_RETURN_IF_ERROR(
        ctx.Require(kernels, {"start", "end", "deviceId", "streamId", "gridX", "gridY", "gridZ"}));
    if (!kernels.Has("demangledName") && !kernels.Has("mangledName") && !kernels.Has("shortName")) {
      return ctx.Require(kernels, {"demangledName"});
    }
    ctx.NoteMissing(kernels, {"correlationId"}, "(no launch calls joined)");
    ctx.NoteMissing(kernels, {"demangledName", "mangledName", "shortName"},
                    "(names from the others)");
    add(Source::kKernel, kernels,
        kernels.Or("demangledName") + ", " + kernels.Or("mangledName") + ", " +
            kernels.Or("shortName"),
        "gridX, gridY, gridZ", "NULL");
  }
  const TableShape graphs(ctx.db, std::string(kGraphTraceTable));
  if (graphs.present()) {
    DP_RETURN_IF_ERROR(ctx.Require(graphs, {"start", "end", "deviceId", "streamId"}));
    ctx.NoteMissing(graphs, {"correlationId"}, "(no launch calls joined)");
    add(Source::kGraph, graphs, "NULL, NULL, NULL", "NULL, NULL, NULL", graphs.Or("graphId"));
  }
  const TableShape memcpys(ctx.db, std::string(kMemcpyTable));
  if (memcpys.present()) {
    DP_RETURN_IF_ERROR(ctx.Require(memcpys, {"start", "end", "deviceId", "streamId", "copyKind"}));
    ctx.NoteMissing(memcpys, {"correlationId"}, "(no launch calls joined)");
    add(Source::kMemcpy, memcpys, "NULL, NULL, NULL", "NULL, NULL, NULL", "copyKind");
  }
  const TableShape memsets(ctx.db, std::string(kMemsetTable));
  if (memsets.present()) {
    DP_RETURN_IF_ERROR(ctx.Require(memsets, {"start", "end", "deviceId", "streamId"}));
    ctx.NoteMissing(memsets, {"correlationId"}, "(no launch calls joined)");
    add(Source::kMemset, memsets, "NULL, NULL, NULL", "NULL, NULL, NULL", "NULL");
  }
  if (scans.empty()) return base::OkStatus();
  // Each table is read in start order without a sort of all of them (a UNION ALL sorted by
  // start, source and rowid): a table whose rows are already in start order in the file
  // (rowid order; a check reads its start column first) is scanned as it lies, any other is
  // sorted alone (SQLite's sorter, bounded memory); the rows are merged here in the order the
  // sorted union gives. A start that is not an integer (NULL, text: SQLite's order of mixed
  // types) takes that sorted union, as before.
  for (TableScan& scan : scans) {
    DP_ASSIGN_OR_RETURN(const StartOrder order, CheckStartOrder(ctx, scan.table));
    if (order == StartOrder::kMixedTypes) return ReadDispatchesSorted(ctx, scans);
    if (order == StartOrder::kUnordered) scan.sql += " ORDER BY start, rowid";
  }
  for (TableScan& scan : scans) {
    scan.q = std::make_unique<SqliteQuery>(ctx.db, scan.sql);
    if (!scan.q->prepared()) return ctx.SqlError(*scan.q, kKernelTable);
    scan.q->Numbers();
    scan.rc = scan.q->Step();
  }
  DispatchRows rows(ctx);
  while (true) {
    TableScan* next = nullptr;
    for (TableScan& scan : scans) {
      if (scan.rc != SQLITE_ROW && scan.rc != SQLITE_MISMATCH) {
        if (scan.rc != SQLITE_DONE) return ctx.SqlError(*scan.q, kKernelTable);
        continue;
      }
      // Ties go to the earlier table (scans are in Source order); a start read raw, since a
      // row that broke Numbers() holds no cached value.
      if (next == nullptr || sqlite3_column_int64(scan.q->stmt(), kStart) <
                                 sqlite3_column_int64(next->q->stmt(), kStart)) {
        next = &scan;
      }
    }
    if (next == nullptr) break;
    if (next->rc == SQLITE_MISMATCH) {
      return ctx.db.Error(*next->q, "cannot read table", next->table);
    }
    DP_RETURN_IF_ERROR(rows.Add(*next->q));
    next->rc = next->q->Step();
  }
  return base::OkStatus();
}

base::Status ReadLaunches(Context& ctx) {
  for (std::string_view name : {kRuntimeTable, kDriverTable}) {
    const TableShape t(ctx.db, std::string(name));
    if (!t.present()) continue;
    DP_RETURN_IF_ERROR(ctx.Require(t, {"start", "end", "nameId", "correlationId"}));
    ctx.NoteMissing(t, {"globalTid"}, "(thread 0)");
    SqliteQuery q(ctx.db, "SELECT rowid, start, end, nameId, correlationId, " + t.Or("globalTid") +
                              " FROM " + t.name() + " ORDER BY rowid");
    if (!q.prepared()) return ctx.SqlError(q, name);
    q.Numbers();
    while (q.Step() == SQLITE_ROW) {
      ++ctx.result.api_calls;
      const int64_t rowid = q.Int(0);
      trace::ApiCall call;
      DP_ASSIGN_OR_RETURN(call.start, ctx.Time(q.Int(1), name, rowid));
      DP_ASSIGN_OR_RETURN(call.end, ctx.Time(q.Int(2), name, rowid));
      if (call.end < call.start) {
        return ctx.RowError(name, rowid,
                            "end before start (" + std::to_string(q.Int(2)) + " < " +
                                std::to_string(q.Int(1)) + ")");
      }
      auto api = ctx.strings.ApiName(q.Int(3), ctx.names());
      if (!api) return ctx.DanglingString(name, rowid, "nameId", q.Int(3));
      call.name = *api;
      const std::optional<int64_t> tid = q.OptInt(5);
      call.thread = static_cast<uint64_t>(tid.value_or(0)) & 0xFFFFFFu;
      std::optional<int64_t> pid;
      if (tid) pid = (*tid >> 24) & 0xFFFFFF;
      call.correlation = ctx.Correlation(q.OptInt(4), pid);
      ctx.builder.AddLaunch(call);
    }
    if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, name);
  }
  return base::OkStatus();
}

}  // namespace decodeprof::io::nsys
