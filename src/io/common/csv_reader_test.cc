#include "src/io/common/csv_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace decodeprof::io {
namespace {

struct Record {
  int64_t line;
  std::vector<std::string> fields;
  bool operator==(const Record&) const = default;
};

void PrintTo(const Record& r, std::ostream* os) {
  *os << r.line << ":[";
  for (const std::string& f : r.fields) *os << '<' << f << '>';
  *os << ']';
}

struct Parsed {
  std::vector<Record> records;
  base::Status status;
};

Parsed ReadAll(CsvReader& reader) {
  Parsed out;
  while (reader.Next()) {
    out.records.push_back({reader.line(), {reader.fields().begin(), reader.fields().end()}});
  }
  out.status = reader.status();
  EXPECT_FALSE(reader.Next());  // stays at the end
  return out;
}

Parsed ParseString(std::string_view text, CsvReader::Options options = {}) {
  auto reader = CsvReader::FromString(text, "mem.csv", options);
  return ReadAll(*reader);
}

std::string WriteTemp(std::string_view name, std::string_view content) {
  const std::string path = testing::TempDir() + "/csv_reader_test_" + std::string(name);
  FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  std::fwrite(content.data(), 1, content.size(), f);
  std::fclose(f);
  return path;
}

Parsed ParseFile(const std::string& path, size_t buffer_size) {
  CsvReader::Options options;
  options.buffer_size = buffer_size;
  auto reader = CsvReader::Open(path, options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  return ReadAll(**reader);
}

// Expected records are what Python's csv.reader(open(f, newline='')) yields, with the line a
// record starts on taken from reader.line_num.
TEST(CsvReaderTest, LineEndings) {
  const std::vector<Record> expected = {{1, {"a", "b"}}, {2, {"c", "d"}}};
  EXPECT_EQ(ParseString("a,b\nc,d\n").records, expected);
  EXPECT_EQ(ParseString("a,b\r\nc,d\r\n").records, expected);
  EXPECT_EQ(ParseString("a,b\rc,d\r").records, expected);
  EXPECT_EQ(ParseString("a,b\nc,d").records, expected);  // no final terminator
}

TEST(CsvReaderTest, QuotedFieldsWithCommasAndDoubledQuotes) {
  const Parsed p = ParseString("a,\"b,c\",\"d\"\"e\"\n");
  ASSERT_TRUE(p.status.ok());
  EXPECT_EQ(p.records, (std::vector<Record>{{1, {"a", "b,c", "d\"e"}}}));
}

TEST(CsvReaderTest, EmbeddedNewlinesCountTowardLineNumbers) {
  const Parsed p = ParseString("x,\"multi\nline\r\nfield\",y\nnext\n");
  EXPECT_EQ(p.records,
            (std::vector<Record>{{1, {"x", "multi\nline\r\nfield", "y"}}, {4, {"next"}}}));
  // A CR that ends the quoted content is a line break of its own.
  EXPECT_EQ(ParseString("\"a\r\"\nz\n").records, (std::vector<Record>{{1, {"a\r"}}, {3, {"z"}}}));
}

TEST(CsvReaderTest, EmptyLinesAreRecordsWithoutFields) {
  EXPECT_EQ(ParseString("a\n\nb\n").records,
            (std::vector<Record>{{1, {"a"}}, {2, {}}, {3, {"b"}}}));
  EXPECT_EQ(ParseString("a\r\r\nb").records,
            (std::vector<Record>{{1, {"a"}}, {2, {}}, {3, {"b"}}}));
}

TEST(CsvReaderTest, EmptyFields) {
  EXPECT_EQ(ParseString("a,\n,\n").records, (std::vector<Record>{{1, {"a", ""}}, {2, {"", ""}}}));
  EXPECT_EQ(ParseString("a,").records, (std::vector<Record>{{1, {"a", ""}}}));
  EXPECT_EQ(ParseString("\"\"\n").records, (std::vector<Record>{{1, {""}}}));
  EXPECT_EQ(ParseString(" ,\" \"\n").records, (std::vector<Record>{{1, {" ", " "}}}));
}

TEST(CsvReaderTest, EmptyInputHasNoRecords) {
  const Parsed p = ParseString("");
  EXPECT_TRUE(p.status.ok());
  EXPECT_TRUE(p.records.empty());
}

TEST(CsvReaderTest, PythonNonStrictQuoteHandling) {
  EXPECT_EQ(ParseString("ab\"c,d\n").records, (std::vector<Record>{{1, {"ab\"c", "d"}}}));
  EXPECT_EQ(ParseString("\"ab\"cd,e\n").records, (std::vector<Record>{{1, {"abcd", "e"}}}));
  EXPECT_EQ(ParseString("\"a\"\"b\"x\"y,z\n").records,
            (std::vector<Record>{{1, {"a\"bx\"y", "z"}}}));
}

TEST(CsvReaderTest, ByteOrderMarkIsSkipped) {
  EXPECT_EQ(ParseString("\xEF\xBB\xBFKind,Name\n").records,
            (std::vector<Record>{{1, {"Kind", "Name"}}}));
  EXPECT_TRUE(ParseString("\xEF\xBB\xBF").records.empty());
  CsvReader::Options keep;
  keep.skip_utf8_bom = false;
  EXPECT_EQ(ParseString("\xEF\xBB\xBFKind\n", keep).records,
            (std::vector<Record>{{1, {"\xEF\xBB\xBFKind"}}}));
}

TEST(CsvReaderTest, UnterminatedQuoteIsAnErrorAtItsLine) {
  const Parsed p = ParseString("a,b\nc,\"open\nstill open\n");
  EXPECT_EQ(p.records, (std::vector<Record>{{1, {"a", "b"}}}));
  EXPECT_EQ(p.status.kind(), base::ErrorKind::kData);
  EXPECT_EQ(p.status.where(), "mem.csv:2");
  EXPECT_EQ(p.status.message(), "quoted field is not closed before the end of the file");
}

TEST(CsvReaderTest, OffsetsPointAtRecordStarts) {
  auto reader = CsvReader::FromString(
      "\xEF\xBB\xBF"
      "ab,c\r\nd\n",
      "mem.csv");
  ASSERT_TRUE(reader->Next());
  EXPECT_EQ(reader->offset(), 3);
  ASSERT_TRUE(reader->Next());
  EXPECT_EQ(reader->offset(), 9);
  EXPECT_EQ((*reader)[0], "d");
  EXPECT_FALSE(reader->Next());
}

TEST(CsvReaderTest, OverlongRecordIsAnError) {
  const std::string path = WriteTemp("long.csv", "a,b\n" + std::string(1000, 'x') + "\nc\n");
  CsvReader::Options options;
  options.buffer_size = 64;
  options.max_record_bytes = 256;
  auto reader = CsvReader::Open(path, options);
  ASSERT_TRUE(reader.ok());
  const Parsed p = ReadAll(**reader);
  EXPECT_EQ(p.records.size(), 1u);
  EXPECT_EQ(p.status.kind(), base::ErrorKind::kData);
  EXPECT_EQ(p.status.where(), path + ":2");
  EXPECT_EQ(p.status.message(), "record is longer than 256 bytes");
}

TEST(CsvReaderTest, MissingFileAndDirectoryAreIoErrors) {
  auto missing = CsvReader::Open(testing::TempDir() + "/no/such/file.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), base::ErrorKind::kIo);
  EXPECT_EQ(missing.status().where(), testing::TempDir() + "/no/such/file.csv");
  auto dir = CsvReader::Open(testing::TempDir());
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().kind(), base::ErrorKind::kIo);
}

TEST(CsvReaderTest, FromFdReadsAPipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string text = "h1,h2\n\"q,1\",2\n";
  ASSERT_EQ(::write(fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fds[1]);
  auto reader = CsvReader::FromFd(fds[0], /*owns_fd=*/true, "pipe", CsvReader::Options());
  EXPECT_EQ(ReadAll(*reader).records, (std::vector<Record>{{1, {"h1", "h2"}}, {2, {"q,1", "2"}}}));
}

// A generated text full of quotes, separators and line breaks, read through buffers of every
// size from the minimum up, must give the same records as the in-memory parse: this crosses
// every buffer boundary at every position of a quote, a "" pair and a CRLF, and grows the
// buffer for records longer than it.
TEST(CsvReaderTest, BufferBoundariesDoNotChangeTheRecords) {
  const std::vector<std::string> pieces = {
      "abc",  ",",  "\"",          "\"\"",       "\n",
      "\r\n", "\r", "\"q,\r\nq\"", "\"x\"\"y\"", std::string(90, 'L')};
  std::mt19937 rng(42);
  std::string text;
  while (text.size() < 6000) text += pieces[rng() % pieces.size()];
  // Close a quote left open so that the whole text is valid.
  const Parsed from_memory_first = ParseString(text);
  if (!from_memory_first.status.ok()) text += "\"";
  const Parsed from_memory = ParseString(text);
  ASSERT_TRUE(from_memory.status.ok()) << from_memory.status.ToString();
  ASSERT_GT(from_memory.records.size(), 100u);

  const std::string path = WriteTemp("boundaries.csv", text);
  for (size_t buffer_size = 64; buffer_size <= 160; ++buffer_size) {
    const Parsed from_file = ParseFile(path, buffer_size);
    ASSERT_TRUE(from_file.status.ok()) << buffer_size << ": " << from_file.status.ToString();
    ASSERT_EQ(from_file.records, from_memory.records) << "buffer size " << buffer_size;
  }
}

TEST(CsvReaderTest, ViewsOfEscapedFieldsAreStable) {
  // Several unescaped copies in one record (the scratch buffer grows while it is parsed).
  std::string line;
  std::vector<std::string> expected;
  for (int i = 0; i < 20; ++i) {
    const std::string value = std::string(static_cast<size_t>(50 + i), 'a' + i % 26);
    line += (i ? "," : "") + ("\"" + value + "\"\"\"");
    expected.push_back(value + "\"");
  }
  EXPECT_EQ(ParseString(line + "\n").records, (std::vector<Record>{{1, expected}}));
}

TEST(CsvReaderTest, StartOffsetReadsFromThereWithFileOffsetsAndOwnLines) {
  const std::string path = WriteTemp("start.csv", "\xEF\xBB\xBFh1,h2\na,\"b\nc\"\r\nd,e\n");
  CsvReader::Options options;
  options.buffer_size = 64;
  options.start_offset = 9;  // just after the header's LF
  auto reader = CsvReader::Open(path, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_TRUE((*reader)->Next());
  EXPECT_EQ((*reader)->offset(), 9);
  EXPECT_EQ((*reader)->line(), 1);
  ASSERT_TRUE((*reader)->Next());
  EXPECT_EQ((*reader)->offset(), 18);
  EXPECT_EQ((*reader)->line(), 3);
  EXPECT_EQ((**reader)[1], "e");
  EXPECT_FALSE((*reader)->Next());
  EXPECT_TRUE((*reader)->status().ok());

  options.start_offset = 1;  // inside the byte order mark: nothing is skipped
  EXPECT_EQ(ReadAll(**CsvReader::Open(path, options)).records.front().fields.front(), "\xBB\xBFh1");
  options.start_offset = 1000;  // past the end
  EXPECT_TRUE(ReadAll(**CsvReader::Open(path, options)).records.empty());
  options.start_offset = -1;
  EXPECT_EQ(CsvReader::Open(path, options).status().kind(), base::ErrorKind::kIo);
}

TEST(CsvReaderTest, NextLineStartFindsTheByteAfterALineFeed) {
  const std::string path = WriteTemp("lines.csv", "ab\r\ncd\ref\n" + std::string(9000, 'x') + "\n");
  EXPECT_EQ(CsvReader::NextLineStart(path, 0, 100), 4);
  EXPECT_EQ(CsvReader::NextLineStart(path, 3, 100), 4);
  EXPECT_EQ(CsvReader::NextLineStart(path, 4, 100), 10);         // a lone CR is not looked at
  EXPECT_EQ(CsvReader::NextLineStart(path, 10, 1 << 20), 9011);  // across read chunks
  EXPECT_EQ(CsvReader::NextLineStart(path, 10, 5000), -1);       // not within the scan
  EXPECT_EQ(CsvReader::NextLineStart(path, 9011, 100), -1);      // at the end
  EXPECT_EQ(CsvReader::NextLineStart(testing::TempDir() + "/no/such.csv", 0, 100), -1);
}

}  // namespace
}  // namespace decodeprof::io
