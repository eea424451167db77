// The one diagnostics list (diagnostics_list.h): every code complete and documented, the docs
// table generated from it, the native format's counters checked against it.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "src/native_format/schema.h"
#include "src/record/only_range.h"
#include "src/trace/diagnostics.h"

namespace decodeprof::trace {
namespace {

constexpr std::string_view kDocsPage = "docs/user-guide.md";
constexpr std::string_view kTableBegin = "<!-- diagnostics table: generated from";
constexpr std::string_view kTableEnd = "<!-- end of the diagnostics table -->";

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every code: its entry in code order, a snake_case name used once, a source, and a meaning of
// one line that says something.
TEST(DiagnosticsListTest, EveryCodeHasANameASeverityASourceAndAMeaning) {
  std::set<std::string_view> names;
  size_t index = 0;
  for (const DiagnosticInfo& info : AllDiagnostics()) {
    SCOPED_TRACE(std::string(info.name));
    EXPECT_EQ(static_cast<size_t>(info.code), index++);
    EXPECT_TRUE(names.insert(info.name).second) << "named twice";
    ASSERT_FALSE(info.name.empty());
    for (const char c : info.name) {
      EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || c == '_') << info.name;
    }
    EXPECT_GE(info.meaning.size(), 20u);
    EXPECT_EQ(info.meaning.find('\n'), std::string_view::npos);
    EXPECT_LE(static_cast<int>(info.source), static_cast<int>(DiagSource::kCli));
    EXPECT_LE(static_cast<int>(info.severity), static_cast<int>(Severity::kError));
    EXPECT_NE(std::string(SourceName(info.source)), "");
    EXPECT_EQ(&Describe(info.code), &info);
  }
  EXPECT_EQ(index, static_cast<size_t>(Diag::kCount_));
}

// The docs table is the list: docs/user-guide.md holds DiagnosticsMarkdownTable() between its
// markers. DECODEPROF_UPDATE_DOCS=1 rewrites the page's table from the list instead.
TEST(DiagnosticsListTest, TheDocsTableIsGeneratedFromTheList) {
  const std::string path = std::string(DECODEPROF_SOURCE_DIR) + "/" + std::string(kDocsPage);
  std::string page = ReadText(path);
  ASSERT_FALSE(page.empty()) << path;
  const size_t begin_marker = page.find(kTableBegin);
  ASSERT_NE(begin_marker, std::string::npos) << path << " has no '" << kTableBegin << "'";
  const size_t begin = page.find('\n', begin_marker) + 1;
  const size_t end = page.find(kTableEnd, begin);
  ASSERT_NE(end, std::string::npos) << path << " has no '" << kTableEnd << "'";
  const std::string table = DiagnosticsMarkdownTable();
  if (const char* update = std::getenv("DECODEPROF_UPDATE_DOCS");
      update != nullptr && std::string_view(update) == "1") {
    page.replace(begin, end - begin, table);
    std::ofstream(path, std::ios::binary) << page;
    GTEST_SKIP() << "rewrote the diagnostics table of " << path;
  }
  EXPECT_EQ(page.substr(begin, end - begin), table)
      << kDocsPage << " differs from the list: rerun with DECODEPROF_UPDATE_DOCS=1";
}

// Every code appears in the docs (through the table), by its name as the JSON writes it.
TEST(DiagnosticsListTest, EveryCodeIsDocumented) {
  const std::string page =
      ReadText(std::string(DECODEPROF_SOURCE_DIR) + "/" + std::string(kDocsPage));
  for (const DiagnosticInfo& info : AllDiagnostics()) {
    EXPECT_NE(page.find("| `" + std::string(info.name) + "` | " + SeverityName(info.severity) +
                        " | " + SourceName(info.source) + " |"),
              std::string::npos)
        << info.name << " is not in " << kDocsPage;
  }
}

TEST(DiagnosticsListTest, TheMarkdownTableHasOneRowPerCode) {
  const std::string table = DiagnosticsMarkdownTable();
  size_t rows = 0;
  for (size_t at = 0; (at = table.find('\n', at)) != std::string::npos; ++at) ++rows;
  EXPECT_EQ(rows, static_cast<size_t>(Diag::kCount_) + 2);  // header and rule
  EXPECT_EQ(table.rfind("| code | severity | source | meaning |\n|---|---|---|---|\n", 0), 0u);
  EXPECT_NE(table.find("| `cupti_dropped_records` | data-loss | recorder | CUPTI dropped "),
            std::string::npos);
  EXPECT_NE(table.find("| `dispatches_overlap_impossible` | error | window | "), std::string::npos);
}

// The recorder's counters are the list's codes of source recorder, both ways: every counter
// name the native format and the gates write is one, and every such code is written by one.
TEST(DiagnosticsListTest, TheRecorderCountersAreTheRecorderCodes) {
  const std::set<std::string_view> written = {native_format::kCounterCuptiDropped,
                                              native_format::kCounterTranslationFailures,
                                              native_format::kCounterIncompleteKernels,
                                              native_format::kCounterNvtxQueueFull,
                                              native_format::kCounterWriteFailures,
                                              native_format::kCounterBufferPoolExhausted,
                                              native_format::kCounterNvtxUnmatchedPops,
                                              native_format::kCounterNvtxUnendedRanges,
                                              native_format::kCounterUnknownRecords,
                                              record::kCounterOnlyRangePeriods,
                                              record::kCounterOnlyRangeSwitchFailures,
                                              record::kCounterOnlyRangeApiCallsOutside,
                                              record::kCounterSampleSteps,
                                              record::kCounterSamplePeriods,
                                              record::kCounterDroppedAfterPeriod};
  std::set<std::string_view> listed;
  for (const DiagnosticInfo& info : AllDiagnostics()) {
    if (info.source != DiagSource::kRecorder) continue;
    listed.insert(info.name);
    EXPECT_EQ(DiagForRecorderCounter(info.name), info.code);
    EXPECT_TRUE(native_format::IsRecorderCounter(info.name)) << info.name;
    EXPECT_EQ(native_format::IsDataLossCounter(info.name), info.severity == Severity::kDataLoss)
        << info.name;
    EXPECT_EQ(CountsLostRecords(info.code), info.severity == Severity::kDataLoss) << info.name;
  }
  EXPECT_EQ(listed, written);
  EXPECT_EQ(DiagForRecorderCounter("trace_incomplete"), Diag::kUnknownRecorderCounter);
  EXPECT_FALSE(native_format::IsRecorderCounter("trace_incomplete"));
  EXPECT_FALSE(native_format::IsDataLossCounter("recording_not_ok"));
  EXPECT_FALSE(CountsLostRecords(Diag::kTraceIncomplete));
  EXPECT_FALSE(CountsLostRecords(Diag::kRecorderLostRecords));
}

// The five data-loss counters, the same set the summary's "records lost" always added up.
TEST(DiagnosticsListTest, LostRecordsAddTheDataLossCountersAndSaturate) {
  Diagnostics d;
  d.Add(Diag::kCuptiDroppedRecords, 2, {});
  d.Add(Diag::kWriteFailures, 3, {});
  d.Add(Diag::kBufferPoolExhausted, 7, {});  // a warning: no record lost
  d.Add(Diag::kTraceIncomplete, 1, {});      // data loss, but not a counter of records
  EXPECT_EQ(LostRecords(d), 5);
  EXPECT_EQ(RecorderWarnings(d),
            (std::vector<std::string>{
                "the recorder lost 5 records: the figures undercount",
                "the trace was not closed by its recorder (killed?): read up to its last commit"}));
  d.Add(Diag::kTranslationFailures, INT64_MAX, {});
  EXPECT_EQ(LostRecords(d), INT64_MAX);
  for (const std::string& text : RecorderWarnings(d)) EXPECT_TRUE(IsRecorderWarning(text));
  EXPECT_FALSE(IsRecorderWarning("the recorder lost track"));
  EXPECT_FALSE(IsRecorderWarning("role rules doubt their labels"));
  EXPECT_TRUE(RecorderWarnings(Diagnostics()).empty());
}

TEST(DiagnosticsListTest, ALineIsTheCommandTheSeverityAndTheDetail) {
  EXPECT_EQ(DiagnosticLine("record", Diag::kBandwidthNotMeasured, "why"),
            "decodeprof: record: warning: why");
  EXPECT_EQ(DiagnosticLine("record", Diag::kRecorderLostRecords, "the trace lost 3 records"),
            "decodeprof: record: warning: the trace lost 3 records");
  EXPECT_EQ(DiagnosticText(Diag::kEventsSkipped, "x"), "note: x");
  EXPECT_EQ(DiagnosticText(Diag::kDanglingStringId, "x"), "error: x");
  EXPECT_EQ(SummaryWarningText("the pack doubts"), "warning: the pack doubts");
}

}  // namespace
}  // namespace decodeprof::trace
