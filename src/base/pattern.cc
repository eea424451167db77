#include "src/base/pattern.h"

#include <re2/re2.h>

#include <string>

namespace decodeprof::base {
namespace {

// The construct that RE2 refuses in `text` and most people mean from PCRE or ECMAScript, or "".
std::string UnsupportedConstruct(std::string_view text) {
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '\\') {
      if (text[i + 1] >= '1' && text[i + 1] <= '9') {
        return "a backreference (\\" + std::string(1, text[i + 1]) + ")";
      }
      if (text[i + 1] == 'k') return "a named backreference (\\k)";
      ++i;  // an escaped character is plain
      continue;
    }
    if (text[i] != '(' || text[i + 1] != '?') continue;
    const std::string_view rest = text.substr(i + 2);
    if (rest.starts_with("=") || rest.starts_with("!")) return "a lookahead ((?= or (?!)";
    if (rest.starts_with("<=") || rest.starts_with("<!")) return "a lookbehind ((?<= or (?<!)";
    if (rest.starts_with(">")) return "an atomic group ((?>)";
  }
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
      continue;
    }
    if ((text[i] == '+' || text[i] == '*' || text[i] == '?' || text[i] == '}') &&
        text[i + 1] == '+') {
      return "a possessive quantifier (" + std::string(text.substr(i, 2)) + ")";
    }
  }
  return "";
}

}  // namespace

StatusOr<std::unique_ptr<re2::RE2>> CompilePattern(std::string_view text, bool case_sensitive) {
  constexpr const char* kHint =
      "patterns are RE2 syntax (no backreferences, lookaround or possessive quantifiers; "
      "matching is linear in the name): e.g. 'gemm', '^void at::native::', 'flash_fwd|fmha'";
  if (text.size() > kMaxPatternBytes) {
    return UsageError("not a valid RE2 pattern: " + std::to_string(text.size()) +
                          " bytes, more than the " + std::to_string(kMaxPatternBytes) +
                          "-byte limit",
                      kHint);
  }
  const RE2::Options options = PatternOptions(case_sensitive);
  auto re = std::make_unique<re2::RE2>(re2::StringPiece(text.data(), text.size()), options);
  if (re->ok()) return re;
  std::string why;
  if (re->error_code() == RE2::ErrorPatternTooLarge) {
    why = "it needs more than RE2's memory budget of " +
          std::to_string(kPatternMemoryBudget >> 20) + " MiB (" + re->error() + ")";
  } else if (const std::string construct = UnsupportedConstruct(text); !construct.empty()) {
    why = "RE2 does not support " + construct + " (" + re->error() + ")";
  } else if (re->error_code() == RE2::ErrorRepeatSize) {
    why = re->error() + " (RE2 allows repetition counts up to 1000)";
  } else {
    why = re->error();
  }
  return UsageError("not a valid RE2 pattern: " + why, kHint);
}

RE2::Options PatternOptions(bool case_sensitive) {
  RE2::Options options;
  options.set_case_sensitive(case_sensitive);
  options.set_log_errors(false);  // errors become a Status, never stderr noise
  options.set_max_mem(kPatternMemoryBudget);
  return options;
}

bool PatternFound(const re2::RE2& pattern, std::string_view text) {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), pattern);
}

}  // namespace decodeprof::base
