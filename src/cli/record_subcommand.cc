// `decodeprof record [-o FILE] [--backend cupti|rocprofv3] [--follow-fork] [--measure-bandwidth]
//  [--only-range NAME | --sample-steps N [--step-range NAME] | --sample-time ON/PERIOD]
//  -- CMD...`:
// runs CMD with a recorder, returns CMD's exit status, then validates the trace and prints
// a one-line summary to stderr (stdout belongs to CMD). Parsing and printing only; the work
// is in src/record.
#include <CLI/CLI.hpp>
#include <string>

#include "src/cli/option_checks.h"
#include "src/cli/recording.h"
#include "src/cli/subcommand.h"
#include "src/record/launcher.h"
#include "src/record/only_range.h"

namespace decodeprof::cli {
namespace {

constexpr const char* kRecordCommand = "record";

// --sample-time ON/PERIOD, checked while parsing (record::ParseSampleTime).
CLI::Validator SampleTimeValue() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (record::ParseSampleTime(value)) return {};
        return "must be ON/PERIOD in milliseconds with 1 <= ON < PERIOD <= " +
               std::to_string(record::kMaxSamplePeriodMs) + ", got '" + value + "'";
      },
      "");
}

// An NVTX range name (record::OnlyRangeNameProblem): not empty, no control character.
CLI::Validator RangeNameValue() {
  return CLI::Validator(
      [](std::string& value) -> std::string { return record::OnlyRangeNameProblem(value); }, "");
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
      "memcpy/memset, launch API calls, NVTX ranges) or rocprofv3 (its rocpd database -\n"
      "kernels, roctx ranges - or, from a rocprofv3 older than ROCm 7, its kernel-trace CSV,\n"
      "converted). Returns CMD's exit status, then prints a one-line summary of the trace.",
      "decodeprof record [options] -- CMD..."};
  app.add_option("-o,--output", options.output,
                 "trace file to write (replaces only a regular file that CMD does not name)")
      ->check(NonEmpty("a trace file"))
      ->capture_default_str();
  app.add_option("--backend", backend, "recorder: cupti|rocprofv3")
      ->check(OneOf({"cupti", "rocprofv3"}))
      ->capture_default_str();
  app.add_flag("--measure-bandwidth", options.measure_bandwidth,
               "before CMD starts, measure the GPU's memory bandwidth (`decodeprof bandwidth`:\n"
               "device-to-device copies on device 0, about a second of the GPU) and store it\n"
               "in the trace's meta, the speed of light's divisor; a failed measurement is a\n"
               "warning");
  app.add_flag("--follow-fork", options.follow_fork,
               "also record children that CMD starts (each to FILE.<pid>.sqlite)");
  CLI::Option* only_range =
      app.add_option("--only-range", options.only_range,
                     "record CUDA activity (kernels, memcpy/memset, launch calls) only while an\n"
                     "NVTX range with exactly this message is open (any domain, nested or on\n"
                     "many threads: one period from the first opening to the last closing);\n"
                     "NVTX ranges and marks are recorded all the time (cupti backend)")
          ->type_name("NAME")
          ->check(RangeNameValue());
  app.add_option("--sample-steps", options.sample_steps,
                 "keep kernel-level records (kernels, memcpy/memset, launch calls) for one step\n"
                 "in N, the middle one of each N; every step's NVTX range is kept, and summarize\n"
                 "extrapolates per-token figures from the sampled steps (cupti backend; the\n"
                 "steps are the ranges --step-range names, or, until one opens, the program's\n"
                 "CUDA graph launches: no marks needed on graph engines). A step's recording\n"
                 "ends when the GPU work of the graphs it launched has finished, without the\n"
                 "program synchronizing. 32 for decodes of 128 steps or more")
      ->check(IntegerIn(1, 1000000))
      ->type_name("N");
  app.add_option("--sample-time", options.sample_time,
                 "keep kernel-level records ON ms of every PERIOD ms (e.g. 50/2000), for long\n"
                 "runs; summarize finds the decode loop in one sampled period, or takes the\n"
                 "step ranges whole inside them (cupti backend). CUPTI stays attached between\n"
                 "the periods (detaching it killed programs on an H200); 1 <= ON < PERIOD <= "
                 "3600000")
      ->type_name("ON/PERIOD")
      ->check(SampleTimeValue());
  app.add_option("--step-range", options.step_range,
                 "the NVTX range of one decode step, for --sample-steps")
      ->capture_default_str()
      ->type_name("NAME")
      ->check(RangeNameValue());
  try {
    app.parse(split, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return ReportError(kRecordCommand, base::UsageError(e.what(), "see decodeprof record --help"));
  }
  if (options.command.empty()) {
    return ReportError(
        kRecordCommand,
        base::UsageError("no command given", "usage: decodeprof record [-o FILE] -- CMD..."));
  }
  options.backend = backend == "rocprofv3" ? record::Backend::kRocprofv3 : record::Backend::kCupti;
  if (only_range->count() > 0) {
    if (const std::string problem = record::OnlyRangeNameProblem(options.only_range);
        !problem.empty()) {
      return ReportError(kRecordCommand, base::UsageError("--only-range: " + problem,
                                                          "e.g. --only-range decodeprof:decode"));
    }
    if (options.backend != record::Backend::kCupti) {
      return ReportError(kRecordCommand, base::UsageError("--only-range needs --backend cupti"));
    }
  }
  if (options.sample_steps > 1) {
    if (only_range->count() > 0) {
      return ReportError(kRecordCommand,
                         base::UsageError("--sample-steps cannot be combined with --only-range",
                                          "sampling gates on the step ranges already"));
    }
    if (options.backend != record::Backend::kCupti) {
      return ReportError(kRecordCommand, base::UsageError("--sample-steps needs --backend cupti"));
    }
  }
  if (!options.sample_time.empty() && options.backend != record::Backend::kCupti) {
    return ReportError(kRecordCommand, base::UsageError("--sample-time needs --backend cupti"));
  }
  return RecordCommand(kRecordCommand, options).status;
}

}  // namespace decodeprof::cli
