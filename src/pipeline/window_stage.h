// decodeprof::pipeline — the window stage: the one place where a job's window is cut, for
// summarize, kernels and export alike, whatever the format (ARCHITECTURE.md "Finding the
// decode loop"). In order:
//   1. the marks: --window all / START..END; the bench log's [phase] marks (the seed's time
//      cut, spec 2.4); the trace's decode range, else its step ranges;
//   2. ranges projected onto the GPU: a range owns the GPU work launched inside it (the launch
//      call, by correlation id, starts inside the range; a graph launch brings all its
//      kernels), whenever that work runs — Nsight Systems' projection of NVTX ranges. A format
//      without launch calls keeps the time cut and says so (WindowEvidence::projection);
//   3. without marks, the engine's own step names (analysis/engine_steps.h: SGLang's
//      step[DECODE bs=32], vLLM's execute_*, TensorRT-LLM's _forward_step, ProfilerStep#N):
//      the longest run of its decode steps, with the table of its steps per kind;
//   4. without those, the decode loop found in the dispatches (analysis::FindDecodeLoop), with
//      its confidence;
//   5. the window checks (CheckWindow) and the window's diagnostics.
// Importers only stream into the trace model (trace_source.h reads a file into a
// TraceForWindow); nothing here names a format.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/analysis/engine_steps.h"
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

// Every dispatch (or launch call) of a trace in source order, as often as asked.
using DispatchFn = std::function<void(const trace::Dispatch&)>;
using DispatchReplay = std::function<base::Status(const DispatchFn&)>;
using LaunchFn = std::function<void(const trace::ApiCall&)>;
using LaunchReplay = std::function<base::Status(const LaunchFn&)>;

// A trace read for the window stage: what the import gave (ranges, devices, diagnostics; its
// `launches` are left empty — the stage keeps those of the window) and replays of its
// dispatches and launch calls (in memory, or from spools on disk).
struct TraceForWindow {
  trace::ImportedTrace info;
  DispatchReplay dispatches;
  LaunchReplay launches;
  int64_t dispatch_count = 0;
  // The earliest start and the latest end of `dispatches`, when the reader saw them go by:
  // --window all then needs no pass of its own over them.
  std::optional<std::pair<trace::TimestampNs, trace::TimestampNs>> span;
  // Set when the trace was read straight into memory (--window all: every dispatch is in the
  // window): `dispatches` and `launches` replay these, and the window takes them over instead
  // of copying them (after which they are empty).
  struct InMemory {
    trace::DispatchVector dispatches;
    std::vector<trace::ApiCall> launches;
  };
  std::shared_ptr<InMemory> in_memory;
};

// A trace cut to its window.
struct WindowedTrace {
  trace::ImportedTrace info;  // launches: those of the window's dispatches
  analysis::DecodeWindow window;
  std::optional<int64_t> steps;  // decode steps counted from step ranges or found
  std::string marks_source;      // the file whose marks cut the window (log or trace)
  std::string window_source;     // analysis::Summary::window_source
  analysis::WindowEvidence evidence;
  // The engine's steps when the window was cut by their names (window_source "engine-steps").
  std::optional<analysis::EngineSteps> engine_steps;
};

// Cuts the window of `t` (steps 1–5 above). Errors (kData): nothing gives a window — the
// finder's message naming the trace, with the range names that repeat as a hint; a
// --decode-range or --step-range the trace lacks; step names of two engines that disagree on
// the steps' kinds; the window's own (no dispatch inside, a dispatch recorded twice).
base::StatusOr<WindowedTrace> CutWindow(const TraceRequest& request, const io::Importer& importer,
                                        const trace::PhaseMarks& log_marks,
                                        const std::string& log_path, TraceForWindow t,
                                        trace::StringPool& names);

// The checks of a cut window, the same for every format: a dispatch recorded twice (the same
// start, end, name, device, stream, kind and correlation) is an error at the second's
// position; dispatches longer than the whole window are counted (dispatch_longer_than_window);
// names with invalid UTF-8 or control characters are repaired in place (invalid bytes become
// U+FFFD, control characters other than tab and newline "\xNN": no escape sequence reaches
// a terminal) and counted (names_repaired). Errors first (CheckWindowTimes): bounds outside
// [0, kMaxTimestampNs] or an end before the start; for a decode window, one that holds no
// kernel (only copies and memsets), whose dispatches all start at one time, or that reaches
// over a day (kMaxDispatchNs) before its first dispatch or after its last.
// With `span_of_dispatches` (a window that holds the whole trace: its bounds are its
// dispatches' earliest start and latest end) the window's lo and hi are set here, in the
// checks' own pass, and no dispatch can outlast it.
base::Status CheckWindowTimes(const TraceRequest& request, const analysis::DecodeWindow& window);
base::Status CheckWindow(const TraceRequest& request, const io::Importer& importer,
                         analysis::DecodeWindow& window, trace::StringPool& names,
                         trace::ImportedTrace& info, bool span_of_dispatches = false);

// `text` with invalid UTF-8 bytes replaced by U+FFFD and control characters (C0, DEL) by
// "\xNN"; nullopt when it needs no repair.
std::optional<std::string> RepairedName(std::string_view text);

}  // namespace decodeprof::pipeline
