#include "src/report/dispatch_timeline.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

namespace decodeprof::report {

std::string DispatchCsvPathFor(std::string_view summary_path) {
  constexpr std::string_view kSummary = "_summary.json";
  if (summary_path.ends_with(kSummary)) summary_path.remove_suffix(kSummary.size());
  return std::string(summary_path) + "_decode_dispatches.csv";
}

base::Status TimelineBuilder::Add(int64_t start_ns, int64_t end_ns) {
  if (end_ns < start_ns) {
    return base::DataError("", "the dispatch ends before it starts (" + std::to_string(end_ns) +
                                   " < " + std::to_string(start_ns) + ")");
  }
  if (dispatches_ > 0 && start_ns < last_start_) {
    return base::DataError("", "the dispatches are not in start order (" +
                                   std::to_string(start_ns) + " after " +
                                   std::to_string(last_start_) + ")");
  }
  ++dispatches_;
  last_start_ = start_ns;
  if (merged_.empty() || start_ns > merged_.back().second) {
    merged_.emplace_back(start_ns, end_ns);
  } else {
    merged_.back().second = std::max(merged_.back().second, end_ns);
  }
  return base::OkStatus();
}

DispatchTimeline TimelineBuilder::Finish(std::string csv_name, int bins) const {
  DispatchTimeline t;
  t.csv_name = std::move(csv_name);
  t.dispatches = dispatches_;
  if (merged_.empty()) return t;
  t.first_start_ns = merged_.front().first;
  t.span_ns = merged_.back().second - t.first_start_ns;
  for (const auto& [start, end] : merged_) t.busy_ns += end - start;
  const int64_t n = std::min<int64_t>(std::max(bins, 1), t.span_ns);
  if (n == 0) return t;
  // Bin i starts at floor(i·span/n) = i·q + floor(i·r/n) with span = q·n + r: exact, and no
  // product overflows (i <= n <= kTimelineBins-ish, r < n).
  const int64_t q = t.span_ns / n;
  const int64_t r = t.span_ns % n;
  const auto bin_start = [&](int64_t i) { return i * q + i * r / n; };
  t.bins.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    t.bins[static_cast<size_t>(i)].start_ns = bin_start(i);
    t.bins[static_cast<size_t>(i)].end_ns = bin_start(i + 1);
  }
  for (const auto& [abs_start, abs_end] : merged_) {
    const int64_t start = abs_start - t.first_start_ns;
    const int64_t end = abs_end - t.first_start_ns;
    // The bin holding `start`, from an estimate that the loops below correct.
    int64_t b = static_cast<int64_t>(static_cast<double>(start) / static_cast<double>(t.span_ns) *
                                     static_cast<double>(n));
    b = std::clamp<int64_t>(b, 0, n - 1);
    while (b > 0 && bin_start(b) > start) --b;
    while (b + 1 < n && bin_start(b + 1) <= start) ++b;
    for (; b < n && bin_start(b) < end; ++b) {
      TimelineBin& bin = t.bins[static_cast<size_t>(b)];
      bin.busy_ns += std::min(end, bin.end_ns) - std::max(start, bin.start_ns);
    }
  }
  return t;
}

}  // namespace decodeprof::report
