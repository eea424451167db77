// Kineto's microsecond timestamps → exact nanoseconds (declared in kineto_json_importer.h).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "src/io/kineto_json/kineto_json_importer.h"

namespace decodeprof::io {

namespace {

// The form libkineto writes ("%.3f": up to 16 integer digits, at most 3 fraction digits, no
// exponent) → exactly what the general path gives; false for anything else, which that path
// then reads.
inline bool PlainMicroseconds(std::string_view text, int64_t& out) {
  const char* p = text.data();
  const char* const end = p + text.size();
  const bool negative = p != end && *p == '-';
  if (negative) ++p;
  uint64_t whole = 0;
  const char* const digits = p;
  for (; p != end && static_cast<unsigned>(*p - '0') <= 9; ++p) {
    whole = whole * 10 + static_cast<unsigned>(*p - '0');
  }
  if (p == digits || p - digits > 16) return false;
  uint64_t fraction = 0;
  int places = 0;
  if (p != end && *p == '.') {
    for (++p; p != end && places < 4 && static_cast<unsigned>(*p - '0') <= 9; ++p, ++places) {
      fraction = fraction * 10 + static_cast<unsigned>(*p - '0');
    }
    if (places == 0 || places > 3) return false;
  }
  if (p != end) return false;  // an exponent, or anything else
  for (int k = places; k < 3; ++k) fraction *= 10;
  const uint64_t ns = whole * 1000 + fraction;  // < 10^19: no wrap in 64 bits
  if (ns > static_cast<uint64_t>(INT64_MAX)) return false;
  out = negative ? -static_cast<int64_t>(ns) : static_cast<int64_t>(ns);
  return true;
}

}  // namespace

std::optional<int64_t> MicrosecondsTextToNs(std::string_view text) {
  if (int64_t ns = 0; PlainMicroseconds(text, ns)) return ns;
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  // The significant digits of the mantissa (no leading zeros): the first 20 kept, all counted
  // (a result has at most 19 digits, and the 20th rounds it).
  std::array<char, 20> digits{};
  int64_t count = 0;
  int64_t fraction_digits = 0;
  bool any_digit = false;
  const auto digit = [&](char c) {
    any_digit = true;
    if (count == 0 && c == '0') return;
    if (count < static_cast<int64_t>(digits.size())) digits[static_cast<size_t>(count)] = c;
    ++count;
  };
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) digit(text[i]);
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      ++fraction_digits;
      digit(text[i]);
    }
  }
  if (!any_digit) return std::nullopt;
  int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    if (i == text.size()) return std::nullopt;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      if (exponent < 100000) exponent = exponent * 10 + (text[i] - '0');
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != text.size()) return std::nullopt;
  if (count == 0) return 0;
  // value = digits × 10^scale nanoseconds (microseconds → nanoseconds: 10^3).
  const int64_t scale = exponent - fraction_digits + 3;
  const int64_t integer_digits = count + scale;
  if (integer_digits > 19) return std::nullopt;
  const auto at = [&](int64_t k) { return k < count ? digits[static_cast<size_t>(k)] : '0'; };
  uint64_t magnitude = 0;
  for (int64_t k = 0; k < integer_digits; ++k) {
    if (__builtin_mul_overflow(magnitude, uint64_t{10}, &magnitude) ||
        __builtin_add_overflow(magnitude, static_cast<uint64_t>(at(k) - '0'), &magnitude)) {
      return std::nullopt;
    }
  }
  // The first dropped digit decides the rounding (half away from zero).
  if (integer_digits >= 0 && integer_digits < count && at(integer_digits) >= '5') {
    if (__builtin_add_overflow(magnitude, uint64_t{1}, &magnitude)) return std::nullopt;
  }
  if (magnitude > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  const auto value = static_cast<int64_t>(magnitude);
  return negative ? -value : value;
}

}  // namespace decodeprof::io
