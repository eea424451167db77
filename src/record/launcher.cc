#include "src/record/launcher.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <string_view>

#include "src/base/file_io.h"
#include "src/base/parse.h"
#include "src/base/subprocess.h"
#include "src/io/native/native_importer.h"
#include "src/record/only_range.h"
#include "src/trace/dispatch_sink.h"

namespace decodeprof::record {
namespace {

bool IsFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string_view NameOf(std::string_view entry) { return entry.substr(0, entry.find('=')); }

}  // namespace

base::StatusOr<std::string> FindInjectionLibrary(const std::string& exe_dir,
                                                 const GetEnvFn& getenv) {
  if (const char* explicit_path = getenv("DECODEPROF_CUPTI_INJECTION")) {
    if (!IsFile(explicit_path)) {
      return base::ConfigError("DECODEPROF_CUPTI_INJECTION",
                               std::string("no such file: ") + explicit_path);
    }
    return std::string(explicit_path);
  }
  const std::string candidates[] = {
      exe_dir + "/libdecodeprof_cupti.so",
      exe_dir + "/../lib/libdecodeprof_cupti.so",
      exe_dir + "/../record/cupti/libdecodeprof_cupti.so",
  };
  for (const std::string& candidate : candidates) {
    if (IsFile(candidate)) return candidate;
  }
  std::string tried;
  for (const std::string& candidate : candidates) tried += (tried.empty() ? "" : ", ") + candidate;
  return base::ConfigError(
      "", "cannot find the CUPTI recorder libdecodeprof_cupti.so (tried " + tried + ")",
      "build decodeprof with CUPTI (DECODEPROF_WITH_CUPTI) or set "
      "DECODEPROF_CUPTI_INJECTION");
}

std::string FindCuptiLibrary(const GetEnvFn& getenv) {
  if (const char* explicit_path = getenv("DECODEPROF_CUPTI_LIB")) return explicit_path;
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* root = getenv(var); root != nullptr && *root != '\0') roots.push_back(root);
  }
  roots.push_back("/usr/local/cuda");
  for (const std::string& root : roots) {
    for (const char* dir :
         {"/lib64/", "/lib/", "/extras/CUPTI/lib64/", "/targets/x86_64-linux/lib/"}) {
      for (const char* name : {"libcupti.so.13", "libcupti.so"}) {
        std::string path = root + dir + name;
        if (IsFile(path)) return path;
      }
    }
  }
  return {};
}

std::vector<std::string> RecordEnvironment(const std::vector<std::string>& base,
                                           const std::string& output_abs,
                                           const std::string& injection,
                                           const std::string& cupti_lib, bool follow_fork,
                                           const std::string& only_range,
                                           std::vector<trace::DiagMessage>* warnings) {
  std::vector<std::pair<std::string, std::string>> ours = {
      {"CUDA_INJECTION64_PATH", injection},
      {"NVTX_INJECTION64_PATH", injection},
      {"DECODEPROF_RECORD_OUTPUT", output_abs},
      {"DECODEPROF_RECORD_FOLLOW_FORK", follow_fork ? "1" : "0"},
  };
  if (!cupti_lib.empty()) ours.emplace_back("DECODEPROF_CUPTI_LIB", cupti_lib);
  if (!only_range.empty()) ours.emplace_back(kOnlyRangeVariable, only_range);
  std::vector<std::string> env;
  for (const std::string& entry : base) {
    const std::string_view name = NameOf(entry);
    bool replaced = name == "DECODEPROF_RECORD_ROOT_PID";
    for (const auto& [our_name, value] : ours) {
      if (name != our_name) continue;
      replaced = true;
      const std::string_view old_value = std::string_view(entry).substr(name.size() + 1);
      if (warnings != nullptr &&
          (name == "CUDA_INJECTION64_PATH" || name == "NVTX_INJECTION64_PATH") &&
          old_value != value) {
        warnings->push_back(trace::Message<trace::Msg::kInjectionReplaced>(name, old_value));
      }
    }
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [name, value] : ours) env.push_back(name + "=" + value);
  return env;
}

std::vector<std::string> CurrentEnvironment() { return base::CurrentEnvironment(); }

base::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         const std::vector<std::string>& env,
                                         const std::string& root_pid_env) {
  if (argv.empty()) return base::UsageError("no command to run");
  base::SubprocessOptions options;
  options.argv = argv;
  options.env = env;
  options.pid_variable = root_pid_env;
  options.forward.signals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  options.forward.only_sent_by_kill = true;
  base::StatusOr<std::unique_ptr<base::Subprocess>> child = base::Subprocess::Start(options);
  if (!child.ok()) {
    // A pipe or fork that failed is an I/O error of the command here, as it always was.
    return base::IoError(argv[0], child.status().message());
  }
  const base::StatusOr<base::ExitStatus> ended = (*child)->Wait();
  if (!(*child)->exec_status().ok()) {
    CommandResult failed;
    failed.status = 127;
    failed.exec_error = (*child)->exec_status().message();
    return failed;
  }
  if (!ended.ok()) return base::InternalError(argv[0], ended.status().message());
  CommandResult result;
  result.status = ended->status;
  result.term_signal = ended->term_signal;
  return result;
}

namespace {

class CountingSink : public trace::DispatchSink {
 public:
  void Add(const trace::Dispatch&) override {}
};

}  // namespace

base::StatusOr<TraceSummary> SummarizeTrace(const std::string& path) {
  trace::StringPool names;
  CountingSink sink;
  DP_ASSIGN_OR_RETURN(io::NativeImport imported, io::ImportNative(path, names, sink));
  TraceSummary summary;
  summary.kernels = imported.kernels;
  summary.memory_ops = imported.memory_ops;
  summary.api_calls = imported.api_calls;
  summary.ranges = static_cast<int64_t>(imported.ranges.size());
  summary.marks = static_cast<int64_t>(imported.marks.size());
  summary.dropped_records = imported.dropped_records;
  summary.complete = imported.complete;
  summary.recording_status = imported.recording_status;
  if (auto it = imported.meta.find(std::string(kMetaOnlyRange)); it != imported.meta.end()) {
    summary.only_range = it->second;
  }
  if (auto it = imported.counters.find(std::string(kCounterOnlyRangePeriods));
      it != imported.counters.end()) {
    summary.only_range_periods = it->second;
  }
  if (auto it = imported.counters.find(std::string(kCounterOnlyRangeSwitchFailures));
      it != imported.counters.end()) {
    summary.only_range_switch_failures = it->second;
  }
  if (auto it = imported.meta.find(std::string(kMetaSampleSteps)); it != imported.meta.end()) {
    summary.sample_steps = base::ParseInt64(it->second).value_or(0);
  }
  if (auto it = imported.meta.find(std::string(kMetaSampleRange)); it != imported.meta.end()) {
    summary.sample_range = it->second;
  }
  if (auto it = imported.counters.find(std::string(kCounterSampleSteps));
      it != imported.counters.end()) {
    summary.sample_steps_seen = it->second;
  }
  if (auto it = imported.meta.find(std::string(kMetaSampleTime)); it != imported.meta.end()) {
    summary.sample_time = it->second;
  }
  if (auto it = imported.counters.find(std::string(kCounterSamplePeriods));
      it != imported.counters.end()) {
    summary.sample_periods = it->second;
  }
  if (auto it = imported.meta.find(std::string(kMetaCuptiDetaches)); it != imported.meta.end()) {
    summary.cupti_detaches = base::ParseInt64(it->second).value_or(-1);
  }
  return summary;
}

std::string FormatSummary(const std::string& path, const TraceSummary& s) {
  std::string line = path + ": " + std::to_string(s.kernels) + " kernels, " +
                     std::to_string(s.memory_ops) + " memory operations, " +
                     std::to_string(s.api_calls) + " API calls, " + std::to_string(s.ranges) +
                     " NVTX ranges, " + std::to_string(s.marks) + " marks, " +
                     std::to_string(s.dropped_records) + " dropped records";
  if (s.sample_steps > 1) {
    line += "; sampled one step in " + std::to_string(s.sample_steps) + ": " +
            std::to_string(s.only_range_periods) + " of " + std::to_string(s.sample_steps_seen) +
            " steps";
  } else if (!s.sample_time.empty()) {
    line += "; sampled " + s.sample_time + " ms: " + std::to_string(s.sample_periods) +
            (s.sample_periods == 1 ? " period" : " periods");
  } else if (!s.only_range.empty()) {
    line += "; only inside NVTX range '" + s.only_range +
            "': " + std::to_string(s.only_range_periods) +
            (s.only_range_periods == 1 ? " period" : " periods");
  }
  if (s.cupti_detaches >= 0) {
    line += ", CUPTI detached " + std::to_string(s.cupti_detaches) +
            (s.cupti_detaches == 1 ? " time" : " times") + " between them";
  }
  if (!s.complete) {
    line +=
        "; incomplete: the recorder did not close the file (killed?), it holds the records "
        "up to its last commit";
  }
  return line;
}

base::Status CheckRecording(const std::string& path, const base::StatusOr<TraceSummary>& summary) {
  if (!summary.ok()) {
    if (summary.status().kind() == base::ErrorKind::kIo && ::access(path.c_str(), F_OK) != 0) {
      return base::IoError(path, "no trace was written",
                           "the command never initialized CUDA or NVTX, or the recorder could "
                           "not start (see its messages above)");
    }
    return summary.status();
  }
  const std::string& status = summary->recording_status;
  // "ok ..." (e.g. DECODEPROF_RECORD_DISCARD) and "no CUDA context ..." are not failures.
  if (summary->kernels == 0 && !status.empty() && status.rfind("ok", 0) != 0 &&
      status.rfind("no CUDA context", 0) != 0) {
    return base::DataError(path, "CUDA activity was not recorded: " + status,
                           "the command ran untraced by CUPTI");
  }
  return base::OkStatus();
}

base::Status CheckRecordOutput(const RecordOptions& options) {
  if (options.output == base::kStdout) {
    return base::UsageError("-o - : the trace is a SQLite file and standard output is CMD's",
                            "name a file, e.g. -o decode.sqlite");
  }
  return base::CheckOutputTarget(options.output, options.command);
}

base::StatusOr<CommandResult> RecordWithCupti(const RecordOptions& options,
                                              const std::string& exe_dir, const GetEnvFn& getenv,
                                              std::vector<trace::DiagMessage>* warnings) {
  if (!options.only_range.empty()) {
    if (const std::string problem = OnlyRangeNameProblem(options.only_range); !problem.empty()) {
      return base::UsageError("--only-range: " + problem);
    }
  }
  if (options.sample_steps < 1 || options.sample_steps > 1000000) {
    return base::UsageError("--sample-steps: expected 1 to 1000000, got " +
                            std::to_string(options.sample_steps));
  }
  if (options.sample_steps > 1) {
    if (!options.only_range.empty()) {
      return base::UsageError("--sample-steps cannot be combined with --only-range");
    }
    if (const std::string problem = OnlyRangeNameProblem(options.step_range); !problem.empty()) {
      return base::UsageError("--step-range: " + problem);
    }
  }
  if (!options.sample_time.empty()) {
    if (!ParseSampleTime(options.sample_time)) {
      return base::UsageError(
          "--sample-time: expected ON/PERIOD in milliseconds with 1 <= ON < "
          "PERIOD <= 3600000, got '" +
              options.sample_time + "'",
          "e.g. --sample-time 50/500");
    }
    if (options.sample_steps > 1 || !options.only_range.empty()) {
      return base::UsageError(
          "--sample-time cannot be combined with --sample-steps or --only-range");
    }
  }
  DP_ASSIGN_OR_RETURN(const std::string injection, FindInjectionLibrary(exe_dir, getenv));
  const std::string cupti_lib = FindCuptiLibrary(getenv);
  char resolved[PATH_MAX];
  std::string output = options.output;
  if (output.empty() || output.back() == '/') {
    return base::UsageError("-o needs a file name, got '" + output + "'");
  }
  DP_RETURN_IF_ERROR(CheckRecordOutput(options));
  if (output.front() != '/') {
    if (::getcwd(resolved, sizeof resolved) == nullptr) {
      return base::IoError(
          ".", std::string("cannot read the working directory: ") + std::strerror(errno));
    }
    output = std::string(resolved) + "/" + output;
  }
  // A previous file (and its journal) would otherwise be mistaken for this run's.
  for (const char* suffix : {"", "-journal"}) {
    const std::string victim = output + suffix;
    if (::unlink(victim.c_str()) != 0 && errno != ENOENT) {
      return base::IoError(victim, std::string("cannot replace: ") + std::strerror(errno));
    }
  }
  std::vector<std::string> env =
      RecordEnvironment(CurrentEnvironment(), output, injection, cupti_lib, options.follow_fork,
                        options.only_range, warnings);
  // The sampling settings, replacing values the environment already had.
  const auto set = [&env](const std::string& name, const std::string& value) {
    std::erase_if(env, [&](const std::string& e) { return NameOf(e) == name; });
    env.push_back(name + "=" + value);
  };
  if (!options.sample_time.empty()) set("DECODEPROF_RECORD_SAMPLE_TIME", options.sample_time);
  if (options.sample_steps > 1) {
    set("DECODEPROF_RECORD_SAMPLE_STEPS", std::to_string(options.sample_steps));
    set("DECODEPROF_RECORD_STEP_RANGE", options.step_range);
  }
  return RunCommand(options.command, env, "DECODEPROF_RECORD_ROOT_PID");
}

}  // namespace decodeprof::record
