// `decodeprof report PATH... [--format md|html|json] [--full] [--do-first N]`: the report of
// the summaries PATH names (files, and every *_summary.json below a directory, in the order
// given; ReadSummaries) on stdout: the "Do first" section (src/report/do_first.h) and the
// seed's four sections (seed spec 2.11); `--full` adds the tables of src/report/full_report.h
// after them; `--format html` prints the page of src/report/html_report.h (always the full
// content, with or without `--full`), with the timeline of each run's
// `<name>_decode_dispatches.csv` where the summary's folder holds one. `--do-first 0` leaves
// the section out. Summaries of multi-rank runs (a `rank` object) add the rank tables of
// src/report/rank_table.h at the end of the Markdown report and of the HTML page.
#include <sys/stat.h>

#include <cstddef>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/base/parse.h"
#include "src/cli/option_checks.h"
#include "src/cli/subcommand.h"
#include "src/io/common/csv_reader.h"
#include "src/report/dispatch_timeline.h"
#include "src/report/do_first.h"
#include "src/report/full_report.h"
#include "src/report/html_report.h"
#include "src/report/markdown_report.h"
#include "src/report/rank_table.h"
#include "src/report/report_json.h"
#include "src/report/summary_reader.h"

namespace decodeprof::cli {
namespace {

// The timeline of the dispatch table next to `summary` (DispatchCsvPathFor), nullopt when
// there is none. Errors: the table is unreadable (kIo), or malformed: a header other than
// `summarize --emit-dispatches` writes, a row with fewer fields, a start or end that is no
// integer, an end before its start, rows out of start order (kData, where = "<file>:<line>").
base::StatusOr<std::optional<report::DispatchTimeline>> ReadTimeline(
    const report::SummaryFile& summary) {
  const std::string path = report::DispatchCsvPathFor(summary.path);
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::optional<report::DispatchTimeline>();
  DP_ASSIGN_OR_RETURN(const std::unique_ptr<io::CsvReader> reader, io::CsvReader::Open(path));
  const auto where = [&] { return path + ":" + std::to_string(reader->line()); };
  if (!reader->Next()) {
    DP_RETURN_IF_ERROR(reader->status());
    return base::DataError(path + ":1", "empty dispatch table (no header)");
  }
  if (reader->size() < 4 || (*reader)[0] != "index" || (*reader)[2] != "start_ns" ||
      (*reader)[3] != "end_ns") {
    return base::DataError(where(),
                           "not a dispatch table: the header does not start with "
                           "index,kernel,start_ns,end_ns",
                           "`summarize --emit-dispatches` writes <name>_decode_dispatches.csv");
  }
  report::TimelineBuilder builder;
  while (reader->Next()) {
    if (reader->size() < 4) return base::DataError(where(), "a row with fewer than 4 fields");
    const std::optional<int64_t> start = base::ParseInt64((*reader)[2]);
    const std::optional<int64_t> end = base::ParseInt64((*reader)[3]);
    if (!start || !end) return base::DataError(where(), "start_ns or end_ns is not an integer");
    if (base::Status status = builder.Add(*start, *end); !status.ok()) {
      return base::DataError(where(), status.message());
    }
  }
  DP_RETURN_IF_ERROR(reader->status());
  return std::optional<report::DispatchTimeline>(
      builder.Finish(path.substr(path.find_last_of('/') + 1)));
}

base::StatusOr<std::string> RenderText(const std::vector<report::SummaryFile>& summaries,
                                       const report::RankTables& ranks, const std::string& format,
                                       bool full, size_t do_first) {
  if (format == "json") return report::RenderReportJson(summaries, ranks, do_first);
  if (format == "html") {
    std::vector<std::optional<report::DispatchTimeline>> timelines;
    for (const report::SummaryFile& summary : summaries) {
      DP_ASSIGN_OR_RETURN(std::optional<report::DispatchTimeline> timeline, ReadTimeline(summary));
      timelines.push_back(std::move(timeline));
    }
    return report::RenderHtmlReport(summaries, timelines, do_first);
  }
  return (full ? report::RenderFullMarkdownReport(summaries, do_first)
               : report::RenderMarkdownReport(summaries, do_first)) +
         report::RenderRankTablesMarkdown(ranks);
}

struct Rendered {
  std::string text;
  size_t flagged_runs = 0;  // runs with a trust flag
};

base::StatusOr<Rendered> Render(const std::vector<std::string>& paths, const std::string& format,
                                bool full, size_t do_first) {
  DP_ASSIGN_OR_RETURN(const std::vector<report::SummaryFile> summaries,
                      report::ReadSummaries(paths));
  Rendered out;
  for (const report::SummaryFile& summary : summaries) {
    if (!report::TrustFlags(summary).empty()) ++out.flagged_runs;
  }
  // Multi-rank runs: a rank twice, or two world sizes in one run with a run id, is refused
  // before any output.
  DP_ASSIGN_OR_RETURN(const report::RankTables ranks, report::BuildRankTables(summaries));
  DP_ASSIGN_OR_RETURN(out.text, RenderText(summaries, ranks, format, full, do_first));
  return out;
}

}  // namespace

int ReportMain(int argc, char** argv) {
  CLI::App app{
      "Print the report of the summaries that `summarize` wrote: each PATH is a "
      "<name>_summary.json file or a directory, of which every *_summary.json below it counts "
      "(recursively, sorted by path). First \"Do first\": the work units ranked once across "
      "all runs, with their evidence, and the trust flags of the runs; then runs, unit "
      "shares, speedup ceilings and top kernels as Markdown (--full: and the tables of a "
      "results document), or one self-contained HTML page; --format json prints one JSON "
      "object: the runs with their labels, groups and flags, the ranking, the rank tables and "
      "the summaries. Runs are named by their summary's name, with the shortest suffix of "
      "its directory where names repeat; synthetic workloads and runs with trust flags never "
      "head the ranking.",
      "decodeprof report"};
  app.footer(
      "Exit codes:\n"
      "  0   the report was printed (flagged runs too, unless --fail-on flags)\n"
      "  1   --fail-on flags and some run has a trust flag (the report is printed first)\n"
      "  2   usage error\n"
      "  65  a file that is not a summary, or contradictory ranks of one run (a rank twice "
      "under one run id)\n"
      "  66  a path that is missing or unreadable");
  std::vector<std::string> paths;
  std::string format = "md";
  bool full = false;
  size_t do_first = report::kDoFirstUnits;
  std::string fail_on;
  app.add_option("PATH", paths,
                 "summary files and directories holding them (every *_summary.json below a "
                 "directory), in the order given")
      ->required()
      ->check(NonEmpty("a summary file or directory"));
  app.add_option("--format", format,
                 "md (Markdown tables, the default), html (one self-contained page with "
                 "plots of the decode wall, the GPU-busy timeline where DIR holds "
                 "<name>_decode_dispatches.csv, units and top kernels) or json")
      ->check(OneOf({"md", "html", "json"}));
  app.add_option("--do-first", do_first,
                 "how many work units \"Do first\" lists, 0 to 1000 (default 5; 0 leaves the "
                 "section out: the seed's report exactly)")
      ->type_name("N")
      ->check(IntegerIn(0, 1000));
  app.add_flag("--full", full,
               "after the seed's four sections, add run setup, decode time per token, kernel "
               "classes, roles, units, top kernels with class and checks (Markdown; the HTML page "
               "always has its full content; not with json)");
  app.add_option("--fail-on", fail_on,
                 "flags: exit 1 when some run has a trust flag (after printing the report), for "
                 "CI")
      ->check(OneOf({"flags"}))
      ->type_name("WHAT");
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

  const base::StatusOr<Rendered> rendered = Render(paths, format, full, do_first);
  if (!rendered.ok()) return ReportError("report", rendered.status());
  const std::string& text = rendered->text;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    return ReportError("report", base::IoError("stdout", "cannot write the report"));
  }
  if (fail_on == "flags" && rendered->flagged_runs > 0) {
    std::fprintf(stderr, "decodeprof: report: %zu of the runs have trust flags (--fail-on flags)\n",
                 rendered->flagged_runs);
    return 1;
  }
  return 0;
}

}  // namespace decodeprof::cli
