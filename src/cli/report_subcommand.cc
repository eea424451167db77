// `decodeprof report DIR [--format md|html|json] [--full]`: the seed's report of every
// *_summary.json in DIR (seed spec 2.11) on stdout; `--full` adds the tables of
// src/report/full_report.h after the seed's four sections; `--format html` prints the page of
// src/report/html_report.h (always the full content, with or without `--full`).
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/cli/subcommand.h"
#include "src/report/full_report.h"
#include "src/report/html_report.h"
#include "src/report/markdown_report.h"
#include "src/report/summary_reader.h"

namespace decodeprof::cli {
namespace {

base::StatusOr<std::string> Render(const std::string& dir, const std::string& format, bool full) {
  DP_ASSIGN_OR_RETURN(const std::vector<report::SummaryFile> summaries,
                      report::ReadSummaryDir(dir));
  if (format == "json") return report::RenderSummariesJson(summaries);
  if (format == "html") return report::RenderHtmlReport(summaries);
  if (full) return report::RenderFullMarkdownReport(summaries);
  return report::RenderMarkdownReport(summaries);
}

}  // namespace

int ReportMain(int argc, char** argv) {
  CLI::App app{
      "Print the report of every <name>_summary.json in DIR (sorted by file name): runs, "
      "unit shares, speedup ceilings and top kernels as Markdown (--full: and the tables of a "
      "results document), as one self-contained HTML page, or the summaries as one JSON "
      "array.",
      "decodeprof report"};
  std::string dir;
  std::string format = "md";
  bool full = false;
  app.add_option("DIR", dir, "directory holding the summaries written by `summarize`")->required();
  app.add_option("--format", format,
                 "md (Markdown tables, the default), html (one self-contained page with "
                 "bars of the decode wall and unit shares) or json")
      ->check(CLI::IsMember({"md", "html", "json"}));
  app.add_flag("--full", full,
               "after the seed's four sections, add run setup, decode time per token, kernel "
               "classes, roles, units, top kernels with class and checks (Markdown; the HTML page "
               "always has its full content; not with json)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return ReportError("report", base::UsageError(e.what(), "run `decodeprof report --help`"));
  }

  if (full && format == "json") {
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
