#include "src/io/common/read_parts.h"

#include <algorithm>
#include <thread>

#include "src/base/parallel.h"

namespace decodeprof::io {

int64_t PartCount(int64_t rows, int64_t rows_per_part, bool forced) {
  const int64_t usable = forced ? kForcedReadParts : int64_t{base::UsableCpus()};
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

std::string EvenKeyPart(std::string_view key, int64_t lo, int64_t hi, int64_t parts, int64_t k) {
  const int64_t step = (hi - lo) / parts;
  return KeyRange(key, k == 0 ? std::nullopt : std::optional<int64_t>(lo + step * k),
                  k == parts - 1 ? std::nullopt : std::optional<int64_t>(lo + step * (k + 1)));
}

std::optional<bool> AnyRowInParts(const std::string& path, const SqliteDb& db,
                                  const std::vector<std::string>& froms, std::string_view key,
                                  const std::string& condition,
                                  const std::vector<sqlite3_value*>& values, int64_t rows_per_part,
                                  bool forced) {
  struct Piece {
    std::string sql;
    std::vector<sqlite3_value*> values;  // a copy for its thread
    bool found = false;
    bool failed = false;
  };
  std::vector<Piece> pieces;
  for (const std::string& from : froms) {
    const std::optional<std::pair<int64_t, int64_t>> span = KeySpan(db, from, key);
    if (!span) {  // an empty table has no row to find
      SqliteQuery any(db, "SELECT EXISTS(SELECT 1 FROM " + from + ")");
      if (!any.prepared() || any.Step() != SQLITE_ROW || any.Int(0) != 0) return std::nullopt;
      continue;
    }
    const int64_t rows = span->second - span->first + 1;
    const int64_t n = PartCount(rows, rows_per_part, forced);
    for (int64_t k = 0; k < n; ++k) {
      std::optional<int64_t> lo, hi;
      if (k > 0) lo = span->first + rows / n * k;
      if (k + 1 < n) hi = span->first + rows / n * (k + 1);
      const std::string range = KeyRange(key, lo, hi);
      pieces.push_back(Piece{"SELECT 1 FROM " + from + (range.empty() ? " WHERE" : range + " AND") +
                                 " (" + condition + ") LIMIT 1",
                             {}});
    }
  }
  if (pieces.size() < 2) return std::nullopt;
  for (Piece& piece : pieces) {
    for (sqlite3_value* value : values) piece.values.push_back(sqlite3_value_dup(value));
  }
  std::vector<std::thread> readers;
  readers.reserve(pieces.size());
  for (Piece& piece : pieces) {
    readers.emplace_back([&path, &piece] {
      auto opened = SqliteDb::Open(path);
      if (!opened.ok()) {
        piece.failed = true;
        return;
      }
      SqliteQuery q(*opened, piece.sql);
      bool bound = q.prepared();
      for (size_t i = 0; bound && i < piece.values.size(); ++i) {
        bound = sqlite3_bind_value(q.stmt(), static_cast<int>(i + 1), piece.values[i]) == SQLITE_OK;
      }
      if (!bound) {
        piece.failed = true;
        return;
      }
      const int rc = q.Step();
      piece.found = rc == SQLITE_ROW;
      piece.failed = rc != SQLITE_ROW && rc != SQLITE_DONE;
    });
  }
  for (std::thread& reader : readers) reader.join();
  bool found = false;
  bool failed = false;
  for (Piece& piece : pieces) {
    for (sqlite3_value* value : piece.values) sqlite3_value_free(value);
    failed = failed || piece.failed;
    found = found || piece.found;
  }
  if (failed) return std::nullopt;
  return found;
}

}  // namespace decodeprof::io
