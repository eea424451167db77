// `decodeprof export --chrome-trace OUT --trace FILE`: a trace (native, rocprofv3 CSV or
// Kineto JSON) → report::WriteChromeTraceFile, the whole trace or its decode window.
//
// The trace is read through the importers summarize uses, with the same sniffing and the
// same sources of phase marks (pipeline/summarize_run.cc): for native and rocprofv3 traces
// the log's [phase] marks win over the trace's annotation ranges, for Kineto traces (wall
// clock) the ranges win and the log serves only a trace without a decode range.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/window.h"
#include "src/cli/subcommand.h"
#include "src/io/bench_log/bench_log.h"
#include "src/io/rocprofv3_csv/rocprofv3_csv_importer.h"
#include "src/packs/pack_loader.h"
#include "src/pipeline/trace_source.h"
#include "src/report/chrome_trace.h"

namespace decodeprof::cli {
namespace {

constexpr const char* kName = "export";
using pipeline::TraceFormat;

struct ExportRequest {
  std::string out;
  std::string trace;
  TraceFormat format = TraceFormat::kAuto;
  bool decode_window = false;
  std::string log;
  std::string pack;
  std::string decode_range;
  std::string step_range;
  bool memory_ops = false;
};

// A whole trace as read, before any window cut. Launch context is indexed by line - 1.
struct LoadedTrace {
  TraceFormat format = TraceFormat::kAuto;
  pipeline::BufferedTrace trace;
};

class VectorSink : public trace::DispatchSink {
 public:
  explicit VectorSink(std::vector<trace::Dispatch>& out) : out_(out) {}
  void Add(const trace::Dispatch& d) override { out_.push_back(d); }

 private:
  std::vector<trace::Dispatch>& out_;
};

base::StatusOr<LoadedTrace> Load(const ExportRequest& req, TraceFormat format,
                                 trace::StringPool& names) {
  LoadedTrace out;
  out.format = format;
  if (format == TraceFormat::kRocprofv3Csv) {
    VectorSink sink(out.trace.dispatches);
    DP_RETURN_IF_ERROR(io::ImportRocprofv3Csv(req.trace, names, sink).status());
    return out;
  }
  DP_ASSIGN_OR_RETURN(out.trace,
                      pipeline::ImportBuffered(req.trace, format, names, req.memory_ops));
  return out;
}

// The decode window: its bounds and dispatches (start order), marks chosen as summarize does:
// the log's [phase] marks win for native and rocprofv3 traces, the trace's ranges for Kineto.
base::StatusOr<analysis::DecodeWindow> CutDecodeWindow(const ExportRequest& req,
                                                       const LoadedTrace& t,
                                                       const trace::StringPool& names) {
  trace::PhaseMarks log_marks;
  if (!req.log.empty()) {
    DP_ASSIGN_OR_RETURN(const trace::BenchLog log, io::ParseBenchLog(req.log));
    log_marks = log.marks;
  }
  if (t.format == TraceFormat::kRocprofv3Csv && log_marks.empty()) {
    return base::UsageError(
        "--window decode needs --log for a rocprofv3 trace (it carries no "
        "phase marks)",
        "pass the bench log with the [phase] lines, or use --window all");
  }
  const pipeline::RangeSource source{req.trace,
                                     t.trace.clock.value_or(trace::ClockDomain::kMonotonic),
                                     req.decode_range, req.step_range};
  DP_ASSIGN_OR_RETURN(
      const pipeline::MarkChoice chosen,
      pipeline::ChooseMarks(log_marks, req.log, t.trace.ranges, names, source,
                            /*log_marks_first=*/t.format != TraceFormat::kKinetoJson));
  analysis::WindowCollector collector(chosen.marks);
  for (const trace::Dispatch& d : t.trace.dispatches) collector.Add(d);
  return std::move(collector).Finish(chosen.source);
}

std::string ClockText(const LoadedTrace& t) {
  if (t.format == TraceFormat::kKinetoJson) return "wall clock (Kineto)";
  if (!t.trace.clock) return "unknown";
  return trace::ClockName(*t.trace.clock);
}

base::StatusOr<report::ChromeTraceStats> RunExport(const ExportRequest& req,
                                                   std::vector<std::string>& notes) {
  // Configuration first: a bad pack must not cost a pass over a large trace. The default pack
  // needs the format, which sniffing gives cheaply.
  DP_ASSIGN_OR_RETURN(const TraceFormat format,
                      pipeline::ResolveTraceFormat(req.trace, req.format));
  std::string pack_name = req.pack;
  if (pack_name.empty()) {
    pack_name = pipeline::DefaultPackFor(format);
    notes.push_back(pipeline::DefaultPackNote(format));
  }
  DP_ASSIGN_OR_RETURN(const std::unique_ptr<analysis::Pack> pack, packs::LoadPack(pack_name));

  trace::StringPool names;
  DP_ASSIGN_OR_RETURN(LoadedTrace t, Load(req, format, names));

  std::vector<trace::Dispatch> dispatches;
  std::vector<trace::Range> ranges;
  report::ChromeTraceInput in;
  if (req.decode_window) {
    DP_ASSIGN_OR_RETURN(analysis::DecodeWindow window, CutDecodeWindow(req, t, names));
    dispatches = std::move(window.dispatches);
    if (!t.trace.clock) t.trace.clock = window.clock;  // the clock the log's marks chose
    for (const trace::Range& r : t.trace.ranges) {
      if (r.end >= window.lo && r.start <= window.hi) ranges.push_back(r);
    }
    in.other_data = {{"window", "decode"},
                     {"window_lo_ns", std::to_string(window.lo)},
                     {"window_hi_ns", std::to_string(window.hi)}};
  } else {
    dispatches = std::move(t.trace.dispatches);
    std::stable_sort(
        dispatches.begin(), dispatches.end(),
        [](const trace::Dispatch& a, const trace::Dispatch& b) { return a.start < b.start; });
    ranges = std::move(t.trace.ranges);
    in.other_data = {{"window", "all"}};
  }
  std::vector<uint64_t> launch_thread;
  std::vector<trace::TimestampNs> launch_time;
  if (!t.trace.launch_time.empty()) {
    launch_thread.assign(dispatches.size(), 0);
    launch_time.assign(dispatches.size(), analysis::kUnknownLaunch);
    for (size_t i = 0; i < dispatches.size(); ++i) {
      const size_t at = dispatches[i].line - size_t{1};
      if (at < t.trace.launch_time.size()) {
        launch_thread[i] = t.trace.launch_thread[at];
        launch_time[i] = t.trace.launch_time[at];
      }
    }
  }
  in.dispatches = dispatches;
  in.names = &names;
  in.launch_thread = launch_thread;
  in.launch_time = launch_time;
  in.ranges = ranges;
  in.pack = pack.get();
  // The trace's file name only: the output must not depend on where the trace lies.
  in.other_data.insert(in.other_data.begin(),
                       {{"source", std::filesystem::path(req.trace).filename().string()},
                        {"format", pipeline::TraceFormatName(t.format)},
                        {"clock", ClockText(t)},
                        {"pack", pack->name()}});
  return report::WriteChromeTraceFile(req.out, in);
}

}  // namespace

int ExportMain(int argc, char** argv) {
  ExportRequest req;
  std::string format = "auto";
  std::string window = "all";
  CLI::App app{
      "Write a trace as a timeline in the Chrome trace event format, to open in\n"
      "ui.perfetto.dev or chrome://tracing: kernels on a GPU track (coloured and tagged by\n"
      "their class in the pack), the host gaps between them, the annotation ranges and the\n"
      "launch calls on their CPU threads.",
      "decodeprof export"};
  app.add_option("--chrome-trace", req.out, "output file (JSON; written atomically)")->required();
  app.add_option("--trace", req.trace,
                 "kernel trace: a native .sqlite file, rocprofv3 kernel_trace.csv or a "
                 "torch.profiler (Kineto) .json")
      ->required();
  app.add_option("--format", format, "trace format: auto|native|rocprofv3-csv|kineto-json")
      ->capture_default_str();
  app.add_option("--window", window,
                 "all: the whole trace; decode: the decode window only (marks from the "
                 "trace's decodeprof:decode range or --log)")
      ->capture_default_str();
  app.add_option("--log", req.log, "bench log whose [phase] marks cut the decode window");
  app.add_option("--pack", req.pack,
                 "rule pack for the kernel classes: built-in name or .toml file (default: "
                 "mlx-rocm for rocprofv3, pytorch-cuda for native and Kineto traces)");
  app.add_option("--decode-range", req.decode_range,
                 "annotation range marking the decode loop (default decodeprof:decode)");
  app.add_option("--step-range", req.step_range,
                 "annotation range marking one decode step (default decodeprof:step)");
  app.add_flag("--memory-ops", req.memory_ops,
               "also show memcpy/memset operations (native and Kineto traces)");
  app.footer(
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
  const auto parsed_format = pipeline::ParseTraceFormat(format);
  if (!parsed_format) {
    return ReportError(kName, base::UsageError("unknown --format " + format,
                                               "use auto, native, rocprofv3-csv or kineto-json"));
  }
  req.format = *parsed_format;
  if (window != "all" && window != "decode") {
    return ReportError(kName, base::UsageError("unknown --window " + window, "use all or decode"));
  }
  req.decode_window = window == "decode";

  std::vector<std::string> notes;
  auto stats = RunExport(req, notes);
  for (const std::string& note : notes) {
    std::fprintf(stderr, "decodeprof: %s: %s\n", kName, note.c_str());
  }
  if (!stats.ok()) return ReportError(kName, stats.status());
  std::printf(
      "%s: %lld dispatches, %lld host gaps, %lld ranges, %lld launches on %lld CPU "
      "threads (window %s)\n",
      std::filesystem::path(req.out).filename().c_str(), static_cast<long long>(stats->dispatches),
      static_cast<long long>(stats->host_gaps), static_cast<long long>(stats->ranges),
      static_cast<long long>(stats->launches), static_cast<long long>(stats->cpu_threads),
      window.c_str());
  return 0;
}

}  // namespace decodeprof::cli
