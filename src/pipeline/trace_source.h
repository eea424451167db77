// decodeprof::pipeline — what the jobs that read a trace share (summarize, export): finding
// the importer of a file, reading the trace through it (whole, or only its decode window),
// the device check, the choice between a bench log's [phase] marks and the trace's
// annotation ranges, and the kernel → launch join of the window. Nothing here names a
// format: what differs between formats is what their importers say (clock, ranges, parts).
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
#include "src/trace/phase_marks.h"
#include "src/trace/trace.h"

namespace decodeprof::pipeline {

// The trace side of a job's request.
struct TraceRequest {
  std::string path;
  std::string format;                            // "" or "auto": recognized from the file
  std::optional<int32_t> device;                 // --device; required when the trace has several
  std::string decode_range;                      // "" = decodeprof:decode
  std::string step_range;                        // "" = decodeprof:step
  WindowSpec window{WindowSpec::Kind::kDecode};  // --window (default: the decode loop)
};

// A trace read whole: every dispatch in source order.
struct WholeTrace {
  trace::ImportedTrace info;
  std::vector<trace::Dispatch> dispatches;
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

// Where the decode window's phase marks come from, and how they were found.
struct MarkChoice {
  trace::PhaseMarks marks;
  std::string source;            // the file they came from (for error messages)
  std::optional<int64_t> steps;  // decode steps counted from step ranges or found
  std::string window_source;     // analysis::Summary::window_source
  analysis::WindowEvidence evidence;
};

// The window's marks, in this order (ARCHITECTURE.md "Finding the decode loop"):
//  1. --window all / START..END;
//  2. the log's marks, when the trace's clock is one a bench log prints (or is unknown and the
//     marks pick it);
//  3. the trace's decode range (--decode-range, a glob; default decodeprof:decode) with its
//     step ranges; a --decode-range the trace lacks is an error;
//  4. without a decode range, the span of the step ranges (--step-range, default
//     decodeprof:step), when there are any;
//  5. the log's marks on any other clock (realtime, session);
//  6. the decode loop found in the dispatches (analysis::FindDecodeLoop).
// Errors (kData): nothing gives a window — the finder's message, with the names of the
// ranges that repeat as a hint for --step-range.
base::StatusOr<MarkChoice> ChooseMarks(const trace::PhaseMarks& log_marks,
                                       const std::string& log_path, const WholeTrace& whole,
                                       const trace::StringPool& names, const TraceRequest& request);

// A trace cut to its decode window.
struct WindowedTrace {
  trace::ImportedTrace info;
  analysis::DecodeWindow window;
  std::optional<int64_t> steps;  // decode steps counted from step ranges or found
  std::string marks_source;      // the file whose marks cut the window (log or trace)
  std::string window_source;     // MarkChoice::window_source
  analysis::WindowEvidence evidence;
};

// Reads the trace and cuts its window (ChooseMarks). With a log and a format that carries no
// ranges, the marks are known before the trace is read: an importer with a several-thread
// import streams its parts straight into window collectors, so memory is bounded by the
// window; otherwise the trace is read whole first. Errors: the importer's, the device check's, the
// marks' and the window's.
base::StatusOr<WindowedTrace> ImportWindow(const TraceRequest& request,
                                           const io::Importer& importer,
                                           const trace::PhaseMarks& log_marks,
                                           const std::string& log_path, trace::StringPool& names);

// The checks of a cut window, the same for every format: a dispatch recorded twice (the same
// start, end, name, device, stream, kind and correlation) is an error at the second's
// position; dispatches longer than the whole window are counted (dispatch_longer_than_window);
// names with invalid UTF-8 or control characters are repaired in place (invalid bytes become
// U+FFFD, control characters other than tab and newline "\xNN": no escape sequence reaches
// a terminal) and counted (names_repaired).
base::Status CheckWindow(const TraceRequest& request, const io::Importer& importer,
                         analysis::DecodeWindow& window, trace::StringPool& names,
                         trace::ImportedTrace& info);

// `text` with invalid UTF-8 bytes replaced by U+FFFD and control characters (C0, DEL) by
// "\xNN"; nullopt when it needs no repair.
std::optional<std::string> RepairedName(std::string_view text);

// The kernel → launch join for `dispatches`: the launching thread and the launch call's start
// per dispatch (thread 0 and analysis::kUnknownLaunch where none matches); both empty when the
// trace has no launch calls. Counts launch_not_found into `info.diagnostics`.
struct LaunchContext {
  std::vector<uint64_t> thread;
  std::vector<trace::TimestampNs> time;
};
LaunchContext JoinLaunches(std::span<const trace::Dispatch> dispatches, trace::ImportedTrace& info,
                           const std::string& path);

// The clock a job reports: the trace's, else the one the window chose, else "unknown".
std::string ClockText(const trace::ImportedTrace& info,
                      std::optional<trace::ClockDomain> window_clock = std::nullopt);

}  // namespace decodeprof::pipeline
