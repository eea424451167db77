#include "src/base/subprocess.h"
#include "tests/support/temp_dir.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace decodeprof::base {
namespace {

ExitStatus RunToEnd(const SubprocessOptions& options, std::optional<double> timeout = {}) {
  StatusOr<std::unique_ptr<Subprocess>> child = Subprocess::Start(options);
  EXPECT_TRUE(child.ok()) << child.status().ToString();
  if (!child.ok()) return {};
  StatusOr<ExitStatus> ended = (*child)->Wait(timeout);
  EXPECT_TRUE(ended.ok()) << ended.status().ToString();
  return ended.ok() ? *ended : ExitStatus{};
}

SubprocessOptions Shell(const std::string& script) {
  SubprocessOptions options;
  options.argv = {"/bin/sh", "-c", script};
  return options;
}

SubprocessOptions Captured(const std::string& script) {
  SubprocessOptions options = Shell(script);
  options.out = ChildStream::kCapture;
  return options;
}

// Sends `signo` to this process from another one once `ready` exists (the child under test
// creates it after installing its traps), so the signal arrives while Wait() runs.
pid_t SignalSelfWhenReady(const std::string& ready, int signo) {
  const pid_t self = ::getpid();
  const pid_t sender = ::fork();
  if (sender == 0) {
    for (int i = 0; i < 2000 && ::access(ready.c_str(), F_OK) != 0; ++i) {
      timespec ts{0, 10'000'000};
      ::nanosleep(&ts, nullptr);
    }
    ::kill(self, signo);
    ::_exit(0);
  }
  return sender;
}

std::string ReadyPath() { return "/tmp/decodeprof-subprocess-ready-" + std::to_string(::getpid()); }

TEST(ShellStatusTest, DecodesExitCodesAndSignals) {
  EXPECT_EQ(ShellStatus(0), 0);
  EXPECT_EQ(ShellStatus(3 << 8), 3);
  EXPECT_EQ(ShellStatus(SIGKILL), 128 + SIGKILL);
  EXPECT_EQ(ShellStatus(0x7f | (SIGSTOP << 8)), 70);  // stopped: not an end
}

TEST(SubprocessTest, ReportsExitCodes) {
  for (const int code : {0, 1, 42, 255}) {
    const ExitStatus ended = RunToEnd(Shell("exit " + std::to_string(code)));
    EXPECT_EQ(ended.status, code);
    EXPECT_EQ(ended.term_signal, 0);
    EXPECT_FALSE(ended.timed_out);
  }
}

TEST(SubprocessTest, ReportsDeathBySignalAs128PlusN) {
  const ExitStatus ended = RunToEnd(Shell("kill -KILL $$"));
  EXPECT_EQ(ended.term_signal, SIGKILL);
  EXPECT_EQ(ended.status, 128 + SIGKILL);
}

TEST(SubprocessTest, ExecFailureOfAMissingBinaryIsAStatus) {
  SubprocessOptions options;
  options.argv = {"/nonexistent/decodeprof-no-such-binary", "x"};
  StatusOr<std::unique_ptr<Subprocess>> child = Subprocess::Start(options);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  EXPECT_EQ((*child)->exec_status().kind(), ErrorKind::kIo);
  EXPECT_EQ((*child)->exec_status().where(), "/nonexistent/decodeprof-no-such-binary");
  EXPECT_EQ((*child)->exec_errno(), ENOENT);
  StatusOr<ExitStatus> ended = (*child)->Wait();
  ASSERT_TRUE(ended.ok());
  EXPECT_EQ(ended->status, 127);
}

TEST(SubprocessTest, ExecFailureOfANonExecutableFileExits126) {
  const decodeprof::testing::TempDir dir("decodeprof-subprocess-");
  const std::string path = dir.Path("not-executable");
  const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ::close(fd);
  SubprocessOptions options;
  options.argv = {path};
  options.search_path = false;
  StatusOr<std::unique_ptr<Subprocess>> child = Subprocess::Start(options);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ((*child)->exec_errno(), EACCES);
  EXPECT_FALSE((*child)->exec_status().ok());
  EXPECT_EQ((*child)->Wait()->status, 126);
}

TEST(SubprocessTest, NeedsACommandOrABody) {
  EXPECT_EQ(Subprocess::Start(SubprocessOptions{}).status().kind(), ErrorKind::kUsage);
}

TEST(SubprocessTest, PassesTheEnvironmentWithAdditionsAndItsPid) {
  SubprocessOptions options = Captured("echo \"$A/$B/$C\"; echo \"$MYPID\"; echo $$");
  options.env = std::vector<std::string>{"A=1", "B=old", "PATH=/usr/bin:/bin"};
  options.set_env = {{"B", "new"}, {"C", "3"}};
  options.pid_variable = "MYPID";
  const ExitStatus ended = RunToEnd(options);
  EXPECT_EQ(ended.status, 0);
  const size_t first = ended.output.find('\n');
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(ended.output.substr(0, first), "1/new/3");
  const std::string rest = ended.output.substr(first + 1);
  const size_t second = rest.find('\n');
  ASSERT_NE(second, std::string::npos);
  EXPECT_EQ(rest.substr(0, second) + "\n", rest.substr(second + 1));  // $MYPID == $$
}

TEST(SubprocessTest, InheritsThisEnvironmentByDefault) {
  ::setenv("DECODEPROF_SUBPROCESS_TEST", "inherited", 1);
  const ExitStatus ended = RunToEnd(Captured("printf %s \"$DECODEPROF_SUBPROCESS_TEST\""));
  ::unsetenv("DECODEPROF_SUBPROCESS_TEST");
  EXPECT_EQ(ended.output, "inherited");
}

TEST(SubprocessTest, CapturesStdoutAndStderrTogetherUpToALimit) {
  SubprocessOptions options = Captured("printf out; printf err >&2");
  options.err = ChildStream::kAsStdout;
  EXPECT_EQ(RunToEnd(options).output, "outerr");
  options.err = ChildStream::kNull;
  EXPECT_EQ(RunToEnd(options).output, "out");
  options.max_output_bytes = 2;
  EXPECT_EQ(RunToEnd(options).output, "ou");
}

TEST(SubprocessTest, StdinCanBeDevNull) {
  SubprocessOptions options = Captured("cat; echo done");
  options.in = ChildStream::kNull;
  EXPECT_EQ(RunToEnd(options, 20.0).output, "done\n");
}

TEST(SubprocessTest, KillsAChildPastItsTimeLimit) {
  const ExitStatus ended = RunToEnd(Captured("exec sleep 30"), 0.2);
  EXPECT_TRUE(ended.timed_out);
  EXPECT_EQ(ended.term_signal, SIGKILL);
}

TEST(SubprocessTest, RunsABodyInAForkedChild) {
  SubprocessOptions options;
  options.set_env = {{"DECODEPROF_BODY", "7"}};
  options.body = [] { return std::atoi(std::getenv("DECODEPROF_BODY")) + 256; };
  EXPECT_EQ(RunToEnd(options).status, 7);  // & 0xff
  EXPECT_EQ(std::getenv("DECODEPROF_BODY"), nullptr);
}

TEST(SubprocessTest, ForwardsASigtermToAChildThatTrapsIt) {
  // The child traps TERM and exits 7 when it arrives; this process sends TERM to itself.
  const std::string ready = ReadyPath();
  ::unlink(ready.c_str());
  SubprocessOptions options = Captured("trap 'echo trapped; exit 7' TERM; echo ready; : >" + ready +
                                       "; while :; do sleep 0.05; done");
  options.forward.signals = {SIGTERM, SIGINT, SIGHUP};
  struct sigaction before {};
  ::sigaction(SIGTERM, nullptr, &before);
  StatusOr<std::unique_ptr<Subprocess>> child = Subprocess::Start(options);
  ASSERT_TRUE(child.ok());
  // A second forwarding child is refused while this one runs.
  EXPECT_EQ(Subprocess::Start(options).status().kind(), ErrorKind::kInternal);
  const pid_t sender = SignalSelfWhenReady(ready, SIGTERM);
  ASSERT_GE(sender, 0);
  StatusOr<ExitStatus> ended = (*child)->Wait(20.0);
  ::waitpid(sender, nullptr, 0);
  ::unlink(ready.c_str());
  ASSERT_TRUE(ended.ok());
  EXPECT_FALSE(ended->timed_out);
  EXPECT_EQ(ended->status, 7);
  EXPECT_EQ(ended->forwarded_signal, SIGTERM);
  EXPECT_EQ(ended->output, "ready\ntrapped\n");
  // The disposition this process had is back.
  struct sigaction after {};
  ::sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

TEST(SubprocessTest, ForwardsHupAsTermWhenAsked) {
  const std::string ready = ReadyPath();
  ::unlink(ready.c_str());
  SubprocessOptions options = Captured("trap 'exit 3' HUP; trap 'exit 4' TERM; : >" + ready +
                                       "; while :; do sleep 0.05; done");
  options.forward.signals = {SIGHUP};
  options.forward.hup_as_term = true;
  StatusOr<std::unique_ptr<Subprocess>> child = Subprocess::Start(options);
  ASSERT_TRUE(child.ok());
  const pid_t sender = SignalSelfWhenReady(ready, SIGHUP);
  ASSERT_GE(sender, 0);
  StatusOr<ExitStatus> ended = (*child)->Wait(20.0);
  ::waitpid(sender, nullptr, 0);
  ::unlink(ready.c_str());
  ASSERT_TRUE(ended.ok());
  EXPECT_EQ(ended->status, 4);
  EXPECT_EQ(ended->forwarded_signal, SIGHUP);
}

TEST(SubprocessTest, StopEndsTheWholeProcessGroup) {
  SubprocessOptions options = Captured("sleep 30 & echo $!; wait");
  options.own_process_group = true;
  StatusOr<std::unique_ptr<Subprocess>> child = Subprocess::Start(options);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(::getpgid((*child)->pid()), (*child)->pid());
  EXPECT_FALSE((*child)->Poll());
  EXPECT_FALSE((*child)->Stop(5.0));  // TERM was enough
  EXPECT_TRUE((*child)->Poll());
  EXPECT_EQ((*child)->exit_status().term_signal, SIGTERM);
}

TEST(SubprocessTest, LeaksNoPipeToTheChild) {
  // The capture pipe's read end and the exec-error pipe are close-on-exec: the only pipe the
  // child holds beyond what this process itself passes on (not close-on-exec) is its stdout.
  SubprocessOptions options = Captured("ls -l /proc/self/fd");
  options.err = ChildStream::kNull;
  const ExitStatus ended = RunToEnd(options);
  ASSERT_EQ(ended.status, 0);
  int pipes = 0;
  size_t at = 0;
  while (at < ended.output.size()) {
    size_t end = ended.output.find('\n', at);
    if (end == std::string::npos) end = ended.output.size();
    const std::string line = ended.output.substr(at, end - at);
    at = end + 1;
    const size_t arrow = line.find(" -> pipe:");
    if (arrow == std::string::npos) continue;
    const size_t space = line.rfind(' ', arrow - 1);
    const int fd = std::atoi(line.substr(space + 1, arrow - space - 1).c_str());
    if (fd == 1) {
      ++pipes;
      continue;
    }
    const int flags = ::fcntl(fd, F_GETFD);
    EXPECT_TRUE(flags >= 0 && (flags & FD_CLOEXEC) == 0) << "leaked: " << line;
  }
  EXPECT_EQ(pipes, 1) << ended.output;
}

}  // namespace
}  // namespace decodeprof::base
