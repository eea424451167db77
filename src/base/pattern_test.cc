#include "src/base/pattern.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace decodeprof::base {
namespace {

std::string ErrorOf(std::string_view text) {
  auto compiled = CompilePattern(text);
  EXPECT_FALSE(compiled.ok()) << text;
  if (compiled.ok()) return "";
  EXPECT_EQ(compiled.status().kind(), ErrorKind::kUsage);
  EXPECT_NE(compiled.status().hint().find("RE2"), std::string::npos);
  return compiled.status().message();
}

TEST(PatternTest, SearchesUnanchoredAndHonoursCase) {
  auto p = CompilePattern("gemm");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(PatternFound(**p, "void cutlass_gemm_kernel<>"));
  EXPECT_FALSE(PatternFound(**p, "GEMM"));
  auto i = CompilePattern("gemm", /*case_sensitive=*/false);
  ASSERT_TRUE(i.ok());
  EXPECT_TRUE(PatternFound(**i, "GEMM"));
}

TEST(PatternTest, BackreferencesAreRefusedSayingWhy) {
  EXPECT_NE(ErrorOf("(a)\\1").find("backreference (\\1)"), std::string::npos);
  EXPECT_NE(ErrorOf("(?P<x>a)\\k<x>").find("named backreference"), std::string::npos);
}

TEST(PatternTest, LookaroundAtomicAndPossessiveAreRefusedSayingWhy) {
  EXPECT_NE(ErrorOf("gemm(?=_f16)").find("lookahead"), std::string::npos);
  EXPECT_NE(ErrorOf("gemm(?!_f16)").find("lookahead"), std::string::npos);
  EXPECT_NE(ErrorOf("(?<=void )gemm").find("lookbehind"), std::string::npos);
  EXPECT_NE(ErrorOf("(?<!void )gemm").find("lookbehind"), std::string::npos);
  EXPECT_NE(ErrorOf("(?>a+)b").find("atomic group"), std::string::npos);
  EXPECT_NE(ErrorOf("a++b").find("possessive"), std::string::npos);
}

TEST(PatternTest, AnEscapedParenthesisIsNotALookaround) {
  EXPECT_TRUE(CompilePattern("\\(?=x").ok());
  EXPECT_TRUE(CompilePattern("\\\\").ok());
}

TEST(PatternTest, TooLongAndOverBudgetAreRefused) {
  const std::string long_pattern(kMaxPatternBytes + 1, 'a');
  EXPECT_NE(ErrorOf(long_pattern).find("-byte limit"), std::string::npos);
  EXPECT_TRUE(CompilePattern(std::string(kMaxPatternBytes, 'a')).ok());
  // Nested counted repetitions blow up the program: over the 8 MiB budget.
  EXPECT_NE(ErrorOf("((((a{1,1000}){1,1000}){1,1000}){1,1000})").find("repetition"),
            std::string::npos);
  std::string huge;
  for (int i = 0; i < 300; ++i) huge += "\\pL{1000}";
  const std::string big = ErrorOf(huge);
  EXPECT_NE(big.find("budget"), std::string::npos) << big;
  EXPECT_NE(ErrorOf("a{1001}").find("up to 1000"), std::string::npos);
}

TEST(PatternTest, OtherSyntaxErrorsSayRe2sReason) {
  EXPECT_NE(ErrorOf("(unclosed").find("missing )"), std::string::npos);
  const std::string star = ErrorOf("*x");
  EXPECT_NE(star.find("no argument for repetition operator"), std::string::npos) << star;
}

// Catastrophic backtracking patterns of backtracking engines run in linear time.
TEST(PatternTest, PathologicalPatternsOnLongNamesAreFast) {
  auto p = CompilePattern("^(.*)*x$");
  ASSERT_TRUE(p.ok());
  auto q = CompilePattern("(a|aa)+$");
  ASSERT_TRUE(q.ok());
  const std::string name(1 << 20, 'a');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(PatternFound(**p, name));
  EXPECT_TRUE(PatternFound(**q, name));
  EXPECT_FALSE(PatternFound(**q, name + "b"));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);
}

}  // namespace
}  // namespace decodeprof::base
