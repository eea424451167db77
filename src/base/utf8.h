// UTF-8 helpers shared by the Python-compatible formatters (JSON escaping, repr()) and
// Python's str slicing, which counts code points, not bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace decodeprof::base {

// Decodes the UTF-8 sequence starting at text[i] into `cp`; returns its length in bytes (1 for
// ASCII), or 0 when the bytes there are not valid UTF-8 (overlong forms and surrogates
// included).
size_t DecodeUtf8(std::string_view text, size_t i, uint32_t& cp);

// Python's text[:n] on a UTF-8 string: the first n code points (continuation bytes never
// start one).
std::string_view TruncateCodePoints(std::string_view text, size_t n);

}  // namespace decodeprof::base
