// decodeprof::guard — every message and exit code of `decodeprof guard`, in one place
// (style.md 7.9: never written inline).
//
// The texts are the seed guard's catalogue (seed spec 1.10), word for word: published
// guard.log files are evidence and tests grep for these substrings. Format strings use
// fmt syntax; the arguments are named in the comment of each. Messages added by decodeprof
// (GPU backend choice, NVML, exec failures, hold mode, --status output) come last. The
// `{}` reasons inside them are the system's words: strerror texts, dlerror, NVML error
// names, the Status messages of the backends.
//
// Line format: every note is `<timestamp> <message>` with the timestamp of
// strftime("%Y-%m-%dT%H:%M:%S%z"); on stderr the line is prefixed with kStderrPrefix.
#pragma once

namespace decodeprof::guard {

// ---- exit codes (seed spec 1.8) ------------------------------------------------------------
inline constexpr int kExitOk = 0;            // --status: lock free
inline constexpr int kExitHeld = 1;          // --status: lock held
inline constexpr int kExitUsage = 2;         // usage, configuration or environment error
inline constexpr int kExitCannotExec = 126;  // COMMAND found but not executable
inline constexpr int kExitNotFound = 127;    // COMMAND not found
inline constexpr int kExitTempFail = 75;     // EX_TEMPFAIL: never quiet / every attempt contended
inline constexpr int kExitSigInt = 130;      // stopped by SIGINT
inline constexpr int kExitSigTerm = 143;     // stopped by SIGTERM

// ---- line prefixes and formats ---------------------------------------------------------------
inline constexpr char kStderrPrefix[] = "decodeprof: guard: ";
inline constexpr char kTimestampFormat[] = "%Y-%m-%dT%H:%M:%S%z";

// ---- option validation (seed spec 1.2) --------------------------------------------------------
// {0}: the flag.
inline constexpr char kMsgNeedsValue[] = "{} needs a value";
// {0}: the flag, {1}: what it is ("a whole number of seconds"), {2}: the least value (with
// its meaning), {3}: the largest (with its meaning), {4}: the value given. The ranges are
// options.h's kIdleSecsRange, kMaxWaitRange and kMaxAttemptsRange.
inline constexpr char kMsgOutOfRange[] = "{}: must be {} from {} to {}, got '{}'";
// {0}: the flag.
inline constexpr char kMsgEmptyPath[] = "{}: must be a file path, got ''";
// {0}: the token.
inline constexpr char kMsgUnknownOption[] = "unknown option '{}'";
inline constexpr char kMsgNoCommand[] = "no command given";
inline constexpr char kMsgHoldTakesOnlyMaxWait[] =
    "--hold takes only --max-wait (no --idle-secs, --max-attempts, --log or --gpu)";
inline constexpr char kMsgStatusTakesNothing[] = "--status takes no other option and no command";
// {0}: the KFD process directory.
inline constexpr char kMsgKfdNotFound[] = "{} not found (no ROCm KFD driver?)";

// ---- lock (seed spec 1.5) ----------------------------------------------------------------------
// {0}: lock path.
inline constexpr char kMsgLockNotRegular[] = "guard lock {} is not a regular file";
// {0}: lock path, {1}: the system's reason.
inline constexpr char kMsgCannotOpenLock[] = "cannot open guard lock {}: {}";
inline constexpr char kMsgWaitingForLock[] = "waiting for guard lock {}";
// {0}: lock path, {1}: whole seconds waited.
inline constexpr char kMsgAcquiredLock[] = "acquired guard lock {} after {}s";
inline constexpr char kMsgGaveUpLock[] = "gave up waiting for guard lock {} after {}s";
// {0}: whole seconds of budget left, {1}: --idle-secs.
inline constexpr char kMsgBudgetTooSmall[] =
    "gave up: {}s of --max-wait left after the lock wait, shorter than {}s of idle";
// {0}: outer guard pid, {1}: lock path.
inline constexpr char kMsgOuterGuard[] = "lock held by outer guard {}: not taking {}";

// ---- idle wait (seed spec 1.6) ------------------------------------------------------------------
// {0}: --idle-secs.
inline constexpr char kMsgWaitingForIdle[] = "waiting for {}s of idle GPU and no compiler";
// {0}: seconds of the broken streak, {1}: holders, {2}: compilers.
inline constexpr char kMsgIdleStreakReset[] =
    "idle streak reset after {}s: gpu=[{}] compilers=[{}]";
// {0}: --max-wait, {1}: --idle-secs.
// (followed by "; last blocked by " + kMsgBlockedBy when a sample was not quiet)
inline constexpr char kMsgGaveUpIdle[] = "gave up after {}s of waiting without {}s of idle";
// {0}: GPU holders, {1}: compilers — what a sample that was not quiet saw.
inline constexpr char kMsgBlockedBy[] = "gpu=[{}] compilers=[{}]";
// {0}: seconds idle, {1}: what "no GPU holder" means for the backend (kKfdEmpty, kNvmlEmpty).
inline constexpr char kMsgIdleFor[] = "idle for {}s: {} and no compiler in every 1 Hz sample";
inline constexpr char kKfdEmpty[] = "kfd proc empty";
inline constexpr char kNvmlEmpty[] = "no NVML process and no busy device";

// ---- attempts and monitor (seed spec 1.4, 1.7)
// --------------------------------------------------- {0}: attempt, {1}: --max-attempts, {2}:
// command words joined by single spaces.
inline constexpr char kMsgAttemptStart[] = "attempt {}/{}: start: {}";
// {0}: sample number, {1}: raw holders (log file only).
inline constexpr char kMsgSampleClean[] = "sample {}: clean gpu=[{}]";
// {0}: sample number, {1}: foreign holders, {2}: compilers.
inline constexpr char kMsgSampleContended[] =
    "sample {}: CONTENDED foreign_gpu=[{}] compilers=[{}]";
// {0}: number of samples.
inline constexpr char kMsgMonitorSamples[] = "monitor: {} samples";
// {0}: attempt, {1}: the command's exit status.
inline constexpr char kMsgAttemptRejected[] =
    "attempt {}: REJECTED (contended), exit {}; rerunning";
inline constexpr char kMsgAttemptClean[] = "attempt {}: CLEAN, exit {}";
// {0}: --max-attempts.
// (followed by "; the last by " + kMsgBlockedBy)
inline constexpr char kMsgEveryAttemptContended[] = "every attempt ({}) was contended";

// ---- signals (seed spec 1.8) ----
// {0}: INT or TERM.
inline constexpr char kMsgCaughtSignal[] = "caught SIG{}: stopping command and monitor";

// ---- added by decodeprof ----
// {0}: the backend (amd, nvidia), {1}: its description.
inline constexpr char kMsgGpuAutoPicked[] = "gpu auto: picked {} ({})";
// {0}: KFD directory, {1}: why NVML is unavailable.
inline constexpr char kMsgNoGpuFound[] =
    "no GPU found: {} not found (no ROCm KFD driver) and NVML unavailable ({})";
// {0}: why.
inline constexpr char kMsgNvmlUnavailable[] = "NVML unavailable: {}";
// {0}: the value given.
inline constexpr char kMsgBadGpu[] = "--gpu: must be one of auto, amd, nvidia, got '{}'";
// {0}: the pattern, {1}: the regex library's error.
inline constexpr char kMsgBadCompilerRe[] =
    "DECODEPROF_GUARD_COMPILER_RE '{}' is not a valid regular expression: {}";
// {0}: log path, {1}: reason.
inline constexpr char kMsgCannotOpenLog[] = "cannot open log {}: {}";
// {0}: the program, {1}: reason.
inline constexpr char kMsgCannotRun[] = "cannot run {}: {}";
// {0}: seconds waited after SIGTERM.
inline constexpr char kMsgKillAfterGrace[] =
    "command still running {}s after SIGTERM: sending SIGKILL to its process group";
// {0}: reason (fork or pipe failure).
inline constexpr char kMsgCannotStart[] = "cannot start the command: {}";
// {0}: command words joined by single spaces.
inline constexpr char kMsgHoldStart[] = "hold: start: {}";
// {0}: the command's exit status.
inline constexpr char kMsgHoldExit[] = "hold: exit {}";
// {0}: path, {1}: reason. The lock is held regardless; only the record is missing.
inline constexpr char kMsgCannotWriteHolder[] = "cannot write holder file {}: {}";

// ---- --status output (stdout) -------------------------------------------------------------------
inline constexpr char kStatusFree[] = "free";
inline constexpr char kStatusHeld[] = "held";
inline constexpr char kStatusNoHolderFile[] = "no holder file";
// {0}: pid named by the holder file.
inline constexpr char kStatusStale[] = "stale: holder pid {} no longer exists";

// ---- usage (printed for -h/--help on stdout, and after usage errors on stderr)
// ---------------------
inline constexpr char kUsage[] =
    "usage: decodeprof guard [--idle-secs N] [--max-attempts N] [--max-wait SECS] [--log FILE]\n"
    "                        [--gpu auto|amd|nvidia] -- COMMAND [ARGS...]\n"
    "       decodeprof guard --hold [--max-wait SECS] -- COMMAND [ARGS...]\n"
    "       decodeprof guard --status\n"
    "\n"
    "Runs COMMAND only while the GPU has no other user and no compiler runs on the host,\n"
    "samples the GPU once a second while it runs, reruns contended attempts, and logs proof.\n"
    "\n"
    "  --idle-secs N     wall seconds of idle GPU required before each attempt, 0 to 86400\n"
    "                    (a day); 0 = no idle wait (default 90)\n"
    "  --max-attempts N  attempts before giving up with exit 75, 1 to 1000 (default 5)\n"
    "  --max-wait SECS   one budget for the lock wait and every idle wait, excluding the\n"
    "                    command's own run time, 0 to 604800 (a week); 0 = no limit\n"
    "                    (default 0)\n"
    "  --log FILE        append every note and every clean sample to FILE (not empty)\n"
    "  --gpu WHICH       GPU backend: amd (KFD), nvidia (NVML) or auto (default)\n"
    "  --hold            take only the host-wide lock and run COMMAND (no idle wait, no monitor)\n"
    "  --status          print whether the host-wide lock is free (exit 0) or held (exit 1)\n"
    "\n"
    "Exit status: COMMAND's own (first clean attempt), 2 usage or environment error,\n"
    "75 never quiet or every attempt contended, 130/143 after SIGINT/SIGTERM.\n"
    "\n"
    "Environment: DECODEPROF_GUARD_KFD_DIR (default /sys/class/kfd/kfd/proc),\n"
    "DECODEPROF_GUARD_COMPILER_RE, DECODEPROF_GUARD_LOCK (default\n"
    "/tmp/decodeprof-gpu-guard.lock), DECODEPROF_GUARD_LOCK_HELD (set for COMMAND).\n";

}  // namespace decodeprof::guard
