// decodeprof::guard — `decodeprof guard`: run a command only while the GPU is quiet, and
// prove it (seed spec section 1; docs/guard.md).
//
// This module owns: option parsing (options.h), the message catalogue (messages.h), the
// /proc view (proc_fs.h), GPU holder backends (gpu_source.h: AMD KFD; nvml_source.h:
// NVIDIA NVML via dlopen), sampling (sampler.h), the idle wait and the monitor
// (monitor.h), the host-wide lock (lock.h), the command's process (child.h), time and
// signals (clock.h) and the log lines (notes.h). It depends on base only, never on trace,
// io, analysis or report.
//
// Flow of a plain guard (seed spec 1.4): choose the GPU backend; take the host-wide lock
// (or note that an outer guard holds it); then per attempt: idle wait, start the command,
// monitor it, and either exit with its status (clean) or rerun it (contended). Exit codes
// are those of messages.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/guard/lock.h"

namespace decodeprof::guard {

inline constexpr char kEnvKfdDir[] = "DECODEPROF_GUARD_KFD_DIR";
inline constexpr char kEnvCompilerRe[] = "DECODEPROF_GUARD_COMPILER_RE";
inline constexpr char kEnvLock[] = "DECODEPROF_GUARD_LOCK";
inline constexpr char kEnvLockHeld[] = "DECODEPROF_GUARD_LOCK_HELD";

// Seconds a command gets between SIGTERM and SIGKILL when the guard is interrupted.
inline constexpr double kStopGraceSecs = 5.0;

// The environment variables the guard reads (the seed's ROCM_GPU_GUARD_*, renamed). An
// empty value counts as unset.
struct GuardEnvironment {
  std::optional<std::string> kfd_dir;
  std::optional<std::string> compiler_re;
  std::string lock_path = kDefaultLockPath;
  std::optional<std::string> lock_held;

  static GuardEnvironment FromProcess();
};

// Runs `decodeprof guard` with the arguments that follow the subcommand name, writing
// notes to stderr (and --log), --status and --help output to stdout. Returns the exit
// status.
int GuardMain(const std::vector<std::string>& args, const GuardEnvironment& env);

// The pid named by DECODEPROF_GUARD_LOCK_HELD when it is an outer guard of this process:
// ^[1-9][0-9]*$, not `self`, and an ancestor of `self` (seed spec 1.4). Otherwise nullopt
// (a stale value, "1", "self", a non-ancestor: the lock is taken as usual).
std::optional<int64_t> OuterGuardPid(const std::optional<std::string>& lock_held, int64_t self,
                                     ProcFs& proc);

}  // namespace decodeprof::guard
