// The seed's 28 GuardTests (seed spec section 3), run end to end against the real
// `decodeprof guard` binary, plus the 1 Hz acceptance tests of issue 3. Each run gets a
// private temporary KFD directory, a private lock and a compiler pattern that never
// matches; nothing here needs a GPU.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/guard/guard_cli_test_util.h"

namespace decodeprof::guard::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> Sh(const std::string& script) { return {"sh", "-c", script}; }

std::vector<std::string> Args(std::vector<std::string> options,
                              const std::vector<std::string>& command) {
  options.push_back("--");
  options.insert(options.end(), command.begin(), command.end());
  return options;
}

class GuardCliTest : public ::testing::Test {
 protected:
  GuardFixture fx_;
};

// 1
TEST_F(GuardCliTest, IdleGpuRunsTheCommandAndPassesItsStatus) {
  const RunResult r =
      fx_.Run(Args({"--idle-secs", "1", "--log", fx_.log()}, Sh("sleep 1.5; exit 3")));
  EXPECT_EQ(r.status, 3) << r.err;
  const std::string log = ReadText(fx_.log());
  EXPECT_THAT(log, HasSubstr("CLEAN"));
  EXPECT_THAT(log, HasSubstr("sample 1: clean"));
  EXPECT_THAT(r.err, Not(HasSubstr("sample 1: clean")));  // clean samples: log only
}

// 2
TEST_F(GuardCliTest, AForeignGpuProcessDuringTheRunRejectsEveryAttempt) {
  const std::string holder = fx_.kfd() + "/1";
  const RunResult r = fx_.Run(Args({"--idle-secs", "0", "--max-attempts", "2"},
                                   Sh("touch " + holder + "; sleep 1.5; rm -f " + holder)));
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_THAT(r.err, HasSubstr("CONTENDED foreign_gpu=[1:"));
  EXPECT_THAT(r.err, HasSubstr("attempt 1: REJECTED (contended), exit 0; rerunning"));
  EXPECT_THAT(r.err, HasSubstr("every attempt (2) was contended; the last by gpu=[1:"));
}

// 3
TEST_F(GuardCliTest, TheCommandsOwnGpuProcessIsNotContention) {
  const RunResult r =
      fx_.Run(Args({"--idle-secs", "0", "--log", fx_.log()},
                   Sh("touch " + fx_.kfd() + "/$$; sleep 1.5; rm -f " + fx_.kfd() + "/$$")));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("CONTENDED")));
  EXPECT_THAT(ReadText(fx_.log()), HasSubstr(":sh]"));  // the raw holder list shows it
}

// 4
TEST_F(GuardCliTest, AKfdEntryLeftByAnExitedProcessIsNotContention) {
  const RunResult r = fx_.Run(Args(
      {"--idle-secs", "0"}, Sh("sleep 0 & p=$!; wait $p; touch " + fx_.kfd() + "/$p; sleep 1.5")));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("CONTENDED")));
}

// 5
TEST_F(GuardCliTest, ABusyGpuBeforeTheRunTimesOutWithoutRunning) {
  fx_.AddHolder("1");
  const std::string marker = fx_.Path("ran");
  const RunResult r = fx_.Run(Args({"--idle-secs", "1", "--max-wait", "2"}, {"touch", marker}));
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_THAT(r.err, HasSubstr("gave up after"));
  EXPECT_FALSE(Exists(marker));
  EXPECT_LT(r.secs, 5.0);
}

// 6
TEST_F(GuardCliTest, ACompilerCountsAsContention) {
  const pid_t compiler = SpawnHelper({"sleep", "30"});
  const RunResult r = fx_.Run(Args({"--idle-secs", "1", "--max-wait", "2"}, {"true"}),
                              {"DECODEPROF_GUARD_COMPILER_RE=^(sleep)$"});
  KillAndReap(compiler);
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_THAT(r.err, HasSubstr("gave up after"));
  EXPECT_THAT(r.err, Not(HasSubstr("attempt 1/")));
}

// 7
TEST_F(GuardCliTest, OptionValuesMustBePlainIntegersInTheirRange) {
  for (const std::string flag : {"--idle-secs", "--max-attempts", "--max-wait"}) {
    for (const std::string value :
         {"abc", "-1", "1.5", "", "18446744073709551615", "9223372036854775808", "604801"}) {
      const RunResult r = fx_.Run({flag, value, "--", "true"});
      EXPECT_EQ(r.status, 2) << flag << " " << value;
      EXPECT_THAT(r.err, HasSubstr(flag + ": must be "));
      EXPECT_THAT(r.err, HasSubstr(", got '" + value + "'"));
      EXPECT_THAT(r.err, Not(HasSubstr("attempt 1/")));
    }
    const RunResult bare = fx_.Run({flag});
    EXPECT_EQ(bare.status, 2);
    EXPECT_THAT(bare.err, HasSubstr(flag + " needs a value"));
  }
}

// 8
TEST_F(GuardCliTest, ALeadingZeroIsDecimalNotOctal) {
  const RunResult r = fx_.Run(Args({"--idle-secs", "08", "--max-wait", "1"}, {"true"}));
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("value too great")));
  EXPECT_THAT(r.err, HasSubstr("shorter than 8s of idle"));
}

// 9
TEST_F(GuardCliTest, SigtermStopsTheCommandAndTheGuard) {
  const std::string pid_file = fx_.Path("cmd.pid");
  Started guard =
      fx_.Start(Args({"--idle-secs", "0"}, Sh("echo $$ > " + pid_file + "; sleep 30 & echo $! >> " +
                                              pid_file + "; wait")));
  ASSERT_TRUE(WaitFor([&] { return Count(ReadText(pid_file), "\n") == 2; }, 10));
  const std::string pids = ReadText(pid_file);
  const pid_t command = std::stoi(pids.substr(0, pids.find('\n')));
  const pid_t grandchild = std::stoi(pids.substr(pids.find('\n') + 1));
  ::kill(guard.pid(), SIGTERM);
  const RunResult r = guard.Wait(10);
  EXPECT_EQ(r.status, 143) << r.err;
  EXPECT_THAT(r.err, HasSubstr("caught SIGTERM: stopping command and monitor"));
  EXPECT_TRUE(WaitFor([&] { return ProcessGone(command); }, 5));
  // The whole process group is stopped, not only the command's pid.
  EXPECT_TRUE(WaitFor([&] { return ProcessGone(grandchild); }, 5));
}

// 10
TEST_F(GuardCliTest, TwoGuardsStartedTogetherRunOneAfterTheOther) {
  const std::string script = "touch " + fx_.kfd() + "/$$; sleep 2; rm -f " + fx_.kfd() + "/$$";
  const std::vector<std::string> args = Args({"--idle-secs", "1", "--log", fx_.log()}, Sh(script));
  Started a = fx_.Start(args);
  Started b = fx_.Start(args);
  const RunResult ra = a.Wait(30);
  const RunResult rb = b.Wait(30);
  EXPECT_EQ(ra.status, 0) << ra.err;
  EXPECT_EQ(rb.status, 0) << rb.err;
  EXPECT_THAT(ra.err + rb.err, Not(HasSubstr("CONTENDED")));
  std::vector<std::string> events;
  std::istringstream log(ReadText(fx_.log()));
  for (std::string line; std::getline(log, line);) {
    if (line.find("attempt 1/5: start") != std::string::npos) events.push_back("start");
    if (line.find("CLEAN") != std::string::npos) events.push_back("CLEAN");
  }
  EXPECT_EQ(events, (std::vector<std::string>{"start", "CLEAN", "start", "CLEAN"}));
  EXPECT_EQ(Count(ra.err + rb.err, "waiting for guard lock"), 1);
}

// 11
TEST_F(GuardCliTest, AHeldLockCountsAgainstMaxWaitAndTheCommandNeverRuns) {
  fx_.HoldLock();
  const std::string marker = fx_.Path("ran");
  const RunResult r = fx_.Run(Args({"--idle-secs", "0", "--max-wait", "2"}, {"touch", marker}));
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_LT(r.secs, 10.0);
  EXPECT_THAT(r.err, HasSubstr("gave up waiting for guard lock " + fx_.lock() + " after 2s"));
  EXPECT_THAT(r.err, Not(HasSubstr("attempt 1/")));
  EXPECT_FALSE(Exists(marker));
}

// 12
TEST_F(GuardCliTest, AGuardInsideAGuardDoesNotWaitForTheLock) {
  fx_.HoldLock();
  const RunResult r = fx_.Run(Args({"--idle-secs", "0"}, {"true"}),
                              {"DECODEPROF_GUARD_LOCK_HELD=" + std::to_string(::getpid())});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("lock held by outer guard " + std::to_string(::getpid()) +
                               ": not taking " + fx_.lock()));
  EXPECT_THAT(r.err, Not(HasSubstr("waiting for guard lock")));
}

// 13
TEST_F(GuardCliTest, AHeldVariableNamingANonAncestorDoesNotSkipTheLock) {
  fx_.HoldLock();
  const pid_t stranger = SpawnHelper({"sleep", "30"});
  for (const std::string& value :
       {std::to_string(stranger), std::string("1"), std::string("self")}) {
    const RunResult r = fx_.Run(Args({"--idle-secs", "0", "--max-wait", "1"}, {"true"}),
                                {"DECODEPROF_GUARD_LOCK_HELD=" + value});
    EXPECT_EQ(r.status, 75) << value << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("gave up waiting for guard lock")) << value;
    EXPECT_THAT(r.err, Not(HasSubstr("lock held by outer guard"))) << value;
  }
  KillAndReap(stranger);
}

// 14
TEST_F(GuardCliTest, ALockPathThatIsNotARegularFileIsRefused) {
  const std::string fifo = fx_.Path("fifo.lock");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const RunResult r = fx_.Run(Args({"--idle-secs", "0"}, {"true"}),
                              {"DECODEPROF_GUARD_LOCK=" + fifo}, "/dev/null", 10);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("guard lock " + fifo + " is not a regular file"));
}

// 15
TEST_F(GuardCliTest, SigtermWhileWaitingForTheLockStopsTheGuard) {
  fx_.HoldLock();
  const std::string marker = fx_.Path("ran");
  Started guard = fx_.Start(Args({"--idle-secs", "0"}, {"touch", marker}));
  ASSERT_TRUE(WaitFor(
      [&] { return guard.ErrSoFar().find("waiting for guard lock") != std::string::npos; }, 10));
  // The wait is the guard itself (no background waiter that could outlive it).
  EXPECT_TRUE(ChildrenOf(guard.pid()).empty());
  const double sent = Now();
  ::kill(guard.pid(), SIGTERM);
  const RunResult r = guard.Wait(10);
  EXPECT_LT(Now() - sent, 2.0);
  EXPECT_EQ(r.status, 143) << r.err;
  EXPECT_THAT(r.err, HasSubstr("caught SIGTERM"));
  EXPECT_FALSE(Exists(marker));
}

// 16
TEST_F(GuardCliTest, ANestedGuardCommandCompletes) {
  const RunResult r =
      fx_.Run(Args({"--idle-secs", "0", "--log", fx_.log()},
                   {CliPath(), "guard", "--idle-secs", "0", "--log", fx_.log(), "--", "true"}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("lock held by outer guard"));
  EXPECT_EQ(Count(ReadText(fx_.log()), "CLEAN"), 2);
}

// 17
TEST_F(GuardCliTest, ADaemonLeftByTheCommandDoesNotKeepTheLock) {
  const std::string pid_file = fx_.Path("daemon.pid");
  const RunResult r = fx_.Run(Args(
      {"--idle-secs", "0"}, Sh("sleep 30 >/dev/null 2>&1 </dev/null & echo $! > " + pid_file)));
  EXPECT_EQ(r.status, 0) << r.err;
  const pid_t daemon = std::stoi(ReadText(pid_file));
  EXPECT_FALSE(ProcessGone(daemon));
  const RunResult status = fx_.Run({"--status"});
  EXPECT_EQ(status.status, 0);
  EXPECT_EQ(status.out, "free\n");
  ::kill(daemon, SIGKILL);
}

// 18
TEST_F(GuardCliTest, HoldRunsNestedGuardsWithoutTakingTheLock) {
  const std::string inner_log = fx_.Path("inner.log");
  const std::string inner = "\"$DP\" guard --idle-secs 0 --log " + inner_log + " -- ";
  const RunResult r = fx_.Run(
      Args({"--hold"}, Sh(inner + "true; " + inner +
                          "sh -c 'exit 4'; "
                          "[ \"$DECODEPROF_GUARD_LOCK_HELD\" = \"$PPID\" ] || exit 9; "
                          "\"$DP\" guard --status >/dev/null; [ $? = 1 ] || exit 8; exit 3")));
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(Count(r.err, "lock held by outer guard"), 2);
  EXPECT_THAT(r.err, Not(HasSubstr("waiting for guard lock")));
  const std::string log = ReadText(inner_log);
  EXPECT_EQ(Count(log, "CLEAN, exit"), 2);
  EXPECT_THAT(log, HasSubstr("exit 4"));
  EXPECT_EQ(fx_.Run({"--status"}).out, "free\n");
}

// 19
TEST_F(GuardCliTest, HoldDoesNoIdleWaitEvenWithABusyGpu) {
  fx_.AddHolder("1");
  const RunResult r = fx_.Run({"--hold", "--", "true"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("waiting for")));
  EXPECT_THAT(r.err, Not(HasSubstr("attempt")));
}

// 20
TEST_F(GuardCliTest, ASecondHoldWaitsForTheFirstAndExits75OnMaxWait) {
  Started first = fx_.Start({"--hold", "--", "sleep", "30"});
  ASSERT_TRUE(WaitFor([&] { return Exists(fx_.lock() + ".holder"); }, 10));
  const std::string marker = fx_.Path("ran");
  const RunResult second = fx_.Run({"--hold", "--max-wait", "2", "--", "touch", marker});
  EXPECT_EQ(second.status, 75) << second.err;
  EXPECT_LT(second.secs, 7.0);
  EXPECT_THAT(second.err, HasSubstr("waiting for guard lock"));
  EXPECT_THAT(second.err, HasSubstr("gave up waiting for guard lock"));
  EXPECT_FALSE(Exists(marker));
  EXPECT_FALSE(ProcessGone(first.pid()));  // the first hold is undisturbed
  EXPECT_THAT(ReadText(fx_.lock() + ".holder"), HasSubstr("pid=" + std::to_string(first.pid())));
  ::kill(first.pid(), SIGTERM);
  EXPECT_EQ(first.Wait(10).status, 143);
}

// 21
TEST_F(GuardCliTest, StatusReportsHeldWithTheHolderThenFree) {
  RunResult status = fx_.Run({"--status"});
  EXPECT_EQ(status.status, 0);
  EXPECT_EQ(status.out, "free\n");
  Started hold = fx_.Start({"--hold", "--", "sleep", "30"});
  ASSERT_TRUE(WaitFor([&] { return Exists(fx_.lock() + ".holder"); }, 10));
  status = fx_.Run({"--status"});
  EXPECT_EQ(status.status, 1);
  EXPECT_THAT(status.out, HasSubstr("held"));
  EXPECT_THAT(status.out, HasSubstr("pid=" + std::to_string(hold.pid())));
  EXPECT_THAT(status.out, HasSubstr("mode=hold"));
  EXPECT_THAT(status.out, HasSubstr("sleep"));
  EXPECT_THAT(status.out, Not(HasSubstr("stale")));
  ::kill(hold.pid(), SIGTERM);
  EXPECT_EQ(hold.Wait(10).status, 143);
  status = fx_.Run({"--status"});
  EXPECT_EQ(status.status, 0);
  EXPECT_EQ(status.out, "free\n");
  EXPECT_FALSE(Exists(fx_.lock() + ".holder"));
}

// 22
TEST_F(GuardCliTest, APlainGuardRecordsAndClearsItsHolderFile) {
  const RunResult r =
      fx_.Run(Args({"--idle-secs", "0"}, Sh("cat " + fx_.lock() + ".holder; exit 2")));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_THAT(r.out, HasSubstr("mode=guard"));
  EXPECT_THAT(r.out, HasSubstr("pid="));
  EXPECT_FALSE(Exists(fx_.lock() + ".holder"));
}

// 23
TEST_F(GuardCliTest, StatusCallsAHolderFileWhosePidIsGoneStale) {
  fx_.HoldLock();
  const pid_t gone = ReapedPid();
  WriteText(fx_.lock() + ".holder",
            "pid=" + std::to_string(gone) + "\nstart=x\nmode=hold\ncmd=sleep 30\n");
  const RunResult r = fx_.Run({"--status"});
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out, HasSubstr("held"));
  EXPECT_THAT(r.out, HasSubstr("stale"));
}

// 24
TEST_F(GuardCliTest, StatusWithALockNobodyRecordedStillSaysHeld) {
  fx_.HoldLock();
  const RunResult r = fx_.Run({"--status"});
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out, HasSubstr("held"));
  EXPECT_THAT(r.out, HasSubstr("no holder file"));
}

// 25
TEST_F(GuardCliTest, HoldRefusesTheIdleOptionsAndStatusRefusesEverything) {
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--idle-secs", "1"},
                                                {"--max-attempts", "1"},
                                                {"--log", fx_.log()}}) {
    std::vector<std::string> args = {"--hold"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "true"});
    const RunResult r = fx_.Run(args);
    EXPECT_EQ(r.status, 2) << extra[0];
    EXPECT_THAT(r.err, HasSubstr("--hold takes only --max-wait"));
  }
  EXPECT_EQ(fx_.Run({"--hold"}).status, 2);
  EXPECT_EQ(fx_.Run({"--hold", "--"}).status, 2);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--status", "--hold"},
                                               {"--status", "--max-wait", "1"},
                                               {"--status", "--", "true"},
                                               {"--hold", "--status", "--", "true"}}) {
    EXPECT_EQ(fx_.Run(args).status, 2) << args[1];
  }
  EXPECT_THAT(fx_.Run({"--hold", "--max-wait", "1"}).err, HasSubstr("no command given"));
}

// 26
TEST_F(GuardCliTest, HoldUnderAnOuterGuardJustRunsTheCommand) {
  fx_.HoldLock();
  const RunResult r = fx_.Run({"--hold", "--", "sh", "-c", "exit 6"},
                              {"DECODEPROF_GUARD_LOCK_HELD=" + std::to_string(::getpid())});
  EXPECT_EQ(r.status, 6) << r.err;
  EXPECT_THAT(r.err, HasSubstr("lock held by outer guard"));
}

// 27
TEST_F(GuardCliTest, SigtermStopsTheHeldCommandAndReleasesTheLock) {
  const std::string pid_file = fx_.Path("cmd.pid");
  const std::string marker = fx_.Path("finished");
  Started hold = fx_.Start(
      {"--hold", "--", "sh", "-c", "echo $$ > " + pid_file + "; sleep 5; touch " + marker});
  ASSERT_TRUE(WaitFor([&] { return !ReadText(pid_file).empty(); }, 10));
  const pid_t command = std::stoi(ReadText(pid_file));
  ::kill(hold.pid(), SIGTERM);
  const RunResult r = hold.Wait(10);
  EXPECT_EQ(r.status, 143) << r.err;
  EXPECT_TRUE(WaitFor([&] { return ProcessGone(command); }, 5));
  EXPECT_FALSE(Exists(marker));
  EXPECT_EQ(fx_.Run({"--status"}).out, "free\n");
}

// 28
TEST_F(GuardCliTest, HoldPassesStdinToTheCommand) {
  const std::string input = "first line\nsecond line with  spaces\n\nlast";
  WriteText(fx_.Path("stdin.txt"), input);
  const RunResult r = fx_.Run({"--hold", "--", "cat"}, {}, fx_.Path("stdin.txt"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, input);
}

// ---- issue 3: a real 1 Hz --------------------------------------------------------------

TEST_F(GuardCliTest, ASixSecondCommandIsSampledAtLeastFiveTimes) {
  const RunResult r = fx_.Run(Args({"--idle-secs", "0", "--log", fx_.log()}, {"sleep", "6"}));
  EXPECT_EQ(r.status, 0) << r.err;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(r.err, match, std::regex("monitor: ([0-9]+) samples")));
  const int samples = std::stoi(match[1]);
  EXPECT_GE(samples, 5);
  EXPECT_LE(samples, 7);
  EXPECT_EQ(Count(ReadText(fx_.log()), ": clean gpu=[]"), samples);
}

TEST_F(GuardCliTest, AFiveSecondIdleWaitEndsWithinSixSeconds) {
  const RunResult r = fx_.Run(Args({"--idle-secs", "5"}, {"true"}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("idle for 5s: kfd proc empty and no compiler in every 1 Hz sample"));
  EXPECT_GE(r.secs, 5.0);
  EXPECT_LT(r.secs, 6.0);
}

// ---- further command-line and environment errors ------------------------------------------

TEST_F(GuardCliTest, UsageErrorsExit2WithTheSeedTexts) {
  RunResult r = fx_.Run({"--idle-secs", "1", "true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("decodeprof: guard: unknown option 'true'"));
  EXPECT_THAT(r.err, HasSubstr("usage: decodeprof guard"));
  r = fx_.Run({"--idle-secs", "1", "--"});
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("decodeprof: guard: no command given"));
  r = fx_.Run({"--gpu", "intel", "--", "true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--gpu: must be one of auto, amd, nvidia, got 'intel'"));
  r = fx_.Run({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("usage: decodeprof guard"));
}

TEST_F(GuardCliTest, AMissingKfdDirectoryIsAnEnvironmentError) {
  const std::string missing = fx_.Path("no-kfd");
  const RunResult r = fx_.Run(Args({"--gpu", "amd", "--idle-secs", "0"}, {"true"}),
                              {"DECODEPROF_GUARD_KFD_DIR=" + missing});
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr(missing + " not found (no ROCm KFD driver?)"));
}

TEST_F(GuardCliTest, AutoSaysWhichBackendItPicked) {
  const RunResult r = fx_.Run(Args({"--idle-secs", "0"}, {"true"}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("gpu auto: picked amd (KFD " + fx_.kfd() + ")"));
}

TEST_F(GuardCliTest, NoteLinesCarryThePrefixAndTheSeedTimestamp) {
  const RunResult r = fx_.Run(Args({"--idle-secs", "0", "--log", fx_.log()}, {"true"}));
  EXPECT_EQ(r.status, 0) << r.err;
  const std::regex stderr_line(
      "decodeprof: guard: [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{4} "
      "attempt 1/5: start: true");
  EXPECT_TRUE(std::regex_search(r.err, stderr_line)) << r.err;
  const std::regex log_line(
      "(^|\n)[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{4} "
      "attempt 1: CLEAN, exit 0\n");
  EXPECT_TRUE(std::regex_search(ReadText(fx_.log()), log_line));
}

TEST_F(GuardCliTest, ACommandThatCannotRunIsReportedAndItsStatusPassedThrough) {
  const RunResult r = fx_.Run(Args({"--idle-secs", "0"}, {"/nonexistent/program"}));
  EXPECT_EQ(r.status, 127) << r.err;
  EXPECT_THAT(r.err, HasSubstr("cannot run /nonexistent/program"));
  EXPECT_THAT(r.err, HasSubstr("attempt 1: CLEAN, exit 127"));
}

TEST_F(GuardCliTest, TheLockDescriptorDoesNotReachTheCommand) {
  // Every descriptor of the command but 0-2 is listed; the lock file must not be among them.
  const RunResult r = fx_.Run(Args({"--idle-secs", "0", "--log", fx_.log()},
                                   Sh("for f in /proc/$$/fd/*; do readlink $f || true; done")));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(".out"));  // the listing works: fd 1 is the run's stdout file
  EXPECT_THAT(r.out, Not(HasSubstr("guard.lock")));
  EXPECT_THAT(r.out, Not(HasSubstr("guard.log")));
}

TEST_F(GuardCliTest, TheCommandDoesNotInheritTheGuardsIgnoredSigpipe) {
  // The guard ignores SIGPIPE for itself; the command must get the default back.
  const RunResult r = fx_.Run(Args({"--idle-secs", "0"}, Sh("grep SigIgn /proc/$$/status")));
  EXPECT_EQ(r.status, 0) << r.err;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(r.out, match, std::regex("SigIgn:\\s*([0-9a-f]+)")));
  const unsigned long long ignored = std::stoull(match[1], nullptr, 16);
  EXPECT_EQ(ignored & (1ull << (SIGPIPE - 1)), 0u);
}

// Issue 11, "Output paths": --log is appended to, and only a regular file is opened.
TEST_F(GuardCliTest, ALogThatIsNotARegularFileIsRefused) {
  const std::string target = fx_.Path("target.log");
  WriteText(target, "keep\n");
  const std::string link = fx_.Path("link.log");
  ASSERT_EQ(::symlink("target.log", link.c_str()), 0);
  const std::string fifo = fx_.Path("fifo.log");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string marker = fx_.Path("ran");
  for (const auto& [log, what] : std::vector<std::pair<std::string, std::string>>{
           {link, "refusing to write to a symlink (to target.log)"},
           {fifo, "refusing to write to a FIFO"},
           {fx_.dir(), "refusing to write to a directory"}}) {
    const RunResult r =
        fx_.Run(Args({"--idle-secs", "0", "--log", log}, {"touch", marker}), {}, "/dev/null", 10);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("cannot open log " + log + ": " + what));
    EXPECT_FALSE(Exists(marker));
  }
  EXPECT_EQ(ReadText(target), "keep\n");
}

}  // namespace
}  // namespace decodeprof::guard::testing
