// decodeprof::pipeline — what the jobs that read a trace share (summarize, kernels, export):
// reading a trace through its importer (whole, or into the window stage, window_stage.h),
// the device check, and the kernel → launch join of the window. Nothing here names a format:
// what differs between formats is what their importers say (clock, ranges, parts).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/analysis/summary.h"
#include "src/analysis/window.h"
#include "src/base/status.h"
#include "src/io/importer.h"
#include "src/pipeline/window_spec.h"
#include "src/pipeline/window_stage.h"
#include "src/trace/phase_marks.h"
#include "src/trace/trace.h"

namespace decodeprof::pipeline {

// A trace read whole: every dispatch in source order.
struct WholeTrace {
  trace::ImportedTrace info;
  trace::DispatchVector dispatches;
};

// Reads the whole trace through `importer` (dispatches of request.device only, when given),
// then checks its devices (CheckDevices). Errors: the importer's; the device check's.
base::StatusOr<WholeTrace> ImportWhole(const TraceRequest& request, const io::Importer& importer,
                                       trace::StringPool& names);

// The checks every import gets, whatever the format: the first impossible dispatch
// (trace::CountingSink: negative start, longer than a day) is an error at its line or record;
// a trace without any dispatch is an error naming the trace; then CheckDevices. Examples of
// the importer's diagnostics without a file get the trace's path.
base::Status CheckImported(const TraceRequest& request, const io::Importer& importer,
                           trace::ImportedTrace& info);

// A multi-device trace is never merged into one GPU: without --device it is an error (kData)
// listing each device with its dispatch count; a --device the trace does not have is one too.
// With --device on a multi-device trace, diagnostic devices_in_trace is counted.
base::Status CheckDevices(const TraceRequest& request, trace::ImportedTrace& info);

// Reads the trace and cuts its window (window_stage.h, CutWindow). With a log and a format
// that carries no ranges, the marks are known before the trace is read: an importer with a
// several-thread import streams its parts straight into window collectors (the seed's time
// cut), so memory is bounded by the window; otherwise the trace is read in one pass into
// spools (memory, then a temporary file) that the window stage reads again. Errors: the
// importer's, the device check's, and the window stage's.
base::StatusOr<WindowedTrace> ImportWindow(const TraceRequest& request,
                                           const io::Importer& importer,
                                           const trace::PhaseMarks& log_marks,
                                           const std::string& log_path, trace::StringPool& names);

// The kernel → launch join for `dispatches`: the launching thread and the launch call's start
// per dispatch (thread 0 and analysis::kUnknownLaunch where none matches); both empty when the
// trace has no launch calls, or when `per_dispatch` is false (only the count is wanted). Counts
// launch_not_found into `info.diagnostics`.
struct LaunchContext {
  std::vector<uint64_t> thread;
  std::vector<trace::TimestampNs> time;
};
LaunchContext JoinLaunches(std::span<const trace::Dispatch> dispatches, trace::ImportedTrace& info,
                           const std::string& path, bool per_dispatch = true);

// A GPU runs at most 128 kernels at once (CUDA's limit since compute capability 3.5); a
// decode rarely more than a few. The durations of `dispatches` (start order, one device), each
// clipped to [lo, hi], over the time at least one runs: above 128 times is the error
// dispatches_overlap_impossible (timestamps that cannot be right), above 8 the warning
// dispatches_overlap, added to `diag` naming `trace`. Summarize checks its window, export what
// it exports.
void AddOverlapDiagnostics(const std::string& trace, std::span<const trace::Dispatch> dispatches,
                           trace::TimestampNs lo, trace::TimestampNs hi, trace::Diagnostics& diag);

// The first diagnostic of error severity in `diagnostics` as a kData status naming its file
// (else `path`), as summarize reports it: "<meaning> (<code>, <count>)". OK when none.
base::Status ErrorDiagnostic(const std::string& path, const trace::Diagnostics& diagnostics);

// The clock a job reports: the trace's, else the one the window chose, else "unknown".
std::string ClockText(const trace::ImportedTrace& info,
                      std::optional<trace::ClockDomain> window_clock = std::nullopt);

}  // namespace decodeprof::pipeline
