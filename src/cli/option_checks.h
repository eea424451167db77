// Validators for command-line values whose messages read well (CLI11's own numeric checks
// print their bounds as 300-digit numbers). Every value-taking option of every subcommand
// has one, so that a value outside its documented range is refused while the arguments are
// parsed, before anything is read, written or started:
//   decodeprof: <subcommand>: --opt: must be an integer from 0 to 32767, got '65536'
// (exit 2). docs/user-guide.md lists the ranges; tests/options_cli_test.cc tries every option.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/base/parse.h"
#include "src/base/py_format.h"

namespace decodeprof::cli {

// The text of a bound in a message: integers without a fraction, others as Python's repr.
inline std::string BoundText(double bound) {
  if (std::isfinite(bound) && std::fabs(bound) < 1e15 && bound == std::floor(bound)) {
    return std::to_string(static_cast<int64_t>(bound));
  }
  return base::PyRepr(bound);
}

// A whole number from `min` to `max`, in plain decimal (an optional '-', then digits: no
// spaces, no '+', no exponent, no fraction): "must be an integer from 0 to 2147483647, got
// 'x'". A value beyond the int64 range (18446744073709551615) is refused, never wrapped.
inline CLI::Validator IntegerIn(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& value) -> std::string {
        const std::optional<int64_t> n = base::ParseInt64(value);
        if (!n || *n < min || *n > max) {
          return "must be an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                 ", got '" + value + "'";
        }
        return {};
      },
      "INT in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
}

// A finite decimal number from `min` to `max` (no nan, no inf, no 1e309): "must be a number
// from 0 to 100, got 'nan'".
inline CLI::Validator NumberIn(double min, double max) {
  return CLI::Validator(
      [min, max](std::string& value) -> std::string {
        const std::optional<double> x = base::ParseDouble(value);
        if (!x || !std::isfinite(*x) || *x < min || *x > max) {
          return "must be a number from " + BoundText(min) + " to " + BoundText(max) + ", got '" +
                 value + "'";
        }
        return {};
      },
      "NUMBER in [" + BoundText(min) + ", " + BoundText(max) + "]");
}

// Any text but the empty one, for values whose empty form has no meaning (a path, a name, a
// pattern): "must be <what>, got ''". Options whose empty value means something say so in
// their help and do not use this.
inline CLI::Validator NonEmpty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& value) -> std::string {
        if (value.empty()) return "must be " + what + ", got ''";
        return {};
      },
      "");
}

// A number from `min` to `max`, or a path: a value that starts like a number (a digit, a sign,
// a point, "nan", "inf") must be one in range ("must be a number from 1 to 100000 or a file,
// got '0'"); anything else is a path and must not be empty. A file whose name starts with a
// digit is given as ./NAME.
inline CLI::Validator NumberInOrPath(double min, double max, const std::string& what) {
  return CLI::Validator(
      [min, max, what](std::string& value) -> std::string {
        if (value.empty()) return "must be " + what + ", got ''";
        std::string lower;
        for (const char c : value.substr(0, 3)) {
          lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        }
        const char c = value[0];
        const bool numeric = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ||
                             lower == "nan" || lower == "inf";
        if (!numeric) return {};
        const std::optional<double> x = base::ParseDouble(value);
        if (!x || !std::isfinite(*x) || *x < min || *x > max) {
          return "must be a number from " + BoundText(min) + " to " + BoundText(max) + " or " +
                 what + ", got '" + value + "'";
        }
        return {};
      },
      "");
}

// One of `choices` (not empty): "must be one of md, html, json, got 'x'".
inline CLI::Validator OneOf(const std::vector<std::string>& choices) {
  std::string list;
  std::string braces;  // the help's "{md,html,json}", as CLI::IsMember writes it
  for (const std::string& c : choices) {
    list += (list.empty() ? "" : ", ") + c;
    braces += (braces.empty() ? "" : ",") + c;
  }
  return CLI::Validator(
      [choices, list](std::string& value) -> std::string {
        for (const std::string& c : choices) {
          if (value == c) return {};
        }
        return "must be one of " + list + ", got '" + value + "'";
      },
      "{" + braces + "}");
}

}  // namespace decodeprof::cli
