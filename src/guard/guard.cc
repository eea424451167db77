#include "src/guard/guard.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "src/base/parse.h"
#include "src/guard/child.h"
#include "src/guard/clock.h"
#include "src/guard/gpu_source.h"
#include "src/guard/messages.h"
#include "src/guard/monitor.h"
#include "src/guard/notes.h"
#include "src/guard/nvml_source.h"
#include "src/guard/options.h"
#include "src/guard/sampler.h"
#include "src/guard/time_math.h"

namespace decodeprof::guard {
namespace {

std::optional<std::string> NonEmptyEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

// Usage and environment errors: `decodeprof: guard: <message>` without a timestamp, as the
// seed echoes them (they are not log notes).
int Fail(const std::string& message, bool print_usage = false) {
  WriteAll(2, kStderrPrefix + message + "\n");
  if (print_usage) WriteAll(2, kUsage);
  return kExitUsage;
}

class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

// The GPU backend of --gpu; notes what `auto` picked. Errors are the texts to print.
base::StatusOr<std::unique_ptr<GpuHolderSource>> SelectBackend(GpuChoice choice,
                                                               const GuardEnvironment& env,
                                                               Notes& notes) {
  const std::string kfd_dir = env.kfd_dir.value_or(kDefaultKfdDir);
  const bool kfd_exists = IsDirectory(kfd_dir);
  // An explicit DECODEPROF_GUARD_KFD_DIR means AMD under `auto` too (tests rely on it).
  if (choice == GpuChoice::kAmd || (choice == GpuChoice::kAuto && (env.kfd_dir || kfd_exists))) {
    if (!kfd_exists) return base::UsageError(fmt::format(kMsgKfdNotFound, kfd_dir));
    auto source = std::make_unique<KfdSource>(kfd_dir);
    if (choice == GpuChoice::kAuto) {
      notes.Note(fmt::format(kMsgGpuAutoPicked, "amd", source->Describe()));
    }
    return std::unique_ptr<GpuHolderSource>(std::move(source));
  }
  base::StatusOr<NvmlApi> api = LoadNvml();
  base::Status why = api.status();
  if (api.ok()) {
    base::StatusOr<NvmlSource> source = NvmlSource::Create(*api);
    if (source.ok()) {
      auto backend = std::make_unique<NvmlSource>(std::move(source).value());
      if (choice == GpuChoice::kAuto) {
        notes.Note(fmt::format(kMsgGpuAutoPicked, "nvidia", backend->Describe()));
      }
      return std::unique_ptr<GpuHolderSource>(std::move(backend));
    }
    why = source.status();
  }
  if (choice == GpuChoice::kNvidia) {
    return base::UsageError(fmt::format(kMsgNvmlUnavailable, why.message()));
  }
  return base::UsageError(fmt::format(kMsgNoGpuFound, kfd_dir, why.message()));
}

// Notes the caught signal, stops the command (if any) and returns 130/143.
int StopForSignal(int signo, Notes& notes, Child* child) {
  notes.Note(fmt::format(kMsgCaughtSignal, signals::Name(signo)));
  if (child != nullptr && child->Stop(kStopGraceSecs)) {
    notes.Note(fmt::format(kMsgKillAfterGrace, std::llround(kStopGraceSecs)));
  }
  return signals::ExitCode(signo);
}

// The lock part shared by plain guards and --hold. `lock` and `holder` are filled when
// this guard takes the lock; `child_env` is the command's environment.
struct LockState {
  std::optional<LockFile> lock;
  std::unique_ptr<HolderRecord> holder;
  std::vector<std::string> child_env;
};

enum class LockStep { kContinue, kExit };

LockStep TakeLock(const GuardEnvironment& env, const Options& options, const char* mode,
                  int64_t self, ProcFs& proc, Clock& clock, Notes& notes, const Budget& budget,
                  LockState* state, int* exit_code) {
  if (const std::optional<int64_t> outer = OuterGuardPid(env.lock_held, self, proc)) {
    // The outer guard holds the lock; the variable keeps naming it (not re-exported).
    notes.Note(fmt::format(kMsgOuterGuard, *outer, env.lock_path));
    state->child_env = EnvironmentWith(kEnvLockHeld, std::nullopt);
    return LockStep::kContinue;
  }
  base::StatusOr<LockFile> lock = LockFile::Open(env.lock_path);
  if (!lock.ok()) {
    *exit_code = Fail(lock.status().message());
    return LockStep::kExit;
  }
  state->lock.emplace(std::move(lock).value());
  switch (AcquireLock(*state->lock, env.lock_path, budget, clock, notes)) {
    case LockOutcome::kAcquired:
      break;
    case LockOutcome::kGaveUp:
      *exit_code = kExitTempFail;
      return LockStep::kExit;
    case LockOutcome::kInterrupted:
      *exit_code = StopForSignal(signals::Caught(), notes, nullptr);
      return LockStep::kExit;
  }
  if (options.mode == Mode::kGuard && budget.limited()) {
    // Whole seconds, as the seed's bash SECONDS: do not hold the lock through an idle wait
    // the budget cannot cover.
    const uint64_t left = SecondsLeft(budget.max_wait, WholeSeconds(budget.Waited(clock.Now())));
    if (left < options.idle_secs) {
      notes.Note(fmt::format(kMsgBudgetTooSmall, left, options.idle_secs));
      *exit_code = kExitTempFail;
      return LockStep::kExit;
    }
  }
  state->holder = std::make_unique<HolderRecord>(
      HolderPath(env.lock_path),
      HolderInfo{self, clock.Timestamp(), mode, JoinCommand(options.command)}, notes);
  state->child_env = EnvironmentWith(kEnvLockHeld, std::to_string(self));
  return LockStep::kContinue;
}

// Starts the command; notes an exec failure (the child then exits 127/126).
base::StatusOr<std::unique_ptr<Child>> StartCommand(const Options& options,
                                                    const std::vector<std::string>& env,
                                                    Notes& notes) {
  DP_ASSIGN_OR_RETURN(std::unique_ptr<Child> child, Child::Start(options.command, env));
  if (child->exec_error()) {
    notes.Note(fmt::format(kMsgCannotRun, options.command.front(), *child->exec_error()));
  }
  return child;
}

int RunGuard(const Options& options, const GuardEnvironment& env) {
  RealClock clock;
  Budget budget{options.max_wait, clock.Now(), 0};
  const std::string pattern = env.compiler_re.value_or(kDefaultCompilerRe);
  base::StatusOr<CompilerPattern> compilers = CompilerPattern::Compile(pattern);
  if (!compilers.ok()) {
    return Fail(fmt::format(kMsgBadCompilerRe, pattern, compilers.status().message()));
  }
  int log_fd = -1;
  if (options.log_path) {
    base::StatusOr<int> fd = OpenLog(*options.log_path);
    if (!fd.ok()) return Fail(fd.status().message());
    log_fd = *fd;
  }
  FdCloser log_closer(log_fd);
  Notes notes(&clock, 2, log_fd);
  base::StatusOr<std::unique_ptr<GpuHolderSource>> gpu = SelectBackend(options.gpu, env, notes);
  if (!gpu.ok()) return Fail(gpu.status().message());

  DirProcFs proc;
  const int64_t self = ::getpid();
  LockState lock_state;
  int exit_code = 0;
  if (TakeLock(env, options, "guard", self, proc, clock, notes, budget, &lock_state, &exit_code) ==
      LockStep::kExit) {
    return exit_code;
  }

  Sampler sampler(&proc, gpu->get(), std::move(compilers).value());
  const std::string command_text = JoinCommand(options.command);
  std::string last_blocked;  // what contended the last rejected attempt
  for (uint64_t attempt = 1; attempt <= options.max_attempts; ++attempt) {
    switch (IdleWait(options.idle_secs, sampler, clock, notes, budget)) {
      case IdleOutcome::kIdle:
        break;
      case IdleOutcome::kGaveUp:
        return kExitTempFail;
      case IdleOutcome::kInterrupted:
        return StopForSignal(signals::Caught(), notes, nullptr);
    }
    notes.Note(fmt::format(kMsgAttemptStart, attempt, options.max_attempts, command_text));
    const double started = clock.Now();
    base::StatusOr<std::unique_ptr<Child>> child =
        StartCommand(options, lock_state.child_env, notes);
    if (!child.ok()) {
      notes.Note(fmt::format(kMsgCannotStart, child.status().message()));
      return kExitTempFail;
    }
    const MonitorResult monitor = Monitor(**child, sampler, clock, notes);
    if (monitor.interrupted) return StopForSignal(signals::Caught(), notes, child->get());
    budget.run_secs += clock.Now() - started;
    if (const int signo = (*child)->InterruptedAtTerminal()) {
      return StopForSignal(signo, notes, child->get());
    }
    const int rc = (*child)->ExitCode();
    if (monitor.contended) {
      last_blocked = monitor.blocked_by;
      notes.Note(fmt::format(kMsgAttemptRejected, attempt, rc));
      continue;
    }
    notes.Note(fmt::format(kMsgAttemptClean, attempt, rc));
    return rc;
  }
  notes.Note(fmt::format(kMsgEveryAttemptContended, options.max_attempts) +
             (last_blocked.empty() ? std::string() : "; the last by " + last_blocked));
  return kExitTempFail;
}

int RunHold(const Options& options, const GuardEnvironment& env) {
  RealClock clock;
  const Budget budget{options.max_wait, clock.Now(), 0};
  Notes notes(&clock, 2, -1);
  DirProcFs proc;
  const int64_t self = ::getpid();
  LockState lock_state;
  int exit_code = 0;
  if (TakeLock(env, options, "hold", self, proc, clock, notes, budget, &lock_state, &exit_code) ==
      LockStep::kExit) {
    return exit_code;
  }
  notes.Note(fmt::format(kMsgHoldStart, JoinCommand(options.command)));
  base::StatusOr<std::unique_ptr<Child>> child = StartCommand(options, lock_state.child_env, notes);
  if (!child.ok()) {
    notes.Note(fmt::format(kMsgCannotStart, child.status().message()));
    return kExitTempFail;
  }
  while (!(*child)->Exited()) {
    if (clock.SleepUntil(DeadlineAfter(clock.Now(), 3600.0)) == Wake::kInterrupted) {
      return StopForSignal(signals::Caught(), notes, child->get());
    }
  }
  if (const int signo = (*child)->InterruptedAtTerminal()) {
    return StopForSignal(signo, notes, child->get());
  }
  const int rc = (*child)->ExitCode();
  notes.Note(fmt::format(kMsgHoldExit, rc));
  return rc;
}

int RunStatus(const GuardEnvironment& env) {
  DirProcFs proc;
  const LockStatus status = QueryLockStatus(env.lock_path, proc);
  if (status.exit_code == kExitUsage) return Fail(status.text);
  std::fwrite(status.text.data(), 1, status.text.size(), stdout);
  std::fflush(stdout);
  return status.exit_code;
}

}  // namespace

GuardEnvironment GuardEnvironment::FromProcess() {
  GuardEnvironment env;
  env.kfd_dir = NonEmptyEnv(kEnvKfdDir);
  env.compiler_re = NonEmptyEnv(kEnvCompilerRe);
  if (std::optional<std::string> lock = NonEmptyEnv(kEnvLock)) env.lock_path = *lock;
  env.lock_held = NonEmptyEnv(kEnvLockHeld);
  return env;
}

std::optional<int64_t> OuterGuardPid(const std::optional<std::string>& lock_held, int64_t self,
                                     ProcFs& proc) {
  if (!lock_held || lock_held->empty() || (*lock_held)[0] == '0') return std::nullopt;
  const std::optional<uint64_t> pid = base::ParseUnsigned(*lock_held);
  if (!pid || *pid > static_cast<uint64_t>(INT32_MAX)) return std::nullopt;
  const auto outer = static_cast<int64_t>(*pid);
  if (outer == self || !proc.DescendsFrom(self, outer)) return std::nullopt;
  return outer;
}

int GuardMain(const std::vector<std::string>& args, const GuardEnvironment& env) {
  const ParseResult parsed = ParseOptions(args);
  if (parsed.error) return Fail(parsed.error->message, parsed.error->print_usage);
  const Options& options = *parsed.options;
  switch (options.mode) {
    case Mode::kHelp:
      std::fputs(kUsage, stdout);
      return kExitOk;
    case Mode::kStatus:
      return RunStatus(env);
    case Mode::kHold:
    case Mode::kGuard:
      break;
  }
  if (const base::Status status = signals::Install(); !status.ok()) {
    return Fail(status.message());
  }
  return options.mode == Mode::kHold ? RunHold(options, env) : RunGuard(options, env);
}

}  // namespace decodeprof::guard
