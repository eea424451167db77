// `decodeprof diff [--format md|json] [--unit ID] BEFORE AFTER`: what changed between two
// runs' summaries (src/report/diff.h) on stdout.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "src/cli/subcommand.h"
#include "src/report/diff.h"
#include "src/report/summary_reader.h"

namespace decodeprof::cli {
namespace {

base::StatusOr<std::string> Render(const std::string& before_path, const std::string& after_path,
                                   const std::string& format, const report::DiffOptions& options) {
  DP_ASSIGN_OR_RETURN(const report::SummaryFile before, report::ReadSummaryFile(before_path));
  DP_ASSIGN_OR_RETURN(const report::SummaryFile after, report::ReadSummaryFile(after_path));
  DP_ASSIGN_OR_RETURN(const report::SummaryDiff diff,
                      report::DiffSummaries(before, after, options));
  return format == "json" ? report::RenderDiffJson(diff) : report::RenderDiffMarkdown(diff);
}

}  // namespace

int DiffMain(int argc, char** argv) {
  CLI::App app{
      "Compare two runs' <name>_summary.json files, typically before and after an optimization: "
      "decode time per token (plain and profiled), GPU busy, host gap, dispatches and tok/s with "
      "change and speedup ratio; GPU ms/token per kernel class; each unit's share, GPU time, "
      "owned host gap and ceilings, and the measured speedup against the ceiling the BEFORE run "
      "predicted; top kernels that entered or left the top list or changed most. Markdown, or "
      "one JSON object with --format json. Fields a summary lacks print as '-'.",
      "decodeprof diff"};
  app.footer(
      "Example:\n"
      "  decodeprof diff --unit cuda_graph out/llama_greedy-eager_summary.json \\\n"
      "                  out/llama_greedy-graph_summary.json\n"
      "prints, among the tables, the line\n"
      "  measured speedup 8.12x vs predicted ceiling 10.04 (#cuda_graph)");
  std::string before;
  std::string after;
  std::string format = "md";
  report::DiffOptions options;
  app.add_option("BEFORE", before, "summary of the run before the change")->required();
  app.add_option("AFTER", after, "summary of the run after the change")->required();
  app.add_option("--format", format, "md (Markdown tables, the default) or json")
      ->check(CLI::IsMember({"md", "json"}));
  app.add_option("--unit", options.unit,
                 "unit whose predicted ceiling the measured speedup is set against (default: "
                 "the BEFORE run's unit with the largest ceiling)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return ReportError("diff", base::UsageError(e.what(), "run `decodeprof diff --help`"));
  }

  const base::StatusOr<std::string> text = Render(before, after, format, options);
  if (!text.ok()) return ReportError("diff", text.status());
  if (std::fwrite(text->data(), 1, text->size(), stdout) != text->size() ||
      std::fflush(stdout) != 0) {
    return ReportError("diff", base::IoError("stdout", "cannot write the comparison"));
  }
  return 0;
}

}  // namespace decodeprof::cli
