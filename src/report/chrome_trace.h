// A timeline of a trace in the Chrome trace event format (`decodeprof export --chrome-trace`),
// to open in ui.perfetto.dev or chrome://tracing.
//
// Layout of the file (one event per line, keys in a fixed order):
//   {"traceEvents":[
//   <event>,
//   ...
//   <event>
//   ],
//   "displayTimeUnit":"ns",
//   "otherData":{<key>:<string>, ...}}
//
// Processes and threads (named by "M" metadata events, which come first):
//   pid 1 "GPU": the dispatches. The model has no stream or device, so every dispatch goes on
//     one track, tid 1 "GPU"; a dispatch that starts before an earlier one ended (concurrent
//     kernels) goes on the first overlap lane free at its start, tid 1 + k "GPU overlap k",
//     so that no two slices of a track overlap. tid 0 "host gaps": one slice per interval in
//     which no dispatch runs, between the end of everything before a dispatch and its start.
//   pid 2 "CPU": one thread per OS thread id that opened a range or launched a dispatch,
//     named "CPU thread <tid>", tid = the OS thread id.
//
// Events, after the metadata:
//   ranges, in the given order: a nesting range (depth >= 0) as a complete event
//     {"name","cat":"range","ph":"X","ts","dur","pid":2,"tid"}; a start/end range
//     (depth -1, which need not nest) as an async pair "b"/"e" with "id" = its index among
//     the ranges, so that it never breaks the nesting of its thread's slices;
//   then per dispatch, in the given order: the host gap before it (if any)
//     {"name":"host gap","cat":"gap","ph":"X",...,"pid":1,"tid":0}, the dispatch
//     {"name","cat":"kernel","ph":"X","ts","dur","pid":1,"tid", ["cname",]
//      "args":{"index", ["class",] ["grid",] ["launch_thread","launch_to_start_us"]}}
//     and, when its launch is known, an instant on its launching thread
//     {"name":"launch","cat":"launch","ph":"i","s":"t","ts","pid":2,"tid",
//      "args":{"kernel","index"}}.
//   "index" is the dispatch's 0-based position in the given order. "class" is the pack's class
//   (when a pack is given) and "cname" one of the trace viewer's reserved colour names chosen
//   by class (chrome://tracing uses it; Perfetto colours by name). "grid" is omitted when 0
//   (no grid in the trace).
//
// Time: "ts" and "dur" are microseconds written with exactly three decimals, so nanoseconds
// are exact (integer arithmetic, no floating point). "ts" is relative to the origin: the
// earliest time written (dispatch start, range start or launch time), given in otherData as
// "origin_ns" (the trace's host clock, nanoseconds) so the absolute times can be recovered.
// Names are JSON-escaped as Python's json.dumps does (base::JsonQuote: non-ASCII as \uXXXX).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/analysis/pack.h"
#include "src/base/status.h"
#include "src/trace/dispatch.h"
#include "src/trace/range.h"
#include "src/trace/string_pool.h"

namespace decodeprof::report {

struct ChromeTraceInput {
  // Dispatches by start (ties in any order the caller chose; that order is kept).
  std::span<const trace::Dispatch> dispatches;
  // Names of dispatches and ranges. Required.
  const trace::StringPool* names = nullptr;
  // Per dispatch (same length as `dispatches`), or both empty: the launching OS thread and
  // the launch call's start on the dispatches' clock; analysis::kUnknownLaunch = not recorded.
  std::span<const uint64_t> launch_thread;
  std::span<const trace::TimestampNs> launch_time;
  // Annotation ranges (NVTX / roctx / Kineto user_annotation), by start then depth.
  std::span<const trace::Range> ranges;
  // Classifies the dispatches (null: no "class" arg and no colour).
  const analysis::Pack* pack = nullptr;
  // Extra otherData entries, written as strings in this order after "origin_ns".
  std::vector<std::pair<std::string, std::string>> other_data;
};

struct ChromeTraceStats {
  int64_t dispatches = 0;
  int64_t host_gaps = 0;
  int64_t ranges = 0;
  int64_t launches = 0;
  int64_t gpu_lanes = 0;    // 1 + overlap lanes (0 without dispatches)
  int64_t cpu_threads = 0;  // distinct OS threads of ranges and launches
  trace::TimestampNs origin_ns = 0;
};

// "<sign><us>.<3 digits>" for a signed nanosecond count: 1234567 → "1234.567", -5 → "-0.005".
std::string MicrosText(int64_t ns);

// Writes the trace to `out` in pieces (one or a few events per call); never builds the whole
// text. Launch spans whose sizes differ from `dispatches` are ignored.
ChromeTraceStats WriteChromeTrace(const ChromeTraceInput& in,
                                  const std::function<void(std::string_view)>& out);

// Streams the trace to `path` (base::kStdout: standard output) through a buffered
// base::AtomicFileWriter: the file appears, complete, only on success, and replaces only a
// regular file that is none of `inputs`. Errors: those of base::CheckOutputTarget (a
// symlink, device, directory... at `path`, or an input); kIo naming the path (cannot create,
// write or rename).
base::StatusOr<ChromeTraceStats> WriteChromeTraceFile(const std::string& path,
                                                      const ChromeTraceInput& in,
                                                      const std::vector<std::string>& inputs = {});

}  // namespace decodeprof::report
