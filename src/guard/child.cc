#include "src/guard/child.h"

#include <signal.h>

#include "src/guard/clock.h"

namespace decodeprof::guard {

base::StatusOr<std::unique_ptr<Child>> Child::Start(const std::vector<std::string>& argv,
                                                    const std::vector<std::string>& env) {
  if (argv.empty()) return base::InternalError("", "empty command");
  base::SubprocessOptions options;
  options.argv = argv;
  options.env = env;
  options.own_process_group = true;
  options.take_terminal = true;
  options.in_child = &signals::RestoreForExec;
  // The child exits 127 (not found) or 126 when exec fails (kExitNotFound, kExitCannotExec).
  DP_ASSIGN_OR_RETURN(std::unique_ptr<base::Subprocess> process, base::Subprocess::Start(options));
  std::unique_ptr<Child> child(new Child(std::move(process)));
  if (!child->process_->exec_status().ok()) {
    child->exec_error_ = child->process_->exec_status().message();
  }
  return child;
}

Child::~Child() = default;  // base::Subprocess stops a command still running (2 s grace)

bool Child::Exited() { return process_->Poll(); }

int Child::ExitCode() const { return process_->exit_status().status; }

int Child::InterruptedAtTerminal() const {
  return process_->had_terminal() && process_->exit_status().term_signal == SIGINT ? SIGINT : 0;
}

bool Child::Stop(double grace_secs) { return process_->Stop(grace_secs); }

std::vector<std::string> EnvironmentWith(const std::string& name,
                                         const std::optional<std::string>& value) {
  if (!value) return base::CurrentEnvironment();
  return base::EnvironmentWithSet(base::CurrentEnvironment(), {{name, *value}});
}

}  // namespace decodeprof::guard
