// `decodeprof summarize`: trace + bench log → summary JSON, kernel CSV, optional dispatch CSV.
// Parsing and printing only; the work is done by io, packs, analysis and report.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "src/analysis/summary.h"
#include "src/analysis/window.h"
#include "src/base/file_io.h"
#include "src/base/py_format.h"
#include "src/cli/subcommand.h"
#include "src/io/bench_log/bench_log.h"
#include "src/io/rocprofv3_csv/rocprofv3_csv_importer.h"
#include "src/packs/pack_loader.h"
#include "src/report/dispatch_csv.h"
#include "src/report/kernel_csv.h"
#include "src/report/summary_json.h"

namespace decodeprof::cli {
namespace {

constexpr const char* kName = "summarize";
constexpr const char* kDefaultRocmPack = "mlx-rocm";

struct Options {
  std::string trace;
  std::string format = "auto";
  std::string log;
  std::string plain_log;
  std::string model_dir;
  std::string pack;
  std::string units;
  std::string name;
  std::string out_dir;
  double temperature = 0.0;
  bool emit_dispatches = false;
};

struct ModelInfo {
  std::optional<analysis::ModelConfig> config;
  bool model_type_present = false;
};

// `--model-dir DIR`: DIR/config.json's model_type and rope_scaling, when the file exists.
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
    return base::DataError(path + ":byte " + std::to_string(e.byte), "malformed JSON");
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

// Python's str() of an optional float, as the seed's one-line report prints it.
std::string PyStr(const std::optional<double>& v) { return v ? base::PyRepr(*v) : "None"; }

base::Status Run(const Options& opt) {
  if (opt.format != "auto" && opt.format != "rocprofv3-csv") {
    return base::UsageError("--format " + opt.format + " is not supported by this build",
                            "supported: auto, rocprofv3-csv");
  }
  if (opt.log.empty()) {
    return base::UsageError("--log is required: a rocprofv3 trace carries no phase marks",
                            "pass the bench log with the [phase] lines");
  }
  // Configuration first: a bad pack must not cost a pass over a large trace.
  const std::string pack_name = opt.pack.empty() ? kDefaultRocmPack : opt.pack;
  if (opt.pack.empty()) {
    std::fprintf(stderr, "decodeprof: %s: pack %s (the default for rocprofv3 traces)\n", kName,
                 pack_name.c_str());
  }
  DP_ASSIGN_OR_RETURN(auto pack, packs::LoadPack(pack_name));
  const std::string units_name = opt.units.empty() ? packs::DefaultUnitsOf(*pack) : opt.units;
  if (units_name.empty()) {
    return base::UsageError("pack " + pack_name + " names no default units file",
                            "pass --units NAME|FILE");
  }
  DP_ASSIGN_OR_RETURN(auto units, packs::LoadUnits(units_name, *pack));
  DP_ASSIGN_OR_RETURN(const ModelInfo model, ReadModelConfig(opt.model_dir));
  DP_ASSIGN_OR_RETURN(const trace::BenchLog log, io::ParseBenchLog(opt.log));
  std::optional<trace::BenchResults> plain;
  if (!opt.plain_log.empty()) {
    DP_ASSIGN_OR_RETURN(const trace::BenchLog plain_log, io::ParseBenchLog(opt.plain_log));
    plain = plain_log.results;
  }

  trace::StringPool names;
  analysis::WindowCollector collector(log.marks);
  DP_ASSIGN_OR_RETURN(const io::CsvImportStats stats,
                      io::ImportRocprofv3Csv(opt.trace, names, collector));
  DP_ASSIGN_OR_RETURN(const analysis::DecodeWindow window, std::move(collector).Finish(opt.log));

  analysis::SummaryInputs in;
  in.name = opt.name;
  in.temperature = opt.temperature;
  in.window = &window;
  in.names = &names;
  in.has_grid = stats.has_grid_columns;
  in.pack = pack.get();
  in.units = units.get();
  in.pack_name = pack_name;
  in.units_name = units_name;
  in.profiled = log.results;
  in.plain = plain;
  in.model = model.config;
  in.model_type_present = model.model_type_present;
  const analysis::Attribution attribution = analysis::Attribute(in);
  DP_ASSIGN_OR_RETURN(const analysis::Summary summary, analysis::BuildSummary(in, attribution));

  // Everything is computed: only now touch the output directory.
  DP_RETURN_IF_ERROR(base::MakeDirs(opt.out_dir));
  const std::filesystem::path out(opt.out_dir);
  const std::string kernels_path = (out / (opt.name + "_decode_kernels.csv")).string();
  const std::string summary_path = (out / (opt.name + "_summary.json")).string();
  const std::string dispatches_path = (out / (opt.name + "_decode_dispatches.csv")).string();
  DP_RETURN_IF_ERROR(base::WriteFileAtomic(kernels_path, report::KernelCsvText(summary)));
  if (opt.emit_dispatches) {
    const base::Status s =
        report::WriteDispatchCsv(dispatches_path, window, names, attribution, *pack, *units);
    if (!s.ok()) {
      std::filesystem::remove(kernels_path);
      return s;
    }
  }
  const base::Status s = base::WriteFileAtomic(summary_path, report::SummaryJsonText(summary));
  if (!s.ok()) {
    std::filesystem::remove(kernels_path);
    if (opt.emit_dispatches) std::filesystem::remove(dispatches_path);
    return s;
  }

  for (const std::string& warning : summary.warnings) {
    std::fprintf(stderr, "decodeprof: %s: warning: %s\n", kName, warning.c_str());
  }
  std::printf("%s: %lld decode dispatches, %s GPU ms/token, %s host gap ms/token\n",
              opt.name.c_str(), static_cast<long long>(summary.decode_dispatches),
              PyStr(summary.gpu_ms_per_token).c_str(),
              PyStr(summary.host_gap_ms_per_token).c_str());
  return base::OkStatus();
}

}  // namespace

int SummarizeMain(int argc, char** argv) {
  Options opt;
  CLI::App app{
      "Cut the decode window of a kernel trace by the bench log's phase marks and attribute\n"
      "every dispatch and idle gap to kernels, classes, roles and work units.\n"
      "Writes <out-dir>/<name>_summary.json and <name>_decode_kernels.csv.",
      "decodeprof summarize"};
  app.add_option("--trace", opt.trace, "kernel trace (rocprofv3 kernel_trace.csv)")
      ->required();
  app.add_option("--format", opt.format, "trace format: auto|rocprofv3-csv")
      ->capture_default_str();
  app.add_option("--log", opt.log, "profiled bench log with [phase] marks and results");
  app.add_option("--plain-log", opt.plain_log, "unprofiled bench log (profiler-cost figures)");
  app.add_option("--model-dir", opt.model_dir, "model directory; its config.json gives "
                                               "model_type and rope_scaling");
  app.add_option("--pack", opt.pack, "rule pack: built-in name or .toml file "
                                     "(default: mlx-rocm for rocprofv3 traces)");
  app.add_option("--units", opt.units, "units file: built-in name or .toml file "
                                       "(default: the pack's default_units)");
  app.add_option("--name", opt.name, "run name, the prefix of the output files")->required();
  app.add_option("--out-dir", opt.out_dir, "output directory (created)")->required();
  app.add_option("--temperature", opt.temperature, "sampling temperature of the run")
      ->capture_default_str();
  app.add_flag("--emit-dispatches", opt.emit_dispatches,
               "also write <name>_decode_dispatches.csv, one row per decode dispatch");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return ReportError(kName, base::UsageError(e.what(), "see decodeprof summarize --help"));
  }
  const base::Status status = Run(opt);
  if (!status.ok()) return ReportError(kName, status);
  return 0;
}

}  // namespace decodeprof::cli
