#include "src/io/nsys_sqlite/nsys_reader.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "src/base/demangle.h"
#include "src/base/spill.h"
#include "src/io/common/read_parts.h"
#include "src/trace/spool.h"

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

// A dispatch's name as the file keys it: a kernel's string id, a graph launch's graphId (-1:
// none), a copy's copyKind, 0 for a memset; `source` -1 while the row has not got that far.
struct NameKey {
  int64_t source = -1;
  int64_t value = 0;
  int column = 0;  // a kernel's: the name column it came from (kDemangled ...)
  bool operator==(const NameKey& o) const { return source == o.source && value == o.value; }
};
struct NameKeyHash {
  size_t operator()(const NameKey& k) const {
    return std::hash<int64_t>{}(k.value) ^ (static_cast<size_t>(k.source) << 60);
  }
};

// The checks of one dispatch row of any table (the query's columns are Col) that need no
// state but the file's: `d` but its name and line, `key` its name (set before the grid check,
// so that a dangling name, the earlier error of the row, is still found). Any thread.
base::Status CheckDispatch(const Context& ctx, const SqliteQuery& q, trace::Dispatch& d,
                           NameKey& key) {
  const int64_t source = q.Int(kSource);
  const std::string_view table = SourceTable(source);
  const int64_t rowid = q.Int(kRowid);
  DP_ASSIGN_OR_RETURN(d.start, ctx.Time(q.Int(kStart), table, rowid));
  DP_ASSIGN_OR_RETURN(d.end, ctx.Time(q.Int(kEnd), table, rowid));
  if (d.end < d.start) {
    return ctx.RowError(table, rowid,
                        "end before start (" + std::to_string(q.Int(kEnd)) + " < " +
                            std::to_string(q.Int(kStart)) + ")");
  }
  const int64_t device = q.Int(kDevice);
  const int64_t stream = q.Int(kStream);
  if (device < 0 || device > std::numeric_limits<int16_t>::max()) {
    return ctx.RowError(table, rowid,
                        "deviceId " + std::to_string(device) + " is beyond its range (0 to 32767)");
  }
  if (stream < 0 || stream > std::numeric_limits<uint32_t>::max()) {
    return ctx.RowError(
        table, rowid,
        "streamId " + std::to_string(stream) + " is beyond its range (0 to 4294967295)");
  }
  d.device = static_cast<int16_t>(device);
  d.stream = static_cast<uint32_t>(stream);
  // The process of globalPid (PidExpr, here rather than in SQL for each row).
  std::optional<int64_t> pid = q.OptInt(kPid);
  if (pid) pid = (*pid >> 24) & 0xFFFFFF;
  d.correlation = ctx.Correlation(q.OptInt(kCorrelation), pid);
  key.source = source;
  switch (static_cast<Source>(source)) {
    case Source::kKernel: {
      int col = kDemangled;
      while (col <= kShort && q.IsNull(col)) ++col;
      if (col > kShort) {
        key.source = -1;
        return ctx.RowError(table, rowid, "the kernel has no name (its name ids are NULL)");
      }
      key.value = q.Int(col);
      key.column = col;
      d.grid = 1;
      for (int c = kGridX; c <= kGridZ; ++c) {
        if (__builtin_mul_overflow(d.grid, std::max<int64_t>(q.Int(c), 1), &d.grid)) {
          return ctx.RowError(table, rowid, "grid size does not fit in 64 bits");
        }
      }
      break;
    }
    case Source::kGraph:
      key.value = q.IsNull(kExtra) ? -1 : q.Int(kExtra);
      break;
    case Source::kMemcpy:
      d.kind = trace::DispatchKind::kMemcpy;
      key.value = q.Int(kExtra);
      break;
    case Source::kMemset:
      d.kind = trace::DispatchKind::kMemset;
      break;
  }
  return base::OkStatus();
}

// Dispatch names into the pool, in the order they come (the calling thread only).
class DispatchNames {
 public:
  explicit DispatchNames(Context& ctx)
      : ctx_(ctx), names_(ctx.names()), memset_name_(names_.Intern(trace::kMemsetName)) {}

  // The pool id of `key`, first seen at `rowid`; a dangling string id is the row's error.
  base::StatusOr<trace::StringId> Name(const NameKey& key, int64_t rowid) {
    switch (static_cast<Source>(key.source)) {
      case Source::kKernel: {
        auto name = ctx_.strings.KernelName(key.value, names_);
        if (!name) {
          return ctx_.DanglingString(kKernelTable, rowid, kNameColumns[key.column - kDemangled],
                                     key.value);
        }
        return *name;
      }
      case Source::kGraph: {
        auto [it, added] = graph_names_.emplace(key.value, 0);
        if (added) {
          it->second =
              names_.Intern(key.value < 0 ? std::string("[CUDA graph]")
                                          : "[CUDA graph " + std::to_string(key.value) + "]");
        }
        return it->second;
      }
      case Source::kMemcpy: {
        auto [it, added] = memcpy_names_.emplace(key.value, 0);
        if (added) it->second = names_.Intern(trace::MemcpyName(key.value));
        return it->second;
      }
      case Source::kMemset:
        break;
    }
    return memset_name_;
  }

  // Counts `n` rows of `source` (the first graph launch, at `rowid`, is named in the
  // diagnostics: a graph traced whole).
  void Count(Source source, int64_t n, int64_t rowid) {
    if (n == 0) return;
    switch (source) {
      case Source::kKernel:
        ctx_.result.kernels += n;
        break;
      case Source::kGraph:
        if (ctx_.result.graph_launches == 0) {
          ctx_.builder.diagnostics().Add(
              trace::Message<trace::Msg::kGraphTracedWhole>(), 1, ctx_.path,
              std::string(kGraphTraceTable) + " rowid " + std::to_string(rowid));
          if (n > 1) ctx_.builder.diagnostics().Add(trace::Diag::kGraphLevelTrace, n - 1);
        } else {
          ctx_.builder.diagnostics().Add(trace::Diag::kGraphLevelTrace, n);
        }
        ctx_.result.graph_launches += n;
        break;
      case Source::kMemcpy:
        ctx_.result.memcpys += n;
        break;
      case Source::kMemset:
        ctx_.result.memsets += n;
        break;
    }
  }

 private:
  Context& ctx_;
  trace::StringPool& names_;
  const trace::StringId memset_name_;
  std::unordered_map<int64_t, trace::StringId> memcpy_names_;
  std::unordered_map<int64_t, trace::StringId> graph_names_;
};

// One dispatch row of any table (the query's columns are Col) into the model, numbered in
// the order the rows come.
class DispatchRows {
 public:
  explicit DispatchRows(Context& ctx) : ctx_(ctx), names_(ctx) {}

  base::Status Add(const SqliteQuery& q) {
    trace::Dispatch d;
    NameKey key;
    const base::Status checked = CheckDispatch(ctx_, q, d, key);
    const int64_t rowid = q.Int(kRowid);
    if (key.source >= 0) {
      DP_ASSIGN_OR_RETURN(d.name, names_.Name(key, rowid));
    }
    if (key.source == static_cast<int64_t>(Source::kKernel)) ++ctx_.result.kernels;
    DP_RETURN_IF_ERROR(checked);
    if (key.source != static_cast<int64_t>(Source::kKernel)) {
      names_.Count(static_cast<Source>(key.source), 1, rowid);
    }
    d.line = line_ < UINT32_MAX ? ++line_ : line_;
    ctx_.builder.AddDispatch(d);
    return base::OkStatus();
  }

 private:
  Context& ctx_;
  DispatchNames names_;
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

// A caller that keeps every dispatch (TraceBuilder::keeps_everything) and tables in start
// order: the dispatches read in start-time parts, each on a thread of its own over a
// connection of its own. A table in start order has rowid order == start order, so a part's
// start range is a rowid range of every table, found by a binary search of point lookups;
// each part merges its ranges exactly as one pass merges the tables (ties: Source order).
// Every part checks that its rows are in start order and inside its start range (integers
// all): together the parts check the whole table, so no serial scan comes first.
// A caller that keeps a window only: the parts go into spools (read_parts.h).
bool Spooled(const Context& ctx) {
  return !ctx.builder.keeps_everything() && !ctx.options.read_in_parts;
}

class DispatchParts {
 public:
  DispatchParts(Context& ctx, const std::vector<TableScan>& scans) : ctx_(ctx), scans_(scans) {}

  // nullopt when the parts do not apply (few rows, a table out of start order, a start that is
  // not an integer): nothing was handed on, the caller reads in one pass. Else the read's end.
  std::optional<base::Status> Run() {
    if (!Plan()) return std::nullopt;
    std::vector<Part> parts(bounds_.size() + 1);
    // Each part counts its rows (no row decoded), then reads them straight into the sink's room
    // at its offset, or into its own rows when the sink has none (read_parts.h).
    const std::optional<bool> read = ReadPartsInPlace(
        ctx_.builder, parts, [this](size_t p) { return Count(p); },
        [this](size_t p, Part& part) { Read(p, part); }, Spooled(ctx_));
    if (!read) return std::nullopt;
    const bool in_place = *read;
    // In order: names interned in the order one pass meets them (the parts' keys in order of
    // first sight, the parts in order), rows numbered and handed on a part at a time (in
    // place: all at once at the end, or as far as the first error).
    DispatchNames names(ctx_);
    uint32_t line = 0;
    size_t filled = 0;  // in place: the rows ready
    std::vector<trace::StringId> pool_ids;
    base::Status status;
    for (Part& part : parts) {
      const std::vector<NameKey>& keys = part.keys.keys();
      pool_ids.resize(keys.size());
      for (size_t k = 0; k < keys.size() && status.ok(); ++k) {
        base::StatusOr<trace::StringId> name = names.Name(keys[k], part.first_rowid[k]);
        if (name.ok()) {
          pool_ids[k] = *name;
        } else {
          status = name.status();
        }
      }
      if (!status.ok()) break;
      for (int64_t source = 0; source < 4; ++source) {
        names.Count(static_cast<Source>(source), part.counts[source], part.first_graph_rowid);
      }
      status = part.HandOn(ctx_.builder, pool_ids, in_place, line, filled);
      if (!status.ok()) break;
      status = part.status;
      if (!status.ok()) break;
    }
    // (The parts' slots lie one after another from the first one's.)
    if (in_place) ctx_.builder.AddFilledDispatches({parts.front().slot.data(), filled});
    return status;
  }

 private:
  struct Part : PartRows {
    // Rows are named by the number of their key in `keys` until the calling thread names them.
    FirstSeen<NameKey, NameKeyHash> keys;
    std::vector<int64_t> first_rowid;  // per key: the row it was first seen at
    int64_t counts[4] = {};            // rows per Source
    int64_t first_graph_rowid = 0;
  };

  // The rowid range of table `t` in part `p` (" WHERE rowid >= a AND rowid < b").
  std::string Range(size_t t, size_t p) const {
    const std::optional<int64_t> first =
        p == 0 ? std::nullopt : std::optional<int64_t>(cuts_[t][p - 1]);
    const std::optional<int64_t> end =
        p == bounds_.size() ? std::nullopt : std::optional<int64_t>(cuts_[t][p]);
    return KeyRange("rowid", first, end);
  }

  // The rows of part `p`, -1 when a count fails (over a connection of its own: any thread).
  int64_t Count(size_t p) const {
    auto opened = SqliteDb::Open(ctx_.path);
    if (!opened.ok()) return -1;
    int64_t rows = 0;
    for (size_t t = 0; t < scans_.size(); ++t) {
      if (cuts_[t].empty()) continue;
      SqliteQuery q(*opened, "SELECT count(*) FROM " + scans_[t].table + Range(t, p));
      if (!q.prepared() || q.Step() != SQLITE_ROW) return -1;
      rows += q.Int(0);
    }
    return rows;
  }

  // Decides the parts: bounds_ (the starts that begin parts 1, 2, ...) and cuts_ (per table,
  // the first rowid of each of those parts). False when there are to be none.
  bool Plan() {
    int64_t rows = 0;
    size_t largest = 0;
    std::vector<std::optional<std::pair<int64_t, int64_t>>> spans;
    for (size_t t = 0; t < scans_.size(); ++t) {
      spans.push_back(KeySpan(ctx_.db, scans_[t].table, "rowid"));
      if (!spans[t]) {  // empty, else not for parts
        SqliteQuery any(ctx_.db, "SELECT EXISTS(SELECT 1 FROM " + scans_[t].table + ")");
        if (!any.prepared() || any.Step() != SQLITE_ROW || any.Int(0) != 0) return false;
        continue;
      }
      const int64_t span = spans[t]->second - spans[t]->first + 1;
      if (spans[largest] == std::nullopt ||
          span > spans[largest]->second - spans[largest]->first + 1) {
        largest = t;
      }
      rows += span;
    }
    const int64_t parts = PartCount(rows, ctx_.options.rows_per_part,
                                    ctx_.options.read_in_parts || ctx_.options.force_part_count);
    if (parts < 2 || !spans[largest]) return false;
    // The bounds: the starts of the largest table at even steps of its rowids.
    const auto [lo, hi] = *spans[largest];
    SqliteQuery at(ctx_.db, "SELECT start FROM " + scans_[largest].table +
                                " WHERE rowid >= ?1 ORDER BY rowid LIMIT 1");
    if (!at.prepared()) return false;
    for (int64_t p = 1; p < parts; ++p) {
      sqlite3_reset(at.stmt());
      sqlite3_bind_int64(at.stmt(), 1, lo + (hi - lo) / parts * p);
      if (at.Step() != SQLITE_ROW || at.Type(0) != SQLITE_INTEGER) return false;
      if (bounds_.empty() || at.Int(0) > bounds_.back()) bounds_.push_back(at.Int(0));
    }
    if (bounds_.empty()) return false;
    cuts_.assign(scans_.size(), {});
    for (size_t t = 0; t < scans_.size(); ++t) {
      if (!spans[t]) continue;  // empty: read by none
      for (const int64_t bound : bounds_) {
        const std::optional<int64_t> cut = FirstKeyAtLeast(
            ctx_.db, scans_[t].table, "rowid", "start", bound, spans[t]->first, spans[t]->second);
        if (!cut) return false;
        cuts_[t].push_back(*cut);
      }
    }
    return true;
  }

  // Part `p`: the rows whose start lies in [bounds_[p - 1], bounds_[p]) (open at the ends),
  // as far as the first bad row, each checked for its place in start order.
  void Read(size_t p, Part& part) const {
    auto opened = SqliteDb::Open(ctx_.path);
    if (!opened.ok()) {
      part.status = opened.status();
      return;
    }
    const SqliteDb& db = *opened;
    const std::optional<int64_t> from =
        p == 0 ? std::nullopt : std::optional<int64_t>(bounds_[p - 1]);
    const std::optional<int64_t> to =
        p == bounds_.size() ? std::nullopt : std::optional<int64_t>(bounds_[p]);
    struct Rows {
      std::unique_ptr<SqliteQuery> q;
      std::string_view table;
      int rc = SQLITE_DONE;
      int64_t last = std::numeric_limits<int64_t>::min();
    };
    std::vector<Rows> ranges;
    for (size_t t = 0; t < scans_.size(); ++t) {
      if (cuts_[t].empty()) continue;
      Rows& r = ranges.emplace_back();
      r.table = scans_[t].table;
      r.q = std::make_unique<SqliteQuery>(db, scans_[t].sql + Range(t, p) + " ORDER BY rowid");
      if (!r.q->prepared()) {
        part.status = db.Error(*r.q, "cannot read table " + std::string(kKernelTable));
        return;
      }
      r.q->Numbers();
    }
    // The next row of `r`, checked for its place; false when out of place.
    const auto step = [&](Rows& r) {
      r.rc = r.q->Step();
      if (r.rc != SQLITE_ROW && r.rc != SQLITE_MISMATCH) return true;
      sqlite3_stmt* stmt = r.q->stmt();
      if (sqlite3_column_type(stmt, kStart) != SQLITE_INTEGER) return false;
      const int64_t start = sqlite3_column_int64(stmt, kStart);
      if (start < r.last || (from && start < *from) || (to && start >= *to)) return false;
      r.last = start;
      return true;
    };
    for (Rows& r : ranges) {
      if (!step(r)) {
        part.in_order = false;
        return;
      }
    }
    while (true) {
      Rows* next = nullptr;
      for (Rows& r : ranges) {
        if (r.rc != SQLITE_ROW && r.rc != SQLITE_MISMATCH) {
          if (r.rc != SQLITE_DONE) {
            part.status = db.Error(*r.q, "cannot read table " + std::string(kKernelTable));
            break;
          }
          continue;
        }
        if (next == nullptr || sqlite3_column_int64(r.q->stmt(), kStart) <
                                   sqlite3_column_int64(next->q->stmt(), kStart)) {
          next = &r;
        }
      }
      if (!part.status.ok() || next == nullptr) break;
      if (next->rc == SQLITE_MISMATCH) {
        part.status = db.Error(*next->q, "cannot read table", next->table);
        break;
      }
      trace::Dispatch d;
      NameKey key;
      part.status = CheckDispatch(ctx_, *next->q, d, key);
      if (key.source >= 0) {
        bool added = false;
        d.name = part.keys.Number(key, &added);
        if (added) part.first_rowid.push_back(next->q->Int(kRowid));
      }
      if (!part.status.ok()) break;
      if (key.source == static_cast<int64_t>(Source::kGraph) &&
          part.counts[static_cast<int64_t>(Source::kGraph)] == 0) {
        part.first_graph_rowid = next->q->Int(kRowid);
      }
      ++part.counts[key.source];
      if (!part.Keep(d)) {  // more rows than counted: the file changed under the read
        part.in_order = false;
        return;
      }
      if (!step(*next)) {
        part.in_order = false;
        return;
      }
    }
    // After a bad row the rest is still checked for its order: a table out of order is read
    // in one pass, which may meet another bad row first.
    for (Rows& r : ranges) {
      while (r.rc == SQLITE_ROW || r.rc == SQLITE_MISMATCH) {
        if (!step(r)) {
          part.in_order = false;
          return;
        }
      }
    }
  }

  Context& ctx_;
  const std::vector<TableScan>& scans_;
  std::vector<int64_t> bounds_;
  std::vector<std::vector<int64_t>> cuts_;
};

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
  // The scan below in rowid parts on threads, whatever the window (it holds no rows); the
  // calling thread waits instead of scanning.
  const std::optional<bool> several_in_parts = AnyRowInParts(
      ctx.path, ctx.db, tables, "rowid", "globalTid IS NOT NULL AND " + pid + " != ?1", {first},
      ctx.options.rows_per_part, ctx.options.read_in_parts);
  bool several = several_in_parts.value_or(false);
  base::Status status = base::OkStatus();
  for (const std::string& table : tables) {
    if (several_in_parts) break;
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
  if (ctx.builder.keeps_everything() || ctx.options.read_in_parts || ctx.options.spool_parts) {
    if (std::optional<base::Status> read = DispatchParts(ctx, scans).Run()) return *read;
  }
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

namespace {

// The checks of one launch call row (columns: rowid, start, end, nameId, correlationId,
// globalTid) that need no state but the file's: `call` but its name. Any thread.
base::Status CheckCall(const Context& ctx, std::string_view table, const SqliteQuery& q,
                       trace::ApiCall& call) {
  const int64_t rowid = q.Int(0);
  DP_ASSIGN_OR_RETURN(call.start, ctx.Time(q.Int(1), table, rowid));
  DP_ASSIGN_OR_RETURN(call.end, ctx.Time(q.Int(2), table, rowid));
  if (call.end < call.start) {
    return ctx.RowError(
        table, rowid,
        "end before start (" + std::to_string(q.Int(2)) + " < " + std::to_string(q.Int(1)) + ")");
  }
  const std::optional<int64_t> tid = q.OptInt(5);
  call.thread = static_cast<uint64_t>(tid.value_or(0)) & 0xFFFFFFu;
  std::optional<int64_t> pid;
  if (tid) pid = (*tid >> 24) & 0xFFFFFF;
  call.correlation = ctx.Correlation(q.OptInt(4), pid);
  return base::OkStatus();
}

std::string LaunchQuery(const TableShape& t) {
  return "SELECT rowid, start, end, nameId, correlationId, " + t.Or("globalTid") + " FROM " +
         t.name();
}

}  // namespace

// Beside the dispatches: launch calls a spool keeps in memory.
constexpr size_t kBesideMemoryCalls = size_t{1} << 16;

// A rowid range of a launch call table, read on a thread of its own.
class LaunchParts {
 public:
  struct Piece {
    std::string table;
    std::string sql;
    std::vector<trace::ApiCall> calls;  // each named by the number of its nameId in `keys`
    std::span<trace::ApiCall> slot;     // in place: its room in the sink (`calls` unused)
    size_t filled = 0;                  // calls read into `slot`
    // Beside the dispatches of a small window: the calls spooled (`calls` unused).
    std::unique_ptr<trace::Spool<trace::ApiCall>> spool;
    FirstSeen<int64_t> keys;
    std::vector<int64_t> first_rowid;  // per key: the row it was first seen at
    int64_t rows = 0;
    base::Status status;  // the first bad row's error
    size_t room = 0;      // its rowids: the most calls it can hold
    bool bounded = true;  // `room` holds every call it can read
  };

  explicit LaunchParts(const Context& ctx) : ctx_(ctx) {}
  ~LaunchParts() {
    stop_ = true;
    for (std::thread& reader : readers_) {
      if (reader.joinable()) reader.join();
    }
  }

  std::vector<Piece> pieces;
  std::span<trace::ApiCall> room;  // the launch sink's, when the pieces are read in place

  void Start() {
    readers_.reserve(pieces.size());
    for (Piece& piece : pieces) readers_.emplace_back([this, &piece] { Read(piece); });
  }
  // Piece `i`, once read.
  Piece& Take(size_t i) {
    readers_[i].join();
    return pieces[i];
  }

 private:
  void Read(Piece& piece) const {
    auto opened = SqliteDb::Open(ctx_.path);
    if (!opened.ok()) {
      piece.status = opened.status();
      return;
    }
    SqliteQuery q(*opened, piece.sql);
    if (!q.prepared()) {
      piece.status = opened->Error(q, "cannot read table " + piece.table);
      return;
    }
    q.Numbers();
    const bool in_place = piece.slot.data() != nullptr;
    // Where the room is in a file (base/spill.h), what is written goes from the process as the
    // piece goes: the pieces' threads fill it faster than the watcher drops it.
    base::spill::ReleaseBehind<trace::ApiCall> written(piece.slot.data(), 0);
    while (q.Step() == SQLITE_ROW) {
      if ((++piece.rows & 4095) == 0 && stop_) return;
      if (piece.spool) {
        trace::ApiCall call;
        piece.status = CheckCall(ctx_, piece.table, q, call);
        if (!piece.status.ok()) return;
        bool added = false;
        call.name = piece.keys.Number(q.Int(3), &added);
        if (added) piece.first_rowid.push_back(q.Int(0));
        piece.spool->Add(call);
        continue;
      }
      if (in_place && piece.filled == piece.slot.size()) {  // not a rowid range after all
        piece.status =
            base::DataError(ctx_.path, "table " + piece.table + " changed while it was read");
        return;
      }
      trace::ApiCall& call = in_place ? piece.slot[piece.filled] : piece.calls.emplace_back();
      piece.status = CheckCall(ctx_, piece.table, q, call);
      if (!piece.status.ok()) {
        if (!in_place) piece.calls.pop_back();
        return;
      }
      if (in_place) ++piece.filled;
      bool added = false;
      call.name = piece.keys.Number(q.Int(3), &added);
      if (added) piece.first_rowid.push_back(q.Int(0));
      written.Passed(piece.filled);
    }
    if (q.rc() != SQLITE_DONE) piece.status = opened->Error(q, "cannot read table " + piece.table);
  }

  const Context& ctx_;
  std::vector<std::thread> readers_;
  std::atomic<bool> stop_{false};
};

void LaunchPartsDeleter::operator()(LaunchParts* parts) const { delete parts; }

LaunchPartsPtr StartLaunchParts(const Context& ctx) {
  // A caller that keeps a window, not every record: each table in one piece, spooled.
  const bool beside = !ctx.builder.keeps_everything() && !ctx.options.read_in_parts;
  if (beside && ctx.options.launches_on_calling_thread) return nullptr;
  LaunchPartsPtr parts(new LaunchParts(ctx));
  for (std::string_view name : {kRuntimeTable, kDriverTable}) {
    const TableShape t(ctx.db, std::string(name));
    if (!t.present()) continue;
    // (A table that lacks a column is ReadLaunches' error, found in order.)
    if (!t.Has("start") || !t.Has("end") || !t.Has("nameId") || !t.Has("correlationId")) break;
    const std::string sql = LaunchQuery(t);
    const std::optional<std::pair<int64_t, int64_t>> span = KeySpan(ctx.db, t.name(), "rowid");
    const int64_t n = span && !beside
                          ? PartCount(span->second - span->first + 1, ctx.options.rows_per_part,
                                      ctx.options.read_in_parts)
                          : 1;
    for (int64_t k = 0; k < n; ++k) {
      std::optional<int64_t> from, to;
      if (k > 0) from = span->first + (span->second - span->first + 1) / n * k;
      if (k + 1 < n) to = span->first + (span->second - span->first + 1) / n * (k + 1);
      LaunchParts::Piece& piece = parts->pieces.emplace_back();
      piece.table = std::string(name);
      piece.sql = sql + KeyRange("rowid", from, to) + " ORDER BY rowid";
      if (beside) {
        piece.spool = std::make_unique<trace::Spool<trace::ApiCall>>(kBesideMemoryCalls);
      } else if (span) {
        piece.room =
            static_cast<size_t>(to.value_or(span->second + 1) - from.value_or(span->first));
      } else {
        // No span: an empty table (no room needed), else one piece, and nothing in place.
        SqliteQuery any(ctx.db, "SELECT EXISTS(SELECT 1 FROM " + t.name() + ")");
        piece.bounded = any.prepared() && any.Step() == SQLITE_ROW && any.Int(0) == 0;
      }
    }
  }
  if (beside) {
    if (parts->pieces.empty()) return nullptr;
    parts->Start();
    return parts;
  }
  if (parts->pieces.size() < 2) return nullptr;
  // Room in the launch sink for every rowid of every piece (TraceBuilder::LaunchRoom), so that
  // each piece is read straight into its place; ReadLaunches closes the gaps.
  size_t room_needed = 0;
  bool bounded = true;
  for (const LaunchParts::Piece& piece : parts->pieces) {
    room_needed += piece.room;
    bounded = bounded && piece.bounded;
  }
  parts->room = bounded && room_needed > 0 ? ctx.builder.LaunchRoom(room_needed)
                                           : std::span<trace::ApiCall>();
  if (parts->room.size() == room_needed && room_needed > 0) {
    size_t at = 0;
    for (LaunchParts::Piece& piece : parts->pieces) {
      piece.slot = parts->room.subspan(at, piece.room);
      at += piece.room;
    }
  } else {
    parts->room = {};
  }
  parts->Start();
  return parts;
}

base::Status ReadLaunches(Context& ctx, LaunchParts* parts) {
  size_t piece = 0;
  size_t kept = 0;  // in place: the calls ready at the start of the room
  for (std::string_view name : {kRuntimeTable, kDriverTable}) {
    const TableShape t(ctx.db, std::string(name));
    if (!t.present()) continue;
    DP_RETURN_IF_ERROR(ctx.Require(t, {"start", "end", "nameId", "correlationId"}));
    ctx.NoteMissing(t, {"globalTid"}, "(thread 0)");
    if (parts != nullptr) {
      // The table's pieces in rowid order: names interned in the order one pass meets them.
      std::vector<trace::StringId> pool_ids;
      for (; piece < parts->pieces.size() && parts->pieces[piece].table == name; ++piece) {
        LaunchParts::Piece& part = parts->Take(piece);
        const std::vector<int64_t>& keys = part.keys.keys();
        pool_ids.resize(keys.size());
        for (size_t k = 0; k < keys.size(); ++k) {
          auto api = ctx.strings.ApiName(keys[k], ctx.names());
          if (!api) return ctx.DanglingString(name, part.first_rowid[k], "nameId", keys[k]);
          pool_ids[k] = *api;
        }
        ctx.result.api_calls += part.rows;
        if (part.spool) {
          // Handed on in blocks, named, as the spool gives them back.
          DP_RETURN_IF_ERROR(part.spool->DrainBlocks([&](std::span<trace::ApiCall> block) {
            for (trace::ApiCall& call : block) call.name = pool_ids[call.name];
            ctx.builder.AddLaunches(block);
          }));
          part.spool.reset();
        } else if (parts->room.data() != nullptr) {
          // In place: the piece's calls moved up to the last piece's (rowids that hold no
          // call leave room behind).
          const std::span<trace::ApiCall> calls = part.slot.first(part.filled);
          for (trace::ApiCall& call : calls) call.name = pool_ids[call.name];
          if (calls.data() != parts->room.data() + kept) {
            std::memmove(parts->room.data() + kept, calls.data(),
                         calls.size() * sizeof(trace::ApiCall));
          }
          kept += calls.size();
        } else {
          for (trace::ApiCall& call : part.calls) call.name = pool_ids[call.name];
          ctx.builder.AddLaunches(part.calls);
          part.calls = {};
        }
        DP_RETURN_IF_ERROR(part.status);
      }
      continue;
    }
    SqliteQuery q(ctx.db, LaunchQuery(t) + " ORDER BY rowid");
    if (!q.prepared()) return ctx.SqlError(q, name);
    q.Numbers();
    while (q.Step() == SQLITE_ROW) {
      ++ctx.result.api_calls;
      const int64_t rowid = q.Int(0);
      trace::ApiCall call;
      DP_RETURN_IF_ERROR(CheckCall(ctx, name, q, call));
      auto api = ctx.strings.ApiName(q.Int(3), ctx.names());
      if (!api) return ctx.DanglingString(name, rowid, "nameId", q.Int(3));
      call.name = *api;
      ctx.builder.AddLaunch(call);
    }
    if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, name);
  }
  if (parts != nullptr && parts->room.data() != nullptr) {
    ctx.builder.AddFilledLaunches(parts->room.first(kept));
  }
  return base::OkStatus();
}

}  // namespace decodeprof::io::nsys
