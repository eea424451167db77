#include "src/io/rocprofv3_csv/rocprofv3_csv_importer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "src/io/common/csv_reader.h"
#include "src/trace/trace.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::io {
namespace {

struct VectorSink : trace::DispatchSink {
  void Add(const trace::Dispatch& d) override { dispatches.push_back(d); }
  trace::DispatchVector dispatches;
};

struct Imported {
  base::StatusOr<CsvImportStats> stats = base::InternalError("", "not run");
  trace::StringPool names;
  VectorSink sink;

  std::string Name(size_t i) const { return std::string(names.Get(sink.dispatches[i].name)); }
};

// Imports `text` as if it were the file "trace.csv".
void ImportText(std::string_view text, Imported& out) {
  auto reader = CsvReader::FromString(text, "trace.csv");
  out.stats = ImportRocprofv3Csv(*reader, out.names, out.sink);
}

std::string WriteTemp(std::string_view name, std::string_view content) {
  static const std::string dir = decodeprof::testing::ScratchDir("rocprofv3_csv_test_");
  const std::string path = dir + "/" + std::string(name);
  FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  std::fwrite(content.data(), 1, content.size(), f);
  std::fclose(f);
  return path;
}

void ExpectDataError(const Imported& got, const std::string& where, const std::string& message) {
  ASSERT_FALSE(got.stats.ok());
  EXPECT_EQ(got.stats.status().kind(), base::ErrorKind::kData);
  EXPECT_EQ(got.stats.status().where(), where);
  EXPECT_EQ(got.stats.status().message(), message);
}

TEST(Rocprofv3CsvImporterTest, EveryColumnSpelling) {
  for (const char* name_col : {"Kernel_Name", "KernelName"}) {
    for (const char* start_col : {"Start_Timestamp", "BeginNs"}) {
      for (const char* end_col : {"End_Timestamp", "EndNs"}) {
        const std::string text = std::string("Kind,") + end_col + "," + name_col + "," + start_col +
                                 "\nKERNEL_DISPATCH,150,k1,100\nX,300,k2,200\n";
        Imported got;
        ImportText(text, got);
        ASSERT_TRUE(got.stats.ok()) << got.stats.status().ToString();
        EXPECT_EQ(got.stats->rows, 2);
        EXPECT_FALSE(got.stats->has_grid_columns);
        ASSERT_EQ(got.sink.dispatches.size(), 2u);
        EXPECT_EQ(got.Name(0), "k1");
        EXPECT_EQ(got.sink.dispatches[0].start, 100);
        EXPECT_EQ(got.sink.dispatches[0].end, 150);
        EXPECT_EQ(got.sink.dispatches[0].grid, 0);  // no grid column at all
        EXPECT_EQ(got.sink.dispatches[0].line, 2u);
        EXPECT_EQ(got.Name(1), "k2");
        EXPECT_EQ(got.sink.dispatches[1].line, 3u);
      }
    }
  }
}

TEST(Rocprofv3CsvImporterTest, FirstCandidateWinsAndRepeatedColumnsUseTheLast) {
  Imported got;
  ImportText("KernelName,Kernel_Name,BeginNs,EndNs,BeginNs\nold,new,1,9,5\n", got);
  ASSERT_TRUE(got.stats.ok());
  EXPECT_EQ(got.Name(0), "new");
  EXPECT_EQ(got.sink.dispatches[0].start, 5);  // csv.DictReader keeps the last BeginNs
}

TEST(Rocprofv3CsvImporterTest, GridIsTheProductOfThePresentColumns) {
  Imported got;
  ImportText(
      "Kernel_Name,Start_Timestamp,End_Timestamp,Grid_Size_X,Grid_Size_Z\n"
      "a,1,2,64,4\n"
      "b,1,2,,4\n"   // empty → 1
      "c,1,2,0,0\n"  // 0 → 1
      "d,1,2,-5,3\n",
      got);
  ASSERT_TRUE(got.stats.ok()) << got.stats.status().ToString();
  EXPECT_TRUE(got.stats->has_grid_columns);
  ASSERT_EQ(got.sink.dispatches.size(), 4u);
  EXPECT_EQ(got.sink.dispatches[0].grid, 256);
  EXPECT_EQ(got.sink.dispatches[1].grid, 4);
  EXPECT_EQ(got.sink.dispatches[2].grid, 1);
  EXPECT_EQ(got.sink.dispatches[3].grid, 3);
}

TEST(Rocprofv3CsvImporterTest, RealRocprofv3Header) {
  const std::string path =
      std::string(DECODEPROF_SOURCE_DIR) + "/src/io/testdata/rocprofv3_1.3.5_kernel_trace.csv";
  trace::StringPool names;
  VectorSink sink;
  const auto stats = ImportRocprofv3Csv(path, names, sink);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->rows, 5);
  EXPECT_TRUE(stats->has_grid_columns);
  ASSERT_EQ(sink.dispatches.size(), 5u);
  EXPECT_EQ(names.size(), 4u);  // rms_norm_float16_t twice
  EXPECT_EQ(sink.dispatches[0].name, sink.dispatches[3].name);
  EXPECT_EQ(names.Get(sink.dispatches[0].name), "rms_norm_float16_t");
  EXPECT_EQ(sink.dispatches[0].start, 1759230000000100000);
  EXPECT_EQ(sink.dispatches[0].end, 1759230000000104500);
  EXPECT_EQ(sink.dispatches[0].grid, 4096);
  EXPECT_EQ(names.Get(sink.dispatches[1].name),
            "void mlx::core::rocm::binary_ss<mlx::core::Add, __half, __half>(__half const*, "
            "__half const*, __half*, unsigned int)");
  EXPECT_EQ(sink.dispatches[1].grid, 2048);  // Grid_Size_Y 0 counts as 1
  EXPECT_EQ(sink.dispatches[2].grid, 128 * 4096);
  EXPECT_EQ(names.Get(sink.dispatches[4].name), "kernel \"quoted\" name");
  EXPECT_EQ(sink.dispatches[4].duration(), 0);
  EXPECT_EQ(sink.dispatches[4].line, 6u);

  // The same file read through a buffer smaller than one row.
  CsvReader::Options small;
  small.buffer_size = 64;
  trace::StringPool names2;
  VectorSink sink2;
  ASSERT_TRUE(ImportRocprofv3Csv(path, names2, sink2, small).ok());
  ASSERT_EQ(sink2.dispatches.size(), sink.dispatches.size());
  for (size_t i = 0; i < sink.dispatches.size(); ++i) {
    EXPECT_EQ(sink2.dispatches[i].start, sink.dispatches[i].start);
    EXPECT_EQ(sink2.dispatches[i].line, sink.dispatches[i].line);
    EXPECT_EQ(names2.Get(sink2.dispatches[i].name), names.Get(sink.dispatches[i].name));
  }
}

TEST(Rocprofv3CsvImporterTest, QuotedNamesWithCommasQuotesAndNewlines) {
  Imported got;
  ImportText(
      "\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n"
      "\"f(a, b)\",1,2\n"
      "\"say \"\"hi\"\", ok\",3,4\n"
      "\"two\nlines\",5,6\n"
      "after,7,8\n",
      got);
  ASSERT_TRUE(got.stats.ok());
  ASSERT_EQ(got.sink.dispatches.size(), 4u);
  EXPECT_EQ(got.Name(0), "f(a, b)");
  EXPECT_EQ(got.Name(1), "say \"hi\", ok");
  EXPECT_EQ(got.Name(2), "two\nlines");
  EXPECT_EQ(got.sink.dispatches[2].line, 4u);
  EXPECT_EQ(got.sink.dispatches[3].line, 6u);
}

TEST(Rocprofv3CsvImporterTest, CrlfBomAndBlankLines) {
  Imported got;
  ImportText("\xEF\xBB\xBFKernel_Name,BeginNs,EndNs\r\na,1,2\r\n\r\nb,3,4\r\n", got);
  ASSERT_TRUE(got.stats.ok()) << got.stats.status().ToString();
  EXPECT_EQ(got.stats->rows, 2);
  ASSERT_EQ(got.sink.dispatches.size(), 2u);
  EXPECT_EQ(got.Name(0), "a");
  EXPECT_EQ(got.sink.dispatches[0].end, 2);
  EXPECT_EQ(got.Name(1), "b");
  EXPECT_EQ(got.sink.dispatches[1].line, 4u);  // the blank line 3 is skipped
}

TEST(Rocprofv3CsvImporterTest, EmptyFileAndHeaderOnlyGiveNoRows) {
  for (const char* text : {"", "\xEF\xBB\xBF", "Kernel_Name,BeginNs,EndNs,Grid_Size_X\n"}) {
    Imported got;
    ImportText(text, got);
    ASSERT_TRUE(got.stats.ok()) << got.stats.status().ToString();
    EXPECT_EQ(got.stats->rows, 0);
    EXPECT_TRUE(got.sink.dispatches.empty());
  }
}

TEST(Rocprofv3CsvImporterTest, MissingColumnsNameTheCandidatesAndTheHeader) {
  const std::string path = WriteTemp(
      "missing_name.csv", "\"Kind\",\"Agent_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n");
  trace::StringPool names;
  VectorSink sink;
  const auto stats = ImportRocprofv3Csv(path, names, sink);
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().kind(), base::ErrorKind::kData);
  EXPECT_EQ(stats.status().where(), path);
  EXPECT_EQ(stats.status().message(),
            "kernel trace has none of the columns ('Kernel_Name', 'KernelName'); header: "
            "['Kind', 'Agent_Id', 'Start_Timestamp', 'End_Timestamp']");

  Imported no_start;
  ImportText("Kernel_Name,Start,End_Timestamp\nk,1,2\n", no_start);
  ExpectDataError(no_start, "trace.csv",
                  "kernel trace has none of the columns ('Start_Timestamp', 'BeginNs'); "
                  "header: ['Kernel_Name', 'Start', 'End_Timestamp']");

  Imported no_end;
  ImportText("Kernel_Name,BeginNs,it's\n", no_end);
  ExpectDataError(no_end, "trace.csv",
                  "kernel trace has none of the columns ('End_Timestamp', 'EndNs'); "
                  "header: ['Kernel_Name', 'BeginNs', \"it's\"]");

  Imported blank_header;
  ImportText("\nKernel_Name,BeginNs,EndNs\n", blank_header);
  ExpectDataError(blank_header, "trace.csv",
                  "kernel trace has none of the columns ('Kernel_Name', 'KernelName'); "
                  "header: []");
}

TEST(Rocprofv3CsvImporterTest, TruncatedRow) {
  Imported got;
  ImportText("Kind,Kernel_Name,BeginNs,EndNs,Extra\nK,a,1,2\nK,b,3\n", got);
  ExpectDataError(got, "trace.csv:3", "row has 3 fields, the header has 5");
  EXPECT_EQ(got.sink.dispatches.size(), 1u);  // the complete row before it was delivered
}

TEST(Rocprofv3CsvImporterTest, NonIntegerValues) {
  Imported start;
  ImportText("Kernel_Name,BeginNs,EndNs\na,1,2\nb,12x,20\n", start);
  ExpectDataError(start, "trace.csv:3", "BeginNs is not an integer: '12x'");

  Imported end;
  ImportText("Kernel_Name,Start_Timestamp,End_Timestamp\na,1,\n", end);
  ExpectDataError(end, "trace.csv:2", "End_Timestamp is not an integer: ''");

  Imported huge;
  ImportText("Kernel_Name,Start_Timestamp,End_Timestamp\na,1,99999999999999999999\n", huge);
  ExpectDataError(huge, "trace.csv:2",
                  "End_Timestamp does not fit in 64 bits: '99999999999999999999'");

  Imported dash;
  ImportText("Kernel_Name,Start_Timestamp,End_Timestamp\na,1-2,3\n", dash);
  ExpectDataError(dash, "trace.csv:2", "Start_Timestamp is not an integer: '1-2'");

  Imported grid;
  ImportText("Kernel_Name,BeginNs,EndNs,Grid_Size_X,Grid_Size_Y\na,1,2,4,abc\n", grid);
  ExpectDataError(grid, "trace.csv:2", "Grid_Size_Y is not an integer: 'abc'");

  Imported overflow;
  ImportText(
      "Kernel_Name,BeginNs,EndNs,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n"
      "a,1,2,4294967296,4294967296,4\n",
      overflow);
  ExpectDataError(overflow, "trace.csv:2", "grid size does not fit in 64 bits");
}

TEST(Rocprofv3CsvImporterTest, TimestampsReadAsPythonIntReadsThem) {
  Imported got;
  ImportText("Kernel_Name,BeginNs,EndNs\na, 10 ,+1_000\nb,-5,0\n", got);
  ASSERT_TRUE(got.stats.ok()) << got.stats.status().ToString();
  EXPECT_EQ(got.sink.dispatches[0].start, 10);
  EXPECT_EQ(got.sink.dispatches[0].end, 1000);
  EXPECT_EQ(got.sink.dispatches[1].start, -5);
}

TEST(Rocprofv3CsvImporterTest, EndBeforeStart) {
  Imported got;
  ImportText("Kernel_Name,BeginNs,EndNs\na,10,5\n", got);
  ExpectDataError(got, "trace.csv:2", "end before start (5 < 10)");
}

TEST(Rocprofv3CsvImporterTest, UnterminatedQuote) {
  Imported got;
  ImportText("Kernel_Name,BeginNs,EndNs\na,1,2\n\"open,3,4\n", got);
  ExpectDataError(got, "trace.csv:3", "quoted field is not closed before the end of the file");
}

TEST(Rocprofv3CsvImporterTest, MissingFileIsAnIoError) {
  trace::StringPool names;
  VectorSink sink;
  const decodeprof::testing::TempDir temp("rocprofv3_csv_test_");
  const std::string path = temp.Path("no_such_kernel_trace.csv");
  const auto stats = ImportRocprofv3Csv(path, names, sink);
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().kind(), base::ErrorKind::kIo);
  EXPECT_EQ(stats.status().where(), path);
}

TEST(Rocprofv3CsvImporterTest, ManyNamesKeepTheirIds) {
  // More distinct names than the name cache has slots: every row must still map to the id
  // of its own name.
  std::string text = "Kernel_Name,BeginNs,EndNs\n";
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 3000; ++i) text += "kernel_" + std::to_string(i) + ",1,2\n";
  }
  Imported got;
  ImportText(text, got);
  ASSERT_TRUE(got.stats.ok());
  EXPECT_EQ(got.names.size(), 3000u);
  ASSERT_EQ(got.sink.dispatches.size(), 6000u);
  for (size_t i = 0; i < 6000; ++i) {
    ASSERT_EQ(got.Name(i), "kernel_" + std::to_string(i % 3000));
  }
}

TEST(Rocprofv3CsvImporterTest, IdsAreTheNumberAtTheEndWithinTheirRange) {
  const std::string header =
      "Kernel_Name,Start_Timestamp,End_Timestamp,Agent_Id,Queue_Id,Correlation_Id\n";
  Imported got;
  ImportText(header + "a,1,2,Agent 32767,4294967295,18446744073709551615\n" +
                 "b,1,2, 3 ,0007,000000000000000000000000000042\n" +
                 "c,1,2,,,1234567890123456789\n",
             got);
  ASSERT_TRUE(got.stats.ok()) << got.stats.status().ToString();
  ASSERT_EQ(got.sink.dispatches.size(), 3u);
  EXPECT_EQ(got.sink.dispatches[0].device, 32767);
  EXPECT_EQ(got.sink.dispatches[0].stream, 4294967295u);
  EXPECT_EQ(got.sink.dispatches[0].correlation, 18446744073709551615u);
  EXPECT_EQ(got.sink.dispatches[1].device, 3);
  EXPECT_EQ(got.sink.dispatches[1].stream, 7u);
  EXPECT_EQ(got.sink.dispatches[1].correlation, 42u);
  EXPECT_EQ(got.sink.dispatches[2].device, 0);
  EXPECT_EQ(got.sink.dispatches[2].correlation, 1234567890123456789u);

  Imported agent;
  ImportText(header + "a,1,2,Agent 32768,1,1\n", agent);
  ExpectDataError(agent, "trace.csv:2", "Agent_Id 'Agent 32768' is beyond its range (0 to 32767)");
  Imported queue;
  ImportText(header + "a,1,2,1,4294967296,1\n", queue);
  ExpectDataError(queue, "trace.csv:2",
                  "Queue_Id '4294967296' is beyond its range (0 to 4294967295)");
  Imported correlation;
  ImportText(header + "a,1,2,1,1,18446744073709551616\n", correlation);
  ExpectDataError(correlation, "trace.csv:2",
                  "Correlation_Id '18446744073709551616' is beyond its range (0 to "
                  "18446744073709551615)");
  Imported wide;
  ImportText(header + "a,1,2,99999999999999999999,1,1\n", wide);
  ExpectDataError(wide, "trace.csv:2",
                  "Agent_Id '99999999999999999999' is beyond its range (0 to 32767)");
}

TEST(Rocprofv3CsvImporterTest, ImportTellsTheSinkHowManyRowsToExpect) {
  // The plug-in's Import hints the rows the file's first MiB holds a byte (a tenth more,
  // ExpectedRows) to a sink that keeps every dispatch: room for every row, not 4.5 times them.
  struct ExpectingSink : trace::DispatchSink {
    void Add(const trace::Dispatch& d) override { dispatches.push_back(d); }
    void Expect(size_t n) override { expected.push_back(n); }
    trace::DispatchVector dispatches;
    std::vector<size_t> expected;
  };
  // Rows of about 260 bytes, as rocprofv3's are (a row in 64 bytes would be four times them).
  std::string text = "Kernel_Name,BeginNs,EndNs\n";
  const std::string padding(230, 'x');
  constexpr size_t kRows = 8000;
  for (size_t i = 0; i < kRows; ++i) {
    text += "a_kernel_" + padding + "_" + std::to_string(i) + ",1,2\n";
  }
  const std::string path = WriteTemp("expect_kernel_trace.csv", text);
  trace::StringPool names;
  ExpectingSink sink;
  trace::TraceBuilder builder(names, sink);
  ASSERT_TRUE(Rocprofv3CsvImporter().Import(path, builder).ok());
  ASSERT_EQ(sink.dispatches.size(), kRows);
  EXPECT_EQ(sink.expected, std::vector<size_t>{ExpectedRows(path).In(text.size())});
  EXPECT_GE(sink.expected[0], kRows);                 // room for every row
  EXPECT_LT(sink.expected[0], text.size() / 64 / 2);  // not a row in 64 bytes
}

}  // namespace
}  // namespace decodeprof::io
