#include "src/io/common/py_compat.h"

#include <gtest/gtest.h>

namespace decodeprof::io {
namespace {

// Expected values are what CPython 3.11 prints for repr() / int().
TEST(PyStrReprTest, QuotesLikePython) {
  EXPECT_EQ(PyStrRepr("abc"), "'abc'");
  EXPECT_EQ(PyStrRepr("it's"), "\"it's\"");
  EXPECT_EQ(PyStrRepr("a\"b"), "'a\"b'");
  EXPECT_EQ(PyStrRepr("a'b\"c"), "'a\\'b\"c'");
  EXPECT_EQ(PyStrRepr(""), "''");
}

TEST(PyStrReprTest, EscapesControlCharacters) {
  EXPECT_EQ(PyStrRepr("\t\n\r\x01\x7f\\"), "'\\t\\n\\r\\x01\\x7f\\\\'");
}

TEST(PyStrReprTest, KeepsPrintableUnicodeAndEscapesTheRest) {
  EXPECT_EQ(PyStrRepr("\xC3\xA9"), "'\xC3\xA9'");  // é
  EXPECT_EQ(PyStrRepr("\xE6\x97\xA5\xE6\x9C\xAC"), "'\xE6\x97\xA5\xE6\x9C\xAC'");
  EXPECT_EQ(PyStrRepr("\xF0\x9F\x98\x80"), "'\xF0\x9F\x98\x80'");  // U+1F600
  EXPECT_EQ(PyStrRepr("\xC2\xA0"), "'\\xa0'");
  EXPECT_EQ(PyStrRepr("\xC2\x85"), "'\\x85'");
  EXPECT_EQ(PyStrRepr("\xEF\xBB\xBF"), "'\\ufeff'");
  EXPECT_EQ(PyStrRepr("\xE2\x80\xA8"), "'\\u2028'");
  EXPECT_EQ(PyStrRepr("\xF3\xB0\x80\x80"), "'\\U000f0000'");
}

TEST(PyStrReprTest, InvalidUtf8BytesAreHexEscaped) {
  EXPECT_EQ(PyStrRepr("a\xFF"
                      "b"),
            "'a\\xffb'");
  EXPECT_EQ(PyStrRepr("\xC3"), "'\\xc3'");  // truncated sequence
}

TEST(PyReprTest, ListsAndTuples) {
  EXPECT_EQ(PyListRepr({}), "[]");
  EXPECT_EQ(PyListRepr({"Kind", "Agent_Id"}), "['Kind', 'Agent_Id']");
  EXPECT_EQ(PyTupleRepr({}), "()");
  EXPECT_EQ(PyTupleRepr({"a"}), "('a',)");
  EXPECT_EQ(PyTupleRepr({"Kernel_Name", "KernelName"}), "('Kernel_Name', 'KernelName')");
}

TEST(ParsePyIntTest, AcceptsWhatIntAccepts) {
  EXPECT_EQ(ParsePyInt("12"), 12);
  EXPECT_EQ(ParsePyInt(" 12 "), 12);
  EXPECT_EQ(ParsePyInt("\t7\n"), 7);
  EXPECT_EQ(ParsePyInt("+12"), 12);
  EXPECT_EQ(ParsePyInt("-12"), -12);
  EXPECT_EQ(ParsePyInt("007"), 7);
  EXPECT_EQ(ParsePyInt("1_000"), 1000);
  EXPECT_EQ(ParsePyInt("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParsePyInt("-9223372036854775808"), INT64_MIN);
}

TEST(ParsePyIntTest, RejectsWhatIntRejects) {
  for (const char* text :
       {"", " ", "na", "1__0", "_1", "1_", "+_1", "+-1", "--1", "1.0", "1e3", "0x10", "12a"}) {
    EXPECT_FALSE(ParsePyInt(text).has_value()) << text;
  }
}

TEST(ParsePyIntTest, RejectsValuesBeyondInt64) {
  EXPECT_FALSE(ParsePyInt("9223372036854775808").has_value());
  EXPECT_FALSE(ParsePyInt("-9223372036854775809").has_value());
}

}  // namespace
}  // namespace decodeprof::io
