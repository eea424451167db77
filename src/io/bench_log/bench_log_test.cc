#include "src/io/bench_log/bench_log.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/temp_dir.h"

namespace decodeprof::io {
namespace {

using trace::MarkStamp;

TEST(BenchLogTest, PhaseLineWithBothClocks) {
  const trace::BenchLog log =
      ParseBenchLogText("[phase] warmup_start monotonic_ns=100 boottime_ns=200\n");
  ASSERT_EQ(log.marks.size(), 1u);
  const MarkStamp& s = log.marks.at("warmup_start");
  EXPECT_EQ(s.monotonic, 100);
  EXPECT_EQ(s.boottime, 200);
  EXPECT_EQ(s.On(trace::ClockDomain::kBoottime), 200);
}

TEST(BenchLogTest, NaOrNonIntegerLeavesTheClockOut) {
  const trace::BenchLog log = ParseBenchLogText(
      "[phase] decode_start monotonic_ns=na boottime_ns=300\n"
      "[phase] measured_end monotonic_ns=12x boottime_ns=na\n"
      "[phase] measured_start monotonic_ns=+7 boottime_ns=1_000\n");
  const MarkStamp& decode = log.marks.at("decode_start");
  EXPECT_FALSE(decode.monotonic.has_value());
  EXPECT_EQ(decode.boottime, 300);
  const MarkStamp& end = log.marks.at("measured_end");  // present, with no clock
  EXPECT_FALSE(end.monotonic.has_value());
  EXPECT_FALSE(end.boottime.has_value());
  const MarkStamp& start = log.marks.at("measured_start");  // Python int() accepts these
  EXPECT_EQ(start.monotonic, 7);
  EXPECT_EQ(start.boottime, 1000);
}

TEST(BenchLogTest, PhaseLinesMustMatchExactly) {
  const trace::BenchLog log = ParseBenchLogText(
      "  [phase] indented monotonic_ns=1 boottime_ns=2\n"  // not at line start
      "x[phase] prefixed monotonic_ns=1 boottime_ns=2\n"
      "[phase]  two_spaces monotonic_ns=1 boottime_ns=2\n"
      "[phase] bad-label monotonic_ns=1 boottime_ns=2\n"  // '-' is not \w
      "[phase] no_boot monotonic_ns=1\n"
      "[phase] empty monotonic_ns= boottime_ns=2\n"  // \S+ needs a character
      "[phase] trailing monotonic_ns=5 boottime_ns=6 extra words\n");
  ASSERT_EQ(log.marks.size(), 1u);
  EXPECT_EQ(log.marks.at("trailing").boottime, 6);
}

TEST(BenchLogTest, ResultsBlockWithLeadingSpaces) {
  const trace::BenchLog log = ParseBenchLogText(
      "[Profile Results]\n"
      "  Prompt tokens:    16\n"
      "  Generated tokens: 128\n"
      "  Prefill:          45.12 ms (354.61 tok/s)\n"
      "  Decode:           2174.62 ms (58.86 tok/s)\n"
      "  MLX peak memory:  4.50 GB\n");
  EXPECT_EQ(log.results.prompt_tokens, 16);
  EXPECT_EQ(log.results.generated_tokens, 128);
  EXPECT_EQ(log.results.prefill_ms, 45.12);
  EXPECT_EQ(log.results.prefill_tok_s, 354.61);
  EXPECT_EQ(log.results.decode_ms, 2174.62);
  EXPECT_EQ(log.results.decode_tok_s, 58.86);
  EXPECT_TRUE(log.marks.empty());
}

TEST(BenchLogTest, ResultLinePatterns) {
  const trace::BenchLog log = ParseBenchLogText(
      "\tDecode:\t12.5 ms (3. tok/s)\n"        // tabs are \s; "3." is a float
      "Generated tokens: 64 (after warmup)\n"  // only the prefix has to match
      "prefix Prompt tokens: 9\n"              // anchored at the line start
      "Prompt tokens:5\n"                      // \s+ needs one space
      "Prefill: 1.2.3 ms (4 tok/s)\n");        // float() rejects it: ignored
  EXPECT_EQ(log.results.decode_ms, 12.5);
  EXPECT_EQ(log.results.decode_tok_s, 3.0);
  EXPECT_EQ(log.results.generated_tokens, 64);
  EXPECT_FALSE(log.results.prompt_tokens.has_value());
  EXPECT_FALSE(log.results.prefill_ms.has_value());
}

TEST(BenchLogTest, LaterAttemptsWin) {
  const trace::BenchLog log = ParseBenchLogText(
      "[phase] decode_start monotonic_ns=1 boottime_ns=2\n"
      "  Generated tokens: 64\n"
      "  Decode: 1000.0 ms (64.0 tok/s)\n"
      "[phase] decode_start monotonic_ns=na boottime_ns=20\n"
      "  Generated tokens: 128\n"
      "  Decode: 2000.0 ms (64.0 tok/s)\n");
  // A later line replaces the label's whole stamp, not just the clocks it names.
  const MarkStamp& s = log.marks.at("decode_start");
  EXPECT_FALSE(s.monotonic.has_value());
  EXPECT_EQ(s.boottime, 20);
  EXPECT_EQ(log.results.generated_tokens, 128);
  EXPECT_EQ(log.results.decode_ms, 2000.0);
}

TEST(BenchLogTest, CrlfAndLoneCrLineEnds) {
  const trace::BenchLog log = ParseBenchLogText(
      "[phase] warmup_start monotonic_ns=1 boottime_ns=2\r\n"
      "  Generated tokens: 7\r"
      "[phase] measured_end monotonic_ns=3 boottime_ns=4\r\n");
  EXPECT_EQ(log.marks.at("warmup_start").boottime, 2);  // not "2\r"
  EXPECT_EQ(log.marks.at("measured_end").monotonic, 3);
  EXPECT_EQ(log.marks.at("measured_end").boottime, 4);
  EXPECT_EQ(log.results.generated_tokens, 7);
}

TEST(BenchLogTest, InvalidBytesAreTolerated) {
  const std::string text =
      "\xFF\xFE binary noise \x80\n"
      "[phase] warm\xFFup monotonic_ns=1 boottime_ns=2\n"  // U+FFFD is not \w
      "[phase] decode_start monotonic_ns=\xFF boottime_ns=9\n"
      "  Generated tokens: 32\xC3\n"
      "[phase] measured_end monotonic_ns=5 boottime_ns=6";  // no final newline
  const trace::BenchLog log = ParseBenchLogText(text);
  EXPECT_EQ(log.marks.count("warmup"), 0u);
  EXPECT_EQ(log.marks.size(), 2u);
  EXPECT_FALSE(log.marks.at("decode_start").monotonic.has_value());
  EXPECT_EQ(log.marks.at("decode_start").boottime, 9);
  EXPECT_EQ(log.marks.at("measured_end").boottime, 6);
  EXPECT_EQ(log.results.generated_tokens, 32);
}

TEST(BenchLogTest, UnicodeWhitespaceEndsAValue) {
  // U+00A0 is \s for Python's re on str, so the value ends before it and " boottime_ns=" does
  // not follow: no match. A plain space after the value is fine.
  const trace::BenchLog log = ParseBenchLogText(
      "[phase] a monotonic_ns=1\xC2\xA0 boottime_ns=2\n"
      "\xC2\xA0 Decode:\xE3\x80\x80"
      "5.0 ms (1.0 tok/s)\n");
  EXPECT_TRUE(log.marks.empty());
  EXPECT_EQ(log.results.decode_ms, 5.0);
}

TEST(BenchLogTest, FileWithARerunAttempt) {
  const auto log =
      ParseBenchLog(std::string(DECODEPROF_SOURCE_DIR) + "/src/io/testdata/bench_decode.log");
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  ASSERT_EQ(log->marks.size(), 4u);
  EXPECT_EQ(log->marks.at("warmup_start").monotonic, 11000);
  EXPECT_EQ(log->marks.at("warmup_start").boottime, 15000);
  EXPECT_FALSE(log->marks.at("decode_start").monotonic.has_value());
  EXPECT_EQ(log->marks.at("decode_start").boottime, 16500);
  EXPECT_EQ(log->marks.at("measured_end").boottime, 17000);
  EXPECT_EQ(log->results.prompt_tokens, 16);
  EXPECT_EQ(log->results.generated_tokens, 128);
  EXPECT_EQ(log->results.prefill_ms, 45.12);
  EXPECT_EQ(log->results.decode_ms, 2174.62);
  EXPECT_EQ(log->results.decode_tok_s, 58.86);
}

TEST(BenchLogTest, MissingFileIsAnIoError) {
  const decodeprof::testing::TempDir temp("dp_bench_log_");
  const auto log = ParseBenchLog(temp.Path("no_such_bench.log"));
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().kind(), base::ErrorKind::kIo);
}

// A clock value that is an integer outside [0, 2^62] is kept as the first bad line (reading
// the file fails with it); "na" and values that fit are not.
TEST(BenchLogRangeTest, AMarkBeyondTheRangeOfATimeIsTheFirstBadLine) {
  const trace::BenchLog good =
      ParseBenchLogText("[phase] decode_start monotonic_ns=na boottime_ns=4611686018427387904\n");
  EXPECT_EQ(good.bad_line, 0);
  const trace::BenchLog log = ParseBenchLogText(
      "[phase] warmup_start monotonic_ns=1 boottime_ns=2\n"
      "[phase] decode_start monotonic_ns=-5 boottime_ns=3\n"
      "[phase] measured_end monotonic_ns=9223372036854775807 boottime_ns=4\n");
  EXPECT_EQ(log.bad_line, 2);
  EXPECT_NE(log.bad_what.find("mark decode_start monotonic_ns=-5"), std::string::npos)
      << log.bad_what;
}

}  // namespace
}  // namespace decodeprof::io
