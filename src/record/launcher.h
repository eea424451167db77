// decodeprof::record — `decodeprof record [-o FILE] [--backend cupti|rocprofv3] -- CMD...`.
//
// Owns: the recorded command's environment, fork/exec, signal forwarding and exit status,
// and the validation of the file afterwards. Depends on io/native (to read the file back),
// io (the rocprofv3 importer) and native_format; never on analysis or report. The CUPTI
// injection library itself is src/record/cupti/ (its own shared object).
//
// The environment contract with the injection library (docs/recording.md):
//   CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH  the injection library
//   DECODEPROF_RECORD_OUTPUT      absolute path of the native file
//   DECODEPROF_RECORD_ROOT_PID    the pid of CMD itself (children differ from it)
//   DECODEPROF_RECORD_FOLLOW_FORK 1 with --follow-fork (children exec'd by CMD record to
//                                 FILE.<pid>.sqlite), else 0
//   DECODEPROF_CUPTI_LIB          a libcupti path found here, when one was
//   DECODEPROF_RECORD_ONLY_RANGE  with --only-range NAME: NAME (only_range.h)
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/trace/diagnostics_list.h"

namespace decodeprof::record {

using GetEnvFn = std::function<const char*(const char*)>;

enum class Backend { kCupti, kRocprofv3 };

struct RecordOptions {
  std::string output = "decodeprof.sqlite";
  Backend backend = Backend::kCupti;
  bool follow_fork = false;
  // --only-range NAME: record CUDA activity only while an NVTX range NAME is open ("" = all
  // the time). Checked by RecordWithCupti (OnlyRangeNameProblem); cupti backend only.
  std::string only_range;
  std::vector<std::string> command;  // CMD and its arguments; not empty
  // --sample-steps N: kernel-level records in one step in N (1 = every step), the steps
  // being the NVTX ranges named step_range (--step-range). Cupti backend only; not with
  // only_range. Reach the library as DECODEPROF_RECORD_SAMPLE_STEPS / _STEP_RANGE.
  int64_t sample_steps = 1;
  std::string step_range = "decodeprof:step";
  // --sample-time ON/PERIOD (milliseconds; "" = off): kernel-level records ON ms of every
  // PERIOD ms, for programs without step ranges (DECODEPROF_RECORD_SAMPLE_TIME).
  std::string sample_time;
  // --measure-bandwidth: before CMD starts, measure the GPU's memory bandwidth (`decodeprof
  // bandwidth`, about a second of the GPU) and store it in the trace's meta
  // (peak_bandwidth_gbps, _method, _device: src/device/peak_bandwidth.h). Done by the CLI
  // (src/cli/recording.cc); a failed measurement is a warning, never a failed recording.
  bool measure_bandwidth = false;
};

// libdecodeprof_cupti.so: $DECODEPROF_CUPTI_INJECTION if set (it must exist), else the first
// that exists of <exe dir>/libdecodeprof_cupti.so, <exe dir>/../lib/libdecodeprof_cupti.so
// and the build tree's <exe dir>/../record/cupti/libdecodeprof_cupti.so.
// Error (kConfig): none found, with the paths tried.
base::StatusOr<std::string> FindInjectionLibrary(const std::string& exe_dir,
                                                 const GetEnvFn& getenv);

// A libcupti to name in DECODEPROF_CUPTI_LIB: $DECODEPROF_CUPTI_LIB if set, else the first
// that exists of libcupti.so.13 / libcupti.so under $CUDA_HOME, $CUDA_PATH and /usr/local/cuda
// (lib64, lib, extras/CUPTI/lib64). "" when none is found: the library then tries the
// sonames through the loader's search path.
std::string FindCuptiLibrary(const GetEnvFn& getenv);

// The environment of the recorded command: `base` (NAME=VALUE entries) with the recorder's
// variables set (replacing earlier values) and DECODEPROF_RECORD_ROOT_PID left out (it is
// filled in by RunCommand in the child). DECODEPROF_RECORD_ONLY_RANGE is set to
// `only_range` unless that is "" (then a value in `base` is kept, like the other settings).
// `warnings` receives an injection_variable_replaced message when an injection variable of
// another tool was replaced.
std::vector<std::string> RecordEnvironment(const std::vector<std::string>& base,
                                           const std::string& output_abs,
                                           const std::string& injection,
                                           const std::string& cupti_lib, bool follow_fork,
                                           const std::string& only_range,
                                           std::vector<trace::DiagMessage>* warnings);

// This process's environment as NAME=VALUE entries.
std::vector<std::string> CurrentEnvironment();

struct CommandResult {
  int status = 0;       // shell convention: the exit code, or 128 + the signal that killed it
  int term_signal = 0;  // the signal that killed it, 0 if it exited
  // Why exec failed ("not found", ...), "" when the command ran; status is then 127.
  std::string exec_error;
};

// Runs `argv` (argv[0] searched in PATH of `env`) with environment `env`, waits for it and
// returns how it ended. While it runs, SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to this
// process with kill() are forwarded to the command; those a terminal sends to the whole
// process group reach the command directly and are not sent twice. When `root_pid_env` is
// not empty, the child adds `<root_pid_env>=<its pid>` to its environment before exec.
// An exec failure (not found, not executable) is a result: status 127 and exec_error.
// Errors (kIo, where = argv[0]): pipe or fork failed.
base::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         const std::vector<std::string>& env,
                                         const std::string& root_pid_env);

// What a native file holds, for the one-line summary.
struct TraceSummary {
  int64_t kernels = 0;
  int64_t memory_ops = 0;
  int64_t api_calls = 0;
  int64_t ranges = 0;
  int64_t marks = 0;
  int64_t dropped_records = 0;
  bool complete = false;
  std::string recording_status;  // meta recording_status ("" if absent)
  // Gated recording (--only-range): the range name (meta only_range, "" = not gated), the
  // periods recorded and the switches CUPTI refused (counters only_range_*).
  std::string only_range;
  int64_t only_range_periods = 0;
  int64_t only_range_switch_failures = 0;
  // Sampled recording (meta sample_steps, counter sample_steps_seen): N, and the steps seen.
  int64_t sample_steps = 0;
  int64_t sample_steps_seen = 0;
  std::string sample_range;  // meta sample_range: the step range's name
  // Timed sampling (meta sample_time "ON/PERIOD", counter sample_periods), and whether CUPTI
  // was detached between the periods (meta cupti_detaches: how often).
  std::string sample_time;
  int64_t sample_periods = 0;
  int64_t cupti_detaches = -1;  // -1: not detaching
};

// Reads `path` back with the native importer. Errors: those of io::ImportNative.
base::StatusOr<TraceSummary> SummarizeTrace(const std::string& path);

// "<path>: 1234 kernels, 12 memory operations, 1240 API calls, 9 NVTX ranges, 0 marks,
//  0 dropped records" (+ "; only inside NVTX range 'NAME': 4 periods" when gated, + ";
//  incomplete: ..." when the recorder did not close the file).
std::string FormatSummary(const std::string& path, const TraceSummary& summary);

// Decides what a finished recording means: OK when the trace is usable; kIo when no file
// was written; kData when the recorder wrote why it could not record CUDA activity and no
// kernel was recorded (the command ran untraced).
base::Status CheckRecording(const std::string& path, const base::StatusOr<TraceSummary>& summary);

// Where -o may write (issue 11, "Output paths"), checked before CMD starts: not "-" (the
// trace is a SQLite file, and stdout is CMD's) and base::CheckOutputTarget with CMD's words as
// the inputs, so a symlink, directory, device, FIFO or socket is refused (kIo), and so is
// the program or a file it is given (kUsage). The recorder writes the file in place (SQLite),
// so this check, not a rename, is what keeps -o from replacing them.
base::Status CheckRecordOutput(const RecordOptions& options);

// The whole cupti backend: finds the libraries, checks -o (CheckRecordOutput), removes a
// previous output, runs the command and returns its result. `exe_dir` is the directory of the
// decodeprof binary. Errors: those of FindInjectionLibrary and CheckRecordOutput; kUsage for
// a bad -o or --only-range; kIo from RunCommand.
base::StatusOr<CommandResult> RecordWithCupti(const RecordOptions& options,
                                              const std::string& exe_dir, const GetEnvFn& getenv,
                                              std::vector<trace::DiagMessage>* warnings);

}  // namespace decodeprof::record
