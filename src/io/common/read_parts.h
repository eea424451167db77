// Reading a large SQLite table in parts on threads, for a caller that keeps every record
// (trace::TraceBuilder::keeps_everything): how many parts, where a start-ordered table is cut
// (by its integer key, without a scan), and file keys (a name id, a copy kind) numbered in the
// order a part first meets them, so that the calling thread interns names in the order one
// pass would. Shared by the SQLite importers (nsys, rocpd; native could take PartCount too).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/io/common/sqlite_db.h"

namespace decodeprof::io {

// The most parts one table is read in.
inline constexpr int64_t kMaxReadParts = 8;

// How many parts `rows` rows are read in: one per CPU of the calling thread's affinity mask
// (kMaxReadParts when `forced`, as tests ask), at most kMaxReadParts, none below
// `rows_per_part` rows (at least 1). 1 means one pass.
int64_t PartCount(int64_t rows, int64_t rows_per_part, bool forced);

// The smallest and largest `key` of `from` (a table or view whose `key` is its rowid or an
// indexed integer column): two lookups at the ends of the b-tree, not a scan. nullopt for an
// empty table, a key that is not an integer or a failed query.
std::optional<std::pair<int64_t, int64_t>> KeySpan(const SqliteDb& db, std::string_view from,
                                                   std::string_view key);

// In `from`, whose rows are in `column` order by `key` (checked by whoever reads the parts,
// not here): a cut b in [lo, hi + 1] such that the rows of keys in [lo, b) are those whose
// `column` is below `value`; a binary search of point lookups (O(log(hi - lo)) queries).
// nullopt when a value met is not an integer or a query fails.
std::optional<int64_t> FirstKeyAtLeast(const SqliteDb& db, std::string_view from,
                                       std::string_view key, std::string_view column, int64_t value,
                                       int64_t lo, int64_t hi);

// The condition (" WHERE key >= a AND key < b", a side left out when nullopt) of a key range.
std::string KeyRange(std::string_view key, std::optional<int64_t> from, std::optional<int64_t> to);

// Whether a row of one of `froms` (tables or views whose `key` is their rowid or an indexed
// integer column) meets `condition` (an SQL expression whose ?1, ?2, ... are `values`), each
// scanned in parts of its keys on threads over connections of their own to `path` (PartCount
// parts; the calling thread only waits). nullopt when there are fewer than two parts or a
// query fails: the caller scans in one pass then (and names the error).
std::optional<bool> AnyRowInParts(const std::string& path, const SqliteDb& db,
                                  const std::vector<std::string>& froms, std::string_view key,
                                  const std::string& condition,
                                  const std::vector<sqlite3_value*>& values, int64_t rows_per_part,
                                  bool forced);

// Keys numbered 0, 1, ... in the order of first sight.
template <typename Key, typename Hash = std::hash<Key>>
class FirstSeen {
 public:
  // The number of `key`; `added` says whether this was its first sight.
  uint32_t Number(const Key& key, bool* added = nullptr) {
    auto [it, fresh] = numbers_.emplace(key, static_cast<uint32_t>(keys_.size()));
    if (fresh) keys_.push_back(key);
    if (added != nullptr) *added = fresh;
    return it->second;
  }
  const std::vector<Key>& keys() const { return keys_; }

 private:
  std::unordered_map<Key, uint32_t, Hash> numbers_;
  std::vector<Key> keys_;
};

}  // namespace decodeprof::io
