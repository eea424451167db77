// A streaming CSV record reader shared by every CSV importer (style 7.1: io/common).
//
// Reads RFC 4180 text as Python's csv.reader does with the default (excel) dialect and
// `newline=''`, without ever holding the whole file:
//   * fields are separated by ','; a field that starts with '"' is quoted: it may hold commas,
//     CR, LF and doubled quotes ("" → "), and ends at the next lone '"';
//   * a '"' inside an unquoted field is an ordinary character; text between a closing quote
//     and the next separator is appended to the field (Python's non-strict mode: "ab"c → abc);
//   * a record ends at LF, CRLF or a lone CR; the last record may lack a terminator;
//   * an empty line is a record with zero fields (Python yields []);
//   * a UTF-8 byte order mark at the very start is skipped (Options::skip_utf8_bom);
//   * bytes are passed through as they are (no encoding check).
//
// Unlike Python, a quoted field still open at the end of the input is an error (kData,
// where = "<where>:<line of its opening quote>").
//
// Memory is bounded: the input is read through a buffer of Options::buffer_size bytes that
// only grows while one record is longer than it, up to Options::max_record_bytes (a longer
// record is a kData error, where = "<where>:<line the record starts on>"). FromString()
// input is parsed in place and has no such limit. Records are handed out as string_views
// that stay valid until the next call of Next(); no allocation happens per record once the
// buffers have warmed up.
//
// Line numbers are 1-based and count LF, CRLF and lone CR as one line break each, including
// the breaks inside quoted fields, as editors and Python's reader.line_num count them.
//
// Usage:
//   DP_ASSIGN_OR_RETURN(auto reader, CsvReader::Open(path));
//   while (reader->Next()) { use reader->size(), (*reader)[i], reader->line(); }
//   DP_RETURN_IF_ERROR(reader->status());
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/status.h"
#include "src/io/common/input_stream.h"

namespace decodeprof::io {

class CsvReader {
 public:
  struct Options {
    // Bytes requested per read(); also the initial buffer size. At least 64 is used.
    size_t buffer_size = size_t{1} << 20;
    // A record (all its fields and separators) longer than this is an error.
    size_t max_record_bytes = size_t{64} << 20;
    bool skip_utf8_bom = true;
    // Open() only: reading starts at this byte offset of the file, which should be the start
    // of a record (e.g. just after a line break). offset() stays an offset into the file,
    // line() counts from 1 at this byte, and no byte order mark is skipped unless it is 0.
    // An offset at or past the end gives no records.
    int64_t start_offset = 0;
  };

  // Opens `path` for reading. Missing or unreadable (or a failed seek to
  // Options::start_offset) → kIo (where = path). Errors found later name `path` as their
  // location. A gzip, zstd or xz-compressed file is decompressed as it is read
  // (input_stream.h, whose errors Next() then gives; offset() counts decompressed bytes); it
  // has no Options::start_offset but 0 (kIo "cannot seek in a compressed file").
  static base::StatusOr<std::unique_ptr<CsvReader>> Open(const std::string& path,
                                                         const Options& options);
  static base::StatusOr<std::unique_ptr<CsvReader>> Open(const std::string& path);

  // Reads from the open descriptor `fd`; closes it on destruction when `owns_fd`. `where`
  // names the input in error messages.
  static std::unique_ptr<CsvReader> FromFd(int fd, bool owns_fd, std::string where,
                                           const Options& options);

  // Parses `text` in place (no copy): fields without doubled quotes point into `text`, which
  // must outlive the reader.
  static std::unique_ptr<CsvReader> FromString(std::string_view text, std::string where,
                                               const Options& options);
  static std::unique_ptr<CsvReader> FromString(std::string_view text, std::string where);

  // The offset just past the first LF at or after `offset` in the file at `path`, found by
  // reading at most `max_scan` bytes from `offset`; -1 when there is none within them, or the
  // file cannot be read. That is a line start, and a record start unless a quoted field spans
  // it: a caller that splits a file there must check (see ImportRocprofv3CsvInParts).
  static int64_t NextLineStart(const std::string& path, int64_t offset, size_t max_scan);

  ~CsvReader();
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  // Advances to the next record. Returns false at the end of the input and on an error; then
  // status() is OK at the end and the error otherwise (kIo for a failed read, kData for an
  // unterminated quote or an over-long record). After false, Next() keeps returning false.
  bool Next();
  const base::Status& status() const { return status_; }

  // The current record (valid after Next() returned true, until the next call of Next()).
  size_t size() const { return size_; }
  std::string_view operator[](size_t i) const { return fields_[i]; }
  std::span<const std::string_view> fields() const { return {fields_.data(), size_}; }
  // 1-based line on which the current record starts.
  int64_t line() const { return line_; }
  // Byte offset of the current record's first byte in the input (a skipped BOM counts).
  int64_t offset() const { return offset_; }
  // The name given to the input (the path for Open()).
  const std::string& where() const { return where_; }

 private:
  enum class Parse { kRecord, kNeedMore, kError };
  struct Fixup {  // a field of the current record that lives in scratch_
    size_t index;
    size_t offset;
    size_t size;
  };

  CsvReader(std::string where, const Options& options);
  Parse ParseRecord();
  bool ParsePlainRecord(const char* p, const char* end);
  void AddField(std::string_view field) {
    if (size_ == fields_.size()) fields_.resize(2 * size_);
    fields_[size_++] = field;
  }
  Parse ParseJunkAfterQuote(const char*& p, const char* content, const char* close, bool escaped);
  Parse Terminate(const char* p);
  void AppendUnescaped(const char* begin, const char* end);
  bool Refill();  // false after a read error or an over-long record (status_ set)

  std::string where_;
  Options options_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool eof_ = false;
  bool done_ = false;
  bool started_ = false;

  std::unique_ptr<char[]> owned_;  // the read buffer in fd mode (+1 byte: '\n' at end_)
  bool sentinel_ = false;          // data_[end_] is that '\n' (fd mode)
  const char* data_ = nullptr;     // buffer start (owned_ or the caller's text)
  size_t capacity_ = 0;
  size_t pos_ = 0;           // first unconsumed byte
  size_t end_ = 0;           // end of valid data
  int64_t data_offset_ = 0;  // input offset of data_[0]

  std::string scratch_;  // unescaped fields of the current record
  std::vector<Fixup> fixups_;
  // The current record's fields are fields_[0, size_); fields_ only grows (slots are reused).
  std::vector<std::string_view> fields_;
  size_t size_ = 0;
  int64_t next_line_ = 1;  // line on which the next record starts
  int64_t line_ = 0;
  int64_t offset_ = 0;
  int64_t pending_lines_ = 0;  // line breaks of the record being parsed
  size_t record_end_ = 0;      // where the record being parsed ends (after its terminator)
  std::unique_ptr<InputStream> stream_;  // a compressed file (Open), read through its decoder
  base::Status status_;
};

// Room for the rows of a plain text file: the lines its first MiB holds a byte, a tenth more.
// A reservation counts against the memory budget (base/spill.h) whether or not its rows come,
// and a bound of a row in 64 bytes reserved 4.5 times a rocprofv3 CSV's rows, which put a
// whole window in files under the default budget. More rows than expected grow the store. A
// row in 64 bytes where the first MiB holds too few lines to tell (a compressed file, a short
// one) or `path` is not a regular file (opened without waiting: a FIFO's writer may never
// come; its importer refuses it).
class ExpectedRows {
 public:
  explicit ExpectedRows(const std::string& path);
  // The rows `bytes` of the file are expected to hold, a tenth more (at most 64 M).
  size_t In(uintmax_t bytes) const;

 private:
  double per_byte_;
};

}  // namespace decodeprof::io
