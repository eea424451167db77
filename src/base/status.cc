#include "src/base/status.h"

#include <string>

namespace decodeprof::base {

int ExitCode(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kOk:
      return 0;
    case ErrorKind::kUsage:
    case ErrorKind::kConfig:
      return 2;
    case ErrorKind::kData:
      return 65;
    case ErrorKind::kIo:
      return 66;
    case ErrorKind::kInternal:
      return 70;
  }
  return 70;
}

std::string Status::ToString() const {
  if (where_.empty()) return message_;
  return where_ + ": " + message_;
}

std::string AtLine(std::string_view file, int64_t line) {
  return std::string(file) + ":" + std::to_string(line);
}

}  // namespace decodeprof::base
