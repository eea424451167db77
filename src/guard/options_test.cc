#include "src/guard/options.h"

#include "gtest/gtest.h"

namespace decodeprof::guard {
namespace {

ParseResult Parse(std::vector<std::string> args) { return ParseOptions(args); }

std::string ErrorOf(std::vector<std::string> args) {
  const ParseResult r = Parse(std::move(args));
  return r.error ? r.error->message : "<no error>";
}

TEST(OptionsTest, DefaultsAreTheSeeds) {
  const ParseResult r = Parse({"--", "bench", "-m", "x"});
  ASSERT_TRUE(r.options);
  EXPECT_EQ(r.options->mode, Mode::kGuard);
  EXPECT_EQ(r.options->idle_secs, 90u);
  EXPECT_EQ(r.options->max_attempts, 5u);
  EXPECT_EQ(r.options->max_wait, 0u);
  EXPECT_FALSE(r.options->log_path);
  EXPECT_EQ(r.options->gpu, GpuChoice::kAuto);
  EXPECT_EQ(r.options->command, (std::vector<std::string>{"bench", "-m", "x"}));
}

TEST(OptionsTest, EveryOptionIsRead) {
  const ParseResult r = Parse({"--idle-secs", "08", "--max-attempts", "1", "--max-wait", "30",
                               "--log", "g.log", "--gpu", "nvidia", "--", "cmd", "--idle-secs"});
  ASSERT_TRUE(r.options);
  EXPECT_EQ(r.options->idle_secs, 8u);  // decimal, not octal
  EXPECT_EQ(r.options->max_attempts, 1u);
  EXPECT_EQ(r.options->max_wait, 30u);
  EXPECT_EQ(*r.options->log_path, "g.log");
  EXPECT_EQ(r.options->gpu, GpuChoice::kNvidia);
  // Everything after `--` belongs to the command, options included.
  EXPECT_EQ(r.options->command, (std::vector<std::string>{"cmd", "--idle-secs"}));
}

TEST(OptionsTest, NumbersMustBePlainIntegersInTheirRange) {
  for (const std::string bad :
       {"abc", "-1", "1.5", "", "+3", " 1", "1e3", "99999999999999999999999",
        "18446744073709551615", "9223372036854775808", "604801"}) {
    EXPECT_EQ(ErrorOf({"--max-wait", bad, "--", "x"}),
              "--max-wait: must be a whole number of seconds from 0 (no limit) to 604800 (a "
              "week), got '" +
                  bad + "'");
  }
  for (const std::string bad : {"86401", "18446744073709551615", "9223372036854775808", "-1"}) {
    EXPECT_EQ(ErrorOf({"--idle-secs", bad, "--", "x"}),
              "--idle-secs: must be a whole number of seconds from 0 (no idle wait) to 86400 (a "
              "day), got '" +
                  bad + "'");
  }
  for (const std::string bad : {"0", "1001", "18446744073709551615"}) {
    EXPECT_EQ(ErrorOf({"--max-attempts", bad, "--", "x"}),
              "--max-attempts: must be an integer from 1 to 1000, got '" + bad + "'");
  }
  // The ends of each range are taken.
  const ParseResult ends =
      Parse({"--idle-secs", "86400", "--max-wait", "604800", "--max-attempts", "1000", "--", "x"});
  ASSERT_TRUE(ends.options);
  EXPECT_EQ(ends.options->idle_secs, 86400u);
  EXPECT_EQ(ends.options->max_wait, 604800u);
  EXPECT_EQ(ends.options->max_attempts, 1000u);
  EXPECT_EQ(ErrorOf({"--log", "", "--", "x"}), "--log: must be a file path, got ''");
  EXPECT_EQ(ErrorOf({"--idle-secs"}), "--idle-secs needs a value");
  EXPECT_EQ(ErrorOf({"--log"}), "--log needs a value");
}

TEST(OptionsTest, TheSeparatorIsMandatory) {
  const ParseResult r = Parse({"--idle-secs", "1", "bench"});
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "unknown option 'bench'");
  EXPECT_TRUE(r.error->print_usage);
  EXPECT_EQ(ErrorOf({"--idle-secs=1", "--", "x"}), "unknown option '--idle-secs=1'");
  const ParseResult none = Parse({"--idle-secs", "1", "--"});
  ASSERT_TRUE(none.error);
  EXPECT_EQ(none.error->message, "no command given");
  EXPECT_TRUE(none.error->print_usage);
  EXPECT_EQ(ErrorOf({}), "no command given");
}

TEST(OptionsTest, GpuChoices) {
  EXPECT_EQ(Parse({"--gpu", "amd", "--", "x"}).options->gpu, GpuChoice::kAmd);
  EXPECT_EQ(Parse({"--gpu", "auto", "--", "x"}).options->gpu, GpuChoice::kAuto);
  EXPECT_EQ(ErrorOf({"--gpu", "AMD", "--", "x"}),
            "--gpu: must be one of auto, amd, nvidia, got 'AMD'");
}

TEST(OptionsTest, HoldTakesOnlyMaxWait) {
  const ParseResult ok = Parse({"--hold", "--max-wait", "5", "--", "cat"});
  ASSERT_TRUE(ok.options);
  EXPECT_EQ(ok.options->mode, Mode::kHold);
  EXPECT_EQ(ok.options->max_wait, 5u);
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--idle-secs", "1"},
                                                {"--max-attempts", "1"},
                                                {"--log", "l"},
                                                {"--gpu", "amd"}}) {
    std::vector<std::string> args = {"--hold"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "x"});
    EXPECT_NE(ErrorOf(args).find("--hold takes only --max-wait"), std::string::npos) << extra[0];
  }
  EXPECT_EQ(ErrorOf({"--hold"}), "no command given");
}

TEST(OptionsTest, StatusTakesNothing) {
  EXPECT_EQ(Parse({"--status"}).options->mode, Mode::kStatus);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--status", "--hold"},
                                               {"--status", "--max-wait", "1"},
                                               {"--status", "--", "x"},
                                               {"--status", "--"},
                                               {"--idle-secs", "1", "--status"}}) {
    EXPECT_EQ(ErrorOf(args), "--status takes no other option and no command");
  }
}

TEST(OptionsTest, HelpWins) {
  EXPECT_EQ(Parse({"-h"}).options->mode, Mode::kHelp);
  EXPECT_EQ(Parse({"--idle-secs", "1", "--help"}).options->mode, Mode::kHelp);
}

TEST(OptionsTest, JoinCommandUsesSingleSpaces) {
  EXPECT_EQ(JoinCommand({"a", "b c", "", "d"}), "a b c  d");
  EXPECT_EQ(JoinCommand({}), "");
}

}  // namespace
}  // namespace decodeprof::guard
