// The value of a --window option: which dispatches of a trace a job looks at.
//   all              every dispatch (of the device);
//   decode           the decode window, cut by phase marks as summarize cuts it;
//   START_NS..END_NS the dispatches with START_NS <= start <= END_NS, on the trace's clock
//                    (inclusive at both ends, the rule of the decode window).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "src/base/status.h"
#include "src/trace/dispatch.h"

namespace decodeprof::pipeline {

struct WindowSpec {
  enum class Kind { kAll, kDecode, kRange };
  Kind kind = Kind::kAll;
  // kRange only: the bounds of a dispatch's start, both inclusive; start <= end.
  trace::TimestampNs start = 0;
  trace::TimestampNs end = 0;

  // True when a dispatch starting at `t` falls inside (always for kAll; kDecode is not a range
  // of times and contains nothing here: its bounds come from phase marks).
  bool Contains(trace::TimestampNs t) const {
    return kind == Kind::kAll || (kind == Kind::kRange && start <= t && t <= end);
  }
  // "all", "decode" or "START..END": the text ParseWindowSpec reads back.
  std::string ToString() const;
};

// Parses `text`: "all", "decode", or two non-negative decimal integers (nanoseconds, at most
// INT64_MAX) joined by "..". Errors (kUsage, the message naming --window and the value):
// an empty value; a range with a missing, non-numeric or too large bound; a start after the
// end ("--window 5..3: the start is after the end"); anything else.
base::StatusOr<WindowSpec> ParseWindowSpec(std::string_view text);

}  // namespace decodeprof::pipeline
