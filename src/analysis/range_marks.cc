#include "src/analysis/range_marks.h"

#include <functional>

#include <fnmatch.h>

#include <optional>

namespace decodeprof::analysis {

bool RangeNameMatches(std::string_view name, const std::string& pattern) {
  if (name == pattern) return true;
  if (pattern.find_first_of("*?[") == std::string::npos) return false;
  return fnmatch(pattern.c_str(), std::string(name).c_str(), 0) == 0;
}

base::StatusOr<RangeMarks> MarksFromRanges(std::span<const trace::Range> ranges,
                                           const trace::StringPool& strings,
                                           trace::ClockDomain clock, const RangeNames& names,
                                           const std::string& trace_path,
                                           const std::function<bool(const trace::Range&)>& prefer) {
  std::optional<trace::Range> decode;
  bool preferred = false;  // `decode` is one that `prefer` accepts
  std::optional<trace::TimestampNs> warmup_start;
  for (const trace::Range& r : ranges) {
    const std::string_view name = strings.Get(r.name);
    // The last decode range wins, as the last [phase] line does in a log (a rerun); with
    // `prefer`, the last that it accepts, else the last.
    if (RangeNameMatches(name, names.decode)) {
      const bool ok = prefer && prefer(r);
      if (!decode || (ok && !preferred) || (ok == preferred && r.start >= decode->start)) {
        decode = r;
        preferred = ok;
      }
    }
    if (RangeNameMatches(name, names.warmup) && (!warmup_start || r.start < *warmup_start)) {
      warmup_start = r.start;
    }
  }
  if (!decode) {
    return base::DataError(trace_path, "no range named '" + names.decode + "' in the trace",
                           "mark the decode loop (include/decodeprof/marks.h), name the "
                           "engine's own range with --decode-range, or pass the bench log "
                           "with --log");
  }
  const auto stamp = [clock](trace::TimestampNs t) {
    trace::MarkStamp s;
    s.On(clock) = t;
    return s;
  };
  RangeMarks out;
  const trace::TimestampNs first =
      warmup_start && *warmup_start < decode->start ? *warmup_start : decode->start;
  out.marks["warmup_start"] = stamp(first);
  out.marks["decode_start"] = stamp(decode->start);
  out.marks["measured_end"] = stamp(decode->end);
  out.start = decode->start;
  out.end = decode->end;
  for (const trace::Range& r : ranges) {
    if (RangeNameMatches(strings.Get(r.name), names.step) && decode->start <= r.start &&
        r.start <= decode->end) {
      ++out.steps;
    }
  }
  return out;
}

}  // namespace decodeprof::analysis
