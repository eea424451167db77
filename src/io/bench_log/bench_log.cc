#include "src/io/bench_log/bench_log.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "src/base/file_io.h"
#include "src/base/parse.h"
#include "src/io/common/input_stream.h"
#include "src/io/common/py_compat.h"

namespace decodeprof::io {
namespace {

// The seed matches Python `re` patterns against text decoded with errors="replace"; these
// helpers reproduce the classes it uses on UTF-8 bytes. An invalid byte stands for U+FFFD,
// which is neither whitespace nor a word character.

// Length of the UTF-8 sequence at s[i] when it is valid, else 0.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = b(i);
  size_t len = 0;
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  }
  // Overlong 3/4-byte forms, surrogates and code points above U+10FFFF.
  if (b0 == 0xE0 && b(i + 1) < 0xA0) return 0;
  if (b0 == 0xED && b(i + 1) >= 0xA0) return 0;
  if (b0 == 0xF0 && b(i + 1) < 0x90) return 0;
  if (b0 == 0xF4 && b(i + 1) >= 0x90) return 0;
  return len;
}

// Python's \s (str patterns): ASCII \t\n\v\f\r, space, \x1c-\x1f, and the Unicode spaces.
// Returns the byte length of the whitespace character at s[i], or 0.
size_t SpaceLength(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1C && c <= 0x1F)) return 1;
  if (c < 0x80) return 0;
  const size_t len = Utf8Length(s, i);
  const std::string_view ch = s.substr(i, len);
  if (len == 2) return (ch == "\xC2\x85" || ch == "\xC2\xA0") ? 2 : 0;
  if (len != 3) return 0;
  if (ch == "\xE1\x9A\x80" || ch == "\xE2\x80\xA8" || ch == "\xE2\x80\xA9" ||
      ch == "\xE2\x80\xAF" || ch == "\xE2\x81\x9F" || ch == "\xE3\x80\x80") {
    return 3;
  }
  const unsigned char c2 = static_cast<unsigned char>(s[i + 2]);
  return (c == 0xE2 && static_cast<unsigned char>(s[i + 1]) == 0x80 && c2 >= 0x80 && c2 <= 0x8A)
             ? 3  // U+2000..U+200A
             : 0;
}

// Python's \w: ASCII letters, digits, '_'; non-ASCII characters are taken as word characters
// when they are valid UTF-8 and not whitespace (labels are ASCII in practice).
size_t WordLength(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
               ? 1
               : 0;
  }
  if (SpaceLength(s, i) != 0) return 0;
  return Utf8Length(s, i);
}

// A cursor over one line that consumes pieces of a pattern.
class Matcher {
 public:
  explicit Matcher(std::string_view line) : line_(line) {}

  bool Literal(std::string_view text) {
    if (line_.substr(pos_, text.size()) != text) return false;
    pos_ += text.size();
    return true;
  }
  // \s* (min 0) or \s+ (min 1).
  bool Spaces(size_t min) {
    size_t count = 0;
    while (pos_ < line_.size()) {
      const size_t len = SpaceLength(line_, pos_);
      if (len == 0) break;
      pos_ += len;
      ++count;
    }
    return count >= min;
  }
  // (\w+), (\S+), ([0-9.]+), (\d+): a greedy run of at least one character of a class.
  template <typename LengthFn>
  std::optional<std::string_view> Run(LengthFn length) {
    const size_t begin = pos_;
    while (pos_ < line_.size()) {
      const size_t len = length(line_, pos_);
      if (len == 0) break;
      pos_ += len;
    }
    if (pos_ == begin) return std::nullopt;
    return line_.substr(begin, pos_ - begin);
  }

 private:
  std::string_view line_;
  size_t pos_ = 0;
};

size_t NonSpaceLength(std::string_view s, size_t i) {
  if (SpaceLength(s, i) != 0) return 0;
  const size_t len = Utf8Length(s, i);
  return len == 0 ? 1 : len;  // an invalid byte is U+FFFD: not whitespace
}
size_t DigitLength(std::string_view s, size_t i) { return (s[i] >= '0' && s[i] <= '9') ? 1 : 0; }
size_t DigitOrDotLength(std::string_view s, size_t i) {
  return ((s[i] >= '0' && s[i] <= '9') || s[i] == '.') ? 1 : 0;
}

// ^\[phase\] (\w+) monotonic_ns=(\S+) boottime_ns=(\S+)
bool MatchPhase(std::string_view line, trace::PhaseMarks& marks) {
  Matcher m(line);
  if (!m.Literal("[phase] ")) return false;
  const auto label = m.Run(WordLength);
  if (!label || !m.Literal(" monotonic_ns=")) return false;
  const auto monotonic = m.Run(NonSpaceLength);
  if (!monotonic || !m.Literal(" boottime_ns=")) return false;
  const auto boottime = m.Run(NonSpaceLength);
  if (!boottime) return false;
  trace::MarkStamp stamp;  // "na" (or any non-integer) leaves that clock out
  stamp.monotonic = ParsePyInt(*monotonic);
  stamp.boottime = ParsePyInt(*boottime);
  marks[std::string(*label)] = stamp;
  return true;
}

// ^\s*<key>\s+([0-9.]+) ms \(([0-9.]+) tok/s\)   (a value float() rejects: no match)
bool MatchTiming(std::string_view line, std::string_view key, std::optional<double>& ms,
                 std::optional<double>& tok_s) {
  Matcher m(line);
  m.Spaces(0);
  if (!m.Literal(key) || !m.Spaces(1)) return false;
  const auto ms_text = m.Run(DigitOrDotLength);
  if (!ms_text || !m.Literal(" ms (")) return false;
  const auto tok_text = m.Run(DigitOrDotLength);
  if (!tok_text || !m.Literal(" tok/s)")) return false;
  const auto ms_value = base::ParseDouble(*ms_text);
  const auto tok_value = base::ParseDouble(*tok_text);
  if (!ms_value || !tok_value) return false;
  ms = ms_value;
  tok_s = tok_value;
  return true;
}

// ^\s*<key>\s+(\d+)
bool MatchCount(std::string_view line, std::string_view key, std::optional<int64_t>& count) {
  Matcher m(line);
  m.Spaces(0);
  if (!m.Literal(key) || !m.Spaces(1)) return false;
  const auto digits = m.Run(DigitLength);
  if (!digits) return false;
  const auto value = base::ParseInt64(*digits);
  if (!value) return false;  // beyond int64
  count = value;
  return true;
}

// A line that begins like one the parser reads (after leading spaces), whatever follows.
bool NamesAField(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return false;
  line.remove_prefix(first);
  for (std::string_view key :
       {"[phase] ", "Decode:", "Prefill:", "Generated tokens:", "Prompt tokens:"}) {
    if (line.substr(0, key.size()) == key) return true;
  }
  return false;
}

trace::DiagnosticExample Example(int64_t line_number, std::string_view line,
                                 const trace::DiagMessage& what) {
  constexpr size_t kShown = 80;
  std::string shown(line.substr(0, kShown));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) c = '?';
  }
  return {"", "line " + std::to_string(line_number), what.text + ": '" + shown + "'"};
}

void ParseLine(std::string_view line, int64_t line_number, trace::BenchLog& log) {
  if (line.rfind("[phase] ", 0) == 0) {
    trace::PhaseMarks parsed;
    if (MatchPhase(line, parsed)) {
      const auto& [label, stamp] = *parsed.begin();
      if (log.marks.count(label) > 0) {
        log.diagnostics.Add(
            trace::Diag::kDuplicateMarks, 1,
            Example(line_number, line, trace::Message<trace::Msg::kMarkAgain>(label)));
      }
      // "na" is how the seed says a clock could not be read; anything else is unreadable.
      const auto is_na = [line](std::string_view key) {
        const size_t at = line.find(key);
        if (at == std::string_view::npos) return false;
        const std::string_view value = line.substr(at + key.size());
        return value.substr(0, value.find_first_of(" \t")) == "na";
      };
      const bool readable =
          (stamp.monotonic || is_na("monotonic_ns=")) && (stamp.boottime || is_na("boottime_ns="));
      if (!readable) {
        log.diagnostics.Add(
            trace::Diag::kLogLineUnread, 1,
            Example(line_number, line, trace::Message<trace::Msg::kClockNotInteger>()));
      }
      for (const auto& [clock, value] :
           {std::pair{"monotonic_ns", stamp.monotonic}, std::pair{"boottime_ns", stamp.boottime}}) {
        if (value && !trace::IsTimestamp(*value) && log.bad_line == 0) {
          log.bad_line = line_number;
          log.bad_what = "mark " + label + " " + clock + "=" + std::to_string(*value) +
                         " is beyond the range of a time (0 to 2^62 ns)";
        }
      }
      log.marks[label] = stamp;
      return;
    }
  }
  trace::BenchResults& r = log.results;
  if (MatchTiming(line, "Decode:", r.decode_ms, r.decode_tok_s)) return;
  if (MatchTiming(line, "Prefill:", r.prefill_ms, r.prefill_tok_s)) return;
  if (MatchCount(line, "Generated tokens:", r.generated_tokens)) {
    if (*r.generated_tokens <= 0) {
      log.diagnostics.Add(
          trace::Diag::kLogLineUnread, 1,
          Example(line_number, line, trace::Message<trace::Msg::kNoTokenGenerated>()));
    }
    return;
  }
  if (MatchCount(line, "Prompt tokens:", r.prompt_tokens)) return;
  if (NamesAField(line)) {
    log.diagnostics.Add(trace::Diag::kLogLineUnread, 1,
                        Example(line_number, line, trace::Message<trace::Msg::kValueUnread>()));
  }
}

}  // namespace

trace::BenchLog ParseBenchLogText(std::string_view text) {
  trace::BenchLog log;
  // Lines end at LF, CRLF or a lone CR (Python's universal newlines).
  size_t begin = 0;
  int64_t line_number = 0;
  while (begin < text.size()) {
    const size_t stop = text.find_first_of("\r\n", begin);
    ++line_number;
    if (stop == std::string_view::npos) {
      ParseLine(text.substr(begin), line_number, log);
      break;
    }
    ParseLine(text.substr(begin, stop - begin), line_number, log);
    begin = stop + 1;
    if (text[stop] == '\r' && begin < text.size() && text[begin] == '\n') ++begin;
  }
  return log;
}

base::StatusOr<trace::BenchLog> ParseBenchLog(const std::string& path) {
  // A log is small: read whole, decompressed when it is gzip, zstd or xz-compressed.
  DP_ASSIGN_OR_RETURN(const std::string text,
                      ReadWholeInput(path, base::kMaxLogBytes, "a bench log"));
  trace::BenchLog log = ParseBenchLogText(text);
  if (log.bad_line != 0) {
    return base::DataError(base::AtLine(path, log.bad_line), log.bad_what,
                           "a [phase] mark is a clock reading in nanoseconds");
  }
  log.diagnostics.SetFileIfEmpty(path);
  return log;
}

}  // namespace decodeprof::io
