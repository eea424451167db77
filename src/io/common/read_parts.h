// Reading a large SQLite table in parts on threads, for a caller that keeps every record
// (trace::TraceBuilder::keeps_everything): how many parts, where a start-ordered table is cut
// (by its integer key, without a scan), and file keys (a name id, a copy kind) numbered in the
// order a part first meets them, so that the calling thread interns names in the order one
// pass would. Shared by the SQLite importers (nsys, rocpd; native could take PartCount too).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/base/spill.h"
#include "src/base/status.h"
#include "src/io/common/sqlite_db.h"
#include "src/trace/spool.h"
#include "src/trace/trace.h"

namespace decodeprof::io {

// The most parts one table is read in. (16 on the GPU machine's 16 CPUs cost more CPU time
// than 8 and took longer: docs/performance.md. rocpd reads its regions and dispatches at once,
// 8 parts each.)
inline constexpr int64_t kMaxReadParts = 8;
// The parts tests ask for (`forced`), whatever the machine.
inline constexpr int64_t kForcedReadParts = 8;

// How many parts `rows` rows are read in: one per CPU of the calling thread's affinity mask
// (kForcedReadParts when `forced`, as tests ask), at most kMaxReadParts, none below
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

// KeyRange of part `k` (0-based) of `parts` that cut [lo, hi] at even steps of `key`: the first
// part takes every key below its end, the last every key from its start, so that together they
// hold every integer key.
std::string EvenKeyPart(std::string_view key, int64_t lo, int64_t hi, int64_t parts, int64_t k);

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

// Runs fn(p) for every p in [0, n), each on a thread of its own, and waits for them all.
template <typename Fn>
void OnThreads(size_t n, Fn&& fn) {
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (size_t p = 0; p < n; ++p) threads.emplace_back([&fn, p] { fn(p); });
  for (std::thread& t : threads) t.join();
}

// The dispatches a spooled part keeps in memory (the rest go to a temporary file).
inline constexpr size_t kSpooledPartRecords = size_t{1} << 16;

// The rows of one part of the dispatches, read on a thread of its own (ReadPartsInPlace): into
// `slot`, its room in the sink, or where the sink gives none into `rows`, or for a caller that
// keeps a window only into `spool` (bounded memory).
struct PartRows {
  int64_t count = -1;                                    // rows in its ranges; -1: not counted
  std::span<trace::Dispatch> slot;                       // in place: its room in the sink
  size_t filled = 0;                                     // rows read into `slot`
  trace::DispatchVector rows;                            // else: the rows read
  std::unique_ptr<trace::Spool<trace::Dispatch>> spool;  // or: the rows spooled
  base::Status status;                                   // the first bad row's error
  bool in_order = true;                                  // false: its rows are not in start order
  // Where `slot` is in a file (base/spill.h), what is written goes from the process as the part
  // goes: the threads of the parts fill it faster than the watcher drops it.
  base::spill::ReleaseBehind<trace::Dispatch> written{nullptr, 0};

  // Keeps `d`, in the spool, the slot or the rows; false when the slot is full (more rows than
  // counted: the file changed while it was read).
  bool Keep(const trace::Dispatch& d) {
    if (spool) {
      spool->Add(d);
      return true;
    }
    if (slot.data() == nullptr) {
      rows.push_back(d);
      return true;
    }
    if (filled == slot.size()) return false;
    slot[filled++] = d;
    written.Passed(filled);
    return true;
  }
  // The rows read, wherever they are (not spooled ones).
  std::span<trace::Dispatch> Read() {
    return slot.data() == nullptr ? std::span<trace::Dispatch>(rows) : slot.first(filled);
  }
  // fn(block) over the rows read, in order: all at once, or spooled ones a block at a time;
  // then the rows are dropped. A spool that lost rows is the error (nothing more handed on).
  template <typename Fn>
  base::Status ForEachBlock(Fn&& fn) {
    if (!spool) {
      // In pieces, each let go once handed on where it is in a file (base/spill.h).
      const std::span<trace::Dispatch> all = Read();
      const size_t piece = base::spill::kReleaseBytes / sizeof(trace::Dispatch);
      base::spill::ReleaseBehind<trace::Dispatch> handed_on(all.data(), 0);
      size_t at = 0;
      do {
        const std::span<trace::Dispatch> block = all.subspan(at, std::min(piece, all.size() - at));
        fn(block);
        at += block.size();
        handed_on.Passed(at);
      } while (at < all.size());
      rows = {};
      return base::OkStatus();
    }
    base::Status drained = spool->DrainBlocks(fn);
    spool.reset();
    return drained;
  }

  // Hands the rows read on in order (ForEachBlock), each named pool_ids[its key] and numbered
  // on from `line`: in place they are only counted into `ready` (the caller adds the room's
  // filled prefix at the end), else added to `builder`.
  base::Status HandOn(trace::TraceBuilder& builder, std::span<const trace::StringId> pool_ids,
                      bool in_place, uint32_t& line, size_t& ready) {
    return ForEachBlock([&](std::span<trace::Dispatch> block) {
      for (trace::Dispatch& d : block) {
        d.name = pool_ids[d.name];
        d.line = line < UINT32_MAX ? ++line : line;
      }
      if (in_place) {
        ready += block.size();
      } else {
        builder.AddDispatches(block);
      }
    });
  }
};

// The dispatch parts (Part: a PartRows) counted, each by count(p) on a thread of its own (-1:
// not counted), then read, each by read(p, part) on a thread of its own: straight into the
// builder's room (TraceBuilder::DispatchRoom) at their offsets when every part was counted and
// the sink gives room, else each into its own rows. nullopt when a part found its rows out of
// start order or, in place, not as many as it counted (a file written while it was read): the
// room is given back and nothing was handed on; the caller reads in one pass. Else whether
// the parts were read in place: the caller then names and numbers them, and hands them on
// (AddFilledDispatches once over the room, or AddDispatches per part).
//
// With `spooled` (a caller that keeps a window only), nothing is counted: each part reads its
// rows into a spool of its own; nullopt when a part found them out of start order, else false.
template <typename Part, typename Count, typename ReadPart>
std::optional<bool> ReadPartsInPlace(trace::TraceBuilder& builder, std::vector<Part>& parts,
                                     Count&& count, ReadPart&& read, bool spooled = false) {
  if (spooled) {
    for (Part& part : parts) {
      part.spool = std::make_unique<trace::Spool<trace::Dispatch>>(kSpooledPartRecords);
    }
    OnThreads(parts.size(), [&](size_t p) { read(p, parts[p]); });
    for (const Part& part : parts) {
      if (!part.in_order) return std::nullopt;
    }
    return false;
  }
  OnThreads(parts.size(), [&](size_t p) { parts[p].count = count(p); });
  size_t total = 0;
  bool counted = true;
  for (const Part& part : parts) {
    counted = counted && part.count >= 0;
    total += static_cast<size_t>(std::max<int64_t>(part.count, 0));
  }
  std::span<trace::Dispatch> room;
  if (counted && total > 0) room = builder.DispatchRoom(total);
  const bool in_place = total > 0 && room.size() == total;
  if (!in_place && !room.empty()) builder.AddFilledDispatches({});
  size_t at = 0;
  for (Part& part : parts) {
    if (!in_place) break;  // each part's rows go to its `rows`
    part.slot = room.subspan(at, static_cast<size_t>(part.count));
    part.written = base::spill::ReleaseBehind<trace::Dispatch>(part.slot.data(), 0);
    at += part.slot.size();
  }
  OnThreads(parts.size(), [&](size_t p) { read(p, parts[p]); });
  for (const Part& part : parts) {
    // (A part read in place holds as many rows as it counted, unless a bad row stopped it.)
    if (!part.in_order || (in_place && part.status.ok() && part.filled != part.slot.size())) {
      if (in_place) builder.AddFilledDispatches({});
      return std::nullopt;
    }
  }
  return in_place;
}

}  // namespace decodeprof::io
