// ImportRocprofv3CsvInParts + WindowCollector::Merge against the one-thread import: generated
// traces of several shapes, each compared field by field with the sequential result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/window.h"
#include "src/io/rocprofv3_csv/rocprofv3_csv_importer.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::io {
namespace {

using analysis::DecodeWindow;
using analysis::WindowCollector;
using trace::ClockDomain;
using trace::Dispatch;

struct Row {
  std::string name;
  int64_t start = 0;
  int64_t end = 0;
  std::string grid = "4";
};

std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string RowText(const Row& r, const std::string& eol = "\n") {
  return "\"KERNEL_DISPATCH\"," + Quoted(r.name) + "," + std::to_string(r.start) + "," +
         std::to_string(r.end) + "," + r.grid + eol;
}

std::string Csv(const std::vector<Row>& rows, const std::string& eol = "\n") {
  std::string text =
      "\"Kind\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\",\"Grid_Size_X\"" + eol;
  for (const Row& r : rows) text += RowText(r, eol);
  return text;
}

std::string WriteTemp(const std::string& name, const std::string& content) {
  static const std::string dir = decodeprof::testing::ScratchDir("rocprofv3_split_test_");
  const std::string path = dir + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  std::fwrite(content.data(), 1, content.size(), f);
  std::fclose(f);
  return path;
}

// Decode window 1000..100000 on boottime, 1500..100000 on monotonic.
trace::PhaseMarks Marks() {
  return {{"warmup_start", trace::MarkStamp{0, 0}},
          {"decode_start", trace::MarkStamp{1500, 1000}},
          {"measured_end", trace::MarkStamp{100000, 100000}}};
}

// What an import leaves behind, for comparing the two ways.
struct Outcome {
  base::Status status;
  int64_t rows = 0;
  bool has_grid = false;
  std::vector<std::string> names;
  int64_t bracketed_boottime = 0;
  int64_t bracketed_monotonic = 0;
  base::StatusOr<DecodeWindow> window = base::InternalError("", "not run");
  bool split = false;  // the second part was used
};

void Collect(base::Status status, const trace::StringPool& names, WindowCollector& collector,
             Outcome& out) {
  out.status = std::move(status);
  if (!out.status.ok()) return;
  for (size_t i = 0; i < names.size(); ++i) {
    out.names.emplace_back(names.Get(static_cast<trace::StringId>(i)));
  }
  out.bracketed_boottime = collector.bracketed(ClockDomain::kBoottime);
  out.bracketed_monotonic = collector.bracketed(ClockDomain::kMonotonic);
  out.window = std::move(collector).Finish("bench.log");
}

Outcome Sequential(const std::string& path) {
  Outcome out;
  trace::StringPool names;
  WindowCollector collector(Marks());
  const auto stats = ImportRocprofv3Csv(path, names, collector);
  if (stats.ok()) {
    out.rows = stats->rows;
    out.has_grid = stats->has_grid_columns;
  }
  Collect(stats.status(), names, collector, out);
  return out;
}

// Threads and parts to try: the cuts fall at 1/K ... (K-1)/K of the file.
struct Config {
  unsigned cores;
  int64_t parts;
};
constexpr Config kConfigs[] = {{2, 2}, {2, 8}, {4, 16}};

CsvSplitOptions Split(const std::string& path, Config config) {
  CsvSplitOptions options;
  options.min_split_bytes = 0;
  options.cores = config.cores;
  options.min_part_bytes =
      std::max<int64_t>(1, static_cast<int64_t>(std::filesystem::file_size(path)) / config.parts);
  options.reader.buffer_size = 256;  // many refills on both sides of every cut
  return options;
}

Outcome InParts(const std::string& path, const CsvSplitOptions& options) {
  Outcome out;
  trace::StringPool names;
  WindowCollector collector(Marks());
  std::deque<WindowCollector> parts;
  const PartSinkFactory new_part = [&](size_t index, int64_t bytes) {
    EXPECT_EQ(index, parts.size());
    EXPECT_GT(bytes, 0);
    return &parts.emplace_back(Marks());
  };
  const auto imported = ImportRocprofv3CsvInParts(path, names, collector, new_part, options);
  if (imported.ok()) {
    out.rows = imported->stats.rows;
    out.has_grid = imported->stats.has_grid_columns;
    out.split = !imported->later.empty();
    for (const CsvLaterPart& part : imported->later) {
      collector.Merge(std::move(parts[part.index]), [&](Dispatch& d) { part.Rebase(d); });
    }
  }
  Collect(imported.status(), names, collector, out);
  return out;
}

void ExpectSame(const Outcome& got, const Outcome& want) {
  ASSERT_EQ(got.status.ok(), want.status.ok()) << got.status.ToString();
  EXPECT_EQ(got.status.ToString(), want.status.ToString());
  if (!want.status.ok()) return;
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.has_grid, want.has_grid);
  EXPECT_EQ(got.names, want.names);
  EXPECT_EQ(got.bracketed_boottime, want.bracketed_boottime);
  EXPECT_EQ(got.bracketed_monotonic, want.bracketed_monotonic);
  ASSERT_EQ(got.window.ok(), want.window.ok());
  if (!want.window.ok()) {
    EXPECT_EQ(got.window.status().ToString(), want.window.status().ToString());
    return;
  }
  const DecodeWindow& a = *got.window;
  const DecodeWindow& b = *want.window;
  EXPECT_EQ(a.clock, b.clock);
  EXPECT_EQ(a.straddling, b.straddling);
  ASSERT_EQ(a.last_before.has_value(), b.last_before.has_value());
  if (b.last_before) {
    EXPECT_EQ(a.last_before->line, b.last_before->line);
    EXPECT_EQ(a.last_before->name, b.last_before->name);
    EXPECT_EQ(a.last_before->start, b.last_before->start);
  }
  ASSERT_EQ(a.dispatches.size(), b.dispatches.size());
  for (size_t i = 0; i < b.dispatches.size(); ++i) {
    const Dispatch& x = a.dispatches[i];
    const Dispatch& y = b.dispatches[i];
    ASSERT_TRUE(x.start == y.start && x.end == y.end && x.grid == y.grid && x.name == y.name &&
                x.line == y.line)
        << "dispatch " << i << ": line " << x.line << " vs " << y.line;
  }
}

// `n` rows 10 ns apart from 0 on, most inside the window, a few straddling decode_start.
std::vector<Row> PlainRows(int n, const std::string& prefix = "k") {
  std::vector<Row> rows;
  for (int i = 0; i < n; ++i) {
    const int64_t start = 10 * i;
    rows.push_back({prefix + std::to_string(i % 7), start, start + 25});
  }
  return rows;
}

// Imports `path` in parts under every configuration and checks each against one thread.
// Returns how many configurations used parts.
int ExpectSameInParts(const std::string& path) {
  const Outcome want = Sequential(path);
  int split = 0;
  for (const Config& config : kConfigs) {
    SCOPED_TRACE("cores " + std::to_string(config.cores) + ", parts " +
                 std::to_string(config.parts));
    const Outcome got = InParts(path, Split(path, config));
    split += got.split ? 1 : 0;
    ExpectSame(got, want);
  }
  return split;
}

TEST(Rocprofv3CsvSplitTest, APlainTraceIsSplitAndMatches) {
  const std::string path = WriteTemp("plain.csv", Csv(PlainRows(400)));
  const Outcome got = InParts(path, Split(path, {2, 2}));
  EXPECT_TRUE(got.split);
  ASSERT_TRUE(got.window.ok()) << got.window.status().ToString();
  EXPECT_EQ(got.window->dispatches.size(), 300u);  // rows 100..399
  EXPECT_EQ(ExpectSameInParts(path), 3);
}

TEST(Rocprofv3CsvSplitTest, NamesFirstSeenInLaterPartsKeepTheirIds) {
  std::vector<Row> rows = PlainRows(200, "early_");
  for (int i = 0; i < 200; ++i) {
    const int64_t start = 2000 + 10 * i;
    // New names, interleaved with names the first half has seen, in a scrambled order.
    const std::string name = i % 3 == 0 ? "early_" + std::to_string(i % 7)
                                        : "late_" + std::to_string((i * 7919) % 13 + i / 50);
    rows.push_back({name, start, start + 5});
  }
  const std::string path = WriteTemp("names.csv", Csv(rows));
  EXPECT_EQ(Sequential(path).names.size(), 7u + 16u);
  EXPECT_EQ(ExpectSameInParts(path), 3);
}

TEST(Rocprofv3CsvSplitTest, EqualStartsAcrossTheCuts) {
  // Every other row ends before decode_start with the same start (the last one is last_before),
  // the others share one start inside the window (file order must survive the sort).
  std::vector<Row> rows;
  for (int i = 0; i < 300; ++i) {
    if (i % 2 == 0) {
      rows.push_back({"before_" + std::to_string(i % 5), 500, 600 + i % 3});
    } else {
      rows.push_back({"inside_" + std::to_string(i % 4), 5000, 5000 + i});
    }
  }
  const std::string path = WriteTemp("ties.csv", Csv(rows));
  const Outcome got = InParts(path, Split(path, {2, 2}));
  ASSERT_TRUE(got.window.ok());
  ASSERT_TRUE(got.window->last_before);
  EXPECT_EQ(got.window->last_before->line, 2u + 298u);  // the last even row
  EXPECT_EQ(ExpectSameInParts(path), 3);
}

// A row whose quoted name holds line breaks, placed so that the middle of the file falls at
// every byte of it in turn: where the first line break after a cut point is inside the quotes,
// the cut is not a record start and the import must carry on with one thread.
TEST(Rocprofv3CsvSplitTest, AQuotedNewlineAroundACut) {
  const std::string head = Csv(PlainRows(40));
  // After each line break inside the quotes a well-formed row seems to start, so that a part
  // started there would succeed: only the check at the cut can reject it.
  const std::string multi = RowText(
      {"multi \"q\", name\nx,fake,5000,5010,4\r\ny,fake2,5020,5030,4\n\nz,end", 3000, 3100});
  int split_runs = 0;
  int fallback_runs = 0;
  for (size_t at = 0; at <= multi.size(); ++at) {
    // The middle of head + multi + tail is head.size() + at.
    const size_t tail_size = head.size() + 2 * at - multi.size();
    const size_t pad_row = RowText({"p", 9000, 9010}).size();
    std::string tail;
    for (int i = 0;; ++i) {
      const std::string row = RowText({"t" + std::to_string(i % 3), 4000 + i, 4010 + i});
      if (tail.size() + row.size() + pad_row > tail_size) break;
      tail += row;
    }
    // The last row's name takes up what is left, so that the sizes come out exact.
    tail += RowText({"p" + std::string(tail_size - tail.size() - pad_row, 'x'), 9000, 9010});
    const std::string text = head + multi + tail;
    ASSERT_EQ(text.size() / 2, head.size() + at) << "at " << at;
    const std::string path = WriteTemp("quoted_newline.csv", text);
    SCOPED_TRACE("middle at byte " + std::to_string(at) + " of the multi-line row");
    const Outcome want = Sequential(path);
    for (const Config& config : {Config{2, 2}, Config{4, 16}}) {
      const Outcome got = InParts(path, Split(path, config));
      if (config.parts == 2) (got.split ? split_runs : fallback_runs)++;
      ExpectSame(got, want);
    }
  }
  EXPECT_GT(split_runs, 0);
  EXPECT_GT(fallback_runs, 0);
}

TEST(Rocprofv3CsvSplitTest, AHeaderSpanningTheMiddleFallsBack) {
  std::string text = "\"Kind\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\",\"long\n";
  text += std::string(400, 'h') + "\n\"\n";
  for (const Row& r : PlainRows(5)) text += RowText(r);
  const std::string path = WriteTemp("long_header.csv", text);
  EXPECT_FALSE(InParts(path, Split(path, {2, 2})).split);
  ExpectSameInParts(path);
}

TEST(Rocprofv3CsvSplitTest, CrlfRowsAndBlankLinesAroundTheMiddle) {
  std::string text = Csv(PlainRows(100), "\r\n");
  const std::string more = Csv(PlainRows(100, "z"), "\r\n");
  text += "\r\n\n\r\n" + more.substr(more.find("\r\n") + 2);  // blank lines, no second header
  const std::string path = WriteTemp("crlf.csv", text);
  EXPECT_EQ(ExpectSameInParts(path), 3);
}

TEST(Rocprofv3CsvSplitTest, AnErrorInALaterPartIsReportedAtItsLine) {
  for (int kind = 0; kind < 4; ++kind) {
    std::vector<Row> rows = PlainRows(300);
    if (kind == 0) rows[250].grid = "1x";
    if (kind == 1) rows[250].end = rows[250].start - 1;
    std::string text = Csv(rows);
    if (kind == 2) text += "\"KERNEL_DISPATCH\",\"short\"\n";
    if (kind == 3) text += "\"KERNEL_DISPATCH\",\"open,1,2,3\n";
    const std::string path = WriteTemp("late_error.csv", text);
    const Outcome want = Sequential(path);
    ASSERT_FALSE(want.status.ok());
    if (kind < 2) {
      EXPECT_EQ(want.status.where(), path + ":252");
    }
    SCOPED_TRACE(want.status.ToString());
    ExpectSameInParts(path);
  }
}

TEST(Rocprofv3CsvSplitTest, TheFirstErrorInTheFileWins) {
  std::vector<Row> rows = PlainRows(300);
  rows[20].grid = "bad";
  rows[150].end = 0;
  rows[280].grid = "worse";
  const std::string path = WriteTemp("three_errors.csv", Csv(rows));
  EXPECT_EQ(Sequential(path).status.ToString(), path + ":22: Grid_Size_X is not an integer: 'bad'");
  ExpectSameInParts(path);
  rows[20].grid = "1";  // now the middle one is first
  const std::string second = WriteTemp("two_errors.csv", Csv(rows));
  EXPECT_EQ(Sequential(second).status.ToString(), second + ":152: end before start (0 < 1500)");
  ExpectSameInParts(second);
}

TEST(Rocprofv3CsvSplitTest, SmallFilesAndOneCoreStayOnOneThread) {
  const std::string path = WriteTemp("small.csv", Csv(PlainRows(400)));
  CsvSplitOptions defaults;  // 64 MiB at least
  EXPECT_FALSE(InParts(path, defaults).split);
  CsvSplitOptions one_core = Split(path, {2, 8});
  one_core.cores = 1;
  const Outcome got = InParts(path, one_core);
  EXPECT_FALSE(got.split);
  ExpectSame(got, Sequential(path));
}

TEST(Rocprofv3CsvSplitTest, EmptyAndHeaderOnlyFiles) {
  for (const std::string& text : {std::string(), std::string("Kernel_Name,BeginNs,EndNs\n"),
                                  std::string("Kernel_Name,BeginNs,EndNs\n\n\n\n")}) {
    const std::string path = WriteTemp("empty.csv", text);
    for (const Config& config : kConfigs) {
      CsvSplitOptions options;
      options.min_split_bytes = 0;
      options.min_part_bytes = 1;
      options.cores = config.cores;
      const Outcome got = InParts(path, options);
      EXPECT_TRUE(got.status.ok()) << got.status.ToString();
      EXPECT_EQ(got.rows, 0);
    }
  }
}

TEST(Rocprofv3CsvSplitTest, LineNumbersOfLaterPartsAreRebased) {
  const std::string path = WriteTemp("lines.csv", Csv(PlainRows(400)));
  for (const Config& config : kConfigs) {
    const Outcome got = InParts(path, Split(path, config));
    ASSERT_TRUE(got.split);
    ASSERT_TRUE(got.window.ok());
    // Row i (0-based) sits on line i + 2 and starts at 10 * i.
    for (const Dispatch& d : got.window->dispatches) {
      ASSERT_EQ(d.start, 10 * (int64_t{d.line} - 2));
    }
  }
}

}  // namespace
}  // namespace decodeprof::io
