// `decodeprof diff [--format md|json] [--unit ID] BEFORE AFTER`: what changed between two
// runs' summaries (src/report/diff.h) on stdout.
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/base/parse.h"
#include "src/base/py_format.h"
#include "src/cli/option_checks.h"
#include "src/cli/subcommand.h"
#include "src/report/diff.h"
#include "src/report/summary_reader.h"

namespace decodeprof::cli {
namespace {

struct Compared {
  std::string text;
  std::vector<report::DiffRegression> regressions;  // only with --fail-on regression
};

base::StatusOr<Compared> Render(const std::string& before_path, const std::string& after_path,
                                const std::string& format, const report::DiffOptions& options,
                                std::optional<double> fail_pct) {
  DP_ASSIGN_OR_RETURN(const report::SummaryFile before, report::ReadSummaryFile(before_path));
  DP_ASSIGN_OR_RETURN(const report::SummaryFile after, report::ReadSummaryFile(after_path));
  DP_ASSIGN_OR_RETURN(const report::SummaryDiff diff,
                      report::DiffSummaries(before, after, options));
  Compared out;
  out.text = format == "json" ? report::RenderDiffJson(diff) : report::RenderDiffMarkdown(diff);
  if (fail_pct) out.regressions = report::FindRegressions(before, after, diff, *fail_pct);
  return out;
}

// The largest PCT of --fail-on regression=PCT: a figure a million percent worse.
constexpr double kMaxFailPct = 1e6;

// "regression" or "regression=PCT" (PCT a number from 0 to kMaxFailPct) → PCT; nullopt for
// anything else.
std::optional<double> ParseFailOn(const std::string& text) {
  if (text == "regression") return report::kDefaultRegressionPct;
  if (!text.starts_with("regression=")) return std::nullopt;
  const std::optional<double> pct = base::ParseDouble(text.substr(11));
  if (!pct || *pct < 0.0 || !std::isfinite(*pct) || *pct > kMaxFailPct) return std::nullopt;
  return pct;
}

// --fail-on, checked while parsing.
CLI::Validator FailOnValue() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (ParseFailOn(value)) return {};
        return "must be regression or regression=PCT with PCT a number from 0 to 1000000, got '" +
               value + "'";
      },
      "");
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
      "Exit codes:\n"
      "  0   the comparison was printed (whatever changed, unless --fail-on regression)\n"
      "  1   --fail-on regression[=PCT] and a figure got worse by more than PCT % (listed on "
      "stderr after the comparison)\n"
      "  2   usage error (an --unit BEFORE lacks, a bad --fail-on)\n"
      "  65  a file that is not a summary\n"
      "  66  a file that is missing or unreadable\n"
      "\n"
      "Example:\n"
      "  decodeprof diff --unit cuda_graph out/llama_greedy-eager_summary.json \\\n"
      "                  out/llama_greedy-graph_summary.json\n"
      "prints, among the tables, the line\n"
      "  measured speedup 8.12x vs predicted ceiling 10.04 (#cuda_graph)");
  std::string before;
  std::string after;
  std::string format = "md";
  report::DiffOptions options;
  app.add_option("BEFORE", before, "summary of the run before the change")
      ->required()
      ->check(NonEmpty("a summary file"));
  app.add_option("AFTER", after, "summary of the run after the change")
      ->required()
      ->check(NonEmpty("a summary file"));
  app.add_option("--format", format, "md (Markdown tables, the default) or json")
      ->check(OneOf({"md", "json"}));
  app.add_option("--unit", options.unit,
                 "unit whose predicted ceiling the measured speedup is set against (default: "
                 "the BEFORE run's unit with the largest ceiling)")
      ->check(NonEmpty("a unit id"));
  std::string fail_on;
  CLI::Option* fail_on_option =
      app.add_option("--fail-on", fail_on,
                     "regression[=PCT]: exit 1 when AFTER is worse than BEFORE by more than PCT % "
                     "(0 to 1000000, default 10) in a per-token figure (ms/token, "
                     "dispatches/token, tok/s), a "
                     "unit's GPU or host-gap ms/token, or a kernel's GPU ms/token or calls/token "
                     "(kernels of both top lists), for CI")
          ->type_name("WHAT")
          ->check(FailOnValue());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return ReportError("diff", base::UsageError(e.what(), "run `decodeprof diff --help`"));
  }

  // --fail-on passed FailOnValue() while parsing.
  const std::optional<double> fail_pct =
      fail_on_option->count() > 0 ? ParseFailOn(fail_on) : std::nullopt;
  const base::StatusOr<Compared> compared = Render(before, after, format, options, fail_pct);
  if (!compared.ok()) return ReportError("diff", compared.status());
  const std::string& text = compared->text;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    return ReportError("diff", base::IoError("stdout", "cannot write the comparison"));
  }
  if (compared->regressions.empty()) return 0;
  for (const report::DiffRegression& r : compared->regressions) {
    std::fprintf(stderr, "decodeprof: diff: regression: %s %s -> %s (%+.2f %%)\n", r.what.c_str(),
                 base::FormatFixed(r.before, 4).c_str(), base::FormatFixed(r.after, 4).c_str(),
                 r.change_pct);
  }
  std::fprintf(stderr, "decodeprof: diff: %zu figures worse by more than %s %% (--fail-on)\n",
               compared->regressions.size(), base::FormatFixed(*fail_pct, 1).c_str());
  return 1;
}

}  // namespace decodeprof::cli
