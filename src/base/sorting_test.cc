// SortMostlySorted: what std::sort gives, for inputs in order, almost in order (ranges written
// as they end) and in no order.
#include "src/base/sorting.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

namespace decodeprof::base {
namespace {

struct Row {
  int64_t start = 0;
  int64_t end = 0;
  int64_t id = 0;  // unique: the order is strict
};

bool Before(const Row& a, const Row& b) {
  return std::tie(a.start, b.end, a.id) < std::tie(b.start, a.end, b.id);  // longer first
}

bool Same(const std::vector<Row>& a, const std::vector<Row>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Row& x, const Row& y) {
    return std::tie(x.start, x.end, x.id) == std::tie(y.start, y.end, y.id);
  });
}

TEST(SortMostlySortedTest, GivesWhatStdSortGives) {
  std::mt19937_64 rng(5);
  for (const int n : {0, 1, 2, 3, 17, 1000, 20000}) {
    for (const int shape : {0, 1, 2, 3}) {
      std::vector<Row> rows;
      int64_t t = 0;
      for (int i = 0; i < n; ++i) {
        Row r{t, t + 5, i};
        t += static_cast<int64_t>(rng() % 3);  // ties of start
        if (shape == 1 && i % 10 == 9) {
          // Written as it ends: an enclosing range after the ten it encloses.
          r = Row{t - 40, t + 10, i};
        } else if (shape == 2) {
          r.start = static_cast<int64_t>(rng() % 1000);  // no order at all
        } else if (shape == 3 && i % 3 == 0) {
          r.start = static_cast<int64_t>(rng() % 1000);  // a third out of order
        }
        rows.push_back(r);
      }
      std::vector<Row> want = rows;
      std::sort(want.begin(), want.end(), Before);
      std::vector<Row> got = rows;
      SortMostlySorted(got, Before);
      EXPECT_TRUE(Same(got, want)) << n << " rows, shape " << shape;
    }
  }
}

TEST(SortMostlySortedTest, OutOfOrderAtEitherEnd) {
  std::vector<int64_t> first_last = {100, 1,  2,  3,  4,  5,  6,  7,  8,  9,
                                     10,  11, 12, 13, 14, 15, 16, 17, 18, 0};
  std::vector<int64_t> want = first_last;
  std::sort(want.begin(), want.end());
  SortMostlySorted(first_last, [](int64_t a, int64_t b) { return a < b; });
  EXPECT_EQ(first_last, want);
  std::vector<int64_t> lows_late = {5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                    17, 18, 19, 20, 21, 22, 23, 24, 25, 1,  2};
  want = lows_late;
  std::sort(want.begin(), want.end());
  SortMostlySorted(lows_late, [](int64_t a, int64_t b) { return a < b; });
  EXPECT_EQ(lows_late, want);
}

}  // namespace
}  // namespace decodeprof::base
