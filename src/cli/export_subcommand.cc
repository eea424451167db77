// `decodeprof export --chrome-trace OUT --trace FILE`: a trace of any registered format →
// report::WriteChromeTraceFile, the whole trace or its decode window.
//
// The trace is read through the importer summarize uses, with the same recognition, device
// check and sources of phase marks (pipeline/trace_source.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/window.h"
#include "src/base/file_io.h"
#include "src/cli/option_checks.h"
#include "src/cli/subcommand.h"
#include "src/io/bench_log/bench_log.h"
#include "src/io/importer_registry.h"
#include "src/packs/default_pack.h"
#include "src/packs/pack_loader.h"
#include "src/pipeline/trace_source.h"
#include "src/report/chrome_trace.h"

namespace decodeprof::cli {
namespace {

constexpr const char* kName = "export";

struct ExportRequest {
  std::string out;
  pipeline::TraceRequest trace;
  bool decode_window = false;
  std::string log;
  std::string pack;
};

// The files export reads: its output must be none of them.
std::vector<std::string> Inputs(const ExportRequest& req) {
  return {req.trace.path, req.log, req.pack};
}

base::StatusOr<report::ChromeTraceStats> RunExport(const ExportRequest& req,
                                                   std::vector<std::string>& notes) {
  // Where the output goes is checked before anything is read (a symlink, a device or the
  // trace itself is refused) and again right before the rename.
  DP_RETURN_IF_ERROR(base::CheckOutputTarget(req.out, Inputs(req)));
  // Configuration first: a bad --pack must not cost a pass over a large trace. Without
  // --pack the pack is chosen from the names of the kernels exported, after the import.
  DP_ASSIGN_OR_RETURN(const io::Importer* importer,
                      io::ResolveImporter(req.trace.path, req.trace.format));
  std::unique_ptr<analysis::Pack> pack;
  if (!req.pack.empty()) {
    DP_ASSIGN_OR_RETURN(pack, packs::LoadPack(req.pack));
  }

  trace::StringPool names;
  std::optional<trace::ClockDomain> window_clock;
  std::vector<trace::Dispatch> dispatches;
  std::vector<trace::Range> ranges;
  trace::ImportedTrace info;
  report::ChromeTraceInput in;
  if (req.decode_window) {
    // The window summarize cuts: the same stage (pipeline/window_stage.h).
    trace::PhaseMarks log_marks;
    if (!req.log.empty()) {
      DP_ASSIGN_OR_RETURN(const trace::BenchLog log, io::ParseBenchLog(req.log));
      log_marks = log.marks;
    }
    DP_ASSIGN_OR_RETURN(pipeline::WindowedTrace t,
                        pipeline::ImportWindow(req.trace, *importer, log_marks, req.log, names));
    analysis::DecodeWindow& window = t.window;
    // The check summarize makes on the same window.
    pipeline::AddOverlapDiagnostics(req.trace.path, window.dispatches, window.lo, window.hi,
                                    t.info.diagnostics);
    dispatches = std::move(window.dispatches);
    window_clock = window.clock;  // the clock the marks chose, for a trace that does not say
    for (const trace::Range& r : t.info.ranges) {
      if (r.end >= window.lo && r.start <= window.hi) ranges.push_back(r);
    }
    in.other_data = {{"window", "decode"},
                     {"window_lo_ns", std::to_string(window.lo)},
                     {"window_hi_ns", std::to_string(window.hi)}};
    info = std::move(t.info);
  } else {
    DP_ASSIGN_OR_RETURN(pipeline::WholeTrace t, pipeline::ImportWhole(req.trace, *importer, names));
    dispatches = std::move(t.dispatches);
    std::stable_sort(
        dispatches.begin(), dispatches.end(),
        [](const trace::Dispatch& a, const trace::Dispatch& b) { return a.start < b.start; });
    // Summarize's overlap check, per device over its whole span.
    const auto check = [&](std::span<const trace::Dispatch> list) {
      trace::TimestampNs hi = list.front().end;
      for (const trace::Dispatch& d : list) hi = std::max(hi, d.end);
      pipeline::AddOverlapDiagnostics(req.trace.path, list, list.front().start, hi,
                                      t.info.diagnostics);
    };
    const bool one_device = std::all_of(
        dispatches.begin(), dispatches.end(),
        [&](const trace::Dispatch& d) { return d.device == dispatches.front().device; });
    if (!dispatches.empty() && one_device) {
      check(dispatches);
    } else if (!dispatches.empty()) {
      std::map<int16_t, std::vector<trace::Dispatch>> per_device;
      for (const trace::Dispatch& d : dispatches) per_device[d.device].push_back(d);
      for (const auto& [device, list] : per_device) check(list);
    }
    ranges = t.info.ranges;
    in.other_data = {{"window", "all"}};
    info = std::move(t.info);
  }
  // A trace whose import found an error (a dangling string id, ...) gets no timeline, as it
  // gets no summary: exit 65 and nothing written.
  DP_RETURN_IF_ERROR(pipeline::ErrorDiagnostic(req.trace.path, info.diagnostics));
  if (!pack) {
    const packs::PackChoice choice =
        packs::DefaultPackFor(packs::KernelNamesOf(dispatches, names),
                              std::string(importer->name()) +
                                  (packs::FormatDefaultFor(importer->default_pack(),
                                                           info.runtime) != importer->default_pack()
                                       ? " (HIP)"
                                       : ""),
                              packs::FormatDefaultFor(importer->default_pack(), info.runtime));
    notes.push_back(choice.note);
    DP_ASSIGN_OR_RETURN(pack, packs::LoadPack(choice.pack));
  }
  const pipeline::LaunchContext launches = pipeline::JoinLaunches(dispatches, info, req.trace.path);
  in.dispatches = dispatches;
  in.names = &names;
  in.launch_thread = launches.thread;
  in.launch_time = launches.time;
  in.ranges = ranges;
  in.pack = pack.get();
  // The trace's file name only: the output must not depend on where the trace lies.
  in.other_data.insert(in.other_data.begin(),
                       {{"source", std::filesystem::path(req.trace.path).filename().string()},
                        {"format", std::string(importer->name())},
                        {"clock", pipeline::ClockText(info, window_clock)},
                        {"pack", pack->name()}});
  return report::WriteChromeTraceFile(req.out, in, Inputs(req));
}

}  // namespace

int ExportMain(int argc, char** argv) {
  ExportRequest req;
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
    return ReportError(kName, base::UsageError(e.what(), "see decodeprof export --help"));
  }
  if (device >= 0) req.trace.device = device;
  req.decode_window = window == "decode";

  std::vector<std::string> notes;
  auto stats = RunExport(req, notes);
  for (const std::string& note : notes) {
    std::fprintf(stderr, "decodeprof: %s: %s\n", kName, note.c_str());
  }
  if (!stats.ok()) return ReportError(kName, stats.status());
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
