#include "src/pipeline/summarize_run.h"

#include <deque>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/analysis/range_index.h"
#include "src/analysis/window.h"
#include "src/base/file_io.h"
#include "src/io/bench_log/bench_log.h"
#include "src/io/kineto_json/kineto_json_importer.h"
#include "src/io/native/native_importer.h"
#include "src/io/rocprofv3_csv/rocprofv3_csv_importer.h"
#include "src/packs/pack_loader.h"
#include "src/report/dispatch_csv.h"
#include "src/report/kernel_csv.h"
#include "src/report/summary_json.h"

namespace decodeprof::pipeline {
namespace {

struct ModelInfo {
  std::optional<analysis::ModelConfig> config;
  bool model_type_present = false;
};

// DIR/config.json's model_type and rope_scaling (rope_type, else type), when the file exists.
base::StatusOr<ModelInfo> ReadModelConfig(const std::string& model_dir) {
  ModelInfo info;
  if (model_dir.empty()) return info;
  const std::string path = (std::filesystem::path(model_dir) / "config.json").string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return info;
  DP_ASSIGN_OR_RETURN(const std::string text, base::ReadFile(path));
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return base::DataError(path, "malformed JSON at byte " + std::to_string(e.byte));
  }
  analysis::ModelConfig config;
  if (doc.is_object()) {
    if (auto it = doc.find("model_type"); it != doc.end() && it->is_string()) {
      config.model_type = it->get<std::string>();
      info.model_type_present = true;
    }
    if (auto rs = doc.find("rope_scaling"); rs != doc.end() && rs->is_object()) {
      for (const char* key : {"rope_type", "type"}) {
        if (auto t = rs->find(key); t != rs->end() && t->is_string()) {
          config.rope_type = t->get<std::string>();
          break;
        }
      }
    }
  }
  info.config = config;
  return info;
}

// A units table with no unit: packs without work units still get every other figure.
class NoUnits : public analysis::UnitTable {
 public:
  const std::vector<analysis::Unit>& units() const override { return units_; }
  analysis::UnitReach Reach(size_t, const analysis::ModelConfig&, bool) const override {
    return {};
  }

 private:
  std::vector<analysis::Unit> units_;
};

struct LoadedTrace {
  analysis::DecodeWindow window;
  bool has_grid = true;
  std::optional<int64_t> steps;       // decode steps counted from step ranges
  std::vector<std::string> warnings;  // data-quality problems, kept in the summary too
  // Launch context per window dispatch (empty when the trace has none) and the trace's
  // annotation ranges, for op_path rules.
  std::vector<uint64_t> launch_thread;
  std::vector<trace::TimestampNs> launch_time;
  std::unique_ptr<analysis::RangeIndex> ranges;
};

base::StatusOr<LoadedTrace> LoadRocprofv3(const SummarizeRequest& req, const trace::BenchLog& log,
                                          trace::StringPool& names) {
  if (req.log.empty()) {
    return base::UsageError("--log is required: a rocprofv3 trace carries no phase marks",
                            "pass the bench log with the [phase] lines");
  }
  // A large trace is parsed in parts on several threads; the collectors of the later parts are
  // appended to the first's, which gives what one collector over the whole file gives. The
  // reservations bound the rows by the bytes (a kernel-trace row takes well over 64).
  const auto rows_in = [](uintmax_t bytes) { return std::min<uintmax_t>(bytes / 64, 1u << 26); };
  analysis::WindowCollector collector(log.marks);
  std::optional<io::CsvPartsImport> imported;
  {
    std::error_code ec;
    const uintmax_t bytes = std::filesystem::file_size(req.trace, ec);
    if (!ec) collector.Reserve(rows_in(bytes));
    std::deque<analysis::WindowCollector> parts;
    const io::PartSinkFactory new_part = [&](size_t, int64_t part_bytes) {
      analysis::WindowCollector& part = parts.emplace_back(log.marks);
      part.Reserve(rows_in(static_cast<uintmax_t>(part_bytes)));
      return &part;
    };
    DP_ASSIGN_OR_RETURN(imported, io::ImportRocprofv3CsvInParts(req.trace, names, collector,
                                                                new_part, io::CsvSplitOptions()));
    for (const io::CsvLaterPart& part : imported->later) {
      collector.Merge(std::move(parts[part.index]),
                      [&part](trace::Dispatch& d) { part.Rebase(d); });
    }
  }
  LoadedTrace out;
  DP_ASSIGN_OR_RETURN(out.window, std::move(collector).Finish(req.log));
  out.has_grid = imported->stats.has_grid_columns;
  return out;
}

// Cuts the window out of a buffered trace (native and Kineto traces: their phase marks may
// come from annotation ranges, known only once the whole trace was read) and picks the launch
// context of the window's dispatches. `log_marks_first`: as ChooseMarks.
base::Status CutBufferedWindow(const SummarizeRequest& req, const trace::BenchLog& log,
                               const trace::StringPool& names, BufferedTrace buffered,
                               trace::ClockDomain clock, bool log_marks_first, LoadedTrace& out) {
  RangeSource source{req.trace, clock, req.decode_range, req.step_range};
  DP_ASSIGN_OR_RETURN(MarkChoice chosen, ChooseMarks(log.marks, req.log, buffered.ranges, names,
                                                     source, log_marks_first));
  out.steps = chosen.steps;
  out.ranges = std::make_unique<analysis::RangeIndex>(buffered.ranges);
  analysis::WindowCollector collector(chosen.marks);
  for (const trace::Dispatch& d : buffered.dispatches) collector.Add(d);
  buffered.dispatches = {};
  DP_ASSIGN_OR_RETURN(out.window, std::move(collector).Finish(chosen.source));
  if (!buffered.launch_time.empty()) {
    const size_t n = out.window.dispatches.size();
    out.launch_thread.assign(n, 0);
    out.launch_time.assign(n, analysis::kUnknownLaunch);
    for (size_t i = 0; i < n; ++i) {
      const size_t at = out.window.dispatches[i].line - size_t{1};
      if (at < buffered.launch_time.size()) {
        out.launch_thread[i] = buffered.launch_thread[at];
        out.launch_time[i] = buffered.launch_time[at];
      }
    }
  }
  return base::OkStatus();
}

base::StatusOr<LoadedTrace> LoadNative(const SummarizeRequest& req, const trace::BenchLog& log,
                                       trace::StringPool& names) {
  DP_ASSIGN_OR_RETURN(BufferedTrace native, ImportBuffered(req.trace, TraceFormat::kNative, names));
  LoadedTrace out;
  if (native.dropped_records > 0) {
    out.warnings.push_back("the recorder lost " + std::to_string(native.dropped_records) +
                           " records: the figures undercount");
  }
  if (!native.complete) {
    out.warnings.push_back(
        "the trace was not closed by its recorder (killed?): read up to its "
        "last commit");
  }
  static_assert(io::kUnknownLaunchTime == analysis::kUnknownLaunch);
  const trace::ClockDomain clock = native.clock.value_or(trace::ClockDomain::kMonotonic);
  DP_RETURN_IF_ERROR(CutBufferedWindow(req, log, names, std::move(native), clock,
                                       /*log_marks_first=*/true, out));
  out.has_grid = true;
  return out;
}

// Kineto times are wall-clock nanoseconds; the window is reported on the monotonic clock, as
// for native traces whose clock is unknown (the figures only use differences).
base::StatusOr<LoadedTrace> LoadKineto(const SummarizeRequest& req, const trace::BenchLog& log,
                                       trace::StringPool& names) {
  DP_ASSIGN_OR_RETURN(BufferedTrace kineto,
                      ImportBuffered(req.trace, TraceFormat::kKinetoJson, names));
  LoadedTrace out;
  static_assert(io::kKinetoUnknownLaunchTime == analysis::kUnknownLaunch);
  DP_RETURN_IF_ERROR(CutBufferedWindow(req, log, names, std::move(kineto),
                                       trace::ClockDomain::kMonotonic,
                                       /*log_marks_first=*/false, out));
  out.has_grid = true;
  return out;
}

base::Status WriteOutputs(const SummarizeRequest& req, const analysis::Summary& summary,
                          const analysis::DecodeWindow& window, const trace::StringPool& names,
                          const analysis::Attribution& attribution, const analysis::Pack& pack,
                          const analysis::UnitTable& units, std::vector<std::string>& written) {
  DP_RETURN_IF_ERROR(base::MakeDirs(req.out_dir));
  const std::filesystem::path out(req.out_dir);
  const auto undo = [&written](base::Status s) {
    for (const std::string& path : written) std::filesystem::remove(path);
    written.clear();
    return s;
  };
  const std::string kernels = (out / (req.name + "_decode_kernels.csv")).string();
  if (auto s = base::WriteFileAtomic(kernels, report::KernelCsvText(summary)); !s.ok()) {
    return undo(s);
  }
  written.push_back(kernels);
  if (req.emit_dispatches) {
    const std::string path = (out / (req.name + "_decode_dispatches.csv")).string();
    if (auto s = report::WriteDispatchCsv(path, window, names, attribution, pack, units); !s.ok()) {
      return undo(s);
    }
    written.push_back(path);
  }
  const std::string json = (out / (req.name + "_summary.json")).string();
  if (auto s = base::WriteFileAtomic(json, report::SummaryJsonText(summary)); !s.ok()) {
    return undo(s);
  }
  written.push_back(json);
  return base::OkStatus();
}

}  // namespace

base::StatusOr<SummarizeResult> RunSummarize(const SummarizeRequest& req) {
  SummarizeResult result;
  DP_ASSIGN_OR_RETURN(const TraceFormat format, ResolveTraceFormat(req.trace, req.format));

  // Configuration first: a bad pack must not cost a pass over a large trace.
  std::string pack_name = req.pack;
  if (pack_name.empty()) {
    pack_name = DefaultPackFor(format);
    result.notes.push_back(DefaultPackNote(format));
  }
  DP_ASSIGN_OR_RETURN(std::unique_ptr<analysis::Pack> pack, packs::LoadPack(pack_name));
  const std::string units_name = req.units.empty() ? packs::DefaultUnitsOf(*pack) : req.units;
  std::unique_ptr<analysis::UnitTable> units;
  if (units_name.empty()) {
    units = std::make_unique<NoUnits>();
  } else {
    DP_ASSIGN_OR_RETURN(units, packs::LoadUnits(units_name, *pack));
  }
  DP_ASSIGN_OR_RETURN(const ModelInfo model, ReadModelConfig(req.model_dir));
  trace::BenchLog log;
  if (!req.log.empty()) {
    DP_ASSIGN_OR_RETURN(log, io::ParseBenchLog(req.log));
  }
  std::optional<trace::BenchResults> plain;
  if (!req.plain_log.empty()) {
    DP_ASSIGN_OR_RETURN(const trace::BenchLog plain_log, io::ParseBenchLog(req.plain_log));
    plain = plain_log.results;
  }

  trace::StringPool names;
  LoadedTrace loaded;
  if (format == TraceFormat::kNative) {
    DP_ASSIGN_OR_RETURN(loaded, LoadNative(req, log, names));
  } else if (format == TraceFormat::kKinetoJson) {
    DP_ASSIGN_OR_RETURN(loaded, LoadKineto(req, log, names));
  } else {
    DP_ASSIGN_OR_RETURN(loaded, LoadRocprofv3(req, log, names));
  }

  trace::BenchResults profiled = log.results;
  // Generated tokens: the flag, else the log, else step ranges + 1 (the first token comes
  // from the prefill).
  if (req.generated_tokens) {
    profiled.generated_tokens = req.generated_tokens;
  } else if (!profiled.generated_tokens && loaded.steps) {
    profiled.generated_tokens = *loaded.steps + 1;
  }

  analysis::SummaryInputs in;
  in.name = req.name;
  in.temperature = req.temperature;
  in.window = &loaded.window;
  in.names = &names;
  in.has_grid = loaded.has_grid;
  in.pack = pack.get();
  in.units = units.get();
  in.pack_name = pack_name;
  in.units_name = units_name;
  in.profiled = profiled;
  in.plain = plain;
  in.model = model.config;
  in.model_type_present = model.model_type_present;
  in.launch_thread = loaded.launch_thread;
  in.launch_time = loaded.launch_time;
  in.ranges = loaded.ranges.get();
  const analysis::Attribution attribution = analysis::Attribute(in);
  DP_ASSIGN_OR_RETURN(result.summary, analysis::BuildSummary(in, attribution));
  for (std::string& w : loaded.warnings) result.summary.warnings.push_back(std::move(w));

  DP_RETURN_IF_ERROR(WriteOutputs(req, result.summary, loaded.window, names, attribution, *pack,
                                  *units, result.written));
  return result;
}

}  // namespace decodeprof::pipeline
