#include "src/io/common/read_parts.h"

#include <sched.h>

#include <algorithm>

namespace decodeprof::io {

int64_t PartCount(int64_t rows, int64_t rows_per_part, bool forced) {
  int64_t usable = kMaxReadParts;
  if (!forced) {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    usable = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  }
  const int64_t by_rows = rows / std::max<int64_t>(1, rows_per_part);
  return std::max<int64_t>(1, std::min({usable, kMaxReadParts, by_rows}));
}

std::optional<std::pair<int64_t, int64_t>> KeySpan(const SqliteDb& db, std::string_view from,
                                                   std::string_view key) {
  // Two subqueries, each answered from one end of the b-tree; `SELECT min(k), max(k)` would
  // scan the whole table.
  const std::string k(key);
  const std::string f(from);
  SqliteQuery q(
      db, "SELECT (SELECT min(" + k + ") FROM " + f + "), (SELECT max(" + k + ") FROM " + f + ")");
  if (!q.prepared() || q.Step() != SQLITE_ROW || q.Type(0) != SQLITE_INTEGER ||
      q.Type(1) != SQLITE_INTEGER) {
    return std::nullopt;
  }
  return std::make_pair(q.Int(0), q.Int(1));
}

std::optional<int64_t> FirstKeyAtLeast(const SqliteDb& db, std::string_view from,
                                       std::string_view key, std::string_view column, int64_t value,
                                       int64_t lo, int64_t hi) {
  const std::string k(key);
  SqliteQuery q(db, "SELECT " + k + ", " + std::string(column) + " FROM " + std::string(from) +
                        " WHERE " + k + " >= ?1 ORDER BY " + k + " LIMIT 1");
  if (!q.prepared()) return std::nullopt;
  // The cut lies in [lo, end]: every key below lo has a smaller value, every key from end on
  // (up to hi) a value at least `value`.
  int64_t end = hi + 1;
  while (lo < end) {
    const int64_t mid = lo + (end - lo) / 2;
    sqlite3_reset(q.stmt());
    if (sqlite3_bind_int64(q.stmt(), 1, mid) != SQLITE_OK) return std::nullopt;
    const int rc = q.Step();
    if (rc == SQLITE_DONE) {
      end = mid;
      continue;
    }
    if (rc != SQLITE_ROW || q.Type(0) != SQLITE_INTEGER || q.Type(1) != SQLITE_INTEGER) {
      return std::nullopt;
    }
    const int64_t found = q.Int(0);  // the first key at or after mid
    if (found >= end) {
      end = mid;
    } else if (q.Int(1) >= value) {
      end = found;
    } else {
      lo = found + 1;
    }
  }
  return end;
}

std::string KeyRange(std::string_view key, std::optional<int64_t> from, std::optional<int64_t> to) {
  std::string out;
  if (from)
    out += std::string(out.empty() ? " WHERE " : " AND ") + std::string(key) +
           " >= " + std::to_string(*from);
  if (to)
    out += std::string(out.empty() ? " WHERE " : " AND ") + std::string(key) + " < " +
           std::to_string(*to);
  return out;
}

}  // namespace decodeprof::io
