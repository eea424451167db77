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

// A generated block of docs/user-guide.md: the text between a line starting with `begin` and
// the line `end` must be `table`. DECODEPROF_UPDATE_DOCS=1 rewrites the page's block instead.
void ExpectGeneratedBlock(std::string_view begin_marker_text, std::string_view end_marker_text,
                          const std::string& table) {
  const std::string path = std::string(DECODEPROF_SOURCE_DIR) + "/" + std::string(kDocsPage);
  std::string page = ReadText(path);
  ASSERT_FALSE(page.empty()) << path;
  const size_t begin_marker = page.find(begin_marker_text);
  ASSERT_NE(begin_marker, std::string::npos) << path << " has no '" << begin_marker_text << "'";
  const size_t begin = page.find('\n', begin_marker) + 1;
  const size_t end = page.find(end_marker_text, begin);
  ASSERT_NE(end, std::string::npos) << path << " has no '" << end_marker_text << "'";
  if (const char* update = std::getenv("DECODEPROF_UPDATE_DOCS");
      update != nullptr && std::string_view(update) == "1") {
    page.replace(begin, end - begin, table);
    std::ofstream(path, std::ios::binary) << page;
    GTEST_SKIP() << "rewrote a generated table of " << path;
  }
  EXPECT_EQ(page.substr(begin, end - begin), table)
      << kDocsPage << " differs from the list: rerun with DECODEPROF_UPDATE_DOCS=1";
}

// The docs table is the list: docs/user-guide.md holds DiagnosticsMarkdownTable() between its
// markers.
TEST(DiagnosticsListTest, TheDocsTableIsGeneratedFromTheList) {
  ExpectGeneratedBlock(kTableBegin, kTableEnd, DiagnosticsMarkdownTable());
}

// And the messages' table, DiagnosticMessagesMarkdownTable().
TEST(DiagnosticsListTest, TheDocsMessagesAreGeneratedFromTheList) {
  ExpectGeneratedBlock("<!-- diagnostic messages: generated from",
                       "<!-- end of the diagnostic messages -->",
                       DiagnosticMessagesMarkdownTable());
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
            (std::vector<DiagMessage>{
                {Diag::kRecorderLostRecords, "the recorder lost 5 records: the figures undercount"},
                {Diag::kTraceIncomplete,
                 "the trace was not closed by its recorder (killed?): read up to its last "
                 "commit"}}));
  d.Add(Diag::kTranslationFailures, INT64_MAX, {});
  EXPECT_EQ(LostRecords(d), INT64_MAX);
  for (const DiagMessage& m : RecorderWarnings(d)) EXPECT_TRUE(IsRecorderWarning(m.text));
  EXPECT_FALSE(IsRecorderWarning("the recorder lost track"));
  EXPECT_FALSE(IsRecorderWarning("role rules doubt their labels"));
  EXPECT_TRUE(RecorderWarnings(Diagnostics()).empty());
}

TEST(DiagnosticsListTest, ALineIsTheCommandTheSeverityAndTheMessage) {
  EXPECT_EQ(DiagnosticLine("record", Message<Msg::kBandwidthFailed>("why")),
            "decodeprof: record: warning: the bandwidth was not measured: why");
  EXPECT_EQ(DiagnosticLine("record", Message<Msg::kTraceLostRecords>(3)),
            "decodeprof: record: warning: the trace lost 3 records (see its counters table); "
            "raise DECODEPROF_RECORD_MAX_BUFFERS");
  EXPECT_EQ(DiagnosticText({Diag::kEventsSkipped, "x"}), "note: x");
  EXPECT_EQ(DiagnosticText({Diag::kDanglingStringId, "x"}), "error: x");
  EXPECT_EQ(DiagnosticText(Message<Msg::kRoleRulesOpPathSkipped>()).substr(0, 9), "warning: ");
}

TEST(DiagnosticsListTest, AMessageFillsItsNamesInOrderAndANameUsedTwiceOnce) {
  const DiagMessage m = Message<Msg::kRoleRulesNoGrid>(12, "qmv", "lm_head");
  EXPECT_EQ(m.code, Diag::kRoleRuleWarning);
  EXPECT_EQ(m.text,
            "the trace has no grid sizes, so all 12 qmv dispatches tie as the widest and each one "
            "starts a lm_head run (rule tail_after_widest); lm_head is overstated: record the "
            "trace with grid sizes");
  static_assert(message_detail::Placeholders("a {x} b {y} c {x}") == 2);
  static_assert(message_detail::Placeholders("none") == 0);
  EXPECT_EQ(message_detail::Fill("{a}-{b}-{a}", {"1", "2"}), "1-2-1");
  EXPECT_EQ(Message<Msg::kKernelsNoDispatchInWindow>("10:20", 5, int64_t{-3}, 7).text,
            "no dispatch starts inside --window 10:20 (the device's 5 dispatches start from -3 to "
            "7 ns)");
}

TEST(DiagnosticsListTest, EveryMessageIsWellFormedAndInItsPlace) {
  std::set<std::string_view> texts;
  for (size_t i = 0; i < std::size(kMessages); ++i) {
    const MessageInfo& m = kMessages[i];
    EXPECT_EQ(static_cast<size_t>(m.id), i);
    EXPECT_LT(static_cast<size_t>(m.code), static_cast<size_t>(Diag::kCount_));
    EXPECT_FALSE(m.text.empty());
    EXPECT_TRUE(texts.insert(m.text).second) << "two messages say: " << m.text;
    // Braces pair up and hold a name.
    int depth = 0;
    for (size_t k = 0; k < m.text.size(); ++k) {
      if (m.text[k] == '{') {
        ++depth;
        EXPECT_NE(m.text[k + 1], '}') << m.text;
      }
      if (m.text[k] == '}') --depth;
      EXPECT_TRUE(depth == 0 || depth == 1) << m.text;
    }
    EXPECT_EQ(depth, 0) << m.text;
  }
  EXPECT_EQ(std::size(kMessages), static_cast<size_t>(Msg::kCount_));
}

TEST(DiagnosticsListTest, AMessageTextIsRecognizedWithAnyValues) {
  EXPECT_TRUE(IsMessageText(Msg::kSummaryRecordsLost,
                            "the recorder lost 17 records: the figures undercount"));
  EXPECT_FALSE(IsMessageText(Msg::kSummaryRecordsLost,
                             "the recorder lost  records: the figures undercount"));
  EXPECT_FALSE(IsMessageText(Msg::kSummaryRecordsLost, "the recorder lost 17 records"));
  EXPECT_TRUE(
      IsMessageText(Msg::kRoleRulesNoGrid, Message<Msg::kRoleRulesNoGrid>(1, "a", "b").text));
}

}  // namespace
}  // namespace decodeprof::trace
