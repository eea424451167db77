#include "src/guard/time_math.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace decodeprof::guard {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr uint64_t kUint64Max = std::numeric_limits<uint64_t>::max();

TEST(TimeMathTest, WholeSecondsFloorsAndSaturates) {
  EXPECT_EQ(WholeSeconds(0.0), 0);
  EXPECT_EQ(WholeSeconds(0.999), 0);
  EXPECT_EQ(WholeSeconds(2.5), 2);
  EXPECT_EQ(WholeSeconds(-3.0), 0);
  EXPECT_EQ(WholeSeconds(std::nan("")), 0);
  EXPECT_EQ(WholeSeconds(1e19), kInt64Max);
  EXPECT_EQ(WholeSeconds(std::numeric_limits<double>::infinity()), kInt64Max);
  EXPECT_EQ(WholeSeconds(9223372036854775807.0), kInt64Max);  // 2^63 as a double
}

TEST(TimeMathTest, SecondsLeftNeverGoesNegativeOrWraps) {
  EXPECT_EQ(SecondsLeft(10, 3), 7u);
  EXPECT_EQ(SecondsLeft(10, 10), 0u);
  EXPECT_EQ(SecondsLeft(10, 11), 0u);  // an overrun is 0 left, not -1
  EXPECT_EQ(SecondsLeft(10, -5), 10u);
  EXPECT_EQ(SecondsLeft(kUint64Max, 1), kUint64Max - 1);  // not "-2s left"
  EXPECT_EQ(SecondsLeft(5, kInt64Max), 0u);
}

TEST(TimeMathTest, DeadlineAfterStaysFinite) {
  EXPECT_DOUBLE_EQ(DeadlineAfter(100.0, 0.05), 100.05);
  EXPECT_DOUBLE_EQ(DeadlineAfter(100.0, -1.0), 100.0);
  EXPECT_DOUBLE_EQ(DeadlineAfter(100.0, std::nan("")), 100.0);
  const double huge = DeadlineAfter(std::numeric_limits<double>::max(), 1e308);
  EXPECT_TRUE(std::isfinite(huge));
  EXPECT_GE(huge, 1e308);
}

TEST(TimeMathTest, TicksForCountsWholePeriodsAndSaturates) {
  EXPECT_EQ(TicksFor(0, 1.0), 0);
  EXPECT_EQ(TicksFor(1, 1.0), 1);
  EXPECT_EQ(TicksFor(90, 1.0), 90);
  EXPECT_EQ(TicksFor(1, 0.3), 4);
  EXPECT_EQ(TicksFor(kUint64Max, 1.0), kInt64Max);         // never a negative count
  EXPECT_EQ(TicksFor(uint64_t{1} << 63, 1.0), kInt64Max);  // 2^63
}

TEST(TimeMathTest, TickAfterIsAtLeastOneAndSaturates) {
  EXPECT_EQ(TickAfter(10.0, 10.0, 1.0), 1);
  EXPECT_EQ(TickAfter(10.0, 12.5, 1.0), 3);
  EXPECT_EQ(TickAfter(10.0, 5.0, 1.0), 1);  // a clock that went back
  EXPECT_EQ(TickAfter(0.0, 1e300, 1.0), kInt64Max);
  EXPECT_EQ(TickAfter(0.0, std::nan(""), 1.0), 1);
}

}  // namespace
}  // namespace decodeprof::guard
