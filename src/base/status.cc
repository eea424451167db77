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

const std::string& Status::Empty() {
  static const std::string kEmpty;
  return kEmpty;
}

std::string Status::ToString() const {
  if (where().empty()) return message();
  return where() + ": " + message();
}

std::string AtLine(std::string_view file, int64_t line) {
  return std::string(file) + ":" + std::to_string(line);
}

std::string_view InputPrefix(std::string_view input, size_t limit) {
  if (input.size() <= limit) return input;
  size_t cut = limit;
  // Back to the start of the character the limit falls in (continuation bytes are 10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(input[cut]) & 0xC0) == 0x80) --cut;
  return input.substr(0, cut);
}

std::string CutNote(std::string_view input, size_t limit) {
  if (input.size() <= limit) return "";
  return "... (" + std::to_string(input.size()) + " bytes)";
}

std::string Excerpt(std::string_view input, size_t limit) {
  std::string out;
  for (const char c : InputPrefix(input, limit)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out + CutNote(input, limit);
}

}  // namespace decodeprof::base
