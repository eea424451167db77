// --window: which part of a trace a job reads (summarize, export, kernels).
#pragma once

#include <string_view>

#include "src/base/status.h"
#include "src/trace/dispatch.h"

namespace decodeprof::pipeline {

struct WindowSpec {
  enum class Kind {
    kDecode,  // the decode loop: marks, ranges, or found in the trace (the default)
    kAll,     // every dispatch
    kRange,   // dispatches with lo <= start <= hi, on the trace's clock
  };
  Kind kind = Kind::kDecode;
  trace::TimestampNs lo = 0;
  trace::TimestampNs hi = 0;
};

// "decode", "all" or "START_NS..END_NS" (integers, 0 <= START <= END). Errors: kUsage, naming
// the text.
base::StatusOr<WindowSpec> ParseWindowSpec(std::string_view text);

}  // namespace decodeprof::pipeline
