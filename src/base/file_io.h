// File helpers: whole-file reads with clear errors, and atomic writes (temporary name in
// the same directory, then rename) so no reader ever sees a partial output file.
#pragma once

#include <string>
#include <string_view>

#include "src/base/status.h"

namespace decodeprof::base {

// Reads the whole file. Missing or unreadable → kIo naming the path.
StatusOr<std::string> ReadFile(const std::string& path);

// Writes `content` to `path` atomically: `<path>.tmp.<pid>` is written, flushed and renamed
// over `path`. On failure the temporary file is removed and `path` is untouched.
Status WriteFileAtomic(const std::string& path, std::string_view content);

// Creates `dir` and its parents when missing.
Status MakeDirs(const std::string& dir);

}  // namespace decodeprof::base
