// Test helpers for running `decodeprof profile` end to end without a GPU: a private
// temporary directory with an empty KFD process directory (the guard sees an idle AMD GPU),
// a private guard lock and a compiler pattern that never matches, and the stand-in bench and
// rocprofv3 of testdata/.
#pragma once

#include <sys/types.h>

#include <string>

#include <utility>
#include <vector>
#include "tests/support/process_util.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::profile::testing {

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

class ProfileFixture {
 public:
  ProfileFixture();
  ~ProfileFixture();

  // The fixture's directory (canonical, so it is what the profile prints).
  const std::string& dir() const { return dir_; }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string kfd() const { return Path("kfd"); }
  // testdata/<name> in the source tree.
  static std::string Testdata(const std::string& name);

  // This process's environment without DECODEPROF_GUARD_*, phase-mark and FAKE_BENCH_
  // variables, plus the fixture's guard settings, ROCPROFV3 = the stand-in, and `extra`.
  std::vector<std::string> Env(const std::vector<std::string>& extra = {}) const;

  // Starts `decodeprof profile <args>` in `cwd` (default: the fixture's directory).
  Started Start(const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env = {}, const std::string& cwd = "");
  RunResult Run(const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env = {}, const std::string& cwd = "");

  // A model directory <dir>/models/<name> with a config.json.
  std::string MakeModel(const std::string& name) const;

 private:
  decodeprof::testing::TempDir temp_;
  std::string dir_;
  int runs_ = 0;
};

}  // namespace decodeprof::profile::testing
