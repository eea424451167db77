// Checked arithmetic on int64 (times in nanoseconds, counts): an overflow is nullopt, never a
// wrapped number. Callers turn nullopt into a data error naming what could not be computed.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace decodeprof::base {

inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_sub_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// end - start of a span whose end is not before its start; nullopt when end < start or the
// length does not fit.
inline std::optional<int64_t> Span(int64_t start, int64_t end) {
  if (end < start) return std::nullopt;
  return CheckedSub(end, start);
}

// `value` as a T when T holds it, else nullopt (no narrowing that wraps).
template <typename T>
std::optional<T> Narrow(int64_t value) {
  if constexpr (std::numeric_limits<T>::is_signed) {
    if (value < static_cast<int64_t>(std::numeric_limits<T>::min())) return std::nullopt;
  } else {
    if (value < 0) return std::nullopt;
  }
  if (static_cast<uint64_t>(value) > static_cast<uint64_t>(std::numeric_limits<T>::max()) &&
      value > 0) {
    return std::nullopt;
  }
  return static_cast<T>(value);
}

}  // namespace decodeprof::base
