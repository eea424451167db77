// What a bench log says about a run: phase marks on both host clocks and the results block
// (seed spec 2.3–2.4).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "src/trace/diagnostics.h"
#include "src/trace/dispatch.h"

namespace decodeprof::trace {

// One mark's timestamps; a clock the bench could not read ("na") is absent. Bench logs print
// monotonic and boottime; `realtime` and `session` are set only by marks taken from the
// ranges of a trace on those clocks.
struct MarkStamp {
  std::optional<TimestampNs> monotonic;
  std::optional<TimestampNs> boottime;
  std::optional<TimestampNs> realtime;
  std::optional<TimestampNs> session;

  std::optional<TimestampNs> On(ClockDomain c) const {
    switch (c) {
      case ClockDomain::kBoottime:
        return boottime;
      case ClockDomain::kMonotonic:
        return monotonic;
      case ClockDomain::kRealtime:
        return realtime;
      case ClockDomain::kSession:
        break;
    }
    return session;
  }
  std::optional<TimestampNs>& On(ClockDomain c) {
    switch (c) {
      case ClockDomain::kBoottime:
        return boottime;
      case ClockDomain::kMonotonic:
        return monotonic;
      case ClockDomain::kRealtime:
        return realtime;
      case ClockDomain::kSession:
        break;
    }
    return session;
  }
};

// label ("warmup_start", "measured_start", "decode_start", "measured_end") → stamp.
// A later line for a label replaces the whole stamp (the last attempt wins).
using PhaseMarks = std::map<std::string, MarkStamp>;

struct BenchResults {
  std::optional<int64_t> prompt_tokens;
  std::optional<int64_t> generated_tokens;
  std::optional<double> prefill_ms;
  std::optional<double> prefill_tok_s;
  std::optional<double> decode_ms;
  std::optional<double> decode_tok_s;
};

struct BenchLog {
  PhaseMarks marks;
  BenchResults results;
  // Lines the parser could not use although they name a mark or a result
  // (log_line_unread), marks printed twice (duplicate_marks).
  Diagnostics diagnostics;
  // The first mark whose clock value is an integer outside [0, kMaxTimestampNs]: its line and
  // what is wrong. Reading the log fails with it (a time that cannot be right is never used).
  int64_t bad_line = 0;
  std::string bad_what;
};

}  // namespace decodeprof::trace
