// decodeprof — where decode time goes, per GPU kernel and per token.
#include <cstdio>
#include <cstring>
#include <string_view>

#include "src/base/temporary_files.h"
#include "src/cli/subcommand.h"

namespace {

using decodeprof::cli::Subcommand;

constexpr Subcommand kSubcommands[] = {
    {"summarize", "cut the decode window of a kernel trace and attribute its time",
     decodeprof::cli::SummarizeMain},
    {"report", "rank the work units across summaries: Do first, trust flags, the tables",
     decodeprof::cli::ReportMain},
    {"classify", "print the class of kernel names under a rule pack",
     decodeprof::cli::ClassifyMain},
    {"guard", "run a command only while the GPU is quiet, and prove it",
     decodeprof::cli::GuardMain},
    {"record", "run a command with a kernel recorder (CUPTI or rocprofv3)",
     decodeprof::cli::RecordMain},
    {"profile", "guard + plain run + recorded run + summarize, per model and sampling setting",
     decodeprof::cli::ProfileMain},
    {"diff", "compare two runs' summaries (before/after an optimization)",
     decodeprof::cli::DiffMain},
    {"export", "write a trace as a timeline for Perfetto (Chrome trace JSON)",
     decodeprof::cli::ExportMain},
    {"kernels",
     "print what a trace (or a command) dispatched, per kernel or class; --expect checks",
     decodeprof::cli::KernelsMain},
    {"bandwidth", "measure the GPU's memory bandwidth (the speed of light's divisor)",
     decodeprof::cli::BandwidthMain},
};

void PrintUsage(std::FILE* out) {
  std::fprintf(out,
               "usage: decodeprof <subcommand> [options]\n\n"
               "decodeprof tells where decode time goes, per GPU kernel and per token.\n\n"
               "subcommands:\n");
  for (const auto& sub : kSubcommands) {
    std::fprintf(out, "  %-10.*s %.*s\n", static_cast<int>(sub.name.size()), sub.name.data(),
                 static_cast<int>(sub.summary.size()), sub.summary.data());
  }
  std::fprintf(out, "\nRun `decodeprof <subcommand> --help` for the options of one.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  const std::string_view first = argv[1];
  if (first == "-h" || first == "--help" || first == "help") {
    PrintUsage(stdout);
    return 0;
  }
  if (first == "--version") {
    std::printf("decodeprof %s\n", DECODEPROF_VERSION);
    return 0;
  }
  for (const auto& sub : kSubcommands) {
    if (sub.name != first) continue;
    // SIGINT, SIGTERM or SIGHUP remove the temporary files of unfinished outputs, then end the
    // process by the signal. The guard keeps the default dispositions (it writes no output
    // file; its command must see them as they were); profile and record install their own
    // while they run children.
    if (sub.name != "guard") decodeprof::base::InstallTemporaryFileCleanup();
    return sub.main(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "decodeprof: unknown subcommand '%s'\n", argv[1]);
  PrintUsage(stderr);
  return 2;
}
