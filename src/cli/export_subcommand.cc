// `decodeprof export --chrome-trace OUT --trace FILE`: a trace of any registered format →
// report::WriteChromeTraceFile, the whole trace or its decode window.
//
// The job is pipeline::RunExport (pipeline/export_run.h); this file parses the options.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "src/base/file_io.h"
#include "src/cli/option_checks.h"
#include "src/cli/subcommand.h"
#include "src/io/importer_registry.h"
#include "src/pipeline/export_run.h"

namespace decodeprof::cli {
namespace {

constexpr const char* kExportCommand = "export";

}  // namespace

int ExportMain(int argc, char** argv) {
  pipeline::ExportRequest req;
  std::string window = "all";
  int32_t device = -1;
  bool memory_ops = false;
  CLI::App app{
      "Write a trace as a timeline in the Chrome trace event format, to open in\n"
      "ui.perfetto.dev or chrome://tracing: kernels on a GPU track (coloured and tagged by\n"
      "their class in the pack), the host gaps between them, the annotation ranges and the\n"
      "launch calls on their CPU threads.",
      "decodeprof export"};
  app.add_option("--chrome-trace", req.out,
                 "output file (JSON; written atomically, never onto a link or an input), or - "
                 "for stdout")
      ->required()
      ->check(NonEmpty("an output file (- for stdout)"));
  app.add_option("--trace", req.trace.path,
                 "kernel trace, of any format below (recognized by content)")
      ->required()
      ->check(NonEmpty("a trace file"));
  req.trace.format = "auto";
  app.add_option("--format", req.trace.format, "trace format: " + io::FormatChoices())
      ->check(TraceFormat())
      ->capture_default_str();
  app.add_option("--device", device, "the device to export, for a trace of several GPUs")
      ->check(IntegerIn(0, INT16_MAX));
  app.add_option("--window", window,
                 "all: the whole trace; decode: the decode window only (marks from the "
                 "trace's decodeprof:decode range or --log)")
      ->check(OneOf({"all", "decode"}))
      ->capture_default_str();
  app.add_option("--log", req.log, "bench log whose [phase] marks cut the decode window")
      ->check(NonEmpty("a bench log file"));
  app.add_option("--pack", req.pack,
                 "rule pack for the kernel classes: built-in name or .toml file (default: "
                 "chosen from the kernel names, else the format's, below)")
      ->check(NonEmpty("a pack name or file"));
  app.add_option("--decode-range", req.trace.decode_range,
                 "annotation range marking the decode loop (default decodeprof:decode)")
      ->check(NonEmpty("a range name or glob"));
  app.add_option("--step-range", req.trace.step_range,
                 "annotation range marking one decode step (default decodeprof:step)")
      ->check(NonEmpty("a range name or glob"));
  app.add_flag("--memory-ops", memory_ops,
               "kept for older scripts: memcpy/memset operations are always shown now");
  app.footer(FormatTable() +
             "Example:\n"
             "  decodeprof export --chrome-trace decode.json --window decode \\\n"
             "      --trace "
             "examples/data/Llama-3.1-8B-Instruct_greedy/Llama-3.1-8B-Instruct_greedy.sqlite\n"
             "  then open decode.json in https://ui.perfetto.dev");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return ReportError(kExportCommand, base::UsageError(e.what(), "see decodeprof export --help"));
  }
  if (device >= 0) req.trace.device = device;
  req.decode_window = window == "decode";

  std::vector<std::string> notes;
  auto stats = pipeline::RunExport(req, notes);
  for (const std::string& note : notes) {
    std::fprintf(stderr, "decodeprof: %s: %s\n", kExportCommand, note.c_str());
  }
  if (!stats.ok()) return ReportError(kExportCommand, stats.status());
  // With the timeline on standard output, the one-line summary goes to stderr.
  const bool to_stdout = req.out == base::kStdout;
  std::fprintf(to_stdout ? stderr : stdout,
               "%s: %lld dispatches, %lld host gaps, %lld ranges, %lld launches on %lld CPU "
               "threads (window %s)\n",
               to_stdout ? "<stdout>" : std::filesystem::path(req.out).filename().c_str(),
               static_cast<long long>(stats->dispatches), static_cast<long long>(stats->host_gaps),
               static_cast<long long>(stats->ranges), static_cast<long long>(stats->launches),
               static_cast<long long>(stats->cpu_threads), window.c_str());
  return 0;
}

}  // namespace decodeprof::cli
