#include "src/pipeline/export_run.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "src/analysis/window.h"
#include "src/base/file_io.h"
#include "src/io/bench_log/bench_log.h"
#include "src/io/importer_registry.h"
#include "src/packs/default_pack.h"
#include "src/packs/pack_loader.h"

namespace decodeprof::pipeline {
namespace {

// The files export reads: its output must be none of them.
std::vector<std::string> Inputs(const ExportRequest& req) {
  return {req.trace.path, req.log, req.pack};
}

// What the timeline shows: the dispatches, the ranges and the import's details.
struct Exported {
  trace::DispatchVector dispatches;
  std::vector<trace::Range> ranges;
  trace::ImportedTrace info;
  std::optional<trace::ClockDomain> window_clock;
};

// The window summarize cuts: the same stage (window_stage.h).
base::Status ExportWindow(const ExportRequest& req, const io::Importer& importer,
                          trace::StringPool& names, Exported& out, report::ChromeTraceInput& in) {
  trace::PhaseMarks log_marks;
  if (!req.log.empty()) {
    DP_ASSIGN_OR_RETURN(const trace::BenchLog log, io::ParseBenchLog(req.log));
    log_marks = log.marks;
  }
  DP_ASSIGN_OR_RETURN(WindowedTrace t,
                      ImportWindow(req.trace, importer, log_marks, req.log, names));
  analysis::DecodeWindow& window = t.window;
  // The check summarize makes on the same window.
  AddOverlapDiagnostics(req.trace.path, window.dispatches, window.lo, window.hi,
                        t.info.diagnostics);
  out.dispatches = std::move(window.dispatches);
  out.window_clock = window.clock;  // the clock the marks chose, for a trace that does not say
  for (const trace::Range& r : t.info.ranges) {
    if (r.end >= window.lo && r.start <= window.hi) out.ranges.push_back(r);
  }
  in.other_data = {{"window", "decode"},
                   {"window_lo_ns", std::to_string(window.lo)},
                   {"window_hi_ns", std::to_string(window.hi)}};
  out.info = std::move(t.info);
  return base::OkStatus();
}

// The whole trace, in start order, with summarize's overlap check per device over its span.
base::Status ExportWhole(const ExportRequest& req, const io::Importer& importer,
                         trace::StringPool& names, Exported& out, report::ChromeTraceInput& in) {
  DP_ASSIGN_OR_RETURN(WholeTrace t, ImportWhole(req.trace, importer, names));
  trace::DispatchVector& dispatches = out.dispatches;
  dispatches = std::move(t.dispatches);
  std::stable_sort(
      dispatches.begin(), dispatches.end(),
      [](const trace::Dispatch& a, const trace::Dispatch& b) { return a.start < b.start; });
  const auto check = [&](std::span<const trace::Dispatch> list) {
    trace::TimestampNs hi = list.front().end;
    for (const trace::Dispatch& d : list) hi = std::max(hi, d.end);
    AddOverlapDiagnostics(req.trace.path, list, list.front().start, hi, t.info.diagnostics);
  };
  const bool one_device =
      std::all_of(dispatches.begin(), dispatches.end(),
                  [&](const trace::Dispatch& d) { return d.device == dispatches.front().device; });
  if (!dispatches.empty() && one_device) {
    check(dispatches);
  } else if (!dispatches.empty()) {
    std::map<int16_t, trace::DispatchVector> per_device;
    for (const trace::Dispatch& d : dispatches) per_device[d.device].push_back(d);
    for (const auto& [device, list] : per_device) check(list);
  }
  out.ranges = t.info.ranges;
  in.other_data = {{"window", "all"}};
  out.info = std::move(t.info);
  return base::OkStatus();
}

// Without --pack: the pack for the exported kernel names (packs::DefaultPackFor).
base::StatusOr<std::unique_ptr<analysis::Pack>> DefaultPack(const io::Importer& importer,
                                                            const Exported& e,
                                                            const trace::StringPool& names,
                                                            std::vector<std::string>& notes) {
  const packs::PackChoice choice =
      packs::DefaultPackFor(packs::KernelNamesOf(e.dispatches, names),
                            std::string(importer.name()) +
                                (packs::FormatDefaultFor(importer.default_pack(), e.info.runtime) !=
                                         importer.default_pack()
                                     ? " (HIP)"
                                     : ""),
                            packs::FormatDefaultFor(importer.default_pack(), e.info.runtime));
  notes.push_back(choice.note);
  return packs::LoadPack(choice.pack);
}

}  // namespace

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
  Exported e;
  report::ChromeTraceInput in;
  DP_RETURN_IF_ERROR(req.decode_window ? ExportWindow(req, *importer, names, e, in)
                                       : ExportWhole(req, *importer, names, e, in));
  // A trace whose import found an error (a dangling string id, ...) gets no timeline, as it
  // gets no summary: exit 65 and nothing written.
  DP_RETURN_IF_ERROR(ErrorDiagnostic(req.trace.path, e.info.diagnostics));
  if (!pack) {
    DP_ASSIGN_OR_RETURN(pack, DefaultPack(*importer, e, names, notes));
  }
  const LaunchContext launches = JoinLaunches(e.dispatches, e.info, req.trace.path);
  in.dispatches = e.dispatches;
  in.names = &names;
  in.launch_thread = launches.thread;
  in.launch_time = launches.time;
  in.ranges = e.ranges;
  in.pack = pack.get();
  // The trace's file name only: the output must not depend on where the trace lies.
  in.other_data.insert(in.other_data.begin(),
                       {{"source", std::filesystem::path(req.trace.path).filename().string()},
                        {"format", std::string(importer->name())},
                        {"clock", ClockText(e.info, e.window_clock)},
                        {"pack", pack->name()}});
  return report::WriteChromeTraceFile(req.out, in, Inputs(req));
}

}  // namespace decodeprof::pipeline
