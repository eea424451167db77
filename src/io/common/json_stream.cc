#include "src/io/common/json_stream.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace decodeprof::io {

namespace od = simdjson::ondemand;
using simdjson::error_code;
using simdjson::SUCCESS;
using Json = nlohmann::json;

namespace {

constexpr size_t kPadding = 2 * simdjson::SIMDJSON_PADDING;
constexpr int kMaxCheckDepth = 256;  // Skip's recursion; deeper is the second pass's to check

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// JSON's number grammar, and a finite value (nlohmann reads it with strtod: "number overflow").
bool IsJsonNumber(std::string_view t) {
  size_t i = t.starts_with('-') ? 1 : 0;
  const auto digits = [&] {
    const size_t from = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    return i - from;
  };
  if (i < t.size() && t[i] == '0') {
    ++i;
  } else if (digits() == 0) {
    return false;
  }
  if (i < t.size() && t[i] == '.' && (++i, digits() == 0)) return false;
  bool exponent = false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    exponent = true;
    if (++i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  if (i != t.size()) return false;
  if (!exponent && t.size() < 300) return true;
  const std::string copy(t);
  return std::isfinite(std::strtod(copy.c_str(), nullptr));
}

}  // namespace

// The input: a file, memory or an InputStream (decompressed on the fly), read in order; Seek
// for the second pass. The first error stays (a Seek does not clear it).
class JsonStream::Input {
 public:
  explicit Input(std::FILE* file) : file_(file) {}
  explicit Input(std::string_view text) : text_(text) {}
  explicit Input(std::unique_ptr<InputStream> stream) : stream_(std::move(stream)) {}
  size_t Read(char* out, size_t n) {
    if (stream_ != nullptr) {
      const size_t got = stream_->Read(out, n);
      if (got < n && !stream_->status().ok() && error_.ok()) error_ = stream_->status();
      return got;
    }
    if (file_ == nullptr) {
      n = std::min(n, text_.size() - pos_);
      std::memcpy(out, text_.data() + pos_, n);
      pos_ += n;
      return n;
    }
    const size_t got = std::fread(out, 1, n, file_);
    if (got == 0 && std::ferror(file_) && error_.ok()) {
      error_ = base::IoError(
          source_, std::string("read failed: ") + std::strerror(errno == 0 ? EIO : errno));
    }
    return got;
  }
  void Seek(uint64_t offset) {
    if (stream_ != nullptr) {  // a compressed stream seeks by decoding from its start
      stream_->Rewind();
      std::vector<char> skip(std::min<uint64_t>(offset, uint64_t{1} << 20));
      for (uint64_t at = 0; at < offset;) {
        const size_t n =
            Read(skip.data(), static_cast<size_t>(std::min<uint64_t>(skip.size(), offset - at)));
        if (n == 0) break;
        at += n;
      }
      return;
    }
    pos_ = static_cast<size_t>(std::min<uint64_t>(offset, text_.size()));
    if (file_ != nullptr && fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0 &&
        error_.ok()) {
      error_ = base::IoError(
          source_, std::string("read failed: ") + std::strerror(errno == 0 ? EIO : errno));
    }
  }
  uint64_t size_hint() const {
    struct stat st {};
    if (stream_ != nullptr) return stream_->compressed() ? 2 * kWindow : stream_->file_bytes();
    if (file_ == nullptr) return text_.size();
    return fstat(fileno(file_), &st) == 0 && st.st_size > 0 ? static_cast<uint64_t>(st.st_size)
                                                            : kWindow;
  }
  const base::Status& error() const { return error_; }
  void set_source(const std::string& source) { source_ = source; }

 private:
  std::FILE* file_ = nullptr;
  std::string_view text_;
  std::unique_ptr<InputStream> stream_;
  size_t pos_ = 0;
  base::Status error_;
  std::string source_;
};

// The second pass: nlohmann's SAX parser from the start of the input. It stops where a
// streaming nlohmann parser stops (a syntax error, or a list element that is not an object)
// and collects the elements completed before that whose '{' lies in [lo, hi).
class JsonStream::Verify {
 public:
  Verify(const JsonStream& stream, uint64_t lo, uint64_t hi)
      : stream_(stream), in_(*stream.in_), lo_(lo), hi_(hi) {
    in_.Seek(0);
    try {
      Json::sax_parse(Iterator(this), Iterator(), this);
    } catch (const std::exception& e) {  // nlohmann reports through parse_error; be safe anyway
      Stop(Where(offset()), std::string("malformed JSON: ") + e.what());
    }
  }
  struct Span {
    uint64_t start, end;  // the offsets of an element's '{' and '}'
  };
  std::optional<base::Status> stop;
  std::vector<Span> spans;

  // nlohmann's SAX interface.
  bool null() { return Scalar("a literal"); }
  bool boolean(bool) { return Scalar("a literal"); }
  bool number_integer(Json::number_integer_t) { return Scalar("a number"); }
  bool number_unsigned(Json::number_unsigned_t) { return Scalar("a number"); }
  bool number_float(Json::number_float_t, const Json::string_t&) { return Scalar("a number"); }
  bool string(Json::string_t&) { return Scalar("a string"); }
  bool binary(Json::binary_t&) { return Scalar("a literal"); }
  bool key(Json::string_t& k) {
    if (frames_.size() == 1) key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t) { return Open(true); }
  bool start_array(std::size_t) { return Open(false); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 1: ..." → from "parse error".
    if (const size_t at = what.find("] "); at != std::string::npos) what = what.substr(at + 2);
    // "...; last read: '<token>'[; expected ...]": the token (a string can be MBs) is cut as
    // every quote of input is.
    static constexpr std::string_view kLastRead = "last read: '";
    if (const size_t a = what.find(kLastRead); a != std::string::npos) {
      const size_t from = a + kLastRead.size();
      size_t to = what.find("'; expected", from);
      if (to == std::string::npos) to = what.rfind('\'');
      if (to != std::string::npos && to >= from) {
        const std::string token = what.substr(from, to - from);
        what = what.substr(0, from) + std::string(base::InputPrefix(token)) + "'" +
               base::CutNote(token) + what.substr(to + 1);
      }
    }
    // nlohmann counts bytes read (1-based, the end of input included): the 0-based offset of
    // the last byte read, which is the input's size when it ended too early.
    return Stop(Where(position > 0 ? position - 1 : 0), "malformed JSON: " + what);
  }

 private:
  // The input one byte at a time, counting the offset and the lines consumed.
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    Iterator() = default;
    explicit Iterator(Verify* v) : v_(v) {}
    reference operator*() const { return v_->block_[v_->pos_]; }
    Iterator& operator++() {
      if (v_->block_[v_->pos_++] == '\n') ++v_->lines_;
      return *this;
    }
    bool operator==(const Iterator& other) const { return AtEnd() == other.AtEnd(); }

   private:
    bool AtEnd() const { return v_ == nullptr || !v_->Available(); }
    Verify* v_ = nullptr;
  };
  bool Available() {
    if (pos_ < size_) return true;
    consumed_ += size_;
    pos_ = 0;
    size_ = in_.Read(block_.data(), block_.size());
    return size_ > 0;
  }
  uint64_t offset() const { return consumed_ + pos_; }

  enum class Frame : uint8_t { kRoot, kList, kElement, kOther };
  std::string Where(uint64_t offset) const {
    return stream_.source_ + ":byte " + std::to_string(offset);
  }
  bool Stop(std::string where, std::string message) {
    if (!stop) stop = base::DataError(std::move(where), std::move(message));
    return false;
  }
  bool Open(bool object) {
    Frame next = Frame::kOther;
    if (frames_.empty()) {
      next = object ? Frame::kRoot : Frame::kList;
    } else if (frames_.back() == Frame::kRoot && key_ == stream_.list_key_ && !object) {
      next = Frame::kList;
    } else if (frames_.back() == Frame::kList) {
      if (!object) return Scalar("an array");
      start_ = offset() - 1;  // the '{' was just consumed
      next = Frame::kElement;
    }
    frames_.push_back(next);
    return true;
  }
  bool Close() {
    if (frames_.back() == Frame::kElement && start_ >= lo_ && start_ < hi_) {
      spans.push_back({start_, offset() - 1});
    }
    frames_.pop_back();
    return true;
  }
  bool Scalar(const char* what) {
    if (frames_.empty() || frames_.back() != Frame::kList) return true;
    return Stop(Where(offset()), "a " + stream_.list_key_ + " element is " + what + ", not an " +
                                     stream_.element_noun_ + " object (line " +
                                     std::to_string(lines_ + 1) + ")");
  }

  const JsonStream& stream_;
  Input& in_;
  uint64_t lo_, hi_, start_ = 0;
  std::vector<Frame> frames_;
  std::string key_;
  std::vector<char> block_ = std::vector<char>(64 << 10);
  size_t size_ = 0, pos_ = 0;
  uint64_t consumed_ = 0;
  int64_t lines_ = 0;
};

JsonStream::JsonStream(std::string source, std::FILE* file, std::string list_key,
                       std::string element_noun)
    : source_(std::move(source)),
      list_key_(std::move(list_key)),
      element_noun_(std::move(element_noun)),
      in_(std::make_unique<Input>(file)) {}

JsonStream::JsonStream(std::string source, std::string_view text, std::string list_key,
                       std::string element_noun)
    : source_(std::move(source)),
      list_key_(std::move(list_key)),
      element_noun_(std::move(element_noun)),
      in_(std::make_unique<Input>(text)) {}

JsonStream::JsonStream(std::string source, std::unique_ptr<InputStream> stream,
                       std::string list_key, std::string element_noun)
    : source_(std::move(source)),
      list_key_(std::move(list_key)),
      element_noun_(std::move(element_noun)),
      in_(std::make_unique<Input>(std::move(stream))) {}

JsonStream::~JsonStream() = default;

base::Status JsonStream::Run(const MemberHandler& member, const ElementHandler& element) {
  member_ = &member;
  element_ = &element;
  cap_ = static_cast<size_t>(std::min<uint64_t>(in_->size_hint() + 1, 2 * window_));
  buf_ = std::make_unique<char[]>(cap_ + kPadding);
  in_->set_source(source_);
  const JsonStep step = Document();
  // A read or decompression error first: what the parse then says is its consequence.
  if (!in_->error().ok()) return in_->error();
  return step == JsonStep::kOk ? base::OkStatus() : status_;
}

std::optional<std::string_view> JsonStream::Number(Value& value) {
  std::string_view t = value.raw_json_token();  // with the whitespace after it
  while (!t.empty() && IsSpace(t.back())) t.remove_suffix(1);
  if (!trusted_ && !IsJsonNumber(t)) return std::nullopt;
  return t;
}

// ---- the window ----

// Keeps [keep, end()), grows the window to hold `need` bytes from keep, and reads more.
void JsonStream::Refill(uint64_t keep, size_t need) {
  const auto shift = static_cast<size_t>(keep - base_);
  std::memmove(buf_.get(), buf_.get() + shift, size_ - shift);
  size_ -= shift;
  base_ = keep;
  if (need > cap_) {
    const size_t cap = std::max(need, 2 * cap_);
    auto bigger = std::make_unique<char[]>(cap + kPadding);
    std::memcpy(bigger.get(), buf_.get(), size_);
    buf_ = std::move(bigger);
    cap_ = cap;
  }
  for (size_t n = 1; size_ < cap_ && n > 0; size_ += n) {
    n = in_->Read(buf_.get() + size_, cap_ - size_);
    eof_ = n == 0;
  }
}

// Makes the byte at `off` readable, keeping [keep, off]; false at the end of the input.
bool JsonStream::Ensure(uint64_t off, uint64_t keep) {
  if (off < end()) return true;
  if (!eof_ && grow_) Refill(keep, static_cast<size_t>(off - keep + 1));
  return off < end();
}

// Skips whitespace from `p`; false at the end of the input.
bool JsonStream::Ws(uint64_t& p, uint64_t keep) {
  for (; Ensure(p, keep); ++p) {
    if (!IsSpace(At(p))) return true;
  }
  return false;
}

// The offset just past the value that starts at `p`, found byte by byte (strings, nesting);
// `p` itself when no value starts there, 0 when the input ends first. Not a check: what it
// passes over is parsed afterwards.
uint64_t JsonStream::Scan(uint64_t p, uint64_t keep) {
  int64_t depth = 0;
  bool in_string = false;
  for (;; ++p) {
    if (!Ensure(p, keep)) return 0;
    const char c = At(p);
    if (in_string) {
      if (c == '\\') {
        ++p;
      } else if (c == '"') {
        in_string = false;
        if (depth == 0) return p + 1;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']' || c == ',' || c == ':' || IsSpace(c)) {
      if (depth == 0) return p;  // the end of a scalar
      if ((c == '}' || c == ']') && --depth == 0) return p + 1;
    }
  }
}

// ---- parsing ----

// Parses [open, close] as a JSON array after writing '[' and ']' there (restored after),
// calling `each` on every element.
JsonStep JsonStream::Parse(uint64_t open, uint64_t close,
                           const std::function<JsonStep(Value&)>& each) {
  char* const first = &At(open);
  const auto len = static_cast<size_t>(close - open + 1);
  const std::array<char, 2> saved = {first[0], first[len - 1]};
  first[0] = '[';
  first[len - 1] = ']';
  backslash_ = std::memchr(first, '\\', len) != nullptr;
  progress_ = open;
  JsonStep step = JsonStep::kBad;
  od::document doc;
  od::array array;
  const size_t room = cap_ + kPadding - static_cast<size_t>(first - buf_.get());
  if (!parser_.iterate(first, len, room).get(doc) && !doc.get_array().get(array)) {
    step = JsonStep::kOk;
    for (auto element : array) {
      od::value v;
      const char* at = nullptr;
      if (element.get(v)) {
        step = JsonStep::kBad;
        break;
      }
      if ((step = each(v)) != JsonStep::kOk) break;
      if (!doc.current_location().get(at))
        progress_ = base_ + static_cast<uint64_t>(at - buf_.get());
    }
    // Nothing after the closing ']' (a run cut inside a nested array can close early).
    const char* rest = nullptr;
    if (step == JsonStep::kOk && doc.current_location().get(rest) != simdjson::OUT_OF_BOUNDS) {
      step = JsonStep::kBad;
    }
  }
  first[0] = saved[0];
  first[len - 1] = saved[1];
  return step;
}

error_code JsonStream::Check(Value& v, int depth) {
  od::json_type type;
  SIMDJSON_TRY(v.type().get(type));
  if (depth > kMaxCheckDepth) return simdjson::DEPTH_ERROR;
  switch (type) {
    case od::json_type::object: {
      od::object object;
      SIMDJSON_TRY(v.get_object().get(object));
      for (auto field : object) {
        SIMDJSON_TRY(field.error());
        od::field& f = field.value_unsafe();
        if (backslash_) SIMDJSON_TRY(f.unescaped_key().error());
        SIMDJSON_TRY(Check(f.value(), depth + 1));
      }
      return SUCCESS;
    }
    case od::json_type::array: {
      od::array array;
      SIMDJSON_TRY(v.get_array().get(array));
      for (auto element : array) {
        od::value e;
        SIMDJSON_TRY(element.get(e));
        SIMDJSON_TRY(Check(e, depth + 1));
      }
      return SUCCESS;
    }
    case od::json_type::number:
      return Number(v) ? SUCCESS : simdjson::NUMBER_ERROR;
    case od::json_type::string:
      return backslash_ ? v.get_string().error() : v.get_raw_json_string().error();
    case od::json_type::boolean:
      return v.get_bool().error();
    case od::json_type::null: {
      bool null = false;
      SIMDJSON_TRY(v.is_null().get(null));
      return null ? SUCCESS : simdjson::N_ATOM_ERROR;
    }
  }
  return SUCCESS;
}

JsonStep JsonStream::Element(Value& v) {
  const char* at = nullptr;
  od::object object;
  if (v.current_location().get(at) || v.get_object().get(object)) return JsonStep::kBad;
  return (*element_)(object, base_ + static_cast<uint64_t>(at - buf_.get()));
}

// The streamed array, `p` at its '[' (then past its ']'): runs of elements, each from the '['
// or ',' before its first element to the ',' after its last (or the closing ']').
JsonStep JsonStream::List(uint64_t& p) {
  saw_list_ = true;
  const std::function<JsonStep(Value&)> element = [this](Value& v) { return Element(v); };
  for (uint64_t sep = p;;) {
    uint64_t q = sep + 1;
    if (!Ws(q, sep)) return Recover(sep, end());
    if (At(q) == ']' && At(sep) == '[') {
      p = q + 1;
      return JsonStep::kOk;
    }
    if (!eof_ && end() - sep < cap_ / 2) Refill(sep, cap_);
    // The guess: the last ',' in the window between a '}' and a '{' (kernel names hold "}, ").
    uint64_t cut = 0;
    for (uint64_t b = end(); cut == 0 && b > q;) {
      const void* c = memrchr(&At(q), ',', static_cast<size_t>(b - q));
      if (c == nullptr) break;
      b = base_ + static_cast<uint64_t>(static_cast<const char*>(c) - buf_.get());
      uint64_t before = b, after = b + 1;
      while (before > q && IsSpace(At(before - 1))) --before;
      while (after < end() && IsSpace(At(after))) ++after;
      if (before > q && At(before - 1) == '}' && after < end() && At(after) == '{') cut = b;
    }
    if (cut != 0) {
      const JsonStep step = Parse(sep, cut, element);
      if (step == JsonStep::kOk) {
        sep = cut;
        continue;
      }
      if (step == JsonStep::kStop) return step;
      sep = progress_;       // what the run handed over stays handed over; then:
      if (At(sep) == ']') {  // the list ended inside the run
        p = sep + 1;
        return JsonStep::kOk;
      }
      if (At(sep) != ',' && At(sep) != '[') {  // no separator after an element
        const JsonStep s = Recover(sep, end());
        return s == JsonStep::kOk ? Inconsistent(sep) : s;
      }
    }
    // The exact end of the next run, element by element.
    uint64_t last = sep, i = sep + 1;
    enum { kMore, kEnd, kBadByte } why = kMore;
    while (Ws(i, sep)) {
      const uint64_t e = Scan(i, sep);
      if (e == 0) break;  // the input ends inside it
      if (e == i) {
        why = kBadByte;
        break;
      }
      if (!Ws(i = e, sep)) break;
      if (At(i) == ']' || At(i) != ',') {
        why = At(i) == ']' ? kEnd : kBadByte;
        break;
      }
      last = i++;
      grow_ = false;  // a run at a time: past its first element, what the window holds
    }
    grow_ = true;
    if (why == kEnd || last != sep) {
      const uint64_t close = why == kEnd ? i : last;
      JsonStep step = Parse(sep, close, element);
      if (step == JsonStep::kBad) step = Recover(progress_, close + 1);
      if (step != JsonStep::kOk) return step;
      if (why == kEnd) {
        p = close + 1;
        return JsonStep::kOk;
      }
      sep = close;
    } else if (why == kMore && !eof_) {
      Refill(sep, 2 * static_cast<size_t>(end() - sep));
    } else {
      const JsonStep step = Recover(sep, why == kBadByte ? i + 1 : end());
      return step == JsonStep::kOk ? Inconsistent(sep) : step;
    }
  }
}

// The top-level object, `p` at its '{' (then past its '}'). Each key is parsed alone, as
// ["key"], and each value other than the streamed array as [value].
JsonStep JsonStream::TopObject(uint64_t& p) {
  uint64_t open = p++;
  if (!Ws(p, open)) return Recover(0, 0);
  if (At(p) == '}') {
    ++p;
    return JsonStep::kOk;
  }
  while (true) {
    const uint64_t key_end = At(p) == '"' ? Scan(p, open) : 0;
    if (key_end == 0 || !Ensure(key_end, open)) return Recover(0, 0);
    std::string key;
    JsonStep step = Parse(p - 1, key_end, [&key](Value& v) {
      std::string_view s;
      if (v.get_string().get(s)) return JsonStep::kBad;
      key = s;
      return JsonStep::kOk;
    });
    p = key_end;
    if (step != JsonStep::kOk || !Ws(p, open) || At(p) != ':') return Recover(0, 0);
    const uint64_t colon = p++;
    if (!Ws(p, colon)) return Recover(0, 0);
    if (key == list_key_ && At(p) == '[') {
      if ((step = List(p)) != JsonStep::kOk) return step;
    } else {
      const uint64_t value_end = Scan(p, colon);
      if (value_end <= p || !Ensure(value_end, colon)) return Recover(0, 0);
      const auto member = [this, &key](Value& v) { return (*member_)(key, v); };
      step = Parse(colon, value_end, member);
      if (step == JsonStep::kBad && (step = Recover(0, 0)) == JsonStep::kOk) {
        step = Parse(colon, value_end, member);  // unchecked now
        if (step == JsonStep::kBad) return Inconsistent(p);
      }
      if (step != JsonStep::kOk) return step;
      p = value_end;
    }
    open = p;
    if (!Ws(p, open)) return Recover(0, 0);
    if (At(p) == '}') {
      ++p;
      return JsonStep::kOk;
    }
    if (At(p) != ',') return Recover(0, 0);
    open = p++;
    if (!Ws(p, open) || At(p) != '"') return Recover(0, 0);
  }
}

JsonStep JsonStream::Document() {
  uint64_t p = 0;
  if (Ensure(2, 0) && std::string_view(&At(0), 3) == "\xEF\xBB\xBF") p = 3;  // nlohmann skips a BOM
  if (!Ws(p, 0)) return Recover(0, 0);
  JsonStep step = JsonStep::kOk;
  if (At(p) == '[') {
    top_ = Top::kArray;
    step = List(p);
  } else if (At(p) == '{') {
    top_ = Top::kObject;
    step = TopObject(p);
  } else {  // a scalar, or not JSON at all: the second pass says which
    return Recover(0, 0);
  }
  if (step != JsonStep::kOk) return step;
  if (Ws(p, p)) return Recover(0, 0);  // something after the top-level value
  return JsonStep::kOk;
}

// ---- errors ----

JsonStep JsonStream::Fail(uint64_t offset, const std::string& message) {
  status_ = base::DataError(source_ + ":byte " + std::to_string(offset),
                            message + " (line " + std::to_string(LineAt(offset)) + ")");
  const Verify verify(*this, offset, offset + 1);
  if (verify.spans.empty() && verify.stop) status_ = *verify.stop;
  return JsonStep::kStop;
}

// After simdjson refused what follows `lo` (up to `hi`): the second pass's verdict, the
// elements it completed in [lo, hi) handed over first (unchecked: it checked them). kOk: the
// input is well-formed after all, and the read goes on unchecked.
JsonStep JsonStream::Recover(uint64_t lo, uint64_t hi) {
  const Verify verify(*this, lo, hi);
  in_->Seek(end());
  trusted_ = true;
  const std::function<JsonStep(Value&)> element = [this](Value& v) { return Element(v); };
  for (const Verify::Span& span : verify.spans) {
    const JsonStep step = Parse(span.start - 1, span.end + 1, element);
    if (step == JsonStep::kStop) return step;
    if (step == JsonStep::kBad) return Inconsistent(span.start);
  }
  if (!verify.stop) return JsonStep::kOk;
  status_ = *verify.stop;
  return JsonStep::kStop;
}

// The second pass found the input well-formed where the reader cannot go on.
JsonStep JsonStream::Inconsistent(uint64_t offset) {
  status_ = base::DataError(source_ + ":byte " + std::to_string(offset),
                            "malformed JSON (simdjson refused what nlohmann-json read)");
  return JsonStep::kStop;
}

int64_t JsonStream::LineAt(uint64_t offset) {
  in_->Seek(0);
  std::vector<char> block(64 << 10);
  int64_t lines = 1;
  for (uint64_t at = 0; at < offset;) {
    const size_t n =
        in_->Read(block.data(), static_cast<size_t>(std::min<uint64_t>(block.size(), offset - at)));
    if (n == 0) break;
    lines += std::count(block.data(), block.data() + n, '\n');
    at += n;
  }
  return lines;
}

}  // namespace decodeprof::io
