// The outputs of `decodeprof kernels`: a census table (analysis/kernel_census.h) as an aligned
// text table, CSV, JSON or Markdown. Deterministic: the same census gives the same bytes.
//
//   table, md — a heading line (the trace, its format, the device, the window, the totals),
//               then one row per kernel (or class) with times in µs (3 decimals: every ns
//               shows), limited by `top` with a closing "... N more rows" line;
//   csv       — one row per kernel (or class), integer ns and the share with 3 decimals
//               (CRLF, minimal quoting, like the kernel CSV of summarize);
//   json      — the heading's fields, then "rows" with integer ns and the share rounded to 3
//               decimals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "src/analysis/kernel_census.h"

namespace decodeprof::report {

// What the heading says.
struct CensusHeading {
  std::string trace;  // the trace's file name (no directory: outputs do not depend on it)
  std::string format;
  int32_t device = 0;
  std::string device_name;  // "" when the trace names none
  std::string clock;
  std::string pack;
  // The window: the whole trace (nullopt) or the dispatches starting in [lo, hi].
  std::optional<analysis::StartRange> range;
  int64_t device_dispatches = 0;  // dispatches of the device, inside the window or not
  bool by_class = false;
};

enum class CensusFormat { kTable, kCsv, kJson, kMarkdown };

// `top` limits the rows (0: all).
std::string CensusText(const CensusHeading& heading, const analysis::CensusTable& table,
                       CensusFormat format, size_t top);

// "12.345": nanoseconds as microseconds with 3 decimals, exact.
std::string MicrosecondsText(int64_t ns);

}  // namespace decodeprof::report
