// `decodeprof report DIR [--format md|json] [--full]`: the seed's report of every
// *_summary.json in DIR (seed spec 2.11) on stdout; `--full` adds the tables of
// src/report/full_report.h after the seed's four sections.
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/cli/subcommand.h"
#include "src/report/full_report.h"
#include "src/report/markdown_report.h"
#include "src/report/summary_reader.h"

namespace decodeprof::cli {
namespace {

base::StatusOr<std::string> Render(const std::string& dir, const std::string& format, bool full) {
  DP_ASSIGN_OR_RETURN(const std::vector<report::SummaryFile> summaries,
                      report::ReadSummaryDir(dir));
  if (format == "json") return report::RenderSummariesJson(summaries);
  if (full) return report::RenderFullMarkdownReport(summaries);
  return report::RenderMarkdownReport(summaries);
}

}  // namespace

int ReportMain(int argc, char** argv) {
  CLI::App app{
      "Print the report of every <name>_summary.json in DIR (sorted by file name): runs, "
      "unit shares, speedup ceilings and top kernels as Markdown (--full: and the tables of a "
      "results document), or the summaries as one JSON array.",
      "decodeprof report"};
  std::string dir;
  std::string format = "md";
  bool full = false;
  app.add_option("DIR", dir, "directory holding the summaries written by `summarize`")->required();
  app.add_option("--format", format, "md (Markdown tables, the default) or json")
      ->check(CLI::IsMember({"md", "json"}));
  app.add_flag("--full", full,
               "after the seed's four sections, add run setup, decode time per token, kernel "
               "classes, roles, units, top kernels with class and checks (Markdown only)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return ReportError("report", base::UsageError(e.what(), "run `decodeprof report --help`"));
  }

  if (full && format != "md") {
    return ReportError("report", base::UsageError("--full applies to the Markdown report",
                                                  "drop --full or use --format md"));
  }

  const base::StatusOr<std::string> text = Render(dir, format, full);
  if (!text.ok()) return ReportError("report", text.status());
  if (std::fwrite(text->data(), 1, text->size(), stdout) != text->size() ||
      std::fflush(stdout) != 0) {
    return ReportError("report", base::IoError("stdout", "cannot write the report"));
  }
  return 0;
}

}  // namespace decodeprof::cli
