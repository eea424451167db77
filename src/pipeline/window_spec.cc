#include "src/pipeline/window_spec.h"

#include <limits>
#include <optional>

#include "src/base/parse.h"

namespace decodeprof::pipeline {
namespace {

constexpr const char* kHint = "use all, decode or START_NS..END_NS (e.g. 1000..2000)";

std::string Quoted(std::string_view text) { return "--window " + std::string(text); }

// A bound: a plain non-negative decimal integer that fits a timestamp.
std::optional<trace::TimestampNs> Bound(std::string_view text) {
  const std::optional<uint64_t> value = base::ParseUnsigned(text);
  if (!value || *value > static_cast<uint64_t>(std::numeric_limits<trace::TimestampNs>::max())) {
    return std::nullopt;
  }
  return static_cast<trace::TimestampNs>(*value);
}

}  // namespace

std::string WindowSpec::ToString() const {
  switch (kind) {
    case Kind::kAll:
      return "all";
    case Kind::kDecode:
      return "decode";
    case Kind::kRange:
      break;
  }
  return std::to_string(start) + ".." + std::to_string(end);
}

base::StatusOr<WindowSpec> ParseWindowSpec(std::string_view text) {
  WindowSpec spec;
  if (text == "all") return spec;
  if (text == "decode") {
    spec.kind = WindowSpec::Kind::kDecode;
    return spec;
  }
  if (text.empty()) return base::UsageError("--window needs a value", kHint);
  const size_t dots = text.find("..");
  if (dots == std::string_view::npos) {
    return base::UsageError(Quoted(text) + ": not all, decode or START_NS..END_NS", kHint);
  }
  const std::string_view first = text.substr(0, dots);
  const std::string_view second = text.substr(dots + 2);
  const std::optional<trace::TimestampNs> start = Bound(first);
  const std::optional<trace::TimestampNs> end = Bound(second);
  if (!start || !end) {
    const std::string_view bad = !start ? first : second;
    const char* which = !start ? "start" : "end";
    const std::string what = bad.empty() ? std::string("is missing")
                                         : "'" + std::string(bad) +
                                               "' is not a whole number of nanoseconds from 0 to "
                                               "9223372036854775807";
    return base::UsageError(Quoted(text) + ": the " + which + " " + what, kHint);
  }
  if (*start > *end) {
    return base::UsageError(Quoted(text) + ": the start is after the end",
                            "the window is START_NS..END_NS with START_NS <= END_NS");
  }
  spec.kind = WindowSpec::Kind::kRange;
  spec.start = *start;
  spec.end = *end;
  return spec;
}

}  // namespace decodeprof::pipeline
