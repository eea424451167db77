// The summary reader (src/report/summary_reader.h), the input of `report` and `diff`:
// ParseSummary over the input as a `<name>_summary.json`; a summary that parses then goes
// through what those commands do with it — RankedUnits, PyStr, `report --format json`,
// the Markdown, full and HTML reports, and `diff` of the summary against itself. An error
// Status is fine at every step.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "src/report/diff.h"
#include "src/report/full_report.h"
#include "src/report/html_report.h"
#include "src/report/markdown_report.h"
#include "src/report/summary_reader.h"
#include "tests/fuzz/fuzz_support.h"

namespace decodeprof {

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto parsed = report::ParseSummary("fuzz/run_summary.json", text);
  if (!parsed.ok()) return 0;
  const std::vector<report::SummaryFile> summaries = {*parsed};
  FUZZ_CHECK(summaries[0].content.is_object());
  (void)report::PyStr(summaries[0].content);
  (void)report::RankedUnits(summaries[0]);
  (void)report::RenderSummariesJson(summaries);
  (void)report::RenderMarkdownReport(summaries);
  (void)report::RenderFullMarkdownReport(summaries);
  (void)report::RenderHtmlReport(summaries);
  auto diff = report::DiffSummaries(summaries[0], summaries[0], report::DiffOptions{});
  if (diff.ok()) {
    (void)report::RenderDiffMarkdown(*diff);
    (void)report::RenderDiffJson(*diff);
  }
  return 0;
}

}  // namespace decodeprof
