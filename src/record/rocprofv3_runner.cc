#include "src/record/rocprofv3_runner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <string_view>

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

}  // namespace

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
  const std::string dir = options.output + ".rocprofv3";
  std::vector<std::string> argv = {rocprofv3,
                                   "--kernel-trace",
                                   "--hip-graph-trace",
                                   "--stats",
                                   "-f",
                                   "csv",
                                   "-d",
                                   dir,
                                   "-o",
                                   "trace",
                                   "--"};
  argv.insert(argv.end(), options.command.begin(), options.command.end());
  DP_ASSIGN_OR_RETURN(CommandResult result, RunCommand(argv, CurrentEnvironment(), ""));
  const std::string csv = dir + "/trace_kernel_trace.csv";
  if (::access(csv.c_str(), F_OK) != 0) {
    *conversion =
        base::IoError(csv, "rocprofv3 wrote no kernel trace", "see rocprofv3's messages above");
  } else if (*conversion = CheckRecordOutput(options); conversion->ok()) {
    // Checked again: the command ran for a while, and the conversion writes in place.
    *conversion = ConvertRocprofv3Csv(csv, options.output).status();
  }
  return result;
}

}  // namespace decodeprof::record
