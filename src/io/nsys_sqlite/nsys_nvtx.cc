// NVTX_EVENTS → trace::Range (nsys_sqlite_importer.h; reference A7).
#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "src/base/large_pages.h"
#include "src/base/sorting.h"
#include "src/base/spill.h"
#include "src/io/common/read_parts.h"
#include "src/io/nsys_sqlite/nsys_reader.h"

namespace decodeprof::io::nsys {
namespace {

// eventType values of ENUM_NSYS_EVENT_TYPE (A7), hard-coded: exports before 2023.2 have no
// ENUM_* tables and the values have not changed since.
constexpr int64_t kPushPop = 59;
constexpr int64_t kStartEnd = 60;
constexpr int64_t kNvtxtPushPop = 70;
constexpr int64_t kNvtxtStartEnd = 71;

struct Row {
  trace::Range range;
  int64_t rowid = 0;
  int64_t global_tid = 0;
  bool push_pop = false;
  bool ended = true;
};

// Nesting depth of the push/pop ranges on each thread (globalTid): by start, the longer range
// first on ties (an unended range is open to the end of the trace); a range is inside every
// open range that has not ended by its start. nsys stores no nesting (A7).
void AssignDepths(std::vector<Row>& rows) {
  constexpr int64_t kOpen = std::numeric_limits<int64_t>::max();
  const auto end_of = [&](const Row& r) { return r.ended ? r.range.end : kOpen; };
  std::vector<size_t> order;
  order.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].push_pop) order.push_back(i);
  }
  const auto before = [&](size_t a, size_t b) {
    const Row& x = rows[a];
    const Row& y = rows[b];
    return std::make_tuple(x.global_tid, x.range.start, -end_of(x), x.rowid) <
           std::make_tuple(y.global_tid, y.range.start, -end_of(y), y.rowid);
  };
  // An export comes in this order but for the enclosing ranges, written as they end (a range
  // per dispatch makes millions): SortMostlySorted's linear pass then, not a sort of them all.
  base::SortMostlySorted(order, before);
  std::vector<int64_t> open_ends;
  for (size_t k = 0; k < order.size(); ++k) {
    Row& r = rows[order[k]];
    if (k == 0 || rows[order[k - 1]].global_tid != r.global_tid) open_ends.clear();
    while (!open_ends.empty() && open_ends.back() <= r.range.start) open_ends.pop_back();
    r.range.depth = static_cast<int32_t>(open_ends.size());
    open_ends.push_back(end_of(r));
  }
}

// What a read of NVTX_EVENTS gives before its names are in the trace's pool: the names as a
// pool of the read's own (interned in the order one pass over the rows interns them), the rows
// naming them, and the counts and first examples of its diagnostics.
struct RangeRows {
  base::Status status;
  trace::StringPool names;
  std::vector<Row> rows;
  int64_t skipped = 0;
  int64_t unended = 0;
  trace::DiagnosticExample first_skipped;
  trace::DiagnosticExample first_unended;
  // A textId that StringIds lacks (row, id): the import's error, with its diagnostic.
  std::optional<std::pair<int64_t, int64_t>> dangling;
  bool ordered = false;  // OrderRows done
};

// The rows as the trace takes them: depths assigned, ranges that never ended left out, in
// start order (then depth, then row). Reads no name.
void OrderRows(std::vector<Row>& rows) {
  AssignDepths(rows);
  std::erase_if(rows, [](const Row& r) { return !r.ended; });
  const auto in_start_order = [](const Row& a, const Row& b) {
    return std::make_tuple(a.range.start, a.range.depth, a.rowid) <
           std::make_tuple(b.range.start, b.range.depth, b.rowid);
  };
  base::SortMostlySorted(rows, in_start_order);
}

// NVTX_EVENTS's columns as `t` has them, for RangeRowsOf; `where` (KeyRange's) picks a part.
std::string RangeQuery(const TableShape& t, const std::string& where = "") {
  return "SELECT rowid, start, end, eventType, " + t.Or("text") + ", " + t.Or("textId") + ", " +
         t.Or("globalTid") + " FROM " + t.name() + where + " ORDER BY rowid";
}

// The rows of NVTX_EVENTS over `db` (the import's connection, or a thread's own). Reads only
// what does not change while the dispatches are read (the StringIds texts, the clock), so it
// may run on a thread beside them; `stop` ends it early.
void RangeRowsOf(const Context& ctx, const SqliteDb& db, const std::string& sql, RangeRows& out,
                 const std::atomic<bool>* stop) {
  SqliteQuery q(db, sql);
  if (!q.prepared()) {
    out.status = db.Error(q, "cannot read table " + std::string(kNvtxTable));
    return;
  }
  q.Numbers({4});
  const trace::StringId empty = out.names.Intern("");
  // Where the rows are in a file (base/spill.h), what is read goes from the process as it goes.
  base::spill::AppendReleaseBehind<Row> appended(out.rows.data(), out.rows.size());
  int64_t read = 0;
  while (q.Step() == SQLITE_ROW) {
    if (stop != nullptr && (++read & 4095) == 0 && *stop) return;
    const int64_t rowid = q.Int(0);
    // Made only for the first row of a diagnostic, not a string a row.
    const auto position = [rowid] {
      return std::string(kNvtxTable) + " rowid " + std::to_string(rowid);
    };
    const int64_t type = q.Int(3);
    Row row;
    row.rowid = rowid;
    row.push_pop = type == kPushPop || type == kNvtxtPushPop;
    if (!row.push_pop && type != kStartEnd && type != kNvtxtStartEnd) {
      if (out.skipped++ == 0) {
        out.first_skipped = {ctx.path, position(),
                             "NVTX eventType " + std::to_string(type) +
                                 " (marks, domain and category names, ...): not used"};
      }
      continue;
    }
    base::StatusOr<int64_t> start = ctx.Time(q.Int(1), kNvtxTable, rowid);
    if (!start.ok()) {
      out.status = start.status();
      return;
    }
    row.range.start = *start;
    if (!q.IsNull(5)) {
      const std::string* text = ctx.strings.Find(q.Int(5));
      if (text == nullptr) {
        out.dangling = {rowid, q.Int(5)};
        return;
      }
      row.range.name = out.names.Intern(*text);
    } else {
      row.range.name = q.IsNull(4) ? empty : out.names.Intern(q.TextView(4));
    }
    row.ended = !q.IsNull(2);
    if (row.ended) {
      base::StatusOr<int64_t> end = ctx.Time(q.Int(2), kNvtxTable, rowid);
      if (!end.ok()) {
        out.status = end.status();
        return;
      }
      row.range.end = *end;
      if (row.range.end < row.range.start) {
        out.status = ctx.RowError(kNvtxTable, rowid,
                                  "end before start (" + std::to_string(q.Int(2)) + " < " +
                                      std::to_string(q.Int(1)) + ")");
        return;
      }
    } else if (out.unended++ == 0) {
      out.first_unended = {ctx.path, position(),
                           std::string(row.push_pop ? "push/pop" : "start/end") + " range '" +
                               std::string(out.names.Get(row.range.name)) + "' has no end"};
    }
    row.global_tid = q.IsNull(6) ? 0 : q.Int(6);
    row.range.thread = static_cast<uint64_t>(row.global_tid) & 0xFFFFFFu;
    row.range.depth = -1;
    out.rows.push_back(row);
    appended.Appended(out.rows.data(), out.rows.size());
  }
  if (q.rc() != SQLITE_DONE)
    out.status = db.Error(q, "cannot read table " + std::string(kNvtxTable));
}

// Whether NVTX_EVENTS can be read as ReadRanges reads it (else ReadRanges says why, in order).
bool Readable(const TableShape& t) {
  return t.present() && t.Has("start") && t.Has("end") && t.Has("eventType") &&
         (t.Has("text") || t.Has("textId"));
}

}  // namespace

// RangeRowsOf over rowid parts of NVTX_EVENTS, each on a thread of its own over a connection
// of its own, put together as one pass gives them: the rows in rowid order, the names in the
// order of first sight, the counts summed, the first example and the first error those of the
// first part that has one (parts are rowid ranges in order). Then OrderRows.
void RangeRowsInParts(const Context& ctx, const TableShape& t, RangeRows& out,
                      const std::atomic<bool>& stop) {
  base::StatusOr<SqliteDb> db = SqliteDb::Open(ctx.path);
  if (!db.ok()) {
    out.status = db.status();
    return;
  }
  const std::optional<std::pair<int64_t, int64_t>> span = KeySpan(*db, t.name(), "rowid");
  const int64_t parts = span ? PartCount(span->second - span->first + 1,
                                         std::max<int64_t>(1, ctx.options.rows_per_part),
                                         ctx.options.read_in_parts || ctx.options.force_part_count)
                             : 1;
  if (parts < 2 || span->second - span->first < parts) {
    RangeRowsOf(ctx, *db, RangeQuery(t), out, &stop);
    if (out.status.ok() && !out.dangling) {
      OrderRows(out.rows);
      out.ordered = true;
    }
    return;
  }
  const int64_t lo = span->first;  // (plain names: clang captures no binding)
  const int64_t hi = span->second;
  std::vector<RangeRows> part(static_cast<size_t>(parts));
  OnThreads(part.size(), [&](size_t p) {
    base::StatusOr<SqliteDb> own = SqliteDb::Open(ctx.path);
    if (!own.ok()) {
      part[p].status = own.status();
      return;
    }
    // Room for the part's span of rowids (about as many rows): a vector that doubles copies
    // what it holds, and a range per dispatch makes millions of rows.
    part[p].rows.reserve(static_cast<size_t>((hi - lo) / parts + 1));
    RangeRowsOf(ctx, *own,
                RangeQuery(t, EvenKeyPart("rowid", lo, hi, parts, static_cast<int64_t>(p))),
                part[p], &stop);
  });
  size_t total = 0;
  for (const RangeRows& r : part) total += r.rows.size();
  base::ReserveFaultedIn(out.rows, total);
  for (RangeRows& r : part) {
    if (out.skipped == 0 && r.skipped > 0) out.first_skipped = r.first_skipped;
    if (out.unended == 0 && r.unended > 0) out.first_unended = r.first_unended;
    out.skipped += r.skipped;
    out.unended += r.unended;
    std::vector<trace::StringId> names(r.names.size());
    for (size_t id = 0; id < r.names.size(); ++id) {
      names[id] = out.names.Intern(r.names.Get(static_cast<trace::StringId>(id)));
    }
    for (Row& row : r.rows) {
      row.range.name = names[row.range.name];
      out.rows.push_back(row);
    }
    std::vector<Row>().swap(r.rows);
    if (!r.status.ok() || r.dangling) {  // the first bad row: the rows after it do not count
      out.status = std::move(r.status);
      out.dangling = r.dangling;
      return;
    }
  }
  OrderRows(out.rows);
  out.ordered = true;
}

// RangeRowsInParts on a thread of its own.
class RangeRead {
 public:
  RangeRead(const Context& ctx, TableShape t)
      : thread_([this, &ctx, t = std::move(t)] { RangeRowsInParts(ctx, t, rows_, stop_); }) {}
  RangeRead(const RangeRead&) = delete;
  RangeRead& operator=(const RangeRead&) = delete;
  ~RangeRead() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  RangeRows& Take() {
    thread_.join();
    return rows_;
  }

 private:
  RangeRows rows_;
  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: started once the members it writes exist
};

void RangeReadDeleter::operator()(RangeRead* read) const { delete read; }

RangeReadPtr StartRanges(const Context& ctx) {
  // Beside the dispatches only where they are read in parts too (a caller that keeps every
  // record); the tests' one-pass reference reads them after.
  if (!ctx.builder.keeps_everything() && !ctx.options.read_in_parts) return nullptr;
  const TableShape t(ctx.db, std::string(kNvtxTable));
  if (!Readable(t)) return nullptr;
  return RangeReadPtr(new RangeRead(ctx, t));
}

base::Status ReadRanges(Context& ctx, RangeRead* started) {
  const TableShape t(ctx.db, std::string(kNvtxTable));
  if (!t.present()) return base::OkStatus();
  DP_RETURN_IF_ERROR(ctx.Require(t, {"start", "end", "eventType"}));
  if (!t.Has("text") && !t.Has("textId")) return ctx.Require(t, {"text"});
  ctx.NoteMissing(t, {"textId"}, "(NVTX text only)");
  ctx.NoteMissing(t, {"text"}, "(registered strings only)");
  ctx.NoteMissing(t, {"globalTid"}, "(thread 0)");
  RangeRows own;
  RangeRows& read = started != nullptr ? started->Take() : own;
  if (started == nullptr) RangeRowsOf(ctx, ctx.db, RangeQuery(t), own, nullptr);
  if (read.dangling) {
    return ctx.DanglingString(kNvtxTable, read.dangling->first, "textId", read.dangling->second);
  }
  if (!read.status.ok()) return read.status;
  // The read's names into the trace's pool, in the order the read met them (the ids one pass
  // on this thread would have given).
  std::vector<trace::StringId> pooled(read.names.size());
  for (size_t id = 0; id < read.names.size(); ++id) {
    pooled[id] = ctx.names().Intern(read.names.Get(static_cast<trace::StringId>(id)));
  }
  std::vector<Row>& rows = read.rows;
  for (Row& r : rows) r.range.name = pooled[r.range.name];
  ctx.result.unended_ranges += read.unended;

  if (!read.ordered) OrderRows(rows);
  base::ReserveFaultedIn(ctx.builder.trace().ranges,
                         ctx.builder.trace().ranges.size() + rows.size());
  for (const Row& r : rows) ctx.builder.AddRange(r.range);
  ctx.result.ranges = static_cast<int64_t>(rows.size());
  ctx.builder.diagnostics().Add(trace::Diag::kUnendedRanges, ctx.result.unended_ranges,
                                read.first_unended);
  ctx.builder.diagnostics().Add(trace::Diag::kEventsSkipped, read.skipped, read.first_skipped);
  std::vector<Row>().swap(rows);
  return base::OkStatus();
}

}  // namespace decodeprof::io::nsys
