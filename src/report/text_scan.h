// Character tests and scans shared by the name shorteners and the run-name reader
// (short_name.cc, cuda_short_name.cc, run_set.cc): one definition, so those files also
// compile together in a unity build.
#pragma once

#include <cstddef>
#include <string_view>

namespace decodeprof::report::text {

// A C identifier character: [A-Za-z0-9_].
inline bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The end of the run of word characters that starts at `pos` (`pos` itself when none).
inline size_t WordEnd(std::string_view text, size_t pos) {
  while (pos < text.size() && IsWordChar(text[pos])) ++pos;
  return pos;
}

}  // namespace decodeprof::report::text
