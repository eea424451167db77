// decodeprof::guard — starting, watching and stopping the guarded command.
//
// The command runs in its own process group, so INT/TERM can stop all of it (the seed
// signalled only the command's pid, seed spec 1.8). When the guard owns the terminal's
// foreground, the command's group gets the foreground for its run (so an interactive
// command can read the terminal, and ^C reaches it) and the guard takes it back after.
// Every descriptor the guard opens is close-on-exec; the command inherits only what the
// guard itself inherited.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/base/subprocess.h"

namespace decodeprof::guard {

// What the monitor needs of a running command.
class ChildWatch {
 public:
  virtual ~ChildWatch() = default;
  virtual int64_t pid() const = 0;
  // Reaps without blocking; true once the command has exited (and stays true).
  virtual bool Exited() = 0;
};

class Child final : public ChildWatch {
 public:
  // fork + exec of argv[0] (searched in PATH) with environment `env` ("K=V" strings).
  // When exec fails the child exits 127 (not found) or 126, and exec_error() says why.
  // kInternal error when fork fails.
  static base::StatusOr<std::unique_ptr<Child>> Start(const std::vector<std::string>& argv,
                                                      const std::vector<std::string>& env);
  ~Child() override;

  int64_t pid() const override { return process_->pid(); }
  bool Exited() override;
  // After Exited(): the shell-style status (exit code, or 128 + signal number).
  int ExitCode() const;
  // After Exited(): the signal that ended it while it had the terminal's foreground (the
  // user's ^C went to it, not to the guard), else 0.
  int InterruptedAtTerminal() const;
  const std::optional<std::string>& exec_error() const { return exec_error_; }

  // SIGTERM to the process group (and the pid), then SIGKILL to the group if the command
  // is still there after `grace_secs`; reaps it. Returns true when SIGKILL was needed.
  bool Stop(double grace_secs);

 private:
  explicit Child(std::unique_ptr<base::Subprocess> process) : process_(std::move(process)) {}

  std::unique_ptr<base::Subprocess> process_;  // own process group, the terminal when free
  std::optional<std::string> exec_error_;
};

// The environment of this process as "K=V" strings, with `name` set to `value` (or left as
// it is when `value` is nullopt).
std::vector<std::string> EnvironmentWith(const std::string& name,
                                         const std::optional<std::string>& value);

}  // namespace decodeprof::guard
