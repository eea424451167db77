// One GPU kernel dispatch: a small POD (a full trace holds millions of them).
#pragma once

#include <cstdint>
#include <type_traits>

#include "src/trace/string_pool.h"

namespace decodeprof::trace {

// Host-clock nanoseconds (CLOCK_BOOTTIME or CLOCK_MONOTONIC, see ClockDomain).
using TimestampNs = int64_t;
using DurationNs = int64_t;

enum class ClockDomain { kBoottime, kMonotonic };
inline const char* ClockName(ClockDomain c) {
  return c == ClockDomain::kBoottime ? "boottime" : "monotonic";
}

struct Dispatch {
  TimestampNs start = 0;
  TimestampNs end = 0;
  // Product of the present grid columns, each max(value or 1, 1); 0 when the trace has no
  // grid column at all (seed spec 2.2).
  int64_t grid = 0;
  StringId name = 0;
  // 1-based line of the row in its source file (file order breaks start-time ties).
  uint32_t line = 0;

  DurationNs duration() const { return end - start; }
};
static_assert(sizeof(Dispatch) == 32, "keep Dispatch small: traces hold millions");
static_assert(std::is_trivially_copyable_v<Dispatch>, "Dispatch is a plain record");

}  // namespace decodeprof::trace
