// A per-thread interval index over annotation ranges (NVTX push/pop ranges), answering
// "which ranges enclose time t on thread th" — the op path of a kernel launch, for the
// op_path role rule (role_rules.h, docs/packs.md).
//
// Only ranges that nest (depth >= 0: push/pop ranges) are indexed; start/end ranges
// (depth -1) may end on another thread and are left out. A range encloses t when
// start <= t < end (half-open, so of two adjacent siblings only the later one encloses
// their common instant; an empty range encloses nothing).
//
// Build is O(n log n); a query is O(log n + the nesting depth on that thread). Ranges on
// one thread are expected to nest (push/pop); when bad data has two ranges that overlap
// without nesting, a query still only returns ranges that enclose t, but may miss one of
// the two.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "src/trace/range.h"
#include "src/trace/string_pool.h"

namespace decodeprof::analysis {

class RangeIndex {
 public:
  // Indexes the nesting ranges of `ranges` (any order).
  explicit RangeIndex(std::span<const trace::Range> ranges);

  // Name ids of the ranges enclosing `time` on `thread`, innermost first, into `out`
  // (cleared first). Empty when none does or the thread has no ranges.
  void Enclosing(uint64_t thread, trace::TimestampNs time, std::vector<trace::StringId>* out) const;

  // For each indexed range, the nearest range of its nesting chain (itself, else its parent,
  // ...) whose name `matches` accepts, or -1: what AnyEnclosing reads. `matches` is called
  // once per range; O(n).
  std::vector<int32_t> NearestMatching(const std::function<bool(trace::StringId)>& matches) const;

  // Whether one of the ranges enclosing `time` on `thread` is a range `nearest` (from
  // NearestMatching) accepts. The same answer as testing each name Enclosing returns, in
  // O(log depth) for ranges that nest (a chain of 10^5 nested ranges included).
  bool AnyEnclosing(uint64_t thread, trace::TimestampNs time,
                    std::span<const int32_t> nearest) const;

  // Whether one of the ranges enclosing `time` on `thread` has a name that `matching` marks
  // (matching[name] != 0; names past its end are not marked): AnyEnclosing's answer with no
  // per-range array, by a walk up the chain (right anywhere; at most kWalk ranges where
  // !deep(), which is where it is meant to be used). `hint`, when given, carries the range
  // found from one query to the next: queries in time order then cost O(1) each, not O(log n).
  bool AnyEnclosingNamed(uint64_t thread, trace::TimestampNs time,
                         std::span<const uint8_t> matching, size_t* hint = nullptr) const;
  // Whether some thread's ranges nest deeper than kWalk (AnyEnclosing's per-range array is
  // then what keeps a query short).
  bool deep() const { return !jump_.empty(); }
  // The distinct names of the indexed ranges, in increasing id order.
  std::span<const trace::StringId> names() const { return names_; }

  size_t size() const { return ranges_.size(); }  // indexed ranges
  bool empty() const { return ranges_.empty(); }

 private:
  struct Entry {
    trace::TimestampNs start = 0;
    trace::TimestampNs end = 0;
    trace::StringId name = 0;
    int64_t parent = -1;  // index into ranges_ of the enclosing range, -1 at the top
  };
  struct ThreadSpan {
    size_t begin = 0;  // [begin, end) of ranges_, sorted by start
    size_t end = 0;
  };

  // The last range of `thread` that starts at or before `time`, or -1.
  int64_t LastStartingBy(uint64_t thread, trace::TimestampNs time, size_t* hint = nullptr) const;
  // The first range of the chain from `i` (itself, its parent, ...) that ends after `time`,
  // or -1: by jumps over the chain when it is deep.
  int64_t FirstOpen(int64_t i, trace::TimestampNs time) const;

  std::vector<Entry> ranges_;  // grouped by thread, each group by start (ties: longer first)
  std::vector<trace::StringId> names_;
  // Jumps up deep chains (built when a chain is deeper than kWalk): jump_[k][i] is the
  // 2^k-th ancestor of range i (-1 past the top), max_end_[k][i] the latest end among the
  // 2^k ranges from i up (those that exist).
  static constexpr int64_t kWalk = 64;
  // More threads with ranges than this: one sort of them all instead of a group per thread.
  static constexpr size_t kFewThreads = 64;
  std::vector<std::vector<int32_t>> jump_;
  std::vector<std::vector<trace::TimestampNs>> max_end_;
  // Each thread's span, by thread: a trace has a few launching threads, and a whole-trace
  // window asks once per dispatch.
  std::vector<std::pair<uint64_t, ThreadSpan>> threads_;
  const ThreadSpan* SpanOf(uint64_t thread) const;
};

}  // namespace decodeprof::analysis
