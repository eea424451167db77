// Validators for command-line values whose messages read well (CLI11's own numeric checks
// print their bounds as 300-digit numbers).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace decodeprof::cli {

// A whole number from `min` to `max`: "must be an integer from 0 to 2147483647, got 'x'".
inline CLI::Validator IntegerIn(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& value) -> std::string {
        int64_t n = 0;
        size_t used = 0;
        try {
          n = std::stoll(value, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != value.size() || n < min || n > max) {
          return "must be an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                 ", got '" + value + "'";
        }
        return {};
      },
      "INT in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
}

}  // namespace decodeprof::cli
