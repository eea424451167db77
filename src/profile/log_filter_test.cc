#include "src/profile/log_filter.h"

#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::profile {
namespace {

TEST(LineFilterTest, GuardLines) {
  EXPECT_TRUE(IsGuardLine("decodeprof: guard: 2026-12-01T10:00:00+0000 attempt 1: CLEAN, exit 0"));
  EXPECT_FALSE(IsGuardLine(" decodeprof: guard: indented"));
  EXPECT_FALSE(IsGuardLine("decodeprof: record: x.sqlite: 3 kernels"));
  EXPECT_FALSE(IsGuardLine(""));
}

TEST(LineFilterTest, GlogLines) {
  EXPECT_TRUE(IsGlogLine("W1201 12:00:00.000000 4242 tool.cpp:42] output: /tmp/x"));
  EXPECT_TRUE(IsGlogLine("E1201 12:00:00"));
  EXPECT_TRUE(IsGlogLine("I0000 "));
  EXPECT_FALSE(IsGlogLine("I000 x"));              // three digits
  EXPECT_FALSE(IsGlogLine("I00000"));              // no space after four digits
  EXPECT_FALSE(IsGlogLine("X1234 x"));             // not W, E or I
  EXPECT_FALSE(IsGlogLine("W20261201 12:00:00"));  // the seed's pattern: exactly four digits
  EXPECT_FALSE(IsGlogLine("Info: 1234"));
  EXPECT_FALSE(IsGlogLine("[phase] warmup_start monotonic_ns=1 boottime_ns=2"));
}

TEST(DropLinesTest, KeepsEveryOtherLineByteForByte) {
  const std::string text =
      "decodeprof: guard: note\r\n"
      "kept 1\r\n"
      "W1201 glog\n"
      "kept 2\n"
      "\n"
      "decodeprof: guard: last without newline";
  EXPECT_EQ(DropLines(text, {IsGuardLine, IsGlogLine}), "kept 1\r\nkept 2\n\n");
  EXPECT_EQ(DropLines(text, {}), text);
  EXPECT_EQ(DropLines("tail", {IsGuardLine}), "tail");
  EXPECT_EQ(DropLines("", {IsGuardLine}), "");
}

TEST(ReplaceLiteralTest, IsNotARegex) {
  EXPECT_EQ(ReplaceLiteral("a/x#1.*/b a/x#1.*/c", "a/x#1.*/", ""), "b c");
  EXPECT_EQ(ReplaceLiteral("axx1", "a.x", "Z"), "axx1");  // '.' is a dot
  EXPECT_EQ(ReplaceLiteral("p/d", "p", "\\1&$0"), "\\1&$0/d");
  EXPECT_EQ(ReplaceLiteral("aaaa", "aa", "b"), "bb");  // left to right, no overlap
  EXPECT_EQ(ReplaceLiteral("abc", "", "x"), "abc");
}

TEST(PathScrubberTest, RepoRootAndTraceDir) {
  const PathScrubber scrubber("/home/u/src#1/re.po[x]+", "/tmp/tr#a.b*(y)$");
  EXPECT_EQ(scrubber.Scrub("start: /home/u/src#1/re.po[x]+/target/bench -o "
                           "/tmp/tr#a.b*(y)$/m_greedy/m_greedy.sqlite\n"),
            "start: target/bench -o <trace-dir>/m_greedy/m_greedy.sqlite\n");
  // The root without its slash is not the root's contents: left as it is.
  EXPECT_EQ(scrubber.Scrub("cwd: /home/u/src#1/re.po[x]+\n"), "cwd: /home/u/src#1/re.po[x]+\n");
  // Similar but different paths are untouched.
  EXPECT_EQ(scrubber.Scrub("/home/u/src#1/re.poX/a"), "/home/u/src#1/re.poX/a");
}

TEST(PathScrubberTest, ATraceDirInsideTheCheckoutStaysATraceDir) {
  const PathScrubber scrubber("/repo", "/repo/traces");
  EXPECT_EQ(scrubber.Scrub("/repo/traces/r/x.sqlite /repo/src/a.cc"),
            "<trace-dir>/r/x.sqlite src/a.cc");
  const PathScrubber no_git("", "/tmp/t");
  EXPECT_EQ(no_git.Scrub("/repo/a /tmp/t/b"), "/repo/a <trace-dir>/b");
  const PathScrubber root_is_slash("/", "");
  EXPECT_EQ(root_is_slash.Scrub("/usr/bin/x"), "/usr/bin/x");
  const PathScrubber trailing_slash("/repo/", "");
  EXPECT_EQ(trailing_slash.Scrub("/repo/a"), "a");
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(PathScrubberTest, ScrubFileRewritesInPlaceAndSkipsMissingFiles) {
  const std::string dir = decodeprof::testing::ScratchDir("log_filter_");
  ASSERT_FALSE(dir.empty());
  const std::string path = dir + "/guard.log";
  std::ofstream(path) << "== r plain\nstart: /r#oot/bench\nstart: /tmp/t/r/x\n";
  const PathScrubber scrubber("/r#oot", "/tmp/t");
  ASSERT_TRUE(scrubber.ScrubFile(path).ok());
  EXPECT_EQ(Read(path), "== r plain\nstart: bench\nstart: <trace-dir>/r/x\n");
  EXPECT_TRUE(scrubber.ScrubFile(dir + "/absent.log").ok());
}

TEST(PublishLogTest, DropsLinesThenScrubs) {
  const std::string dir = decodeprof::testing::ScratchDir("log_filter_");
  ASSERT_FALSE(dir.empty());
  std::ofstream(dir + "/bench.log") << "decodeprof: guard: attempt 1/5: start: /tmp/t/x\n"
                                       "W1201 12:00:00 1 a.cpp:1] /tmp/t/r/out\n"
                                       "decodeprof: record: /tmp/t/r/r.sqlite: 18 kernels\n"
                                       "[Profile Results]\n";
  ASSERT_TRUE(PublishLog(dir + "/bench.log", dir + "/pub.log", {IsGlogLine, IsGuardLine},
                         PathScrubber("", "/tmp/t"))
                  .ok());
  EXPECT_EQ(Read(dir + "/pub.log"),
            "decodeprof: record: <trace-dir>/r/r.sqlite: 18 kernels\n[Profile Results]\n");
  const base::Status missing =
      PublishLog(dir + "/absent.log", dir + "/x.log", {}, PathScrubber("", ""));
  EXPECT_EQ(missing.kind(), base::ErrorKind::kIo);
}

}  // namespace
}  // namespace decodeprof::profile
