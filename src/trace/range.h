// An annotation range (NVTX push/pop or start/end, roctx, Kineto user_annotation) on the
// trace's host clock.
#pragma once

#include <cstdint>

#include "src/trace/dispatch.h"
#include "src/trace/string_pool.h"

namespace decodeprof::trace {

struct Range {
  StringId name = 0;
  TimestampNs start = 0;
  TimestampNs end = 0;
  uint64_t thread = 0;
  int32_t depth = 0;  // nesting depth on its thread (0 = outermost), -1 when it does not nest
};

}  // namespace decodeprof::trace
