// JsonStream: one large JSON document read in constant memory with simdjson's On-Demand
// parser — a top-level object whose one array member (Kineto's `traceEvents`) holds millions
// of objects, or a top-level array of them. Part of decodeprof_io_common.
//
// simdjson wants the document in memory with padding, a trace is hundreds of MB to GB: the
// input is read into a window of 2 × kWindow (2 MB; larger only while one element is), refilled
// when less than kWindow of it is left, and the array's elements are given to simdjson a run at
// a time. A run starts at the '[' or ','
// before an element and ends at the ',' after the last complete element in the window; those
// two bytes are overwritten with '[' and ']' for the parse (then restored), so that the run is
// a JSON array parsed in place, without a copy. The end of a run is guessed by looking back
// from the window's end for a '}' followed by a ','. A guess inside a string or a nested
// object leaves the run with an open string or unbalanced, which the parse rejects; only then
// is the window scanned byte by byte. (simdjson 3.0's document_stream, iterate_many, splits
// whitespace-separated documents; it does not take comma-separated ones.) The top level around
// the array is walked byte by byte, and each of its other members is parsed on its own.
//
// On-Demand parses only what is asked for, so the handlers visit every value (Skip checks what
// they do not use: numbers against JSON's grammar, literals, strings — escapes only where the
// run holds a backslash; UTF-8 and control characters are simdjson's stage 1). A malformed
// document is therefore an error, as with a validating parser. The error itself comes from a
// second, slow pass of nlohmann-json's SAX parser over the input, made only once simdjson or a
// handler has failed: it gives nlohmann's messages, byte offsets and lines, stops where a
// streaming nlohmann parser would stop, and names the elements that parser completed before
// that point; those are handed to the handler first, so that a semantic error before a syntax
// error is still the one reported, as in a single streaming pass. When that pass finds the
// input well-formed (simdjson is stricter somewhere, e.g. nesting deeper than Skip follows),
// the read goes on without the checks.
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "src/base/status.h"
#include "src/io/common/input_stream.h"

namespace decodeprof::io {

// What a handler says about the value it was given.
enum class JsonStep {
  kOk,
  kStop,  // stop the read: the handler called JsonStream::Fail
  kBad,   // simdjson refused the value (malformed): the second pass says how
};

class JsonStream {
 public:
  using Value = simdjson::ondemand::value;
  using Object = simdjson::ondemand::object;
  // A member of the top-level object (not the streamed array): its key and value.
  using MemberHandler = std::function<JsonStep(std::string_view key, Value& value)>;
  // An element of the streamed array, and the byte offset of its '{'. An element that is not
  // an object is an error of the stream's own.
  using ElementHandler = std::function<JsonStep(Object& element, uint64_t offset)>;
  enum class Top { kScalar, kObject, kArray };

  static constexpr size_t kWindow = size_t{1} << 20;

  // The input is `file` (read from its start) or `text`; `source` names it in errors.
  // `list_key`: the member of a top-level object whose array is streamed (a top-level array
  // is streamed itself); `element_noun` names its elements in errors ("event").
  JsonStream(std::string source, std::FILE* file, std::string list_key, std::string element_noun);
  JsonStream(std::string source, std::string_view text, std::string list_key,
             std::string element_noun);
  // The input is `stream` (a file read as it is or decompressed, input_stream.h). Its errors
  // (a failed read; corrupt or truncated compressed data, "<path>:byte <N>" in the compressed
  // file) come before any the parse then finds; the byte offsets of JSON errors count the
  // decompressed bytes.
  JsonStream(std::string source, std::unique_ptr<InputStream> stream, std::string list_key,
             std::string element_noun);
  ~JsonStream();
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;

  // Reads the input, calling the handlers in document order. Errors:
  //   kData, where = "<source>:byte <N>": malformed JSON ("malformed JSON: " and nlohmann's
  //     message, with line and column; N = the 0-based offset of the byte it stopped at, the
  //     input's size when it ends too early); a list element that is not an object ("a
  //     traceEvents element is a number, not an event object (line L)", N just past the
  //     element's first token); what a handler failed with (Fail).
  //   kIo, where = source: a read error.
  //   the InputStream's errors (corrupt or truncated compressed input), before any of the above.
  // A well-formed scalar at the top level is no error: top() says kScalar.
  base::Status Run(const MemberHandler& member, const ElementHandler& element);
  Top top() const { return top_; }
  bool saw_list() const { return saw_list_; }
  // The window's size before Run (tests use a few bytes, so that runs and refills are many).
  void set_window(size_t bytes) { window_ = std::max<size_t>(bytes, 1); }

  // ---- for the handlers ----
  // The field's key: unescaped when the run holds a backslash, else its bytes.
  simdjson::error_code Key(simdjson::ondemand::field& field, std::string_view& key) {
    if (backslash_) return field.unescaped_key().get(key);
    const char* raw = field.key().raw();
    size_t n = 0;
    while (raw[n] != '"') ++n;  // no backslash: the first quote ends it
    key = std::string_view(raw, n);
    return simdjson::SUCCESS;
  }
  // Checks a value the handler does not use (nothing once the input is known well-formed).
  simdjson::error_code Skip(Value& value) { return trusted_ ? simdjson::SUCCESS : Check(value, 0); }
  // The text of a number value, checked against JSON's grammar; nullopt when malformed.
  std::optional<std::string_view> Number(Value& value);
  // A data error in the element whose '{' is at `offset`: where = "<source>:byte <offset>",
  // message = "<message> (line L)" — unless the JSON is malformed before that element is
  // complete, which is then the error. Returns kStop.
  JsonStep Fail(uint64_t offset, const std::string& message);

 private:
  class Input;
  class Verify;

  char& At(uint64_t off) { return buf_[off - base_]; }
  uint64_t end() const { return base_ + size_; }
  void Refill(uint64_t keep, size_t need);
  bool Ensure(uint64_t off, uint64_t keep);
  bool Ws(uint64_t& p, uint64_t keep);
  uint64_t Scan(uint64_t p, uint64_t keep);
  JsonStep Parse(uint64_t open, uint64_t close, const std::function<JsonStep(Value&)>& each);
  JsonStep Element(Value& v);
  JsonStep Document();
  JsonStep TopObject(uint64_t& p);
  JsonStep List(uint64_t& p);
  JsonStep Recover(uint64_t lo, uint64_t hi);
  JsonStep Inconsistent(uint64_t offset);
  simdjson::error_code Check(Value& value, int depth);
  int64_t LineAt(uint64_t offset);

  std::string source_, list_key_, element_noun_;
  std::unique_ptr<Input> in_;
  const MemberHandler* member_ = nullptr;
  const ElementHandler* element_ = nullptr;
  base::Status status_;
  std::unique_ptr<char[]> buf_;  // the window: input offsets [base_, base_ + size_)
  size_t window_ = kWindow, cap_ = 0, size_ = 0;
  uint64_t base_ = 0;
  bool eof_ = false;
  bool grow_ = true;  // Ensure may read more (and grow the window)
  simdjson::ondemand::parser parser_;
  bool backslash_ = false;  // the run being parsed holds a '\\'
  bool trusted_ = false;    // the second pass found the input well-formed: no checks
  uint64_t progress_ = 0;   // the separator after the last element Parse handed over
  Top top_ = Top::kScalar;
  bool saw_list_ = false;
};

// The value of an integer token as nlohmann-json reads it: no fraction or exponent, and it
// fits in int64 (nullopt otherwise).
inline std::optional<int64_t> JsonInteger(std::string_view token) {
  // Up to 18 digits (what traces hold: ids, sizes) without from_chars: it fits, no check needed.
  if (const size_t sign = token.starts_with('-') ? 1 : 0;
      token.size() > sign && token.size() - sign <= 18) {
    uint64_t magnitude = 0;
    bool digits = true;
    for (size_t i = sign; i < token.size(); ++i) {
      const unsigned digit = static_cast<unsigned char>(token[i]) - static_cast<unsigned>('0');
      digits &= digit <= 9;
      magnitude = magnitude * 10 + digit;
    }
    if (digits) {
      const auto value = static_cast<int64_t>(magnitude);
      return sign != 0 ? -value : value;
    }
  }
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return v;
}

}  // namespace decodeprof::io
