#include "src/pipeline/window_spec.h"

#include <charconv>
#include <string>

namespace decodeprof::pipeline {
namespace {

bool ParseNs(std::string_view text, trace::TimestampNs& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && out >= 0;
}

}  // namespace

base::StatusOr<WindowSpec> ParseWindowSpec(std::string_view text) {
  WindowSpec spec;
  if (text == "decode") return spec;
  if (text == "all") {
    spec.kind = WindowSpec::Kind::kAll;
    return spec;
  }
  const std::string shown = "--window " + std::string(text);
  const size_t dots = text.find("..");
  if (dots == std::string_view::npos) {
    return base::UsageError(shown + ": not decode, all or START_NS..END_NS",
                            "e.g. --window 1200000000..1450000000 (nanoseconds on the trace's "
                            "clock)");
  }
  spec.kind = WindowSpec::Kind::kRange;
  if (!ParseNs(text.substr(0, dots), spec.lo) || !ParseNs(text.substr(dots + 2), spec.hi)) {
    return base::UsageError(shown + ": START_NS and END_NS must be integers >= 0",
                            "nanoseconds on the trace's clock, as the summary's window_evidence "
                            "prints them");
  }
  if (spec.lo > spec.hi) return base::UsageError(shown + ": the start is after the end");
  return spec;
}

}  // namespace decodeprof::pipeline
