// An annotation range (NVTX push/pop or start/end, roctx, Kineto user_annotation) on the
// trace's host clock.
#pragma once

#include <cstdint>

#include "src/trace/dispatch.h"
#include "src/trace/string_pool.h"

namespace decodeprof::trace {

struct Range {
  // The range's text (native: NVTX message; Kineto: the user_annotation name; nsys: text or
  // the StringIds entry of textId).
  StringId name = 0;
  TimestampNs start = 0;
  TimestampNs end = 0;
  // OS thread id of the thread that opened it (Kineto: |tid|; nsys: tid part of globalTid).
  uint64_t thread = 0;
  // Nesting depth on its thread (0 = outermost); -1 when it does not nest (NVTX start/end).
  int32_t depth = 0;
};

}  // namespace decodeprof::trace
