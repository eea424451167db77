// Checked int64 arithmetic: overflow is nullopt, never a wrapped number.
#include "src/base/checked.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace decodeprof::base {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CheckedTest, AddSubMulOverflowIsNullopt) {
  EXPECT_EQ(CheckedAdd(2, 3), 5);
  EXPECT_EQ(CheckedAdd(kMax, 0), kMax);
  EXPECT_FALSE(CheckedAdd(kMax, 1));
  EXPECT_FALSE(CheckedAdd(kMin, -1));
  EXPECT_EQ(CheckedSub(5, 7), -2);
  EXPECT_FALSE(CheckedSub(kMin, 1));
  EXPECT_FALSE(CheckedSub(kMax, -1));
  EXPECT_FALSE(CheckedSub(0, kMin));
  EXPECT_EQ(CheckedMul(-4, 5), -20);
  EXPECT_FALSE(CheckedMul(kMax / 2 + 1, 2));
  EXPECT_FALSE(CheckedMul(kMin, -1));
}

TEST(CheckedTest, SpanNeedsAnEndNotBeforeTheStartAndALengthThatFits) {
  EXPECT_EQ(Span(10, 15), 5);
  EXPECT_EQ(Span(7, 7), 0);
  EXPECT_FALSE(Span(15, 10));
  EXPECT_FALSE(Span(-5, kMax));  // the length needs 64 bits and one more
  EXPECT_EQ(Span(0, kMax), kMax);
}

TEST(CheckedTest, NarrowKeepsOnlyValuesTheTypeHolds) {
  EXPECT_EQ(Narrow<int16_t>(32767), 32767);
  EXPECT_FALSE(Narrow<int16_t>(32768));
  EXPECT_FALSE(Narrow<int16_t>(65536));  // not 0: no wrap
  EXPECT_EQ(Narrow<int16_t>(-32768), -32768);
  EXPECT_FALSE(Narrow<int16_t>(-32769));
  EXPECT_EQ(Narrow<uint32_t>(4294967295), 4294967295u);
  EXPECT_FALSE(Narrow<uint32_t>(4294967296));
  EXPECT_FALSE(Narrow<uint32_t>(-1));
  EXPECT_EQ(Narrow<uint64_t>(kMax), static_cast<uint64_t>(kMax));
  EXPECT_FALSE(Narrow<uint64_t>(-1));
  EXPECT_EQ(Narrow<int64_t>(kMin), kMin);
  EXPECT_EQ(Narrow<int32_t>(-1), -1);
  EXPECT_FALSE(Narrow<int32_t>(int64_t{1} << 31));
}

}  // namespace
}  // namespace decodeprof::base
