#include "src/analysis/range_index.h"

#include <algorithm>
#include <tuple>

namespace decodeprof::analysis {

RangeIndex::RangeIndex(std::span<const trace::Range> ranges) {
  std::vector<const trace::Range*> kept;
  kept.reserve(ranges.size());
  for (const trace::Range& r : ranges) {
    if (r.depth >= 0) kept.push_back(&r);
  }
  // By thread, then start; an enclosing range before the ranges it encloses (longer first,
  // then shallower).
  std::sort(kept.begin(), kept.end(), [](const trace::Range* a, const trace::Range* b) {
    return std::make_tuple(a->thread, a->start, -a->end, a->depth) <
           std::make_tuple(b->thread, b->start, -b->end, b->depth);
  });
  ranges_.reserve(kept.size());
  std::vector<size_t> open;  // stack of the ranges that may enclose the next one
  for (size_t i = 0; i < kept.size(); ++i) {
    const trace::Range& r = *kept[i];
    if (i == 0 || kept[i - 1]->thread != r.thread) {
      open.clear();
      threads_[r.thread] = ThreadSpan{i, i};
    }
    threads_[r.thread].end = i + 1;
    while (!open.empty() && ranges_[open.back()].end <= r.start) open.pop_back();
    Entry e;
    e.start = r.start;
    e.end = r.end;
    e.name = r.name;
    e.parent = open.empty() ? -1 : static_cast<int64_t>(open.back());
    ranges_.push_back(e);
    open.push_back(i);
  }
}

void RangeIndex::Enclosing(uint64_t thread, trace::TimestampNs time,
                           std::vector<trace::StringId>* out) const {
  out->clear();
  const auto it = threads_.find(thread);
  if (it == threads_.end()) return;
  const auto first = ranges_.begin() + static_cast<std::ptrdiff_t>(it->second.begin);
  const auto last = ranges_.begin() + static_cast<std::ptrdiff_t>(it->second.end);
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
