// Test helpers for running the real `decodeprof guard` binary end to end: a private
// temporary directory with a fake KFD process directory, a private lock, a log path and a
// compiler pattern that never matches (seed spec section 3, the GuardTests fixture).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include <utility>
#include <vector>
#include "tests/support/process_util.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::guard::testing {

// Process and file helpers shared with the other CLI tests.
using decodeprof::testing::CliPath;
using decodeprof::testing::Count;
using decodeprof::testing::Exists;
using decodeprof::testing::Now;
using decodeprof::testing::ProcessGone;
using decodeprof::testing::ReadText;
using decodeprof::testing::RunResult;
using decodeprof::testing::SleepSecs;
using decodeprof::testing::Spawn;
using decodeprof::testing::Started;
using decodeprof::testing::StartProcess;
using decodeprof::testing::WaitFor;
using decodeprof::testing::WriteText;

class GuardFixture {
 public:
  GuardFixture();
  ~GuardFixture();

  const std::string& dir() const { return dir_; }
  std::string kfd() const { return dir_ + "/kfd"; }
  std::string lock() const { return dir_ + "/guard.lock"; }
  std::string log() const { return dir_ + "/guard.log"; }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // Environment of every run: this process's, minus DECODEPROF_GUARD_LOCK_HELD, plus the
  // fixture's KFD dir, lock and never-matching compiler pattern, plus `extra` ("K=V").
  std::vector<std::string> Env(const std::vector<std::string>& extra = {}) const;

  // Starts `decodeprof guard <args>` (stdin from `stdin_path`, default /dev/null).
  Started Start(const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env = {},
                const std::string& stdin_path = "/dev/null");
  RunResult Run(const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env = {},
                const std::string& stdin_path = "/dev/null", double timeout_secs = 60);

  // Registers pid as a GPU holder (creates <kfd>/<pid>).
  void AddHolder(const std::string& pid) const;

  // Takes the fixture's lock in this process (close-on-exec descriptor) until ReleaseLock.
  void HoldLock();
  void ReleaseLock();

 private:
  decodeprof::testing::TempDir temp_;
  std::string dir_;
  int lock_fd_ = -1;
  int runs_ = 0;
};

// Helpers.
// Starts a plain helper process (e.g. {"sleep", "30"}); kill it with KillAndReap.
pid_t SpawnHelper(const std::vector<std::string>& argv);
void KillAndReap(pid_t pid);
// The pid of a child that has already exited and been reaped.
pid_t ReapedPid();
// Occurrences of `needle` in `text`.
// Direct children of `pid` right now.
std::vector<pid_t> ChildrenOf(pid_t pid);

}  // namespace decodeprof::guard::testing
