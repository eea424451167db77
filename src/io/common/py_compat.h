// Python-compatible text helpers for the importers: repr() of strings and of tuples/lists of
// strings, for error messages that must read exactly as the seed's Python prints them (e.g.
// "header: ['Kind', 'Agent_Id']"), and int() of a text field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace decodeprof::io {

// repr(str): single quotes unless the text holds ' and no "; backslash, the chosen quote, \t,
// \n, \r escaped; other ASCII control bytes and DEL as \xNN; non-ASCII characters kept, except
// the non-printable ones Python escapes (C1 controls, U+00A0, U+00AD as \xNN; a fixed set of
// Unicode spaces/format characters and private-use characters as \uNNNN / \UNNNNNNNN).
// Bytes that are not valid UTF-8 (Python would not have decoded them) are shown as \xNN.
std::string PyStrRepr(std::string_view text);

// repr(list) of strs: ['a', 'b'] ([] when empty).
std::string PyListRepr(const std::vector<std::string>& items);

// repr(tuple) of strs: ('a', 'b'); one item is ('a',); none is ().
std::string PyTupleRepr(const std::vector<std::string>& items);

// Python's int(text) for ordinary inputs: surrounding ASCII whitespace, an optional sign, then
// decimal digits with single underscores allowed between digits ("1_000"). nullopt for
// anything else and for values outside int64 (where Python would still succeed).
std::optional<int64_t> ParsePyInt(std::string_view text);

}  // namespace decodeprof::io
