#include "src/analysis/range_index.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "src/base/large_pages.h"
#include "src/base/sorting.h"
#include "src/base/spill.h"

namespace decodeprof::analysis {

RangeIndex::RangeIndex(std::span<const trace::Range> ranges) {
  // The nesting ranges, by their index in `ranges` (millions of ranges: faulted in on threads).
  // Where the arrays are in files (base/spill.h), each pass below lets go of what it has read
  // and written as it goes: a range per dispatch makes millions, read on this thread alone.
  std::vector<size_t> kept;
  base::ReserveFaultedIn(kept, ranges.size());
  {
    base::spill::ReleaseBehind<trace::Range> read(ranges.data(), 0);
    base::spill::AppendReleaseBehind<size_t> written(kept.data(), 0);
    for (size_t i = 0; i < ranges.size(); ++i) {
      read.Passed(i);
      if (ranges[i].depth >= 0) {
        kept.push_back(i);
        written.Appended(kept.data(), kept.size());
      }
    }
  }
  // fn(i, kept[i]) for each kept range in `kept`'s order (which the grouping below changes),
  // letting go of the ranges and of `kept` behind.
  const auto each_kept = [&](const auto& fn) {
    base::spill::ReleaseBehind<trace::Range> read(ranges.data(), 0);
    base::spill::ReleaseBehind<size_t> read_kept(kept.data(), 0);
    for (size_t i = 0; i < kept.size(); ++i) {
      read.Passed(kept[i]);
      read_kept.Passed(i);
      fn(i, kept[i]);
    }
  };
  // By thread, then start; an enclosing range before the ranges it encloses (longer first,
  // then shallower). Ranges that tie on all four enclose the same instants: their order
  // changes no answer.
  const auto in_thread = [&](size_t a, size_t b) {
    const trace::Range& x = ranges[a];
    const trace::Range& y = ranges[b];
    return std::make_tuple(x.start, -x.end, x.depth) < std::make_tuple(y.start, -y.end, y.depth);
  };
  // A trace has a few threads that open ranges, and its importer gives them in start order:
  // the ranges are put into their threads' groups in order (two passes), and a group is put in
  // order by SortMostlySorted (linear where few are out of order: a range per dispatch makes
  // millions).
  std::vector<uint64_t> ids;
  {
    // A pass over every range where the threads are few (letting go as it reads).
    base::spill::ReleaseBehind<trace::Range> read(ranges.data(), 0);
    base::spill::ReleaseBehind<size_t> read_kept(kept.data(), 0);
    for (size_t i = 0; i < kept.size() && ids.size() <= kFewThreads; ++i) {
      read.Passed(kept[i]);
      read_kept.Passed(i);
      const uint64_t thread = ranges[kept[i]].thread;
      if (std::find(ids.begin(), ids.end(), thread) == ids.end()) ids.push_back(thread);
    }
  }
  if (ids.size() > kFewThreads) {
    std::sort(kept.begin(), kept.end(), [&](size_t a, size_t b) {
      return ranges[a].thread != ranges[b].thread ? ranges[a].thread < ranges[b].thread
                                                  : in_thread(a, b);
    });
  } else {
    std::sort(ids.begin(), ids.end());
    const auto group = [&](size_t k) {
      return static_cast<size_t>(std::lower_bound(ids.begin(), ids.end(), ranges[k].thread) -
                                 ids.begin());
    };
    std::vector<size_t> at(ids.size() + 1, 0);
    each_kept([&](size_t, size_t k) { ++at[group(k) + 1]; });
    for (size_t g = 1; g < at.size(); ++g) at[g] += at[g - 1];
    std::vector<size_t> grouped;
    base::ResizeFaultedIn(grouped, kept.size());
    std::vector<size_t> next(at.begin(), at.end() - 1);
    each_kept([&](size_t, size_t k) { grouped[next[group(k)]++] = k; });
    kept = std::move(grouped);
    for (size_t g = 0; g + 1 < at.size(); ++g) {
      const auto first = kept.begin() + static_cast<std::ptrdiff_t>(at[g]);
      const auto last = kept.begin() + static_cast<std::ptrdiff_t>(at[g + 1]);
      // Its passes read the group's ranges in about their order: let go of both behind.
      base::spill::ReleaseBehind<trace::Range> read(ranges.data());
      base::spill::ReleaseBehind<size_t> read_kept(kept.data(), at[g]);
      base::SortMostlySorted(first, last, in_thread, [&](size_t i) {
        read.Passed(first[static_cast<std::ptrdiff_t>(i)]);
        read_kept.Passed(at[g] + i);
      });
    }
  }
  base::ReserveFaultedIn(ranges_, kept.size());
  std::vector<size_t> open;  // stack of the ranges that may enclose the next one
  int64_t max_depth = 0;
  base::spill::AppendReleaseBehind<Entry> written(ranges_.data(), ranges_.size());
  each_kept([&](size_t i, size_t k) {
    const trace::Range& r = ranges[k];
    if (i == 0 || ranges[kept[i - 1]].thread != r.thread) {
      open.clear();
      threads_.emplace_back(r.thread, ThreadSpan{i, i});
    }
    threads_.back().second.end = i + 1;
    while (!open.empty() && ranges_[open.back()].end <= r.start) open.pop_back();
    Entry e;
    e.start = r.start;
    e.end = r.end;
    e.name = r.name;
    e.parent = open.empty() ? -1 : static_cast<int64_t>(open.back());
    ranges_.push_back(e);
    written.Appended(ranges_.data(), ranges_.size());
    open.push_back(i);
    max_depth = std::max<int64_t>(max_depth, static_cast<int64_t>(open.size()));
  });
  // The distinct names, by a mark per name id (ids are dense: a string pool's).
  std::vector<uint8_t> seen;
  base::spill::ReleaseBehind<Entry> read_entries(ranges_.data(), 0);
  for (size_t i = 0; i < ranges_.size(); ++i) {
    read_entries.Passed(i);
    const Entry& e = ranges_[i];
    if (e.name >= seen.size()) seen.resize(std::max<size_t>(e.name + 1, 2 * seen.size()), 0);
    seen[e.name] = 1;
  }
  for (size_t id = 0; id < seen.size(); ++id) {
    if (seen[id] != 0) names_.push_back(static_cast<trace::StringId>(id));
  }
  if (max_depth <= kWalk) return;
  // A deep chain (nested ranges by the thousand): jumps of 1, 2, 4, ... ranges up it.
  const size_t n = ranges_.size();
  jump_.emplace_back(n);
  max_end_.emplace_back(n);
  for (size_t i = 0; i < n; ++i) {
    jump_[0][i] = static_cast<int32_t>(ranges_[i].parent);
    max_end_[0][i] = ranges_[i].end;
  }
  for (int64_t span = 2; span / 2 < max_depth; span *= 2) {
    const std::vector<int32_t>& half = jump_.back();
    const std::vector<trace::TimestampNs>& half_end = max_end_.back();
    std::vector<int32_t> next(n);
    std::vector<trace::TimestampNs> next_end(n);
    for (size_t i = 0; i < n; ++i) {
      const int32_t mid = half[i];
      next[i] = mid < 0 ? -1 : half[static_cast<size_t>(mid)];
      next_end[i] =
          mid < 0 ? half_end[i] : std::max(half_end[i], half_end[static_cast<size_t>(mid)]);
    }
    jump_.push_back(std::move(next));
    max_end_.push_back(std::move(next_end));
  }
}

const RangeIndex::ThreadSpan* RangeIndex::SpanOf(uint64_t thread) const {
  const auto it = std::lower_bound(
      threads_.begin(), threads_.end(), thread,
      [](const std::pair<uint64_t, ThreadSpan>& t, uint64_t id) { return t.first < id; });
  return it != threads_.end() && it->first == thread ? &it->second : nullptr;
}

int64_t RangeIndex::LastStartingBy(uint64_t thread, trace::TimestampNs time, size_t* hint) const {
  const ThreadSpan* span = SpanOf(thread);
  if (span == nullptr) return -1;
  auto first = ranges_.begin() + static_cast<std::ptrdiff_t>(span->begin);
  auto last = ranges_.begin() + static_cast<std::ptrdiff_t>(span->end);
  // From the last answer, in steps that double: the queries of a pass over dispatches in
  // start order come in launch order, a range or two apart.
  if (hint != nullptr && *hint >= span->begin && *hint < span->end &&
      ranges_[*hint].start <= time) {
    size_t at = *hint;
    size_t step = 1;
    while (at + step < span->end && ranges_[at + step].start <= time) {
      at += step;
      step *= 2;
    }
    first = ranges_.begin() + static_cast<std::ptrdiff_t>(at);
    last = ranges_.begin() + static_cast<std::ptrdiff_t>(std::min(at + step, span->end));
  }
  const auto after = std::upper_bound(
      first, last, time, [](trace::TimestampNs t, const Entry& e) { return t < e.start; });
  if (after == ranges_.begin() + static_cast<std::ptrdiff_t>(span->begin)) return -1;
  const int64_t found = static_cast<int64_t>(after - ranges_.begin()) - 1;
  if (hint != nullptr) *hint = static_cast<size_t>(found);
  return found;
}

int64_t RangeIndex::FirstOpen(int64_t i, trace::TimestampNs time) const {
  if (jump_.empty()) {
    while (i >= 0 && ranges_[static_cast<size_t>(i)].end <= time) {
      i = ranges_[static_cast<size_t>(i)].parent;
    }
    return i;
  }
  // Over every block of ranges that all ended by `time`, largest blocks first.
  for (size_t k = jump_.size(); k-- > 0 && i >= 0;) {
    while (i >= 0 && max_end_[k][static_cast<size_t>(i)] <= time)
      i = jump_[k][static_cast<size_t>(i)];
  }
  return i;
}

std::vector<int32_t> RangeIndex::NearestMatching(
    const std::function<bool(trace::StringId)>& matches) const {
  // A parent comes before its children in ranges_.
  std::vector<int32_t> nearest(ranges_.size(), -1);
  for (size_t i = 0; i < ranges_.size(); ++i) {
    if (matches(ranges_[i].name)) {
      nearest[i] = static_cast<int32_t>(i);
    } else if (ranges_[i].parent >= 0) {
      nearest[i] = nearest[static_cast<size_t>(ranges_[i].parent)];
    }
  }
  return nearest;
}

bool RangeIndex::AnyEnclosing(uint64_t thread, trace::TimestampNs time,
                              std::span<const int32_t> nearest) const {
  // Every range of the chain from the last one to start by `time` starts by `time`; of them,
  // those still open at `time` enclose it.
  int64_t i = FirstOpen(LastStartingBy(thread, time), time);
  while (i >= 0) {
    const int32_t m = nearest[static_cast<size_t>(i)];
    if (m < 0) return false;
    if (time < ranges_[static_cast<size_t>(m)].end) return true;
    // A range that does not nest: it ended before `time` although one inside it did not.
    i = FirstOpen(ranges_[static_cast<size_t>(m)].parent, time);
  }
  return false;
}

bool RangeIndex::AnyEnclosingNamed(uint64_t thread, trace::TimestampNs time,
                                   std::span<const uint8_t> matching, size_t* hint) const {
  // AnyEnclosing's walk, with each range's nearest match found by going up its chain (at most
  // kWalk ranges: the index is not deep) instead of read from a per-range array.
  int64_t i = FirstOpen(LastStartingBy(thread, time, hint), time);
  while (i >= 0) {
    const Entry& e = ranges_[static_cast<size_t>(i)];
    if (e.name < matching.size() && matching[e.name] != 0) {
      if (time < e.end) return true;
      i = FirstOpen(e.parent, time);  // a range that does not nest, as in AnyEnclosing
    } else {
      i = e.parent;
    }
  }
  return false;
}

void RangeIndex::Enclosing(uint64_t thread, trace::TimestampNs time,
                           std::vector<trace::StringId>* out) const {
  out->clear();
  const ThreadSpan* span = SpanOf(thread);
  if (span == nullptr) return;
  const auto first = ranges_.begin() + static_cast<std::ptrdiff_t>(span->begin);
  const auto last = ranges_.begin() + static_cast<std::ptrdiff_t>(span->end);
  // The last range that starts at or before `time`: every range enclosing `time` is it or
  // one of its ancestors (ranges nest, so a range that encloses `time` encloses it too).
  const auto after = std::upper_bound(
      first, last, time, [](trace::TimestampNs t, const Entry& e) { return t < e.start; });
  if (after == first) return;
  int64_t i = static_cast<int64_t>(after - ranges_.begin()) - 1;
  while (i >= 0) {
    const Entry& e = ranges_[static_cast<size_t>(i)];
    if (e.start <= time && time < e.end) out->push_back(e.name);
    i = e.parent;
  }
}

}  // namespace decodeprof::analysis
