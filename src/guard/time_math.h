// decodeprof::guard — checked arithmetic on the guard's times.
//
// The guard's durations come from its options (bounded by options.h's ranges) and its
// clock (seconds as double). Every conversion between them and every deadline goes through
// these helpers, which saturate instead of wrapping: a NaN or negative duration counts as
// none, a sum beyond the representable range stays at the largest value, and an unsigned
// budget is never cast to a signed one. So no option and no clock reading can make the
// guard believe it waited when it did not ("idle for 18446744073709551615s", "-1s left").
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace decodeprof::guard {

// The whole seconds in `secs` (floored, as bash's SECONDS counts): 0 for NaN and anything
// below 1, INT64_MAX for anything at or beyond it.
inline int64_t WholeSeconds(double secs) {
  if (!(secs >= 1.0)) return 0;                     // NaN too
  constexpr double kLimit = 9223372036854775807.0;  // 2^63: the first double beyond INT64_MAX
  if (secs >= kLimit) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(std::floor(secs));
}

// The whole seconds left of a budget of `budget` seconds after `spent` whole seconds: never
// negative (an overrun leaves 0), never wrapped.
inline uint64_t SecondsLeft(uint64_t budget, int64_t spent) {
  if (spent <= 0) return budget;
  const auto used = static_cast<uint64_t>(spent);
  return used >= budget ? 0 : budget - used;
}

// The clock reading `secs` after `now`, for SleepUntil: a NaN or negative `secs` is now
// itself, a sum beyond the doubles' range the largest double (a wait without end, that a
// signal or the child still ends).
inline double DeadlineAfter(double now, double secs) {
  if (!(secs > 0.0)) return now;
  const double deadline = now + secs;
  return std::isfinite(deadline) ? deadline : std::numeric_limits<double>::max();
}

// How many ticks of `period` seconds cover `secs` seconds (rounded up, with a nanosecond of
// slack for 0.1-second periods): 0 for 0, saturated at INT64_MAX.
inline int64_t TicksFor(uint64_t secs, double period) {
  const double ticks = std::ceil(static_cast<double>(secs) / period - 1e-9);
  if (!(ticks > 0.0)) return 0;
  if (ticks >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(ticks);
}

// The index of the first tick strictly after `now` on the schedule of `period` begun at
// `start`: at least 1, saturated at INT64_MAX (a clock that jumped back counts as no time).
inline int64_t TickAfter(double start, double now, double period) {
  const double elapsed = (now - start) / period;
  if (!(elapsed >= 0.0)) return 1;
  if (elapsed >= 9223372036854775806.0) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(std::floor(elapsed)) + 1;
}

}  // namespace decodeprof::guard
