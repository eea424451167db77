// Phase marks from annotation ranges inside a trace (ARCHITECTURE.md "Phase marks", source 2):
// NVTX / roctx / Kineto ranges named decodeprof:warmup, decodeprof:prefill,
// decodeprof:decode and decodeprof:step, or an engine's own names.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "src/base/status.h"
#include "src/trace/phase_marks.h"
#include "src/trace/range.h"

namespace decodeprof::analysis {

// True when `name` is `pattern` or matches it as a shell glob (fnmatch: *, ?, [...]).
bool RangeNameMatches(std::string_view name, const std::string& pattern);

struct RangeNames {
  std::string warmup = "decodeprof:warmup";
  std::string decode = "decodeprof:decode";
  std::string step = "decodeprof:step";
};

struct RangeMarks {
  // warmup_start (the first warmup range's start, or decode_start without one),
  // decode_start and measured_end (the LAST decode range's start and end), on `clock`.
  trace::PhaseMarks marks;
  // Step ranges starting inside the decode range: forward passes of the decode loop.
  int64_t steps = 0;
  // The decode range's host-time span (decode_start, measured_end).
  trace::TimestampNs start = 0, end = 0;
};

// Errors (kData, where = `trace_path`): no range named names.decode, with a hint naming
// --decode-range and --log. `prefer` (optional): of several decode ranges, the last one it
// accepts wins (a time-sampled recording: one in which something was recorded), else the last.
base::StatusOr<RangeMarks> MarksFromRanges(
    std::span<const trace::Range> ranges, const trace::StringPool& strings,
    trace::ClockDomain clock, const RangeNames& names, const std::string& trace_path,
    const std::function<bool(const trace::Range&)>& prefer = nullptr);

}  // namespace decodeprof::analysis
