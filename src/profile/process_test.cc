#include "src/profile/process.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::profile {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void Sleep(double secs) {
  timespec ts{static_cast<time_t>(secs),
              static_cast<long>((secs - static_cast<double>(static_cast<time_t>(secs))) * 1e9)};
  ::nanosleep(&ts, nullptr);
}

TEST(RunForkedTest, ReturnsTheBodysStatusAndCapturesBothStreams) {
  const std::string dir = decodeprof::testing::ScratchDir("process_");
  ASSERT_FALSE(dir.empty());
  ChildSetup setup;
  setup.output = dir + "/out.log";
  setup.env = {{"DP_PROCESS_TEST_VAR", "set in the child"}};
  auto rc = RunForked(setup, [] {
    std::printf("to stdout: %s\n", std::getenv("DP_PROCESS_TEST_VAR"));
    std::fflush(stdout);
    std::fprintf(stderr, "to stderr\n");
    return 7;
  });
  ASSERT_TRUE(rc.ok()) << rc.status().ToString();
  EXPECT_EQ(*rc, 7);
  EXPECT_EQ(ReadText(setup.output), "to stdout: set in the child\nto stderr\n");
  EXPECT_EQ(std::getenv("DP_PROCESS_TEST_VAR"), nullptr);  // only the child's environment
}

TEST(RunForkedTest, ADeathBySignalIs128PlusTheSignal) {
  auto rc = RunForked({}, [] {
    ::raise(SIGKILL);
    return 0;
  });
  ASSERT_TRUE(rc.ok());
  EXPECT_EQ(*rc, 128 + SIGKILL);
}

TEST(RunForkedTest, AnUncreatableOutputIsAnIoError) {
  ChildSetup setup;
  setup.output = "/nonexistent-dir-for-tests/out.log";
  auto rc = RunForked(setup, [] { return 0; });
  ASSERT_FALSE(rc.ok());
  EXPECT_EQ(rc.status().kind(), base::ErrorKind::kIo);
  EXPECT_EQ(rc.status().where(), setup.output);
}

// In a separate process (signal handlers must not touch the test runner): installs the
// handlers, runs a child that waits forever, and reports through its exit code whether a
// signal sent to it was latched (`expected_caught`) and forwarded (the child died of TERM).
int ForwardingProbe(const std::string& started, int expected_caught) {
  signals::Install();
  auto rc = RunForked({}, [&started] {
    std::ofstream(started) << "started";
    for (;;) ::pause();
    return 0;
  });
  if (!rc.ok()) return 10;
  if (*rc != 128 + SIGTERM) return 11;
  if (signals::Caught() != expected_caught) return 12;
  // Once a signal was caught, nothing more is started.
  auto again = RunForked({}, [] { return 0; });
  if (!again.ok() || *again != signals::ExitCode(expected_caught)) return 13;
  return 42;
}

void CheckForwarding(int signo) {
  const std::string dir = decodeprof::testing::ScratchDir("process_");
  ASSERT_FALSE(dir.empty());
  const std::string started = dir + "/started";
  const pid_t probe = ::fork();
  if (probe == 0) ::_exit(ForwardingProbe(started, signo));
  ASSERT_GT(probe, 0);
  for (int i = 0; i < 500 && ::access(started.c_str(), F_OK) != 0; ++i) Sleep(0.01);
  ASSERT_EQ(::access(started.c_str(), F_OK), 0);
  ::kill(probe, signo);
  int status = 0;
  for (int i = 0; i < 500 && ::waitpid(probe, &status, WNOHANG) == 0; ++i) Sleep(0.01);
  if (!WIFEXITED(status) && !WIFSIGNALED(status)) {
    ::kill(probe, SIGKILL);
    ::waitpid(probe, &status, 0);
    FAIL() << "the probe did not stop within 5 s";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

TEST(SignalsTest, SigtermIsLatchedAndForwarded) { CheckForwarding(SIGTERM); }
TEST(SignalsTest, SighupIsForwardedAsSigterm) { CheckForwarding(SIGHUP); }

TEST(SignalsTest, ExitCodesAndNames) {
  EXPECT_EQ(signals::ExitCode(SIGINT), 130);
  EXPECT_EQ(signals::ExitCode(SIGTERM), 143);
  EXPECT_STREQ(signals::Name(SIGTERM), "SIGTERM");
  EXPECT_STREQ(signals::Name(SIGINT), "SIGINT");
}

TEST(CaptureOutputTest, StdoutAndStatus) {
  auto echo = CaptureOutput({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(echo.ok());
  EXPECT_EQ(echo->status, 3);
  EXPECT_EQ(echo->out, "out\n");
  auto missing = CaptureOutput({"no-such-command-for-decodeprof-tests"});
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, 127);
  EXPECT_EQ(missing->out, "");
}

}  // namespace
}  // namespace decodeprof::profile
