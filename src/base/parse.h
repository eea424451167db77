// Strict number parsing: the whole text must be the number, no whitespace, no sign
// surprises, overflow is an error. atoi/strtol without end checks are banned (style 7.4).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace decodeprof::base {

// Plain non-negative decimal integer: ^[0-9]+$ (leading zeros allowed, base 10).
std::optional<uint64_t> ParseUnsigned(std::string_view text);

// Optional leading '-', then ^[0-9]+$.
std::optional<int64_t> ParseInt64(std::string_view text);

// A finite decimal floating-point number as Python's float() accepts it for ordinary
// inputs ("1", "-0.5", "1e3", ".5"); no inf/nan, no surrounding whitespace.
std::optional<double> ParseDouble(std::string_view text);

// Trims ASCII whitespace on both ends.
std::string_view Trim(std::string_view text);

}  // namespace decodeprof::base
