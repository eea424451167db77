#include "src/base/py_format.h"

#include <gtest/gtest.h>

namespace decodeprof::base {
namespace {

TEST(PyReprTest, MatchesPythonFloatRepr) {
  // Expected strings are what CPython 3.11 prints for repr(x).
  EXPECT_EQ(PyRepr(0.0), "0.0");
  EXPECT_EQ(PyRepr(-0.0), "-0.0");
  EXPECT_EQ(PyRepr(1.0), "1.0");
  EXPECT_EQ(PyRepr(0.1), "0.1");
  EXPECT_EQ(PyRepr(1e-05), "1e-05");
  EXPECT_EQ(PyRepr(0.0001), "0.0001");
  EXPECT_EQ(PyRepr(0.00012), "0.00012");
  EXPECT_EQ(PyRepr(1.5e16), "1.5e+16");
  EXPECT_EQ(PyRepr(1e16), "1e+16");
  EXPECT_EQ(PyRepr(1e22), "1e+22");
  EXPECT_EQ(PyRepr(123456789012345.6), "123456789012345.6");
  EXPECT_EQ(PyRepr(1234567890123456.7), "1234567890123456.8");
  EXPECT_EQ(PyRepr(2.675), "2.675");
  EXPECT_EQ(PyRepr(-3.5), "-3.5");
  EXPECT_EQ(PyRepr(100.0), "100.0");
  EXPECT_EQ(PyRepr(46.79), "46.79");
}

TEST(PyRoundTest, RoundsTheExactBinaryValueHalfToEven) {
  EXPECT_EQ(PyRepr(PyRound(2.675, 2)), "2.67");  // 2.675 is 2.67499999... in binary
  EXPECT_EQ(PyRepr(PyRound(0.125, 2)), "0.12");  // exact tie → even
  EXPECT_EQ(PyRepr(PyRound(0.375, 2)), "0.38");  // exact tie → even
  EXPECT_EQ(PyRepr(PyRound(46.785, 2)), "46.78");
  EXPECT_EQ(PyRepr(PyRound(0.0449999, 1)), "0.0");
  EXPECT_EQ(PyRepr(PyRound(1.0000000000000002, 4)), "1.0");
}

TEST(PyRoundTest, ToIntIsHalfToEven) {
  EXPECT_EQ(PyRoundToInt(2.5), 2);
  EXPECT_EQ(PyRoundToInt(3.5), 4);
  EXPECT_EQ(PyRoundToInt(-2.5), -2);
  EXPECT_EQ(PyRoundToInt(1243.6), 1244);
}

TEST(FormatFixedTest, ThreeDecimals) {
  EXPECT_EQ(FormatFixed(0.8962, 3), "0.896");
  EXPECT_EQ(FormatFixed(100.0, 3), "100.000");
  EXPECT_EQ(FormatFixed(0.0005, 3), "0.001");  // 0.0005 is slightly above the tie in binary
}

TEST(JsonQuoteTest, EscapesLikeJsonDumpsEnsureAscii) {
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote("\xc3\xa9\"\\x\n"), "\"\\u00e9\\\"\\\\x\\n\"");
  EXPECT_EQ(JsonQuote("\xf0\x9f\x98\x80"), "\"\\ud83d\\ude00\"");
  EXPECT_EQ(JsonQuote(std::string("a\x01", 2)), "\"a\\u0001\"");
  EXPECT_EQ(JsonQuote("\xff"), "\"\\ufffd\"");
}

TEST(CsvFieldTest, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(CsvField("qmv"), "qmv");
  EXPECT_EQ(CsvField("f<a, b>(c)"), "\"f<a, b>(c)\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField(""), "");
}

}  // namespace
}  // namespace decodeprof::base
