#include "src/io/unreadable_formats.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "src/io/common/sqlite_db.h"

namespace decodeprof::io {

namespace {

constexpr std::string_view kReads =
    "decodeprof reads torch.profiler (Kineto) Chrome-trace JSON, rocprofv3 kernel-trace CSV "
    "and rocpd, Nsight Systems SQLite exports and its own traces (docs/trace-formats.md)";

// The first non-space byte of `head` and the offset of it (npos: none).
size_t FirstByte(std::string_view head) { return head.find_first_not_of(" \t\r\n\xef\xbb\xbf"); }

// True if the JSON text `head` has the key `key` ("\"key\"" followed by ':').
bool HasKey(std::string_view head, std::string_view key) {
  const std::string quoted = "\"" + std::string(key) + "\"";
  for (size_t at = head.find(quoted); at != std::string_view::npos;
       at = head.find(quoted, at + 1)) {
    const size_t next = head.find_first_not_of(" \t\r\n", at + quoted.size());
    if (next != std::string_view::npos && head[next] == ':') return true;
  }
  return false;
}

// A varint at head[*p] (advanced past it); false when it is cut or longer than 10 bytes.
bool Varint(std::string_view head, size_t* p, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && *p < head.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(head[(*p)++]);
    *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

base::Status Refusal(const FileProbe& probe, const std::string& what) {
  return base::DataError(probe.path(), what + ", which decodeprof does not read",
                         std::string(kReads));
}

}  // namespace

bool LooksLikePerfettoProtobuf(std::string_view head) {
  int records = 0;
  size_t p = 0;
  while (p < head.size()) {
    if (static_cast<unsigned char>(head[p]) != 0x0a) return false;
    ++p;
    uint64_t length = 0;
    if (!Varint(head, &p, &length) || length == 0) return false;
    if (length > head.size() - p) {  // runs past the head: a whole record only if it is the first
      if (records == 0) records = 1;
      break;
    }
    p += static_cast<size_t>(length);
    ++records;
  }
  const bool binary = std::any_of(head.begin(), head.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x09 || (byte > 0x0d && byte < 0x20);
  });
  return binary && (records >= 2 || (records == 1 && p >= head.size()));
}

std::optional<base::Status> RefuseUnreadable(const FileProbe& probe) {
  const std::string_view head = probe.head();
  if (probe.compression() != Compression::kNone && probe.is_sqlite()) {
    return CompressedSqliteError(probe.path(), probe.compression());
  }
  if (LooksLikePerfettoProtobuf(head)) {
    return Refusal(probe, "a Perfetto protobuf trace (.pftrace)");
  }
  const size_t first = FirstByte(head);
  if (first == std::string_view::npos || (head[first] != '{' && head[first] != '[')) {
    return std::nullopt;
  }
  const std::string_view json = head.substr(first);
  if (json.find("\"rocprofiler-sdk-tool\"") != std::string_view::npos) {
    return Refusal(probe, "rocprofv3's JSON output (--output-format json)");
  }
  if (HasKey(json, "nodes") && (HasKey(json, "schema") || HasKey(json, "finish_ts"))) {
    return Refusal(probe, "a PyTorch execution trace (operators and tensors, no GPU kernel times)");
  }
  return Refusal(probe,
                 "a JSON file that is no Chrome/Kineto trace (no traceEvents in its "
                 "first 64 KB)");
}

}  // namespace decodeprof::io
