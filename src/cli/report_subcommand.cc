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
#include "src/cli/subcommand.h"
#include "src/io/common/csv_reader.h"
#include "src/report/dispatch_timeline.h"
#include "src/report/do_first.h"
#include "src/report/full_report.h"
#include "src/report/html_report.h"
#include "src/report/markdown_report.h"
#include "src/report/rank_table.h"
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

base::StatusOr<std::string> Render(const std::vector<std::string>& paths, const std::string& format,
                                   bool full, size_t do_first) {
  DP_ASSIGN_OR_RETURN(const std::vector<report::SummaryFile> summaries,
                      report::ReadSummaries(paths));
  if (format == "json") return report::RenderSummariesJson(summaries);
  // Multi-rank runs: a rank twice, or two world sizes in one run, is refused before any output.
  DP_ASSIGN_OR_RETURN(const std::vector<report::RankTable> ranks,
                      report::BuildRankTables(summaries));
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

}  // namespace

int ReportMain(int argc, char** argv) {
  CLI::App app{
      "Print the report of the summaries that `summarize` wrote: each PATH is a "
      "<name>_summary.json file or a directory, of which every *_summary.json below it counts "
      "(recursively, sorted by path). First \"Do first\": the work units ranked once across "
      "all runs, with their evidence, and the trust flags of the runs; then runs, unit "
      "shares, speedup ceilings and top kernels as Markdown (--full: and the tables of a "
      "results document), or one self-contained HTML page; --format json prints the "
      "summaries as one JSON array.",
      "decodeprof report"};
  std::vector<std::string> paths;
  std::string format = "md";
  bool full = false;
  size_t do_first = report::kDoFirstUnits;
  app.add_option("PATH", paths,
                 "summary files and directories holding them (every *_summary.json below a "
                 "directory), in the order given")
      ->required();
  app.add_option("--format", format,
                 "md (Markdown tables, the default), html (one self-contained page with "
                 "plots of the decode wall, the GPU-busy timeline where DIR holds "
                 "<name>_decode_dispatches.csv, units and top kernels) or json")
      ->check(CLI::IsMember({"md", "html", "json"}));
  app.add_option("--do-first", do_first,
                 "how many work units \"Do first\" lists (default 5; 0 leaves the section out: "
                 "the seed's report exactly)")
      ->type_name("N");
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

  const base::StatusOr<std::string> text = Render(paths, format, full, do_first);
  if (!text.ok()) return ReportError("report", text.status());
  if (std::fwrite(text->data(), 1, text->size(), stdout) != text->size() ||
      std::fflush(stdout) != 0) {
    return ReportError("report", base::IoError("stdout", "cannot write the report"));
  }
  return 0;
}

}  // namespace decodeprof::cli
