// Python-compatible number and text formatting, so that decodeprof's outputs are
// byte-identical to the seed harness's (seed spec 2.12). Every number that reaches an output
// file goes through here; writers never call printf("%f") themselves (style 7.10).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace decodeprof::base {

// Python's round(x, ndigits) for ndigits >= 0: the decimal value nearest to the exact binary
// value of x, ties (exact in binary) to even, converted back to the nearest double.
double PyRound(double x, int ndigits);

// Python's round(x) with no ndigits: nearest integer, ties to even.
int64_t PyRoundToInt(double x);

// Python's repr(float): shortest round-trip digits; fixed notation with at least one digit
// after the point ("1.0", "0.0001") when the decimal exponent is in [-4, 16), otherwise
// exponent notation with a signed two-digit-minimum exponent ("1e-05", "1.5e+16").
// Non-finite values print as Python's str(): "nan", "inf", "-inf".
std::string PyRepr(double x);

// printf("%.*f") — Python's f"{x:.Nf}", correctly rounded from the exact binary value.
std::string FormatFixed(double x, int decimals);

// A double-quoted JSON string as Python's json.dumps writes it with ensure_ascii=True:
// \" \\ \n \r \t \b \f escaped, other control characters and every non-ASCII code point as
// \uXXXX (surrogate pairs above U+FFFF). Invalid UTF-8 bytes become \ufffd.
std::string JsonQuote(std::string_view text);

// One CSV field as Python's csv module writes it with QUOTE_MINIMAL: quoted (with inner
// quotes doubled) when it contains a comma, a double quote, CR or LF.
std::string CsvField(std::string_view text);

}  // namespace decodeprof::base
