#include "src/base/utf8.h"

#include <gtest/gtest.h>

namespace decodeprof::base {
namespace {

TEST(Utf8Test, DecodesValidSequencesAndRejectsInvalidOnes) {
  uint32_t cp = 0;
  EXPECT_EQ(DecodeUtf8("a", 0, cp), 1u);
  EXPECT_EQ(cp, 0x61u);
  EXPECT_EQ(DecodeUtf8("\xc3\xa9", 0, cp), 2u);
  EXPECT_EQ(cp, 0xE9u);
  EXPECT_EQ(DecodeUtf8("\xf0\x9f\x98\x80", 0, cp), 4u);
  EXPECT_EQ(cp, 0x1F600u);
  EXPECT_EQ(DecodeUtf8("\xc0\xaf", 0, cp), 0u);      // overlong
  EXPECT_EQ(DecodeUtf8("\xed\xa0\x80", 0, cp), 0u);  // surrogate
  EXPECT_EQ(DecodeUtf8("\xe2\x82", 0, cp), 0u);      // truncated
}

TEST(Utf8Test, TruncatesByCodePointsLikePythonSlicing) {
  EXPECT_EQ(TruncateCodePoints("abc", 2), "ab");
  EXPECT_EQ(TruncateCodePoints("\xc3\xa9\xc3\xa9\xc3\xa9", 2), "\xc3\xa9\xc3\xa9");
  EXPECT_EQ(TruncateCodePoints("ab", 5), "ab");
}

}  // namespace
}  // namespace decodeprof::base
