// Small text helpers shared by the "Do first" ranking (do_first.cc) and its rendering
// (do_first_render.cc); not part of the report's interface.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/py_format.h"

namespace decodeprof::report::do_first_internal {

// Line breaks of summary text become spaces (a list item stays one line).
inline std::string OneLine(std::string_view text) {
  std::string out(text);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return out;
}

inline std::string Fixed(double value, int decimals) { return base::FormatFixed(value, decimals); }

inline bool Positive(std::optional<double> value) { return value && *value > 0.0; }

inline std::string Joined(const std::vector<std::string>& texts, std::string_view separator) {
  std::string out;
  for (const std::string& text : texts) {
    if (!out.empty()) out += separator;
    out += text;
  }
  return out;
}

}  // namespace decodeprof::report::do_first_internal
