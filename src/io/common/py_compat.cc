#include "src/io/common/py_compat.h"

#include "src/base/utf8.h"

#include <cstdint>
#include <cstdio>

#include "src/base/parse.h"

namespace decodeprof::io {
namespace {

// Decodes one UTF-8 sequence at text[i]; returns its length (0 when invalid).
// Non-ASCII code points that Python's str.isprintable() rejects (Cc, Cf, Zs, Zl, Zp, Co;
// unassigned code points are not known here and print as themselves).
bool IsNonPrintable(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0xA0) || cp == 0xAD || cp == 0x061C || cp == 0x1680 || cp == 0x180E ||
         (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) ||
         (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 || cp == 0xFEFF ||
         (cp >= 0xFFF9 && cp <= 0xFFFB) || (cp >= 0xE000 && cp <= 0xF8FF) || cp >= 0xF0000;
}

void AppendHex(std::string& out, const char* format, uint32_t value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, format, value);
  out += buffer;
}

// Writes open, the items' reprs joined by ", ", then close. (Built by appending: GCC 12
// reports a false -Wrestrict for "literal" + std::string&& at -O3.)
std::string JoinRepr(const std::vector<std::string>& items, const char* open, const char* close) {
  std::string out = open;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += PyStrRepr(items[i]);
  }
  out += close;
  return out;
}

}  // namespace

std::string PyStrRepr(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  const char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out;
  out.reserve(text.size() + 2);
  out += quote;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == '\\' || c == static_cast<unsigned char>(quote)) {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c == '\t') {
        out += "\\t";
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c < 0x20 || c == 0x7F) {
        AppendHex(out, "\\x%02x", c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t len = base::DecodeUtf8(text, i, cp);
    if (len == 0) {
      AppendHex(out, "\\x%02x", c);
      ++i;
    } else if (IsNonPrintable(cp)) {
      AppendHex(out, cp <= 0xFF ? "\\x%02x" : (cp <= 0xFFFF ? "\\u%04x" : "\\U%08x"), cp);
      i += len;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  out += quote;
  return out;
}

std::string PyListRepr(const std::vector<std::string>& items) { return JoinRepr(items, "[", "]"); }

std::string PyTupleRepr(const std::vector<std::string>& items) {
  return JoinRepr(items, "(", items.size() == 1 ? ",)" : ")");
}

std::optional<int64_t> ParsePyInt(std::string_view text) {
  text = base::Trim(text);
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  std::optional<uint64_t> magnitude;
  if (text.find('_') == std::string_view::npos) {
    magnitude = base::ParseUnsigned(text);
  } else {
    // Only single underscores, each between two digits.
    const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
    std::string digits;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '_') {
        digits += text[i];
      } else if (i == 0 || i + 1 == text.size() || !is_digit(text[i - 1]) ||
                 !is_digit(text[i + 1])) {
        return std::nullopt;
      }
    }
    magnitude = base::ParseUnsigned(digits);
  }
  if (!magnitude) return std::nullopt;
  if (negative) {
    if (*magnitude > static_cast<uint64_t>(INT64_MAX) + 1) return std::nullopt;
    return static_cast<int64_t>(0 - *magnitude);
  }
  if (*magnitude > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(*magnitude);
}

}  // namespace decodeprof::io
