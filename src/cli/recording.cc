#include "src/cli/recording.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "src/cli/subcommand.h"
#include "src/device/peak_bandwidth.h"
#include "src/native_format/native_writer.h"
#include "src/record/rocprofv3_runner.h"
#include "src/trace/diagnostics.h"

namespace decodeprof::cli {
namespace {

// One occurrence of a code of trace/diagnostics_list.h, in its message's words.
void Warn(std::string_view subcommand, const trace::DiagMessage& message) {
  std::fprintf(stderr, "%s\n", trace::DiagnosticLine(subcommand, message).c_str());
}

using trace::Message;
using trace::Msg;

using MetaEntries = std::vector<std::pair<std::string, std::string>>;

// `record --measure-bandwidth`: runs `decodeprof bandwidth -o TMP` (this binary, as a child:
// the CUDA driver never loads in this process, whose descriptors and threads CMD would
// inherit) and returns the measurement as meta entries; none, with a warning, when it fails.
// `interrupted` receives the signal that ended the measurement when it was SIGINT, SIGTERM,
// SIGHUP or SIGQUIT (a user stopping the recording: CMD is then not started).
MetaEntries MeasureBandwidthBeforeRecording(std::string_view subcommand, int& interrupted) {
  char exe[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    Warn(subcommand, Message<Msg::kBandwidthNoBinary>());
    return {};
  }
  exe[n] = '\0';
  const char* tmpdir = std::getenv("TMPDIR");
  std::string tmp = std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") +
                    "/decodeprof-bandwidth-XXXXXX.json";
  const int fd = ::mkstemps(tmp.data(), 5);
  if (fd < 0) {
    Warn(subcommand, Message<Msg::kBandwidthNoTemporary>(tmp, std::strerror(errno)));
    return {};
  }
  ::close(fd);
  const base::StatusOr<record::CommandResult> run = record::RunCommand(
      {exe, "bandwidth", "-o", tmp}, record::CurrentEnvironment(), /*root_pid_env=*/"");
  MetaEntries entries;
  if (!run.ok()) {
    Warn(subcommand, Message<Msg::kBandwidthFailed>(run.status().ToString()));
  } else if (run->term_signal == SIGINT || run->term_signal == SIGTERM ||
             run->term_signal == SIGHUP || run->term_signal == SIGQUIT) {
    interrupted = run->term_signal;
  } else if (run->status != 0) {
    Warn(subcommand, Message<Msg::kBandwidthExited>(run->status));
  } else if (auto meta = device::MeasurementMeta(tmp); !meta.ok()) {
    Warn(subcommand, Message<Msg::kBandwidthFailed>(meta.status().ToString()));
  } else {
    entries = std::move(*meta);
  }
  ::unlink(tmp.c_str());
  return entries;
}

}  // namespace

std::string ExeDir() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  std::string exe(path, static_cast<size_t>(n));
  const size_t slash = exe.rfind('/');
  return slash == std::string::npos ? "." : exe.substr(0, slash);
}

RecordingOutcome RecordCommand(std::string_view subcommand, const record::RecordOptions& options) {
  const record::GetEnvFn getenv = [](const char* name) { return std::getenv(name); };
  RecordingOutcome outcome;
  std::vector<trace::DiagMessage> warnings;
  base::Status conversion;
  MetaEntries peak_meta;
  // Measured only when the recording can go ahead (else RecordWith* says why at once).
  if (options.measure_bandwidth && record::CheckRecordOutput(options).ok()) {
    int interrupted = 0;
    peak_meta = MeasureBandwidthBeforeRecording(subcommand, interrupted);
    if (interrupted != 0) {
      Warn(subcommand, Message<Msg::kBandwidthStopped>(interrupted));
      outcome.status = 128 + interrupted;
      return outcome;
    }
  }
  base::StatusOr<record::CommandResult> result =
      options.backend == record::Backend::kCupti
          ? record::RecordWithCupti(options, ExeDir(), getenv, &warnings)
          : record::RecordWithRocprofv3(options, getenv, &conversion);
  for (const trace::DiagMessage& w : warnings) Warn(subcommand, w);
  if (!result.ok()) {
    outcome.status = ReportError(subcommand, result.status());
    return outcome;
  }
  if (!result->exec_error.empty()) {
    ReportError(subcommand, base::IoError(options.command[0], "cannot run: " + result->exec_error));
    outcome.status = result->status;
    return outcome;
  }
  outcome.command_ran = true;
  outcome.command_status = result->status;
  if (!peak_meta.empty() && ::access(options.output.c_str(), F_OK) == 0) {
    if (base::Status stored = native_format::SetMetaInFile(options.output, peak_meta);
        !stored.ok()) {
      Warn(subcommand, Message<Msg::kBandwidthNotKept>(stored.ToString()));
    }
  }

  base::Status check = conversion;
  if (check.ok()) {
    const auto summary = record::SummarizeTrace(options.output);
    check = record::CheckRecording(options.output, summary);
    if (summary.ok()) {
      std::fprintf(stderr, "decodeprof: %.*s: %s\n", static_cast<int>(subcommand.size()),
                   subcommand.data(), record::FormatSummary(options.output, *summary).c_str());
      if (summary->sample_steps > 1 && summary->only_range_periods == 0) {
        Warn(subcommand, summary->sample_steps_seen == 0
                             ? Message<Msg::kSampleRangeNeverOpened>(summary->sample_range)
                             : Message<Msg::kSampleStepsTooFew>(summary->sample_steps_seen));
      } else if (!summary->sample_time.empty() && summary->sample_periods == 0) {
        Warn(subcommand, Message<Msg::kSamplePeriodNeverBegan>(summary->sample_time));
      } else if (!summary->only_range.empty() && summary->only_range_periods == 0) {
        Warn(subcommand, summary->only_range_switch_failures > 0
                             ? Message<Msg::kOnlyRangeNotOpenedOrRefused>(summary->only_range)
                             : Message<Msg::kOnlyRangeNotOpened>(summary->only_range));
      } else if (summary->only_range_switch_failures > 0) {
        Warn(subcommand,
             Message<Msg::kOnlyRangeRefusedSwitches>(summary->only_range_switch_failures));
      }
      if (summary->dropped_records > 0) {
        Warn(subcommand, Message<Msg::kTraceLostRecords>(summary->dropped_records));
      }
    }
  }
  outcome.trace_ok = check.ok();
  if (result->status != 0) {  // CMD's own status wins; the trace's problem is still told
    if (!check.ok()) ReportError(subcommand, check);
    outcome.status = result->status;
    return outcome;
  }
  if (!check.ok()) outcome.status = ReportError(subcommand, check);
  return outcome;
}

}  // namespace decodeprof::cli
