// `decodeprof guard --gpu nvidia` end to end, with testdata/fake_nvml.c standing in for
// libnvidia-ml.so.1 (found through LD_LIBRARY_PATH, as the real one is found through the
// loader's paths). The fake's state file says which pids hold which device and how busy
// each device is; commands append to it to simulate GPU work.
#include <unistd.h>

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/guard/guard_cli_test_util.h"

namespace decodeprof::guard::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class GuardNvmlTest : public ::testing::Test {
 protected:
  std::string state() const { return fx_.Path("nvml.state"); }
  std::vector<std::string> NvmlEnv(std::vector<std::string> extra = {}) const {
    extra.push_back(std::string("LD_LIBRARY_PATH=") + DECODEPROF_FAKE_NVML_DIR);
    extra.push_back("FAKE_NVML_STATE=" + state());
    return extra;
  }
  RunResult RunNvml(const std::string& script, std::vector<std::string> options = {}) {
    std::vector<std::string> args = {"--gpu", "nvidia", "--log", fx_.log()};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {"--", "sh", "-c", script});
    return fx_.Run(args, NvmlEnv());
  }

  GuardFixture fx_;
};

TEST_F(GuardNvmlTest, TheCommandsOwnProcessIsNotContention) {
  WriteText(state(), "devices 2\n");
  const RunResult r = RunNvml(
      "echo \"proc 1 $$\" >> " + state() + "; echo \"util 1 95\" >> " + state() + "; sleep 1.5",
      {"--idle-secs", "1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("CONTENDED")));
  EXPECT_THAT(r.err, HasSubstr("idle for 1s: no NVML process and no busy device and no compiler"));
  EXPECT_THAT(ReadText(fx_.log()), HasSubstr(":sh]"));  // NVML listed the command itself
}

TEST_F(GuardNvmlTest, AForeignProcessOnAnyDeviceIsContention) {
  WriteText(state(), "devices 2\n");
  const RunResult r = RunNvml("echo 'graphics 1 1' >> " + state() + "; sleep 1.5",
                              {"--idle-secs", "0", "--max-attempts", "1"});
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_THAT(r.err, HasSubstr("CONTENDED foreign_gpu=[1:"));
  EXPECT_THAT(r.err, HasSubstr("every attempt (1) was contended"));
}

TEST_F(GuardNvmlTest, AProcessOutsideOurPidNamespaceCountsWhileItsDeviceIsBusy) {
  const pid_t gone = ReapedPid();  // stands for a pid of another container
  WriteText(state(), "proc 0 " + std::to_string(gone) + "\n");
  // Its context is idle: a holder for the idle wait, but no contention during a run.
  RunResult r = RunNvml("sleep 1.2", {"--idle-secs", "0", "--max-attempts", "1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(ReadText(fx_.log()), HasSubstr("clean gpu=[" + std::to_string(gone) + ":?]"));
  // Busy: foreign.
  r = RunNvml("echo 'util 0 80' >> " + state() + "; sleep 1.5",
              {"--idle-secs", "0", "--max-attempts", "1"});
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_THAT(r.err, HasSubstr("CONTENDED foreign_gpu=[" + std::to_string(gone) + ":?]"));
}

TEST_F(GuardNvmlTest, ABusyDeviceWithNoListedProcessIsContention) {
  WriteText(state(), "");
  const RunResult r = RunNvml("echo 'util 0 90' >> " + state() + "; sleep 2.5",
                              {"--idle-secs", "0", "--max-attempts", "1"});
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_THAT(r.err, HasSubstr("CONTENDED foreign_gpu=[nvidia0:util=90%]"));
}

TEST_F(GuardNvmlTest, ABusyDeviceKeepsTheIdleWaitWaiting) {
  WriteText(state(), "util 0 50\n");
  const RunResult r = RunNvml("true", {"--idle-secs", "1", "--max-wait", "2"});
  EXPECT_EQ(r.status, 75) << r.err;
  EXPECT_THAT(r.err, HasSubstr("gave up after 2s of waiting without 1s of idle"));
}

TEST_F(GuardNvmlTest, AFailingNvmlIsAnEnvironmentError) {
  WriteText(state(), "init_fail 9\n");
  const RunResult r = RunNvml("true", {"--idle-secs", "0"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("NVML unavailable: nvmlInit_v2 failed: Driver Not Loaded (9)"));
}

TEST_F(GuardNvmlTest, AutoPicksNvidiaWhereThereIsNoKfd) {
  if (Exists("/sys/class/kfd/kfd/proc")) GTEST_SKIP() << "this machine has an AMD KFD";
  WriteText(state(), "devices 3\n");
  const RunResult r =
      fx_.Run({"--idle-secs", "0", "--", "true"}, NvmlEnv({"DECODEPROF_GUARD_KFD_DIR="}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("gpu auto: picked nvidia (NVML, 3 devices)"));
}

TEST_F(GuardNvmlTest, NoGpuAtAllIsAClearError) {
  if (Exists("/sys/class/kfd/kfd/proc")) GTEST_SKIP() << "this machine has an AMD KFD";
  // No fake library on the path: dlopen fails (unless the machine has a real driver).
  if (Exists("/dev/nvidiactl")) GTEST_SKIP() << "this machine has an NVIDIA driver";
  const RunResult r = fx_.Run({"--idle-secs", "0", "--", "true"}, {"DECODEPROF_GUARD_KFD_DIR="});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no GPU found: /sys/class/kfd/kfd/proc not found"));
  EXPECT_THAT(r.err, HasSubstr("NVML unavailable"));
}

}  // namespace
}  // namespace decodeprof::guard::testing
