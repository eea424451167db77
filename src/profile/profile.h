// decodeprof::profile — the whole `decodeprof profile` job (seed spec 2.1, generalized;
// docs/profile.md).
//
// For each sampling setting, for each model (the order of successive seed invocations):
//   1. unless --no-plain: append `== <name> plain` to OUT/guard.log and run the bench under
//      the guard (`guard --idle-secs N --log OUT/guard.log -- BENCH ...`), its output into
//      <trace-dir>/<name>/plain_bench.log, published as OUT/<name>_plain_bench.log without
//      the guard's lines;
//   2. append `== <name> profiled` and run `decodeprof record` around the bench under the
//      guard, with DECODEPROF_PHASE_MARKS=1 and MLXCEL_BENCH_PHASE_MARKS=1, its output into
//      <trace-dir>/<name>/bench.log, published as OUT/<name>_bench.log without rocprofv3's
//      glog lines and the guard's lines (rocprofv3: its kernel stats are copied too);
//   3. summarize the trace into OUT; a failure only prints
//      `summarize failed for <name>; rerun it on <trace>` and the profile goes on.
// A guard exit 75, a failed bench or recording, or a signal stops the whole profile with
// that status. On every exit path OUT/guard.log and the published logs are scrubbed
// (log_filter.h) and `traces: <dir>` / `results: <dir>` are printed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/profile/naming.h"
#include "src/record/launcher.h"

namespace decodeprof::profile {

struct ProfileOptions {
  std::vector<std::string> models;  // --model: {model} of the bench, the run name, --model-dir
  std::vector<Sampling> samplings = {Sampling{}};  // at least one
  std::string tag;        // "" = DefaultTag(); only with one sampling setting
  std::string out_dir;    // "" = benchmarks/profiles/<commit8> (needs git)
  std::string trace_dir;  // "" = a new $TMPDIR/decodeprof-trace.XXXXXX
  bool plain = true;
  // Plain runs per model and setting (--plain-runs): a host-bound decode's plain ms/token
  // swings between runs, so the median of several is used (summarize's plain_runs).
  int64_t plain_runs = 3;
  uint64_t idle_secs = 90;
  std::optional<uint64_t> max_wait;      // forwarded to the guard when set
  std::optional<uint64_t> max_attempts;  // forwarded to the guard when set
  record::Backend backend = record::Backend::kCupti;
  std::string pack;   // summarize --pack ("" = the trace's default)
  std::string units;  // summarize --units ("" = the pack's default)
  bool emit_dispatches = false;
  int64_t tokens = 128;
  int64_t warmup_tokens = 20;
  int64_t prompt_tokens = 512;
  std::string bench_args = kSeedBenchArgs;  // template, see naming.h
  std::vector<std::string> bench;           // BENCH and the arguments given after it
  std::string decodeprof_exe;               // this binary: its `record` records the runs
};

// Where the job's messages go. The CLI prints them; tests collect them.
class Reporter {
 public:
  virtual ~Reporter() = default;
  // A line printed as it is on stderr (the seed's "note: ...", "traces: ...").
  virtual void Line(const std::string& text) = 0;
  // A message of decodeprof's own on stderr ("decodeprof: profile: <text>").
  virtual void Note(const std::string& text) = 0;
  // A result on stdout (summarize's one-line figures).
  virtual void Result(const std::string& text) = 0;
  // An error, as `decodeprof: profile: <where>: <what>` and its hint.
  virtual void Error(const base::Status& status) = 0;
};

// The directory of `exe` ("." when it has no slash).
std::string DirName(const std::string& path);

// Checks everything that can be checked before the first run: models and BENCH given, the
// sampling values are numbers, --tag only with one setting, the template expands, no two
// runs share a name, BENCH and the recorder (rocprofv3, or the CUPTI injection library)
// exist. Errors: kUsage / kConfig (exit 2).
base::Status ValidateOptions(const ProfileOptions& options, const record::GetEnvFn& getenv);

// The bench's command line for one run: BENCH and the words after it (known placeholders
// replaced), then the expanded --bench-args template.
base::StatusOr<std::vector<std::string>> BenchCommand(const ProfileOptions& options,
                                                      const std::string& model,
                                                      const Sampling& sampling);

// Runs the job and returns the exit status: 0; 2 for usage and configuration errors; the
// guard's 75 or the bench's (or recorder's) own status when a run failed; 128 + N after
// signal N; 66/70 when a file could not be written or a process not started.
int RunProfile(const ProfileOptions& options, Reporter& reporter);

}  // namespace decodeprof::profile
