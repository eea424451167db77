// decodeprof::pipeline — what the jobs that read a trace share (summarize, export): the
// format of a trace file, the buffered import of the formats whose phase marks are only known
// once the whole trace was read (native, Kineto), and the choice between a bench log's
// [phase] marks and the trace's annotation ranges.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/status.h"
#include "src/trace/dispatch.h"
#include "src/trace/phase_marks.h"
#include "src/trace/range.h"
#include "src/trace/string_pool.h"

namespace decodeprof::pipeline {

enum class TraceFormat { kAuto, kRocprofv3Csv, kNative, kKinetoJson };

// Parses "auto", "rocprofv3-csv", "native", "kineto-json"; nullopt for anything else.
// kAuto sniffs the file's first bytes: SQLite → native; a JSON object naming traceEvents or
// schemaVersion within its first 64 KB, a JSON array of objects or a gzip file →
// kineto-json (the importer explains a compressed file); anything else → rocprofv3-csv.
std::optional<TraceFormat> ParseTraceFormat(std::string_view text);

// `format`, or for kAuto the format sniffed from the file's first 64 KB (ParseTraceFormat).
// Errors: the file cannot be read (kNotFound / kIo).
base::StatusOr<TraceFormat> ResolveTraceFormat(const std::string& path, TraceFormat format);

// The --format value naming a format ("rocprofv3-csv", "native", "kineto-json").
const char* TraceFormatName(TraceFormat format);

// The built-in pack for a format: mlx-rocm for rocprofv3 traces, pytorch-cuda otherwise.
const char* DefaultPackFor(TraceFormat format);

// The note a job prints when it picked DefaultPackFor(format) on the user's behalf:
// "pack <name> (the default for <format> traces; --pack overrides)".
std::string DefaultPackNote(TraceFormat format);

// A native or Kineto trace read whole: dispatches in file order (Dispatch::line = 1-based
// record index), the launch context per dispatch indexed by line - 1 (empty when the trace has
// none), the annotation ranges, the trace's clock (nullopt: unknown; Kineto: wall clock).
struct BufferedTrace {
  std::vector<trace::Dispatch> dispatches;
  std::vector<uint64_t> launch_thread;
  std::vector<trace::TimestampNs> launch_time;
  std::vector<trace::Range> ranges;
  std::optional<trace::ClockDomain> clock;
  int64_t dropped_records = 0;  // native: records the recorder lost
  bool complete = true;         // native: the recorder closed the file
};

// Imports a kNative or kKinetoJson trace (any other format is an internal error).
// `memory_ops`: memcpy/memset become dispatches too. Errors: the importers'.
base::StatusOr<BufferedTrace> ImportBuffered(const std::string& path, TraceFormat format,
                                             trace::StringPool& names, bool memory_ops = false);

// Where the decode window's phase marks come from.
struct MarkChoice {
  trace::PhaseMarks marks;
  std::string source;            // the file they came from (for error messages)
  std::optional<int64_t> steps;  // decode steps counted from step ranges
};

// The trace side of the choice: its path, the clock of its ranges and the range names.
struct RangeSource {
  std::string trace_path;
  trace::ClockDomain clock = trace::ClockDomain::kMonotonic;
  std::string decode_range;  // "" = decodeprof:decode
  std::string step_range;    // "" = decodeprof:step
};

// `log_marks_first`: the log's marks (when there are any) win over the ranges (native
// traces, recorded on the log's clocks); otherwise the ranges win and the log's marks serve
// only a trace without a decode range (Kineto: wall clock). Errors: neither source gives
// marks (the ranges' error, which names the trace and the missing range).
base::StatusOr<MarkChoice> ChooseMarks(const trace::PhaseMarks& log_marks,
                                       const std::string& log_path,
                                       std::span<const trace::Range> ranges,
                                       const trace::StringPool& names, const RangeSource& source,
                                       bool log_marks_first);

}  // namespace decodeprof::pipeline
