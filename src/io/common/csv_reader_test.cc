#include "src/io/common/csv_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/temp_dir.h"

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
  static const std::string dir = decodeprof::testing::ScratchDir("csv_reader_test_");
  const std::string path = dir + "/" + std::string(name);
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
  const decodeprof::testing::TempDir temp("csv_reader_test_");
  auto missing = CsvReader::Open(temp.Path("no/such/file.csv"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), base::ErrorKind::kIo);
  EXPECT_EQ(missing.status().where(), temp.Path("no/such/file.csv"));
  auto dir = CsvReader::Open(temp.path());
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
    const std::string value =
        std::string(static_cast<size_t>(50 + i), static_cast<char>('a' + i % 26));
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
  EXPECT_EQ(CsvReader::NextLineStart(
                decodeprof::testing::ScratchDir("csv_reader_test_") + "/no/such.csv", 0, 100),
            -1);
}

// Python's csv.reader (excel dialect, non-strict, newline='') as a plain state machine over
// the lines of `text`, as CPython's _csv.c processes them: the reference for generated input.
std::vector<Record> PythonReference(std::string_view text) {
  enum State { kStartRecord, kStartField, kInField, kInQuoted, kQuoteInQuoted, kEatCrnl };
  std::vector<Record> records;
  State state = kStartRecord;
  std::vector<std::string> fields;
  std::string field;
  int64_t line = 0;
  int64_t record_line = 0;
  const auto save = [&] {
    fields.push_back(field);
    field.clear();
  };
  size_t pos = 0;
  while (pos < text.size()) {
    size_t stop = text.find_first_of("\r\n", pos);
    stop = stop == std::string_view::npos                                           ? text.size()
           : text[stop] == '\r' && stop + 1 < text.size() && text[stop + 1] == '\n' ? stop + 2
                                                                                    : stop + 1;
    const std::string_view chars = text.substr(pos, stop - pos);
    pos = stop;
    ++line;
    if (state == kStartRecord) record_line = line;
    for (const char c : chars) {
      const bool crlf = c == '\r' || c == '\n';
      switch (state) {
        case kStartRecord:
          if (crlf) {
            state = kEatCrnl;
            break;
          }
          state = kStartField;
          [[fallthrough]];
        case kStartField:
          if (crlf) {
            save();
            state = kEatCrnl;
          } else if (c == '"') {
            state = kInQuoted;
          } else if (c == ',') {
            save();
          } else {
            field += c;
            state = kInField;
          }
          break;
        case kInField:
          if (crlf) {
            save();
            state = kEatCrnl;
          } else if (c == ',') {
            save();
            state = kStartField;
          } else {
            field += c;
          }
          break;
        case kInQuoted:
          if (c == '"') {
            state = kQuoteInQuoted;
          } else {
            field += c;
          }
          break;
        case kQuoteInQuoted:
          if (c == '"') {
            field += c;
            state = kInQuoted;
          } else if (c == ',') {
            save();
            state = kStartField;
          } else if (crlf) {
            save();
            state = kEatCrnl;
          } else {
            field += c;
            state = kInField;
          }
          break;
        case kEatCrnl:
          break;
      }
    }
    // The end of the line.
    switch (state) {
      case kStartRecord:
      case kEatCrnl:
        break;
      case kStartField:
      case kInField:
      case kQuoteInQuoted:
        save();
        break;
      case kInQuoted:
        continue;  // the quoted field goes on over the next line
    }
    records.push_back({record_line, fields});
    fields.clear();
    state = kStartRecord;
  }
  return records;
}

// Records of the shape the 64-byte scan takes (kernel traces), mixed with every shape it leaves
// to the byte loop, compared with the reference; fields cross 64-byte blocks at every offset.
TEST(CsvReaderTest, GeneratedRecordsMatchPythonsReader) {
  const std::vector<std::string> plain = {
      "1733331434358603", "0", "", "\"KERNEL_DISPATCH\"", "\"\"", "\"a,b\"", "x"};
  const std::vector<std::string> odd = {"\"q\"\"q\"", "ab\"c",     "\"ab\"c",  "\"l\nm\"",
                                        "\"cr\r\"",   "\"x\"\"\"", "\"\"\"\"", "a\"\"b"};
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    std::string text;
    for (int r = 0; r < 60; ++r) {
      const int fields = 1 + static_cast<int>(rng() % 24);
      for (int f = 0; f < fields; ++f) {
        if (f != 0) text += ',';
        if (rng() % 4 == 0) {  // a long name with commas: quoted fields across blocks
          std::string name(rng() % 150, 'k');
          for (char& c : name) c = "abc, <>()_"[rng() % 10];
          text += "\"" + name + "\"";
        } else if (rng() % 40 == 0) {
          text += odd[rng() % odd.size()];
        } else {
          text += plain[rng() % plain.size()];
        }
      }
      if (rng() % 20 == 0) {  // a quote inside an unquoted field, then one that looks closing
        text += ",ab\"c," + std::string(rng() % 70, 'p') + "d\",x";
      }
      const auto eol = static_cast<unsigned>(rng() % 30);
      text += eol == 0 ? "\r\n" : eol == 1 ? "\r" : eol == 2 ? "\n\n" : "\n";
    }
    const std::vector<Record> want = PythonReference(text);
    const Parsed from_memory = ParseString(text);
    ASSERT_TRUE(from_memory.status.ok()) << from_memory.status.ToString();
    ASSERT_EQ(from_memory.records, want) << "round " << round;
    const std::string path = WriteTemp("generated.csv", text);
    ASSERT_EQ(ParseFile(path, 100).records, want) << "round " << round;
  }
}

}  // namespace
}  // namespace decodeprof::io
