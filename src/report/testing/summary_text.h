// Test support: a summary parsed from JSON text, for the report tests. A parse failure fails
// the calling test and yields an empty summary.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "src/report/summary_reader.h"

namespace decodeprof::report::test_support {

inline SummaryFile Summary(const std::string& text, const std::string& path = "x_summary.json") {
  auto parsed = ParseSummary(path, text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : SummaryFile{};
}

}  // namespace decodeprof::report::test_support
