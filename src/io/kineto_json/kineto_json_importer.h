// Importer of PyTorch profiler (Kineto) traces: the Chrome-trace JSON that libkineto writes
// (`torch.profiler.profile(...).export_chrome_trace()`, vLLM / SGLang / TRT-LLM profiler
// dumps; reference/trace-formats.md section 5). Part of decodeprof_io; depends on trace, base
// and io_common's JsonStream (simdjson On-Demand; nlohmann-json for the errors of malformed
// files).
//
// Layout read: a top-level object with `traceEvents` (an array of event objects) and, before
// it, `baseTimeNanoseconds`; every other top-level key (`schemaVersion`, `deviceProperties`,
// `distributedInfo`, ...) is skipped. A top-level array is read as the event list itself (the
// Chrome trace "JSON array format"). The file is streamed (src/io/common/json_stream.h): memory
// holds a window of about 2 MB plus what is returned, never the file or a document tree, so
// traces of GBs are fine. A gzip, zstd or xz-compressed file (`*.pt.trace.json.gz`, told by its
// magic bytes) is decompressed as it is read (src/io/common/input_stream.h).
//
// Time: complete events (`"ph": "X"`) carry `ts` and `dur` in microseconds relative to
// baseTimeNanoseconds. They are converted exactly from their decimal text (libkineto writes
// three decimals, i.e. whole nanoseconds; more decimals are rounded half away from zero, an
// exponent is allowed): start = base + ns(ts), end = start + ns(dur). The base is applied only
// when it comes before the first event (libkineto's order); a trace that puts it after the
// events, or has none (older traces), keeps every time relative to it, consistently.
// Kineto's clock is the host's wall clock (CLOCK_REALTIME), not a bench log's monotonic or
// boottime clock, so phase marks come from annotation ranges inside the trace.
//
// Events used, by `cat` (only `"ph": "X"` events):
//   kernel                      → a Dispatch: name (a name left mangled, "_Z...", is
//                                 demangled), start, end, grid = product of max(v, 1) over
//                                 args.grid [x, y, z] (0 when the event has no grid); `line` =
//                                 1-based position among the streamed dispatches, in file order.
//   gpu_memcpy, gpu_memset      → counted; streamed as dispatches only when asked for, named as
//                                 the native importer names them ("[CUDA memcpy Host-to-Device]",
//                                 ... "[CUDA memcpy]", "[CUDA memset]", from Kineto's "Memcpy
//                                 HtoD (...)" / "Memset (...)" names); "[HIP memcpy ...]" /
//                                 "[HIP memset]" in a trace of PyTorch on ROCm (a top-level
//                                 roctracer_version, hip_runtime_version or hip_driver_version,
//                                 or a hip* launch call, before the copy).
//   cuda_runtime, cuda_driver   → launch calls (trace::ApiCall: name, ts, dur, |tid|,
//                                 args.correlation), when args.correlation is non-zero.
// Dispatches carry args.correlation, args.device and args.stream (0 when absent).
//   user_annotation             → a trace::Range (record_function / torch.cuda.nvtx ranges on
//                                 the CPU: phase marks and op-path ranges); thread = `tid`.
// Every other event (cpu_op, python_function, gpu_user_annotation, ac2g flows, metadata, ...)
// is skipped and counted by category. The legacy capitalised categories of PyTorch 1.x
// ("Kernel", "Memcpy", "Memset", "Runtime") are read as their modern names.
// Threads: an integer `tid` is its absolute value (libkineto writes |tid|); a string `tid`
// is hashed, so the ranges and launches of one named thread still meet.
//
// Errors:
//   kIo,   where = path: missing or unreadable file.
//   kData, where = "<path>:byte <N>", N = 0-based offset of the event's opening '{' (the
//     message ends with "(line L)"): a traceEvents element that is not an object; a used event
//     without `name`, `ts` or `dur`, or with one of the wrong JSON type; a negative `dur`
//     ("end before start"); a time beyond int64 nanoseconds.
//   kData, where = "<path>:byte <N>", N = 0-based offset of the byte the parser stopped at (the
//     file's size when it ends too early): malformed or truncated JSON ("malformed JSON: " and
//     the parser's message, which gives line and column).
//   the errors of a compressed file (src/io/common/input_stream.h: corrupt or truncated
//     gzip / zstd / xz data, where = "<path>:byte <N>" in the compressed file); the byte
//     offsets of the errors above count the decompressed JSON.
//   kData, where = path: the top level is not an object or array; an object without a
//     `traceEvents` array ("not a Chrome/Kineto trace").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/status.h"
#include "src/io/importer.h"
#include "src/trace/dispatch.h"
#include "src/trace/dispatch_sink.h"
#include "src/trace/range.h"
#include "src/trace/string_pool.h"

namespace decodeprof::io {

struct KinetoImport {
  std::optional<int64_t> base_time_ns;  // baseTimeNanoseconds, when the trace has it
  bool base_time_applied = false;       // false: times are relative to the base (see above)
  // user_annotation ranges, by start, then depth. depth = nesting depth on the range's thread
  // (0 = outermost), from the ranges' own intervals (ties: the longer range is outer).
  std::vector<trace::Range> ranges;
  int64_t events = 0;        // elements of traceEvents
  int64_t kernels = 0;       // kernel events (all streamed)
  int64_t memory_ops = 0;    // gpu_memcpy + gpu_memset events (streamed only if asked for)
  int64_t launch_calls = 0;  // cuda_runtime / cuda_driver events with a nonzero correlation
  std::map<std::string, int64_t> skipped;  // unused events by `cat` ("" = no cat)
  // torch.profiler's distributedInfo (a process of a torch.distributed job): rank and
  // world_size; also set as the model's ImportedTrace::rank.
  std::optional<trace::RankInfo> rank;
};

struct KinetoImportOptions {
  // Also stream gpu_memcpy / gpu_memset events as dispatches (named as above).
  bool memory_ops_as_dispatches = false;
  // The read window's size (0: JsonStream::kWindow). Only tests and fuzzers change it: the
  // result is the same for every size.
  size_t window_bytes = 0;
};

// The plug-in (registered in src/io/builtin_importers.inc): kernels and memory operations
// stream into the model, launch calls and ranges are its tables; clock realtime (session when
// the base time is missing or comes after the events, diagnostic base_time_after_events);
// skipped events are counted as events_skipped.
const Importer& KinetoJsonImporter();

// Reads the trace at `path` into `builder` and returns the importer's own counts.
base::StatusOr<KinetoImport> ImportKinetoJson(const std::string& path, trace::TraceBuilder& builder,
                                              const KinetoImportOptions& options = {});

// Reads the trace at `path`, streams its dispatches into `sink` (names interned into
// `names`) and returns everything else.
base::StatusOr<KinetoImport> ImportKinetoJson(const std::string& path, trace::StringPool& names,
                                              trace::DispatchSink& sink,
                                              const KinetoImportOptions& options = {});

// The same over a trace held in memory; `source_name` stands for the path in errors.
base::StatusOr<KinetoImport> ImportKinetoJsonText(std::string_view text,
                                                  const std::string& source_name,
                                                  trace::StringPool& names,
                                                  trace::DispatchSink& sink,
                                                  const KinetoImportOptions& options = {});

// True if `head` (the first bytes of a file; a few KB are enough for libkineto's header)
// looks like a Chrome/Kineto trace: its first non-space byte is '{' and `traceEvents` or
// `schemaVersion` occurs in it, or it is '[' followed by '{' (the array format). (A compressed
// file's probe head is its decompressed start: src/io/common/file_probe.h.)
bool LooksLikeKinetoJson(std::string_view head);

// Microseconds as decimal text (a JSON number: optional '-', digits, optional fraction and
// exponent) → nanoseconds, exactly; digits below a nanosecond are rounded half away from zero.
// nullopt when it is not such a number or the result does not fit in int64.
std::optional<int64_t> MicrosecondsTextToNs(std::string_view text);

}  // namespace decodeprof::io
