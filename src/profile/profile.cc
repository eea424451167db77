#include "src/profile/profile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "src/base/file_io.h"
#include "src/base/parse.h"
#include "src/base/py_format.h"
#include "src/guard/guard.h"
#include "src/guard/messages.h"
#include "src/io/format_names.h"
#include "src/pipeline/summarize_run.h"
#include "src/profile/git_info.h"
#include "src/profile/log_filter.h"
#include "src/profile/process.h"
#include "src/record/rocprofv3_runner.h"
#include "src/trace/diagnostics.h"

namespace decodeprof::profile {
namespace {

namespace fs = std::filesystem;

constexpr char kGuardLog[] = "guard.log";
constexpr char kDefaultOutRoot[] = "benchmarks/profiles/";
constexpr size_t kTailLines = 20;

std::string Join(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

bool IsExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// argv[0] as execvp finds it: a path when it has a slash, else the first match in PATH.
bool CommandExists(const std::string& name, const record::GetEnvFn& getenv) {
  if (name.find('/') != std::string::npos) return IsExecutableFile(name);
  const char* path = getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    if (IsExecutableFile((dir.empty() ? "." : dir) + "/" + name)) return true;
    if (colon == std::string_view::npos) return false;
    rest = rest.substr(colon + 1);
  }
}

base::Status AppendLine(const std::string& path, const std::string& line) {
  DP_ASSIGN_OR_RETURN(const int fd, base::OpenStreamOutput(path, /*append=*/true));
  const std::string text = line + "\n";
  const ssize_t n = ::write(fd, text.data(), text.size());
  const int write_errno = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    return base::IoError(path, std::string("cannot write: ") + std::strerror(write_errno));
  }
  return base::OkStatus();
}

// The last `count` lines of a file ("" lines when it cannot be read).
std::vector<std::string> TailLines(const std::string& path, size_t count) {
  base::StatusOr<std::string> text = base::ReadFile(path, base::kMaxRunLogBytes, "a run log");
  std::vector<std::string> lines;
  if (!text.ok()) return lines;
  size_t end = text->size();
  while (end > 0 && lines.size() < count) {
    if ((*text)[end - 1] == '\n') --end;
    const size_t start = text->rfind('\n', end == 0 ? 0 : end - 1);
    const size_t from = start == std::string::npos || end == 0 ? 0 : start + 1;
    lines.insert(lines.begin(), text->substr(from, end - from));
    if (from == 0) break;
    end = from;
  }
  return lines;
}

base::StatusOr<std::string> Canonical(const std::string& dir) {
  std::error_code ec;
  const fs::path path = fs::canonical(dir, ec);
  if (ec) return base::IoError(dir, "cannot resolve: " + ec.message());
  return path.string();
}

base::StatusOr<std::string> MakeTraceDir(const std::string& requested) {
  if (!requested.empty()) {
    DP_RETURN_IF_ERROR(base::MakeDirs(requested));
    return Canonical(requested);
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string templ =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/decodeprof-trace.XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) {
    return base::IoError(templ, std::string("cannot create: ") + std::strerror(errno));
  }
  return Canonical(templ);
}

// Removes what a summarize stopped mid-write left behind (base::WriteFileAtomic's
// `<output>.tmp.<pid>`).
void RemoveTemporaries(const std::string& out_dir, const std::string& name) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(out_dir, ec)) {
    const std::string file = entry.path().filename().string();
    for (const char* suffix :
         {"_summary.json.tmp.", "_decode_kernels.csv.tmp.", "_decode_dispatches.csv.tmp."}) {
      if (file.starts_with(name + suffix)) fs::remove(entry.path(), ec);
    }
  }
}

const char* BackendName(record::Backend backend) {
  return backend == record::Backend::kRocprofv3 ? "rocprofv3" : "cupti";
}

std::string TagOf(const ProfileOptions& options, const Sampling& sampling) {
  return options.tag.empty() ? DefaultTag(sampling) : options.tag;
}

// One profile invocation after validation: owns the directories, the list of published
// logs and the exit path.
class Job {
 public:
  Job(const ProfileOptions& options, Reporter& reporter, std::string out_dir, std::string trace_dir,
      const std::string& repo_root)
      : options_(options),
        reporter_(reporter),
        out_dir_(std::move(out_dir)),
        trace_dir_(std::move(trace_dir)),
        guard_log_(Join(out_dir_, kGuardLog)),
        scrubber_(repo_root, trace_dir_) {}

  int Run() {
    for (const Sampling& sampling : options_.samplings) {
      for (const std::string& model : options_.models) {
        if (const int status = RunOne(model, sampling); status != 0) return Finish(status);
      }
    }
    return Finish(signals::Caught() != 0 ? StoppedBySignal() : 0);
  }

 private:
  // The seed's EXIT trap: every path out of the job ends here.
  int Finish(int status) {
    std::vector<std::string> files = {guard_log_};
    files.insert(files.end(), published_.begin(), published_.end());
    for (const std::string& file : files) {
      if (base::Status s = scrubber_.ScrubFile(file); !s.ok()) {
        reporter_.Error(s);
        if (status == 0) status = s.exit_code();
      }
    }
    reporter_.Line("traces: " + trace_dir_);
    reporter_.Line("results: " + out_dir_);
    return status;
  }

  // 0 to go on, else the status to stop with (after telling why).
  int Stopped(const base::Status& error) {
    reporter_.Error(error);
    return error.exit_code();
  }
  int StoppedBySignal() {
    const int signo = signals::Caught();
    reporter_.Note(std::string("stopped by ") + signals::Name(signo));
    return signals::ExitCode(signo);
  }

  // Runs `command` under the guard, its output (and the guard's notes) into `output`.
  base::StatusOr<int> RunGuarded(const std::vector<std::string>& command, const std::string& output,
                                 bool phase_marks) {
    std::vector<std::string> args = {"--idle-secs", std::to_string(options_.idle_secs)};
    if (options_.max_wait) {
      args.insert(args.end(), {"--max-wait", std::to_string(*options_.max_wait)});
    }
    if (options_.max_attempts) {
      args.insert(args.end(), {"--max-attempts", std::to_string(*options_.max_attempts)});
    }
    args.insert(args.end(), {"--log", guard_log_, "--"});
    args.insert(args.end(), command.begin(), command.end());
    ChildSetup setup;
    setup.output = output;
    if (phase_marks) {
      setup.env = {{"DECODEPROF_PHASE_MARKS", "1"}, {"MLXCEL_BENCH_PHASE_MARKS", "1"}};
    }
    return RunForked(
        setup, [&args] { return guard::GuardMain(args, guard::GuardEnvironment::FromProcess()); });
  }

  // The outcome of one guarded run: 0 when it was clean and succeeded.
  int CheckRun(const base::StatusOr<int>& rc, const std::string& name, const char* kind,
               const std::string& log) {
    if (!rc.ok()) return Stopped(rc.status());
    if (signals::Caught() != 0) return StoppedBySignal();
    if (*rc == 0) return 0;
    std::string why = "the " + std::string(kind) + " run failed with exit " + std::to_string(*rc);
    if (*rc == guard::kExitTempFail) {
      why += " (the guard gave up: the GPU never became quiet, or every attempt was contended)";
    }
    reporter_.Note(name + ": " + why + "; last lines of " + log + ":");
    for (const std::string& line : TailLines(log, kTailLines)) reporter_.Line("  " + line);
    return *rc;
  }

  int Publish(const std::string& from, const std::string& to,
              const std::vector<LinePredicate>& drop) {
    if (base::Status s = PublishLog(from, to, drop, scrubber_); !s.ok()) return Stopped(s);
    published_.push_back(to);
    return 0;
  }

  int RunOne(const std::string& model, const Sampling& sampling) {
    const std::string name = RunName(model, TagOf(options_, sampling));
    const std::string run_dir = Join(trace_dir_, name);
    if (base::Status s = base::MakeDirs(run_dir); !s.ok()) return Stopped(s);
    base::StatusOr<std::vector<std::string>> bench = BenchCommand(options_, model, sampling);
    if (!bench.ok()) return Stopped(bench.status());

    // The plain runs: the first as the seed named it, the others numbered from 2.
    std::vector<std::string> plain_outs;
    for (int64_t run = 1; options_.plain && run <= options_.plain_runs; ++run) {
      const std::string suffix = run == 1 ? "" : "_" + std::to_string(run);
      const std::string heading = run == 1 ? " plain" : " plain " + std::to_string(run);
      if (base::Status s = AppendLine(guard_log_, "== " + name + heading); !s.ok()) {
        return Stopped(s);
      }
      const std::string log = Join(run_dir, "plain_bench" + suffix + ".log");
      if (const int status = CheckRun(RunGuarded(*bench, log, false), name, "plain", log)) {
        return status;
      }
      plain_outs.push_back(Join(out_dir_, name + "_plain_bench" + suffix + ".log"));
      if (const int status = Publish(log, plain_outs.back(), {IsGuardLine})) return status;
    }

    if (base::Status s = AppendLine(guard_log_, "== " + name + " profiled"); !s.ok()) {
      return Stopped(s);
    }
    const std::string trace_file = Join(run_dir, name + ".sqlite");
    std::vector<std::string> recorded = {
        options_.decodeprof_exe,       "record", "-o", trace_file, "--backend",
        BackendName(options_.backend), "--"};
    recorded.insert(recorded.end(), bench->begin(), bench->end());
    const std::string log = Join(run_dir, "bench.log");
    if (const int status = CheckRun(RunGuarded(recorded, log, true), name, "profiled", log)) {
      return status;
    }
    const std::string bench_out = Join(out_dir_, name + "_bench.log");
    if (const int status = Publish(log, bench_out, {IsGlogLine, IsGuardLine})) return status;

    pipeline::SummarizeRequest request;
    request.trace = trace_file;
    request.format = io::kNativeFormat;
    if (options_.backend == record::Backend::kRocprofv3) {
      // The seed summarized rocprofv3's CSV itself (and the default pack follows from it); a
      // rocprofv3 that wrote rocpd (record's rocprofv3 runner) is summarized from its database.
      const std::string dir = trace_file + ".rocprofv3";
      const std::string db = Join(dir, "trace_results.db");
      const bool rocpd = ::access(db.c_str(), F_OK) == 0;
      request.trace = rocpd ? db : Join(dir, "trace_kernel_trace.csv");
      request.format = rocpd ? io::kRocpdFormat : io::kRocprofv3CsvFormat;
      const std::string stats = Join(dir, "trace_kernel_stats.csv");
      base::StatusOr<std::string> text =
          base::ReadFile(stats, base::kMaxSummaryBytes, "a kernel stats CSV");
      base::Status copied =
          text.ok()
              ? base::WriteFileAtomic(Join(out_dir_, name + "_kernel_stats.csv"), *text, {stats})
              : text.status();
      // With rocpd, --stats may write no CSV: the database is the record.
      if (!copied.ok() && (!rocpd || text.ok())) {
        reporter_.Note(trace::DiagnosticText(
            trace::Message<trace::Msg::kKernelStatsNotCopied>(copied.ToString())));
      }
    }
    request.log = bench_out;
    if (options_.plain) request.plain_logs = plain_outs;
    request.model_dir = model;
    request.pack = options_.pack;
    request.units = options_.units;
    request.name = name;
    request.out_dir = out_dir_;
    request.temperature = base::ParseDouble(sampling.temperature).value_or(0.0);
    request.emit_dispatches = options_.emit_dispatches;
    return Summarize(request);
  }

  int Summarize(const pipeline::SummarizeRequest& request) {
    Reporter& reporter = reporter_;
    base::StatusOr<int> rc = RunForked({}, [&request, &reporter] {
      base::StatusOr<pipeline::SummarizeResult> result = pipeline::RunSummarize(request);
      if (!result.ok()) {
        reporter.Error(result.status());
        return result.status().exit_code();
      }
      for (const std::string& note : result->notes) reporter.Note(request.name + ": " + note);
      const analysis::Summary& s = result->summary;
      for (const trace::DiagMessage& warning : s.warnings) {
        reporter.Note(request.name + ": " + trace::DiagnosticText(warning));
      }
      const auto py = [](const std::optional<double>& v) {
        return v ? base::PyRepr(*v) : std::string("None");
      };
      reporter.Result(request.name + ": " + std::to_string(s.decode_dispatches) +
                      " decode dispatches, " + py(s.gpu_ms_per_token) + " GPU ms/token, " +
                      py(s.host_gap_ms_per_token) + " host gap ms/token");
      return 0;
    });
    if (!rc.ok()) return Stopped(rc.status());
    if (*rc != 0) RemoveTemporaries(out_dir_, request.name);
    if (signals::Caught() != 0) return StoppedBySignal();
    if (*rc != 0) {
      reporter_.Line("summarize failed for " + request.name + "; rerun it on " + request.trace);
    }
    return 0;
  }

  const ProfileOptions& options_;
  Reporter& reporter_;
  const std::string out_dir_;
  const std::string trace_dir_;
  const std::string guard_log_;
  const PathScrubber scrubber_;
  std::vector<std::string> published_;
};

}  // namespace

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

base::StatusOr<std::vector<std::string>> BenchCommand(const ProfileOptions& options,
                                                      const std::string& model,
                                                      const Sampling& sampling) {
  BenchValues values;
  values.model = model;
  values.tokens = options.tokens;
  values.warmup = options.warmup_tokens;
  values.prompt = options.prompt_tokens;
  values.sampling = sampling;
  std::vector<std::string> command;
  for (const std::string& word : options.bench) {
    command.push_back(SubstitutePlaceholders(word, values));
  }
  DP_ASSIGN_OR_RETURN(const std::vector<std::string> args,
                      ExpandBenchArgs(options.bench_args, values));
  command.insert(command.end(), args.begin(), args.end());
  return command;
}

base::Status ValidateOptions(const ProfileOptions& options, const record::GetEnvFn& getenv) {
  const char* const usage =
      "usage: decodeprof profile [options] --model M [--model M...] -- BENCH [ARGS...]";
  if (options.models.empty()) return base::UsageError("no model given (--model)", usage);
  if (options.bench.empty()) return base::UsageError("no bench command given after --", usage);
  if (options.samplings.empty()) return base::InternalError("", "no sampling setting");
  for (const Sampling& sampling : options.samplings) DP_RETURN_IF_ERROR(CheckSampling(sampling));
  if (!options.tag.empty() && options.samplings.size() > 1) {
    return base::UsageError("--tag names the runs of one sampling setting, not of several",
                            "leave --tag out: the default tags tell the settings apart");
  }
  if (!options.tag.empty()) DP_RETURN_IF_ERROR(base::CheckOutputName(options.tag, "--tag"));
  if (options.out_dir == base::kStdout) {
    return base::UsageError("--out - : profile writes a directory of results, not standard output",
                            "name a directory (./- for one called '-')");
  }
  std::set<std::string> names;
  for (const Sampling& sampling : options.samplings) {
    for (const std::string& model : options.models) {
      const std::string base_name = ModelBaseName(model);
      if (base_name.empty() || base_name == "/" || base_name == "." || base_name == "..") {
        return base::UsageError("cannot name a run after --model '" + model + "'");
      }
      const std::string name = RunName(model, TagOf(options, sampling));
      // The run name prefixes the published files and summarize's --name.
      DP_RETURN_IF_ERROR(base::CheckOutputName(name, "the run name of --model '" + model + "'"));
      if (!names.insert(name).second) {
        return base::UsageError("two runs would be named " + name,
                                "give the models distinct last path components");
      }
    }
  }
  DP_RETURN_IF_ERROR(
      BenchCommand(options, options.models.front(), options.samplings.front()).status());
  if (!CommandExists(options.bench.front(), getenv)) {
    return base::ConfigError(options.bench.front(), "bench binary not found (build it first)");
  }
  if (options.decodeprof_exe.empty()) return base::InternalError("", "decodeprof_exe not set");
  if (options.backend == record::Backend::kRocprofv3) {
    DP_RETURN_IF_ERROR(record::FindRocprofv3(getenv).status());
  } else {
    DP_RETURN_IF_ERROR(
        record::FindInjectionLibrary(DirName(options.decodeprof_exe), getenv).status());
  }
  return base::OkStatus();
}

int RunProfile(const ProfileOptions& options, Reporter& reporter) {
  const record::GetEnvFn getenv = [](const char* name) { return std::getenv(name); };
  if (base::Status s = ValidateOptions(options, getenv); !s.ok()) {
    reporter.Error(s);
    return s.exit_code();
  }
  signals::Install();
  const GitInfo git = ReadGitInfo();
  if (git.dirty) reporter.Line(ProvenanceNote(git.commit));
  std::string out_dir = options.out_dir;
  if (out_dir.empty()) {
    if (git.commit.empty()) {
      const base::Status s =
          base::UsageError("--out is needed outside a git checkout (the default names the commit)");
      reporter.Error(s);
      return s.exit_code();
    }
    out_dir = kDefaultOutRoot + git.commit;
  }
  if (base::Status s = base::MakeDirs(out_dir); !s.ok()) {
    reporter.Error(s);
    return s.exit_code();
  }
  base::StatusOr<std::string> trace_dir = MakeTraceDir(options.trace_dir);
  if (!trace_dir.ok()) {
    reporter.Error(trace_dir.status());
    return trace_dir.status().exit_code();
  }
  Job job(options, reporter, out_dir, *trace_dir, git.root);
  return job.Run();
}

}  // namespace decodeprof::profile
