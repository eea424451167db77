// File helpers: whole-file reads with clear errors, and atomic writes (temporary name in
// the same directory, then rename) so no reader ever sees a partial output file.
#pragma once

#include <string>
#include <string_view>

#include "src/base/status.h"

namespace decodeprof::base {

// Reads the whole file. Missing or unreadable → kIo naming the path.
StatusOr<std::string> ReadFile(const std::string& path);

// Reads at most `max_bytes` from the start of the file (format sniffing).
StatusOr<std::string> ReadFilePrefix(const std::string& path, size_t max_bytes);

// Writes `content` to `path` atomically: `<path>.tmp.<pid>` is written, flushed and renamed
// over `path`. On failure the temporary file is removed and `path` is untouched.
Status WriteFileAtomic(const std::string& path, std::string_view content);

// Streams a large output to `<path>.tmp.<pid>` and renames it over `path` on Commit().
// Destroying it without a successful Commit() removes the temporary file, so a failed run
// never leaves a partial output behind.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  Status Open();
  // Buffered; errors surface at the next flush or at Commit().
  void Write(std::string_view data);
  Status Commit();

 private:
  Status Flush();
  std::string path_;
  std::string tmp_;
  std::string buffer_;
  int fd_ = -1;
  int error_ = 0;
  bool committed_ = false;
};

// Creates `dir` and its parents when missing.
Status MakeDirs(const std::string& dir);

}  // namespace decodeprof::base
