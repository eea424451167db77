// The subcommands of the decodeprof binary. Each lives in <name>_subcommand.cc and only
// parses arguments and prints; the work is done by the library modules.
#pragma once

#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <string_view>

#include "src/base/status.h"
#include "src/trace/diagnostics.h"

namespace decodeprof::cli {

// Entry point of a subcommand: argv[0] is the subcommand name. Returns the exit status.
using SubcommandMain = int (*)(int argc, char** argv);

struct Subcommand {
  std::string_view name;
  std::string_view summary;  // one line for `decodeprof --help`
  SubcommandMain main;
};

int SummarizeMain(int argc, char** argv);
int ReportMain(int argc, char** argv);
int ClassifyMain(int argc, char** argv);
int GuardMain(int argc, char** argv);
int RecordMain(int argc, char** argv);
int ProfileMain(int argc, char** argv);
int DiffMain(int argc, char** argv);
int ExportMain(int argc, char** argv);
int KernelsMain(int argc, char** argv);
int BandwidthMain(int argc, char** argv);

// Prints `decodeprof: <subcommand>: <where>: <what>` (and the hint on its own line) to stderr
// and returns the status's exit code.
int ReportError(std::string_view subcommand, const base::Status& status);

// Prints the diagnostics of warning severity or worse as a short table on stderr:
//   decodeprof: summarize: 2 diagnostics (the summary's "diagnostics"):
//     data-loss  cupti_dropped_records  12  CUPTI dropped activity records ... [trace.sqlite]
// `listed_in` is the parenthesis after the count ("" leaves it out).
void PrintDiagnostics(std::string_view subcommand, std::span<const trace::DiagnosticEntry> entries,
                      std::string_view listed_in = "the summary's \"diagnostics\"");

// --format of the commands that read traces: auto or a registered format's name, checked
// while parsing ("must be one of auto, kineto-json, ..., got 'x'").
CLI::Validator TraceFormat();

// The --help footer of the commands that read traces: one line per registered format.
std::string FormatTable();

}  // namespace decodeprof::cli
