// `decodeprof kernels TRACE [options]` and `decodeprof kernels [options] -- CMD...`: the
// kernel census of a trace (or of CMD, recorded as `decodeprof record` records it) — per
// kernel name or class: calls, total, average, min, max and share of the GPU time — and, with
// --expect, a check that named kernels ran (exit 1 when one did not). Parsing and printing
// only: the census is pipeline::RunKernels, its text report::CensusText.
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "src/analysis/kernel_census.h"
#include "src/base/file_io.h"
#include "src/base/temporary_files.h"
#include "src/cli/option_checks.h"
#include "src/cli/recording.h"
#include "src/cli/subcommand.h"
#include "src/io/format_names.h"
#include "src/io/importer_registry.h"
#include "src/pipeline/kernels_run.h"
#include "src/pipeline/window_spec.h"
#include "src/report/kernel_census_text.h"

namespace decodeprof::cli {
namespace {

constexpr const char* kKernelsCommand = "kernels";
constexpr const char* kUsage =
    "usage: decodeprof kernels TRACE [options], or decodeprof kernels [options] -- CMD...";
// --top's default for the text outputs (table, md); csv and json show every row.
constexpr int64_t kTextTop = 30;

// The temporary directory of a recording that is not kept (-o not given): removed with
// everything in it when the job ends, however it ends.
class TemporaryDirectory {
 public:
  TemporaryDirectory() = default;
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    base::UnregisterTemporary(registration_);
  }
  // A new private directory (mkdtemp, mode 0700) under $TMPDIR or /tmp.
  base::Status Create() {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string pattern = std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") +
                          "/decodeprof-kernels-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      return base::IoError(pattern, "cannot create a temporary directory for the recording",
                           "set TMPDIR to a writable directory, or keep the trace with -o FILE");
    }
    path_ = pattern;
    // Removed by a SIGINT, SIGTERM or SIGHUP too (base/temporary_files.h).
    registration_ = base::RegisterTemporary(path_, /*directory=*/true);
    return base::OkStatus();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int registration_ = -1;
};

struct Options {
  pipeline::KernelsRequest request;
  std::vector<analysis::NamePattern> expect;
  bool by_class = false;
  report::CensusFormat output_format = report::CensusFormat::kTable;
  size_t top = 0;
  std::string output = std::string(base::kStdout);
};

report::CensusFormat FormatOf(const std::string& name) {
  if (name == "csv") return report::CensusFormat::kCsv;
  if (name == "json") return report::CensusFormat::kJson;
  if (name == "md") return report::CensusFormat::kMarkdown;
  return report::CensusFormat::kTable;
}

// The census of the trace, written to the output; then the --expect checks on stderr.
int Census(const Options& options, const std::vector<std::string>& inputs) {
  auto result = pipeline::RunKernels(options.request);
  if (!result.ok()) return ReportError(kKernelsCommand, result.status());
  for (const std::string& note : result->notes) {
    std::fprintf(stderr, "decodeprof: %s: %s\n", kKernelsCommand, note.c_str());
  }
  PrintDiagnostics(kKernelsCommand, result->diagnostics, "");
  const pipeline::WindowSpec& window = options.request.window;
  if (window.kind == pipeline::WindowSpec::Kind::kRange && result->by_name.dispatches == 0) {
    const trace::DiagMessage message = trace::Message<trace::Msg::kKernelsNoDispatchInWindow>(
        window.ToString(), result->device_dispatches, result->first_start, result->last_start);
    std::fprintf(stderr, "%s\n", trace::DiagnosticLine(kKernelsCommand, message).c_str());
  }

  report::CensusHeading heading;
  heading.trace = std::filesystem::path(options.request.trace.path).filename().string();
  heading.format = result->format;
  heading.device = result->device;
  heading.device_name = result->device_name;
  heading.clock = result->clock;
  heading.pack = result->pack;
  if (window.kind == pipeline::WindowSpec::Kind::kRange) {
    heading.range = analysis::StartRange{window.start, window.end};
  } else if (window.kind == pipeline::WindowSpec::Kind::kDecode) {
    heading.range = analysis::StartRange{result->window_lo, result->window_hi};
    std::fprintf(stderr, "decodeprof: %s: --window decode: the window from %s", kKernelsCommand,
                 result->window_source.c_str());
    if (result->window_steps) {
      std::fprintf(stderr, ", %lld steps", static_cast<long long>(*result->window_steps));
    }
    std::fprintf(stderr, " (%lld..%lld ns)\n", static_cast<long long>(result->window_lo),
                 static_cast<long long>(result->window_hi));
  }
  heading.device_dispatches = result->device_dispatches;
  heading.by_class = options.by_class;
  const analysis::CensusTable table =
      options.by_class ? analysis::ByClass(result->by_name) : result->by_name;
  const std::string text = report::CensusText(heading, table, options.output_format, options.top);
  if (auto written = base::WriteFileAtomic(options.output, text, inputs); !written.ok()) {
    return ReportError(kKernelsCommand, written);
  }
  std::fflush(stdout);

  auto matches = analysis::MatchExpectations(options.expect, result->by_name);
  if (!matches.ok()) {
    return ReportError(kKernelsCommand, base::UsageError("--expect " + matches.status().ToString(),
                                                         matches.status().hint()));
  }
  int status = 0;
  for (const analysis::ExpectMatch& m : *matches) {
    if (m.names == 0) {
      std::fprintf(stderr, "decodeprof: %s: --expect '%s': no kernel matched\n", kKernelsCommand,
                   m.pattern.c_str());
      status = 1;
    } else {
      std::fprintf(stderr, "decodeprof: %s: --expect '%s': %lld call%s of %lld kernel%s matched\n",
                   kKernelsCommand, m.pattern.c_str(), static_cast<long long>(m.calls),
                   m.calls == 1 ? "" : "s", static_cast<long long>(m.names),
                   m.names == 1 ? "" : "s");
    }
  }
  return status;
}

}  // namespace

int KernelsMain(int argc, char** argv) {
  // Everything after the first "--" is the command, untouched by option parsing.
  int split = 1;
  while (split < argc && std::string(argv[split]) != "--") ++split;
  const bool with_command = split < argc;
  std::vector<std::string> command;
  for (int i = split + 1; i < argc; ++i) command.emplace_back(argv[i]);

  Options options;
  std::string trace;
  std::string format = "auto";
  int32_t device = -1;
  std::string window = "all";
  std::string by = "name";
  std::vector<std::string> expect;
  int64_t top = -1;
  std::string output_format = "table";
  std::string trace_output;
  CLI::App app{
      "decodeprof kernels TRACE [options]\n"
      "decodeprof kernels [options] -- CMD...\n\n"
      "Print what a trace dispatched, like nsys stats' cuda_gpu_kern_sum: per kernel name (or\n"
      "per class of the pack) the calls, the total, average, min and max duration and the\n"
      "share of the GPU time (the sum of the durations). Memory operations are rows too\n"
      "(class memcpy / memset). Rows by total time, largest first, ties by name.\n"
      "With -- CMD, records CMD as `decodeprof record` does (CUPTI; the trace goes to a\n"
      "temporary file unless -o names one) and prints the census of that trace.\n"
      "--expect REGEX (repeatable) makes it a check: exit 1 when no kernel in the window\n"
      "matches a pattern. REGEX is RE2 syntax (github.com/google/re2/wiki/Syntax), searched,\n"
      "not anchored; a pattern RE2 cannot take is a usage error (exit 2).",
      "decodeprof kernels"};
  app.add_option("TRACE", trace, "kernel trace, of any format below (recognized by content)")
      ->type_name("")
      ->check(NonEmpty("a trace file"));
  CLI::Option* format_option =
      app.add_option("--format", format, "trace format: " + io::FormatChoices())
          ->type_name("FORMAT")
          ->check(TraceFormat())
          ->capture_default_str();
  app.add_option("--device", device, "the device to count, for a trace of several GPUs")
      ->check(IntegerIn(0, INT16_MAX));
  app.add_option("--window", window,
                 "all: every dispatch of the device; decode: the decode window as summarize "
                 "finds it (marks, ranges, or the loop found in the dispatches); "
                 "START_NS..END_NS: those with START_NS <= start <= END_NS on the trace's clock")
      ->type_name("all|decode|START_NS..END_NS")
      ->capture_default_str();
  app.add_option("--by", by, "rows per kernel name or per class of the pack")
      ->check(OneOf({"name", "class"}))
      ->capture_default_str();
  app.add_option("--pack", options.request.pack,
                 "rule pack for the classes: built-in name or .toml file (default: chosen from the "
                 "kernel names, else the format's, below)")
      ->type_name("NAME|FILE")
      ->check(NonEmpty("a pack name or file"));
  app.add_option("--expect", expect,
                 "RE2 regular expression (not ECMAScript: no backreferences or lookaround) "
                 "searched in each kernel name of the window; exit 1 when no kernel matches "
                 "(repeatable)")
      ->type_name("REGEX")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--top", top,
                 "rows to show, 0 for all (default: 30 for table and md, all for csv and json)")
      ->check(IntegerIn(0, INT32_MAX));
  app.add_option("--output", options.output,
                 "file for the census (written atomically, never onto a link or an input), or - "
                 "for stdout")
      ->type_name("FILE")
      ->check(NonEmpty("an output file (- for stdout)"))
      ->capture_default_str();
  app.add_option("--output-format", output_format,
                 "table (aligned text), csv or json (integer ns), md (Markdown)")
      ->check(OneOf({"table", "csv", "json", "md"}))
      ->capture_default_str();
  CLI::Option* trace_output_option = app.add_option("-o,--trace-output", trace_output,
                                                    "with -- CMD: keep the recorded trace in this "
                                                    "file (default: a temporary file, removed)")
                                         ->type_name("TRACE_OUT")
                                         ->check(NonEmpty("a trace file"));
  app.footer(FormatTable() +
             "Examples:\n"
             "  decodeprof kernels run.sqlite --top 10\n"
             "  decodeprof kernels trace.json --by class --output-format md\n"
             "  decodeprof kernels --expect 'flash_fwd' --expect 'gemv' -- python3 decode.py\n"
             "Exit status: 0; 1 when an --expect pattern matched no kernel; 2 usage; 65 a bad\n"
             "trace; 66 a missing file; with -- CMD, CMD's own status when it failed.");
  try {
    app.parse(split, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return ReportError(kKernelsCommand,
                       base::UsageError(e.what(), "see decodeprof kernels --help"));
  }

  // The command line's shape.
  if (with_command && command.empty()) {
    return ReportError(kKernelsCommand, base::UsageError("no command after --", kUsage));
  }
  if (with_command && !trace.empty()) {
    return ReportError(kKernelsCommand,
                       base::UsageError("a TRACE and a command after -- were both given: "
                                        "kernels reads one or records the other",
                                        kUsage));
  }
  if (!with_command && trace.empty()) {
    return ReportError(kKernelsCommand, base::UsageError("no trace given", kUsage));
  }
  if (!with_command && trace_output_option->count() > 0) {
    return ReportError(kKernelsCommand,
                       base::UsageError("-o names the recording of -- CMD; without a "
                                        "command there is nothing to record",
                                        "use --output FILE for the census"));
  }
  if (with_command && format_option->count() > 0) {
    return ReportError(kKernelsCommand,
                       base::UsageError("--format applies to a TRACE; the recording of -- "
                                        "CMD is a native trace"));
  }
  auto window_spec = pipeline::ParseWindowSpec(window);
  if (!window_spec.ok()) return ReportError(kKernelsCommand, window_spec.status());
  for (const std::string& pattern : expect) {
    auto compiled = analysis::NamePattern::Compile(pattern);
    if (!compiled.ok()) {
      return ReportError(
          kKernelsCommand,
          base::UsageError("--expect " + compiled.status().ToString(), compiled.status().hint()));
    }
    options.expect.push_back(std::move(*compiled));
  }
  options.request.window = *window_spec;
  options.request.trace.format = with_command ? std::string(io::kNativeFormat) : format;
  if (device >= 0) options.request.trace.device = device;
  options.by_class = by == "class";
  options.output_format = FormatOf(output_format);
  const bool text_output = options.output_format == report::CensusFormat::kTable ||
                           options.output_format == report::CensusFormat::kMarkdown;
  options.top = static_cast<size_t>(top >= 0 ? top : (text_output ? kTextTop : 0));

  if (!with_command) {
    options.request.trace.path = trace;
    const std::vector<std::string> inputs = {trace, options.request.pack};
    // Where the census goes is checked before the trace is read.
    if (auto target = base::CheckOutputTarget(options.output, inputs); !target.ok()) {
      return ReportError(kKernelsCommand, target);
    }
    return Census(options, inputs);
  }

  // -- CMD: record it, then count its trace.
  record::RecordOptions recording;
  recording.backend = record::Backend::kCupti;
  recording.command = command;
  TemporaryDirectory temporary;
  if (trace_output_option->count() > 0) {
    recording.output = trace_output;
  } else {
    if (auto created = temporary.Create(); !created.ok())
      return ReportError(kKernelsCommand, created);
    recording.output = temporary.path() + "/trace.sqlite";
  }
  std::vector<std::string> inputs = command;
  inputs.push_back(options.request.pack);
  inputs.push_back(recording.output);
  if (auto target = base::CheckOutputTarget(options.output, inputs); !target.ok()) {
    return ReportError(kKernelsCommand, target);
  }
  const RecordingOutcome outcome = RecordCommand(kKernelsCommand, recording);
  if (!outcome.command_ran) return outcome.status;
  if (outcome.command_status != 0) {
    std::fprintf(stderr, "decodeprof: %s: %s exited with status %d: no census\n", kKernelsCommand,
                 command[0].c_str(), outcome.command_status);
    return outcome.command_status;
  }
  if (!outcome.trace_ok) return outcome.status;
  options.request.trace.path = recording.output;
  return Census(options, inputs);
}

}  // namespace decodeprof::cli
