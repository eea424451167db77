// Regular expressions given by users (kernels --expect, packs' and units' patterns, the guard's
// compiler pattern): RE2 syntax (https://github.com/google/re2/wiki/Syntax), matched in time
// linear in the text, with a memory budget. What RE2 cannot take — a backreference, a
// lookaround, a pattern over kMaxPatternBytes or over the budget — is an error that says why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "src/base/status.h"

#include <re2/re2.h>

namespace decodeprof::base {

// The longest pattern accepted, in bytes.
inline constexpr size_t kMaxPatternBytes = size_t{16} * 1024;
// RE2's max_mem for one compiled pattern (its programs and DFA caches): 8 MiB. A search that
// would need more falls back to RE2's NFA, still linear in the text.
inline constexpr int64_t kPatternMemoryBudget = int64_t{8} << 20;

// Compiles `text` (RE2 syntax, not anchored unless it says so; case-insensitive unless
// `case_sensitive`). Error (kUsage, no where): "not a valid RE2 pattern: <why>" where why names
// the unsupported construct (backreference, lookahead/lookbehind, possessive or atomic group),
// the size limit or the memory budget; the hint says what to write instead. Callers put the
// message under their own kind and location.
StatusOr<std::unique_ptr<re2::RE2>> CompilePattern(std::string_view text,
                                                   bool case_sensitive = true);

// RE2's options for a user pattern, or for a combination of patterns each compiled alone by
// CompilePattern first: case, the memory budget, no logging.
re2::RE2::Options PatternOptions(bool case_sensitive = true);

// Searches `text` for the pattern (RE2::PartialMatch).
bool PatternFound(const re2::RE2& pattern, std::string_view text);

}  // namespace decodeprof::base
