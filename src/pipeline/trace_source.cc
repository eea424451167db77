#include "src/pipeline/trace_source.h"

#include <utility>

#include "src/analysis/range_marks.h"
#include "src/base/file_io.h"
#include "src/io/kineto_json/kineto_json_importer.h"
#include "src/io/native/native_importer.h"

namespace decodeprof::pipeline {
namespace {

// Keeps every dispatch: for formats whose phase marks are only known after the dispatches
// were read (annotation ranges inside the trace).
class BufferSink : public trace::DispatchSink {
 public:
  explicit BufferSink(std::vector<trace::Dispatch>& out) : out_(out) {}
  void Add(const trace::Dispatch& d) override { out_.push_back(d); }

 private:
  std::vector<trace::Dispatch>& out_;
};

}  // namespace

std::optional<TraceFormat> ParseTraceFormat(std::string_view text) {
  if (text == "auto") return TraceFormat::kAuto;
  if (text == "rocprofv3-csv") return TraceFormat::kRocprofv3Csv;
  if (text == "native") return TraceFormat::kNative;
  if (text == "kineto-json") return TraceFormat::kKinetoJson;
  return std::nullopt;
}

base::StatusOr<TraceFormat> ResolveTraceFormat(const std::string& path, TraceFormat format) {
  if (format != TraceFormat::kAuto) return format;
  // 64 KB: libkineto writes deviceProperties (about 450 bytes per GPU) and the profiler's
  // metadata before traceEvents.
  DP_ASSIGN_OR_RETURN(const std::string head, base::ReadFilePrefix(path, 64 * 1024));
  if (io::LooksLikeSqlite(head)) return TraceFormat::kNative;
  if (io::LooksLikeKinetoJson(head)) return TraceFormat::kKinetoJson;
  return TraceFormat::kRocprofv3Csv;
}

const char* TraceFormatName(TraceFormat format) {
  switch (format) {
    case TraceFormat::kNative:
      return "native";
    case TraceFormat::kKinetoJson:
      return "kineto-json";
    case TraceFormat::kRocprofv3Csv:
    case TraceFormat::kAuto:
      break;
  }
  return "rocprofv3-csv";
}

const char* DefaultPackFor(TraceFormat format) {
  return format == TraceFormat::kRocprofv3Csv ? "mlx-rocm" : "pytorch-cuda";
}

std::string DefaultPackNote(TraceFormat format) {
  return std::string("pack ") + DefaultPackFor(format) + " (the default for " +
         TraceFormatName(format) + " traces; --pack overrides)";
}

base::StatusOr<BufferedTrace> ImportBuffered(const std::string& path, TraceFormat format,
                                             trace::StringPool& names, bool memory_ops) {
  BufferedTrace out;
  BufferSink sink(out.dispatches);
  if (format == TraceFormat::kNative) {
    io::NativeImportOptions options;
    options.memory_ops_as_dispatches = memory_ops;
    DP_ASSIGN_OR_RETURN(io::NativeImport native, io::ImportNative(path, names, sink, options));
    out.clock = native.clock;
    out.ranges.reserve(native.ranges.size());
    for (const io::NativeRange& r : native.ranges) {
      out.ranges.push_back(trace::Range{r.name, r.start, r.end, r.thread, r.depth});
    }
    out.launch_thread = std::move(native.launch_thread);
    out.launch_time = std::move(native.launch_time);
    out.dropped_records = native.dropped_records;
    out.complete = native.complete;
    return out;
  }
  if (format == TraceFormat::kKinetoJson) {
    io::KinetoImportOptions options;
    options.memory_ops_as_dispatches = memory_ops;
    DP_ASSIGN_OR_RETURN(io::KinetoImport kineto, io::ImportKinetoJson(path, names, sink, options));
    out.ranges = std::move(kineto.ranges);
    out.launch_thread = std::move(kineto.launch_thread);
    out.launch_time = std::move(kineto.launch_time);
    return out;
  }
  return base::InternalError(path, "ImportBuffered reads native and Kineto traces only");
}

base::StatusOr<MarkChoice> ChooseMarks(const trace::PhaseMarks& log_marks,
                                       const std::string& log_path,
                                       std::span<const trace::Range> ranges,
                                       const trace::StringPool& names, const RangeSource& source,
                                       bool log_marks_first) {
  MarkChoice out;
  if (log_marks_first && !log_marks.empty()) {
    out.marks = log_marks;
    out.source = log_path;
    return out;
  }
  analysis::RangeNames range_names;
  if (!source.decode_range.empty()) range_names.decode = source.decode_range;
  if (!source.step_range.empty()) range_names.step = source.step_range;
  auto from_ranges =
      analysis::MarksFromRanges(ranges, names, source.clock, range_names, source.trace_path);
  if (from_ranges.ok()) {
    out.marks = std::move(from_ranges->marks);
    out.source = source.trace_path;
    if (from_ranges->steps > 0) out.steps = from_ranges->steps;
    return out;
  }
  if (!log_marks.empty()) {
    out.marks = log_marks;
    out.source = log_path;
    return out;
  }
  return from_ranges.status();
}

}  // namespace decodeprof::pipeline
