// `decodeprof record [-o FILE] [--backend cupti|rocprofv3] [--follow-fork]
//  [--only-range NAME] -- CMD...`:
// runs CMD with a recorder, returns CMD's exit status, then validates the trace and prints
// a one-line summary to stderr (stdout belongs to CMD). Parsing and printing only; the work
// is in src/record.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "src/cli/subcommand.h"
#include "src/record/launcher.h"
#include "src/record/only_range.h"
#include "src/record/rocprofv3_runner.h"

namespace decodeprof::cli {
namespace {

constexpr const char* kName = "record";

std::string ExeDir() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  std::string exe(path, static_cast<size_t>(n));
  const size_t slash = exe.rfind('/');
  return slash == std::string::npos ? "." : exe.substr(0, slash);
}

void Warn(const std::string& message) {
  std::fprintf(stderr, "decodeprof: %s: warning: %s\n", kName, message.c_str());
}

}  // namespace

int RecordMain(int argc, char** argv) {
  // Everything after the first "--" is the command, untouched by option parsing.
  int split = 1;
  while (split < argc && std::string(argv[split]) != "--") ++split;
  record::RecordOptions options;
  for (int i = split + 1; i < argc; ++i) options.command.emplace_back(argv[i]);

  std::string backend = "cupti";
  CLI::App app{
      "Run CMD with a kernel recorder and write a native trace (SQLite): CUPTI (kernels,\n"
      "memcpy/memset, launch API calls, NVTX ranges) or rocprofv3 (its kernel trace,\n"
      "converted). Returns CMD's exit status, then prints a one-line summary of the trace.",
      "decodeprof record [options] -- CMD..."};
  app.add_option("-o,--output", options.output,
                 "trace file to write (replaces only a regular file that CMD does not name)")
      ->capture_default_str();
  app.add_option("--backend", backend, "recorder: cupti|rocprofv3")
      ->check(CLI::IsMember({"cupti", "rocprofv3"}))
      ->capture_default_str();
  app.add_flag("--follow-fork", options.follow_fork,
               "also record children that CMD starts (each to FILE.<pid>.sqlite)");
  CLI::Option* only_range =
      app.add_option("--only-range", options.only_range,
                     "record CUDA activity (kernels, memcpy/memset, launch calls) only while an\n"
                     "NVTX range with exactly this message is open (any domain, nested or on\n"
                     "many threads: one period from the first opening to the last closing);\n"
                     "NVTX ranges and marks are recorded all the time (cupti backend)")
          ->type_name("NAME");
  try {
    app.parse(split, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return ReportError(kName, base::UsageError(e.what(), "see decodeprof record --help"));
  }
  if (options.command.empty()) {
    return ReportError(kName, base::UsageError("no command given",
                                               "usage: decodeprof record [-o FILE] -- CMD..."));
  }
  options.backend = backend == "rocprofv3" ? record::Backend::kRocprofv3 : record::Backend::kCupti;
  if (only_range->count() > 0) {
    if (const std::string problem = record::OnlyRangeNameProblem(options.only_range);
        !problem.empty()) {
      return ReportError(kName, base::UsageError("--only-range: " + problem,
                                                 "e.g. --only-range decodeprof:decode"));
    }
    if (options.backend != record::Backend::kCupti) {
      return ReportError(kName, base::UsageError("--only-range needs --backend cupti"));
    }
  }
  const record::GetEnvFn getenv = [](const char* name) { return std::getenv(name); };

  std::vector<std::string> warnings;
  base::Status conversion;
  base::StatusOr<record::CommandResult> result =
      options.backend == record::Backend::kCupti
          ? record::RecordWithCupti(options, ExeDir(), getenv, &warnings)
          : record::RecordWithRocprofv3(options, getenv, &conversion);
  for (const std::string& w : warnings) Warn(w);
  if (!result.ok()) return ReportError(kName, result.status());
  if (!result->exec_error.empty()) {
    ReportError(kName, base::IoError(options.command[0], "cannot run: " + result->exec_error));
    return result->status;
  }

  base::Status check = conversion;
  if (check.ok()) {
    const auto summary = record::SummarizeTrace(options.output);
    check = record::CheckRecording(options.output, summary);
    if (summary.ok()) {
      std::fprintf(stderr, "decodeprof: %s: %s\n", kName,
                   record::FormatSummary(options.output, *summary).c_str());
      if (!summary->only_range.empty() && summary->only_range_periods == 0) {
        Warn("no CUDA activity was recorded: NVTX range '" + summary->only_range +
             "' never opened while CUDA was up" +
             (summary->only_range_switch_failures > 0 ? ", or CUPTI refused to switch on" : ""));
      } else if (summary->only_range_switch_failures > 0) {
        Warn("CUPTI refused " + std::to_string(summary->only_range_switch_failures) +
             " switches of --only-range (meta only_range_warnings says what)");
      }
      if (summary->dropped_records > 0) {
        Warn("the trace lost " + std::to_string(summary->dropped_records) +
             " records (see its counters table); raise DECODEPROF_RECORD_MAX_BUFFERS");
      }
    }
  }
  if (result->status != 0) {  // CMD's own status wins; the trace's problem is still told
    if (!check.ok()) ReportError(kName, check);
    return result->status;
  }
  if (!check.ok()) return ReportError(kName, check);
  return 0;
}

}  // namespace decodeprof::cli
