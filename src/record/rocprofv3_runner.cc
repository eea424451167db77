#include "src/record/rocprofv3_runner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "src/base/subprocess.h"
#include "src/io/rocpd/rocpd_importer.h"
#include "src/io/rocprofv3_csv/rocprofv3_csv_importer.h"
#include "src/native_format/native_writer.h"

namespace decodeprof::record {
namespace {

namespace nf = native_format;

bool IsExecutable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Writes each dispatch as a kernel row; the first write error stops the writes and is kept.
class WriterSink : public trace::DispatchSink {
 public:
  WriterSink(nf::NativeWriter& writer, const trace::StringPool& names)
      : writer_(writer), names_(names) {}
  void Add(const trace::Dispatch& d) override {
    if (!status_.ok()) return;
    auto name = writer_.Intern(names_.Get(d.name));
    if (!name.ok()) {
      status_ = name.status();
      return;
    }
    nf::KernelRow row;
    row.start_ns = d.start;
    row.end_ns = d.end;
    row.name = *name;
    row.mangled = *name;
    row.grid[0] = static_cast<int32_t>(std::min<int64_t>(d.grid, INT32_MAX));
    row.grid[1] = row.grid[2] = d.grid == 0 ? 0 : 1;
    status_ = writer_.AddKernel(row);
  }
  const base::Status& status() const { return status_; }

 private:
  nf::NativeWriter& writer_;
  const trace::StringPool& names_;
  base::Status status_;
};

// What `argv` prints on stdout and stderr (at most `max_bytes`), or nullopt when it cannot
// run, exits with a failure or takes longer than `timeout_secs` (it is then killed).
std::optional<std::string> Output(const std::vector<std::string>& argv, size_t max_bytes,
                                  double timeout_secs) {
  base::SubprocessOptions options;
  options.argv = argv;
  options.search_path = false;
  options.in = base::ChildStream::kNull;
  options.out = base::ChildStream::kCapture;
  options.err = base::ChildStream::kAsStdout;
  options.max_output_bytes = max_bytes;
  base::StatusOr<std::unique_ptr<base::Subprocess>> child = base::Subprocess::Start(options);
  if (!child.ok()) return std::nullopt;
  base::StatusOr<base::ExitStatus> ended = (*child)->Wait(timeout_secs);
  if (!(*child)->exec_status().ok() || !ended.ok() || ended->timed_out || ended->status != 0) {
    return std::nullopt;
  }
  return std::move(ended->output);
}

// The native copy kind of a memory copy's model name (trace::MemcpyName), 0 for others.
int32_t CopyKind(std::string_view name) { return trace::MemcpyKindOf(name); }

// Writes each dispatch of a rocpd import as a kernel or memory-operation row, correlations
// renumbered densely (Renumber); the first write error stops the writes and is kept.
class RocpdWriterSink : public trace::DispatchSink {
 public:
  RocpdWriterSink(nf::NativeWriter& writer, const trace::StringPool& names)
      : writer_(writer), names_(names) {}
  void Add(const trace::Dispatch& d) override {
    if (!status_.ok()) return;
    auto name = writer_.Intern(names_.Get(d.name));
    if (!name.ok()) {
      status_ = name.status();
      return;
    }
    if (d.kind == trace::DispatchKind::kKernel) {
      nf::KernelRow row;
      row.start_ns = d.start;
      row.end_ns = d.end;
      row.name = row.mangled = *name;
      row.device = static_cast<uint32_t>(std::max<int16_t>(d.device, 0));
      row.stream = d.stream;
      row.correlation = Renumber(d.correlation);
      row.grid[0] = static_cast<int32_t>(std::min<int64_t>(d.grid, INT32_MAX));
      row.grid[1] = row.grid[2] = 1;
      status_ = writer_.AddKernel(row);
    } else {
      nf::MemoryOpRow row;
      row.start_ns = d.start;
      row.end_ns = d.end;
      row.kind = d.kind == trace::DispatchKind::kMemset ? nf::MemoryOpKind::kMemset
                                                        : nf::MemoryOpKind::kMemcpy;
      row.copy_kind = row.kind == nf::MemoryOpKind::kMemcpy ? CopyKind(names_.Get(d.name)) : 0;
      row.device = static_cast<uint32_t>(std::max<int16_t>(d.device, 0));
      row.stream = d.stream;
      row.correlation = Renumber(d.correlation);
      status_ = writer_.AddMemoryOp(row);
    }
  }
  // A dense 32-bit id for a model correlation (0 stays 0).
  uint32_t Renumber(uint64_t correlation) {
    if (correlation == 0) return 0;
    auto [it, added] = ids_.emplace(correlation, 0);
    if (added) it->second = static_cast<uint32_t>(std::min<size_t>(ids_.size(), UINT32_MAX));
    return it->second;
  }
  const base::Status& status() const { return status_; }

 private:
  nf::NativeWriter& writer_;
  const trace::StringPool& names_;
  std::unordered_map<uint64_t, uint32_t> ids_;
  base::Status status_;
};

}  // namespace

base::StatusOr<Rocprofv3Output> Rocprofv3OutputFor(const std::string& rocprofv3,
                                                   const GetEnvFn& getenv) {
  if (const char* forced = getenv("DECODEPROF_ROCPROFV3_FORMAT")) {
    const std::string_view value(forced);
    if (value == "csv") return Rocprofv3Output::kCsv;
    if (value == "rocpd") return Rocprofv3Output::kRocpd;
    return base::ConfigError("DECODEPROF_ROCPROFV3_FORMAT",
                             "must be csv or rocpd, not '" + std::string(value) + "'");
  }
  const std::optional<std::string> help =
      Output({rocprofv3, "--help"}, size_t{1} << 20, /*timeout_secs=*/30);
  return help && help->find("rocpd") != std::string::npos ? Rocprofv3Output::kRocpd
                                                          : Rocprofv3Output::kCsv;
}

std::vector<std::string> Rocprofv3Command(const std::string& rocprofv3, Rocprofv3Output format,
                                          const std::string& dir,
                                          const std::vector<std::string>& command) {
  std::vector<std::string> argv = {rocprofv3, "--kernel-trace", "--hip-graph-trace"};
  if (format == Rocprofv3Output::kRocpd) argv.push_back("--marker-trace");
  for (const char* arg : {"--stats", "-f"}) argv.push_back(arg);
  argv.push_back(format == Rocprofv3Output::kRocpd ? "rocpd" : "csv");
  for (const std::string& arg :
       {std::string("-d"), dir, std::string("-o"), std::string("trace"), std::string("--")}) {
    argv.push_back(arg);
  }
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

base::StatusOr<int64_t> ConvertRocpd(const std::string& db, const std::string& output) {
  DP_ASSIGN_OR_RETURN(auto writer, nf::NativeWriter::Create(output, "boottime",
                                                            "rocprofv3 (converted from rocpd)"));
  trace::StringPool names;
  RocpdWriterSink sink(*writer, names);
  trace::TraceBuilder builder(names, sink);
  DP_ASSIGN_OR_RETURN(const io::RocpdImport imported, io::ImportRocpd(db, builder));
  DP_RETURN_IF_ERROR(sink.status());
  const trace::ImportedTrace t = std::move(builder).Finish();
  for (const trace::Device& device : t.devices) {
    nf::DeviceRow row;
    row.id = static_cast<uint32_t>(std::max(device.id, 0));
    row.name = device.name;
    DP_RETURN_IF_ERROR(writer->AddDevice(row));
  }
  for (const trace::ApiCall& call : t.launches) {
    nf::ApiCallRow row;
    row.start_ns = call.start;
    row.end_ns = call.end;
    DP_ASSIGN_OR_RETURN(row.name, writer->Intern(names.Get(call.name)));
    row.thread = call.thread;
    row.correlation = sink.Renumber(call.correlation);
    DP_RETURN_IF_ERROR(writer->AddApiCall(row));
  }
  DP_ASSIGN_OR_RETURN(const nf::StringRef domain, writer->Intern(""));
  for (const trace::Range& range : t.ranges) {
    nf::RangeRow row;
    row.start_ns = range.start;
    row.end_ns = range.end;
    DP_ASSIGN_OR_RETURN(row.name, writer->Intern(names.Get(range.name)));
    row.domain = domain;
    row.thread = range.thread;
    row.depth = range.depth;
    row.kind = range.depth < 0 ? nf::RangeKind::kStartEnd : nf::RangeKind::kPushPop;
    DP_RETURN_IF_ERROR(writer->AddRange(row));
  }
  DP_RETURN_IF_ERROR(writer->SetMeta(nf::kMetaRecordingStatus, "ok"));
  DP_RETURN_IF_ERROR(writer->SetMeta("source", db));
  if (!imported.schema_version.empty()) {
    DP_RETURN_IF_ERROR(writer->SetMeta("rocpd_schema_version", imported.schema_version));
  }
  DP_RETURN_IF_ERROR(writer->Close());
  return imported.kernels + imported.memory_copies;
}

base::StatusOr<std::string> FindRocprofv3(const GetEnvFn& getenv) {
  if (const char* explicit_path = getenv("ROCPROFV3"); explicit_path != nullptr) {
    if (IsExecutable(explicit_path)) return std::string(explicit_path);
    return base::ConfigError("ROCPROFV3", "rocprofv3 not found (set ROCPROFV3)");
  }
  if (const char* path = getenv("PATH")) {
    std::string_view rest(path);
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      const std::string dir(rest.substr(0, colon));
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
      const std::string candidate = (dir.empty() ? "." : dir) + "/rocprofv3";
      if (IsExecutable(candidate)) return candidate;
    }
  }
  if (IsExecutable("/opt/rocm/bin/rocprofv3")) return std::string("/opt/rocm/bin/rocprofv3");
  return base::ConfigError("", "rocprofv3 not found (set ROCPROFV3)");
}

base::StatusOr<int64_t> ConvertRocprofv3Csv(const std::string& csv, const std::string& output) {
  DP_ASSIGN_OR_RETURN(auto writer,
                      nf::NativeWriter::Create(output, "unknown", "rocprofv3 (converted)"));
  trace::StringPool names;
  WriterSink sink(*writer, names);
  DP_ASSIGN_OR_RETURN(io::CsvImportStats stats, io::ImportRocprofv3Csv(csv, names, sink));
  DP_RETURN_IF_ERROR(sink.status());
  DP_RETURN_IF_ERROR(writer->SetMeta(nf::kMetaRecordingStatus, "ok"));
  DP_RETURN_IF_ERROR(writer->SetMeta("source", csv));
  DP_RETURN_IF_ERROR(writer->Close());
  return stats.rows;
}

base::StatusOr<CommandResult> RecordWithRocprofv3(const RecordOptions& options,
                                                  const GetEnvFn& getenv,
                                                  base::Status* conversion) {
  DP_ASSIGN_OR_RETURN(const std::string rocprofv3, FindRocprofv3(getenv));
  DP_RETURN_IF_ERROR(CheckRecordOutput(options));
  DP_ASSIGN_OR_RETURN(const Rocprofv3Output format, Rocprofv3OutputFor(rocprofv3, getenv));
  const std::string dir = options.output + ".rocprofv3";
  DP_ASSIGN_OR_RETURN(CommandResult result,
                      RunCommand(Rocprofv3Command(rocprofv3, format, dir, options.command),
                                 CurrentEnvironment(), ""));
  const std::string db = dir + "/trace_results.db";
  const std::string csv = dir + "/trace_kernel_trace.csv";
  const bool rocpd = format == Rocprofv3Output::kRocpd && ::access(db.c_str(), F_OK) == 0;
  if (!rocpd && ::access(csv.c_str(), F_OK) != 0) {
    *conversion = format == Rocprofv3Output::kRocpd
                      ? base::IoError(db, "rocprofv3 wrote no rocpd database",
                                      "see rocprofv3's messages above; "
                                      "DECODEPROF_ROCPROFV3_FORMAT=csv asks it for CSV")
                      : base::IoError(csv, "rocprofv3 wrote no kernel trace",
                                      "see rocprofv3's messages above");
  } else if (*conversion = CheckRecordOutput(options); conversion->ok()) {
    // Checked again: the command ran for a while, and the conversion writes in place.
    *conversion = rocpd ? ConvertRocpd(db, options.output).status()
                        : ConvertRocprofv3Csv(csv, options.output).status();
  }
  return result;
}

}  // namespace decodeprof::record
