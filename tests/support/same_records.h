// Two reads of one trace compared record by record (the importers' reads in parts against
// their one pass): the first record that differs, named by its index.
#pragma once

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "src/trace/range.h"

namespace decodeprof::testing {

// The annotation ranges of two reads: the same count, then name, start, end, thread and depth
// of each in order.
inline ::testing::AssertionResult SameRanges(const std::vector<trace::Range>& want,
                                             const std::vector<trace::Range>& got) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure()
           << got.size() << " ranges where " << want.size() << " were expected";
  }
  for (size_t i = 0; i < want.size(); ++i) {
    const trace::Range& a = want[i];
    const trace::Range& b = got[i];
    if (std::tie(a.name, a.start, a.end, a.thread, a.depth) !=
        std::tie(b.name, b.start, b.end, b.thread, b.depth)) {
      return ::testing::AssertionFailure()
             << "range " << i << ": name " << b.name << " [" << b.start << ", " << b.end
             << ") thread " << b.thread << " depth " << b.depth << " where name " << a.name << " ["
             << a.start << ", " << a.end << ") thread " << a.thread << " depth " << a.depth
             << " was expected";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace decodeprof::testing
