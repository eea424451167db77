// What an importer's recognizer looks at (io/importer.h): the first bytes of a file and, for
// an SQLite file, the names of its tables. For a gzip, zstd or xz-compressed file the first
// bytes are those of its decompressed content (input_stream.h), so that a recognizer sees what
// its importer will read; compression() says how it was compressed.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/status.h"
#include "src/io/common/input_stream.h"

namespace decodeprof::io {

// What recognizers look at: the file's first bytes and, for an SQLite file, its table names.
class FileProbe {
 public:
  // Reads the first kHeadBytes of `path` (decompressed). Errors: the file cannot be read
  // (kIo); compressed data damaged within the first kHeadBytes (kData, input_stream.h).
  static base::StatusOr<FileProbe> Open(const std::string& path);
  // For tests: a probe over given bytes (and tables, for an SQLite file).
  FileProbe(std::string path, std::string head, std::vector<std::string> sqlite_tables = {})
      : path_(std::move(path)), head_(std::move(head)), tables_(std::move(sqlite_tables)) {}

  static constexpr size_t kHeadBytes = size_t{64} * 1024;
  const std::string& path() const { return path_; }
  std::string_view head() const { return head_; }
  bool is_sqlite() const;
  // The names of the tables and views of an SQLite file (empty for any other file, or when
  // the database cannot be read: its importer then says why).
  const std::vector<std::string>& sqlite_tables() const { return tables_; }
  bool HasTable(std::string_view name) const;
  // How the file is compressed (kNone: not at all). A compressed SQLite file has no tables
  // here: SQLite reads files, not streams.
  Compression compression() const { return compression_; }
  void set_compression(Compression c) { compression_ = c; }

 private:
  std::string path_;
  std::string head_;
  std::vector<std::string> tables_;
  Compression compression_ = Compression::kNone;
};

}  // namespace decodeprof::io
