#include "src/base/parse.h"

#include <gtest/gtest.h>

namespace decodeprof::base {
namespace {

TEST(ParseUnsignedTest, AcceptsOnlyPlainDecimalDigits) {
  EXPECT_EQ(ParseUnsigned("0"), 0u);
  EXPECT_EQ(ParseUnsigned("08"), 8u);  // base 10, not octal
  EXPECT_EQ(ParseUnsigned("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(ParseUnsigned("18446744073709551616"));
  EXPECT_FALSE(ParseUnsigned(""));
  EXPECT_FALSE(ParseUnsigned("-1"));
  EXPECT_FALSE(ParseUnsigned("1.5"));
  EXPECT_FALSE(ParseUnsigned("abc"));
  EXPECT_FALSE(ParseUnsigned(" 1"));
}

TEST(ParseInt64Test, SignAndRange) {
  EXPECT_EQ(ParseInt64("-42"), -42);
  EXPECT_EQ(ParseInt64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParseInt64("-9223372036854775808"), INT64_MIN);
  EXPECT_FALSE(ParseInt64("9223372036854775808"));
  EXPECT_FALSE(ParseInt64("-"));
  EXPECT_FALSE(ParseInt64("12x"));
}

TEST(ParseDoubleTest, FiniteDecimalsOnly) {
  EXPECT_EQ(ParseDouble("58.86"), 58.86);
  EXPECT_EQ(ParseDouble("+1e3"), 1000.0);
  EXPECT_EQ(ParseDouble(".5"), 0.5);
  EXPECT_FALSE(ParseDouble("inf"));
  EXPECT_FALSE(ParseDouble("nan"));
  EXPECT_FALSE(ParseDouble("1.0 "));
  EXPECT_FALSE(ParseDouble(""));
}

TEST(TrimTest, StripsAsciiWhitespace) { EXPECT_EQ(Trim("  1 \r\n"), "1"); }

}  // namespace
}  // namespace decodeprof::base
