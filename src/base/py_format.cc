#include "src/base/py_format.h"

#include "src/base/utf8.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace decodeprof::base {

double PyRound(double x, int ndigits) {
  if (!std::isfinite(x) || ndigits > 300) return x;
  // glibc's printf is correctly rounded from the exact binary value with ties to even —
  // exactly what CPython's round() computes through its own dtoa.
  const int size = std::snprintf(nullptr, 0, "%.*f", ndigits, x);
  std::string buffer(static_cast<size_t>(size) + 1, '\0');
  std::snprintf(buffer.data(), buffer.size(), "%.*f", ndigits, x);
  return std::strtod(buffer.c_str(), nullptr);
}

int64_t PyRoundToInt(double x) {
  // nearbyint uses the current rounding mode, which is round-to-nearest-even by default.
  return static_cast<int64_t>(std::nearbyint(x));
}

std::string PyRepr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";

  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::scientific);
  const std::string_view sci(buffer, static_cast<size_t>(result.ptr - buffer));
  // sci looks like "-1.2345e+02": collect the sign, the digits and the exponent.
  std::string out;
  size_t pos = 0;
  if (sci[pos] == '-') {
    out.push_back('-');
    ++pos;
  }
  const size_t e_pos = sci.find('e');
  std::string digits;
  for (size_t i = pos; i < e_pos; ++i) {
    if (sci[i] != '.') digits.push_back(sci[i]);
  }
  int exponent = 0;
  std::from_chars(sci.data() + e_pos + (sci[e_pos + 1] == '+' ? 2 : 1), sci.data() + sci.size(),
                  exponent);

  if (exponent >= -4 && exponent < 16) {
    if (exponent >= 0) {
      const size_t int_len = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= int_len) {
        out += digits;
        out.append(int_len - digits.size(), '0');
        out += ".0";
      } else {
        out += digits.substr(0, int_len);
        out += '.';
        out += digits.substr(int_len);
      }
    } else {
      out += "0.";
      out.append(static_cast<size_t>(-exponent - 1), '0');
      out += digits;
    }
    return out;
  }
  out += digits[0];
  if (digits.size() > 1) {
    out += '.';
    out += digits.substr(1);
  }
  out += 'e';
  out += exponent < 0 ? '-' : '+';
  const int magnitude = exponent < 0 ? -exponent : exponent;
  if (magnitude < 10) out += '0';
  out += std::to_string(magnitude);
  return out;
}

std::string FormatFixed(double x, int decimals) {
  const int size = std::snprintf(nullptr, 0, "%.*f", decimals, x);
  std::string buffer(static_cast<size_t>(size) + 1, '\0');
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, x);
  buffer.resize(static_cast<size_t>(size));
  return buffer;
}

namespace {

void AppendU16(std::string& out, uint32_t unit) {
  static const char kHex[] = "0123456789abcdef";
  out += "\\u";
  out += kHex[(unit >> 12) & 0xF];
  out += kHex[(unit >> 8) & 0xF];
  out += kHex[(unit >> 4) & 0xF];
  out += kHex[unit & 0xF];
}

}  // namespace

std::string JsonQuote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          if (c < 0x20 || c == 0x7F) {
            if (c == 0x7F) {
              out += static_cast<char>(c);
            } else {
              AppendU16(out, c);
            }
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t len = DecodeUtf8(text, i, cp);
    if (len == 0) {
      AppendU16(out, 0xFFFD);
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      const uint32_t v = cp - 0x10000;
      AppendU16(out, 0xD800 + (v >> 10));
      AppendU16(out, 0xDC00 + (v & 0x3FF));
    } else {
      AppendU16(out, cp);
    }
    i += len;
  }
  out += '"';
  return out;
}

std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size() + 4);
  out += '"';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace decodeprof::base
