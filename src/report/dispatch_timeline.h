// The GPU-busy timeline of a decode window, for the HTML report's timeline plot: the
// dispatches of `<name>_decode_dispatches.csv` (`summarize --emit-dispatches`, dispatch_csv.h)
// binned into kTimelineBins equal time bins, each with the time the GPU was busy in it
// (busy = the union of the dispatch intervals, as the summary's GPU busy figure).
//
// The dispatch table holds no step marks and not the window's bounds, so the timeline spans
// the dispatches themselves: from the first dispatch's start to the latest end. Reading the
// file is the caller's (the CLI's: this module does no I/O); this part only bins.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::report {

inline constexpr int kTimelineBins = 100;

// One time bin, its times in ns from the span's start: [start_ns, end_ns) holds busy_ns of GPU
// busy time (0 <= busy_ns <= end_ns - start_ns).
struct TimelineBin {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t busy_ns = 0;
  bool operator==(const TimelineBin&) const = default;
};

struct DispatchTimeline {
  std::string csv_name;        // the dispatch table's file name, without its folder
  int64_t dispatches = 0;      // its rows
  int64_t first_start_ns = 0;  // the first dispatch's start (the span's start)
  int64_t span_ns = 0;         // latest end − first start
  int64_t busy_ns = 0;         // the union of the dispatch intervals
  // min(kTimelineBins, span_ns) bins of equal length (to the ns: bin i is
  // [i·span/n, (i+1)·span/n)), covering [0, span_ns); empty when span_ns is 0.
  std::vector<TimelineBin> bins;
};

// `<dir>/<stem>_summary.json` → `<dir>/<stem>_decode_dispatches.csv` (`summarize --name
// <stem> --emit-dispatches` writes both); a path not ending in `_summary.json` gets the suffix
// appended to it whole.
std::string DispatchCsvPathFor(std::string_view summary_path);

// Collects dispatch intervals in start order and bins them.
class TimelineBuilder {
 public:
  // One dispatch [start_ns, end_ns]. Errors (kData, where left empty for the caller to fill):
  // end before start ("ends before it starts"); a start before the previous row's ("not in
  // start order"). Nothing is added on an error.
  base::Status Add(int64_t start_ns, int64_t end_ns);

  // The timeline of every dispatch added (`bins` bins at most, at least 1).
  DispatchTimeline Finish(std::string csv_name, int bins = kTimelineBins) const;

 private:
  int64_t dispatches_ = 0;
  int64_t last_start_ = 0;
  std::vector<std::pair<int64_t, int64_t>> merged_;  // disjoint busy intervals, in order
};

}  // namespace decodeprof::report
