// NVTX_EVENTS → trace::Range (nsys_sqlite_importer.h; reference A7).
#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>

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
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].push_pop) order.push_back(i);
  }
  const auto before = [&](size_t a, size_t b) {
    const Row& x = rows[a];
    const Row& y = rows[b];
    return std::make_tuple(x.global_tid, x.range.start, -end_of(x), x.rowid) <
           std::make_tuple(y.global_tid, y.range.start, -end_of(y), y.rowid);
  };
  // An export of one thread's ranges comes in this order already (a range per dispatch makes
  // millions): sorted only when not.
  if (!std::is_sorted(order.begin(), order.end(), before)) {
    std::sort(order.begin(), order.end(), before);
  }
  std::vector<int64_t> open_ends;
  for (size_t k = 0; k < order.size(); ++k) {
    Row& r = rows[order[k]];
    if (k == 0 || rows[order[k - 1]].global_tid != r.global_tid) open_ends.clear();
    while (!open_ends.empty() && open_ends.back() <= r.range.start) open_ends.pop_back();
    r.range.depth = static_cast<int32_t>(open_ends.size());
    open_ends.push_back(end_of(r));
  }
}

}  // namespace

base::Status ReadRanges(Context& ctx) {
  const TableShape t(ctx.db, std::string(kNvtxTable));
  if (!t.present()) return base::OkStatus();
  DP_RETURN_IF_ERROR(ctx.Require(t, {"start", "end", "eventType"}));
  if (!t.Has("text") && !t.Has("textId")) return ctx.Require(t, {"text"});
  ctx.NoteMissing(t, {"textId"}, "(NVTX text only)");
  ctx.NoteMissing(t, {"text"}, "(registered strings only)");
  ctx.NoteMissing(t, {"globalTid"}, "(thread 0)");
  SqliteQuery q(ctx.db, "SELECT rowid, start, end, eventType, " + t.Or("text") + ", " +
                            t.Or("textId") + ", " + t.Or("globalTid") + " FROM " + t.name() +
                            " ORDER BY rowid");
  if (!q.prepared()) return ctx.SqlError(q, kNvtxTable);
  q.Numbers({4});
  std::vector<Row> rows;
  int64_t skipped = 0;
  trace::DiagnosticExample first_skipped;
  trace::DiagnosticExample first_unended;
  const trace::StringId empty = ctx.names().Intern("");
  while (q.Step() == SQLITE_ROW) {
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
      if (skipped++ == 0) {
        first_skipped = {ctx.path, position(),
                         "NVTX eventType " + std::to_string(type) +
                             " (marks, domain and category names, ...): not used"};
      }
      continue;
    }
    DP_ASSIGN_OR_RETURN(row.range.start, ctx.Time(q.Int(1), kNvtxTable, rowid));
    if (!q.IsNull(5)) {
      auto name = ctx.strings.Text(q.Int(5), ctx.names());
      if (!name) return ctx.DanglingString(kNvtxTable, rowid, "textId", q.Int(5));
      row.range.name = *name;
    } else {
      row.range.name = q.IsNull(4) ? empty : ctx.names().Intern(q.TextView(4));
    }
    row.ended = !q.IsNull(2);
    if (row.ended) {
      DP_ASSIGN_OR_RETURN(row.range.end, ctx.Time(q.Int(2), kNvtxTable, rowid));
      if (row.range.end < row.range.start) {
        return ctx.RowError(kNvtxTable, rowid,
                            "end before start (" + std::to_string(q.Int(2)) + " < " +
                                std::to_string(q.Int(1)) + ")");
      }
    } else if (ctx.result.unended_ranges++ == 0) {
      first_unended = {ctx.path, position(),
                       std::string(row.push_pop ? "push/pop" : "start/end") + " range '" +
                           std::string(ctx.names().Get(row.range.name)) + "' has no end"};
    }
    row.global_tid = q.IsNull(6) ? 0 : q.Int(6);
    row.range.thread = static_cast<uint64_t>(row.global_tid) & 0xFFFFFFu;
    row.range.depth = -1;
    rows.push_back(row);
  }
  if (q.rc() != SQLITE_DONE) return ctx.SqlError(q, kNvtxTable);

  AssignDepths(rows);
  std::erase_if(rows, [](const Row& r) { return !r.ended; });
  const auto in_start_order = [](const Row& a, const Row& b) {
    return std::make_tuple(a.range.start, a.range.depth, a.rowid) <
           std::make_tuple(b.range.start, b.range.depth, b.rowid);
  };
  if (!std::is_sorted(rows.begin(), rows.end(), in_start_order)) {
    std::sort(rows.begin(), rows.end(), in_start_order);
  }
  ctx.builder.trace().ranges.reserve(ctx.builder.trace().ranges.size() + rows.size());
  for (const Row& r : rows) ctx.builder.AddRange(r.range);
  ctx.result.ranges = static_cast<int64_t>(rows.size());
  ctx.builder.diagnostics().Add(trace::Diag::kUnendedRanges, ctx.result.unended_ranges,
                                first_unended);
  ctx.builder.diagnostics().Add(trace::Diag::kEventsSkipped, skipped, first_skipped);
  return base::OkStatus();
}

}  // namespace decodeprof::io::nsys
