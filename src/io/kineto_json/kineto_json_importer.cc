#include "src/io/kineto_json/kineto_json_importer.h"

#include "src/base/demangle.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <utility>

namespace decodeprof::io {
namespace {

using Json = nlohmann::json;

// Bytes from a FILE* (buffered) or from memory, counting the offset and the lines consumed so
// that errors can say where they are. nlohmann reads through ByteIterator one byte at a time.
class ByteReader {
 public:
  explicit ByteReader(std::FILE* file) : file_(file), buffer_(1 << 20) {}
  explicit ByteReader(std::string_view text) : data_(text.data()), size_(text.size()) {}

  bool Available() {
    if (pos_ < size_) return true;
    if (file_ == nullptr || read_error_ != 0) return false;
    consumed_ += size_;
    pos_ = 0;
    size_ = std::fread(buffer_.data(), 1, buffer_.size(), file_);
    data_ = buffer_.data();
    if (size_ == 0 && std::ferror(file_)) read_error_ = errno == 0 ? EIO : errno;
    return size_ > 0;
  }
  const char& Current() const { return data_[pos_]; }
  void Advance() {
    if (data_[pos_] == '\n') ++lines_;
    ++pos_;
  }
  uint64_t offset() const { return consumed_ + pos_; }
  int64_t line() const { return lines_ + 1; }  // 1-based line of the next byte
  int read_error() const { return read_error_; }

 private:
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
  uint64_t consumed_ = 0;  // bytes before data_[0]
  int64_t lines_ = 0;
  int read_error_ = 0;
};

class ByteIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  ByteIterator() = default;
  explicit ByteIterator(ByteReader* reader) : reader_(reader) {}
  reference operator*() const { return reader_->Current(); }
  ByteIterator& operator++() {
    reader_->Advance();
    return *this;
  }
  bool operator==(const ByteIterator& other) const { return AtEnd() == other.AtEnd(); }

 private:
  bool AtEnd() const { return reader_ == nullptr || !reader_->Available(); }
  ByteReader* reader_ = nullptr;
};

// Kineto names copies "Memcpy <kind> (<src> -> <dst>)" (CuptiActivity.cpp memcpyName); the
// kinds map onto CUpti_ActivityMemcpyKind for trace::MemcpyName.
std::string_view MemoryOpName(bool memset, std::string_view name) {
  if (memset) return trace::kMemsetName;
  static constexpr std::array<std::pair<std::string_view, int>, 5> kKinds = {{
      {"Memcpy HtoD", 1},
      {"Memcpy DtoH", 2},
      {"Memcpy DtoD", 8},
      {"Memcpy HtoH", 9},
      {"Memcpy PtoP", 10},
  }};
  for (const auto& [prefix, kind] : kKinds) {
    if (name.substr(0, prefix.size()) == prefix) return trace::MemcpyName(kind);
  }
  return trace::MemcpyName(0);
}

enum class Category { kKernel, kMemcpy, kMemset, kLaunch, kAnnotation, kOther };

Category CategoryOf(std::string_view cat) {
  if (cat == "kernel" || cat == "Kernel") return Category::kKernel;
  if (cat == "gpu_memcpy" || cat == "Memcpy") return Category::kMemcpy;
  if (cat == "gpu_memset" || cat == "Memset") return Category::kMemset;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime") return Category::kLaunch;
  if (cat == "user_annotation") return Category::kAnnotation;
  return Category::kOther;
}

// A JSON field's state while one event is read.
enum class Field : uint8_t { kAbsent, kOk, kBadType };

// One traceEvents element, as far as the importer needs it.
struct Event {
  uint64_t offset = 0;  // of its '{'
  int64_t line = 0;
  std::string ph, cat, name;
  Field ph_field = Field::kAbsent, cat_field = Field::kAbsent, name_field = Field::kAbsent;
  Field ts_field = Field::kAbsent, dur_field = Field::kAbsent;
  int64_t ts_ns = 0, dur_ns = 0;
  bool time_overflow = false;
  uint64_t tid = 0;
  uint64_t correlation = 0;
  int64_t device = 0;
  int64_t stream = 0;
  std::array<int64_t, 3> grid = {0, 0, 0};
  bool has_grid = false;
};

// The SAX consumer (nlohmann's SAX concept: one call per JSON token, returning false to stop).
// A stack of frames says what the current container is; values of keys the importer does not
// read, and everything nested in them, are skipped.
class Handler {
 public:
  Handler(std::string source, ByteReader& reader, trace::TraceBuilder& builder,
          const KinetoImportOptions& options)
      : source_(std::move(source)),
        reader_(reader),
        names_(builder.names()),
        builder_(builder),
        options_(options) {}

  // --- nlohmann SAX interface ---
  bool null() { return Scalar(); }
  bool boolean(bool) { return Scalar(); }
  bool number_integer(Json::number_integer_t v) { return Number(v, std::to_string(v)); }
  bool number_unsigned(Json::number_unsigned_t v) {
    return Number(v <= static_cast<uint64_t>(INT64_MAX) ? std::optional(static_cast<int64_t>(v))
                                                        : std::nullopt,
                  std::to_string(v));
  }
  bool number_float(Json::number_float_t, const Json::string_t& text) {
    return Number(std::nullopt, text);
  }
  bool string(Json::string_t& value);
  bool binary(Json::binary_t&) { return Scalar(); }
  bool start_object(std::size_t) { return Open(/*object=*/true); }
  bool key(Json::string_t& k) {
    key_ = std::move(k);
    return true;
  }
  bool end_object() { return Close(); }
  bool start_array(std::size_t) { return Open(/*object=*/false); }
  bool end_array() { return Close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e);

  // After a parse that returned true: the checks that need the whole file, and the result.
  base::StatusOr<KinetoImport> Finish();
  base::Status status() const { return status_; }

 private:
  enum class Frame : uint8_t { kRoot, kEventList, kEvent, kArgs, kGrid, kSkip };

  bool Fail(base::Status s) {
    status_ = std::move(s);
    return false;
  }
  base::Status EventError(const Event& e, const std::string& message) const {
    return base::DataError(source_ + ":byte " + std::to_string(e.offset),
                           message + " (line " + std::to_string(e.line) + ")");
  }

  // The value of the current event key has a JSON type the importer cannot use.
  void MarkBadType() {
    const std::pair<std::string_view, Field*> fields[] = {{"name", &event_.name_field},
                                                          {"cat", &event_.cat_field},
                                                          {"ph", &event_.ph_field},
                                                          {"ts", &event_.ts_field},
                                                          {"dur", &event_.dur_field}};
    for (const auto& [name, field] : fields) {
      if (key_ == name) *field = Field::kBadType;
    }
  }
  bool Open(bool object);
  bool Close();
  bool Scalar();
  bool ValueInEventList(const char* what);
  bool Number(std::optional<int64_t> integer, const std::string& text);
  bool EndEvent();
  bool AddDispatch(const Event& e, std::string_view name, trace::DispatchKind kind);

  std::string source_;
  ByteReader& reader_;
  trace::StringPool& names_;
  trace::TraceBuilder& builder_;
  const KinetoImportOptions& options_;
  base::Status status_;

  std::vector<Frame> frames_;
  std::string key_;
  int grid_index_ = 0;
  bool saw_events_ = false;
  bool top_is_object_ = false;
  bool top_seen_ = false;
  int64_t base_ = 0;
  Event event_;
  uint32_t dispatches_ = 0;
  KinetoImport result_;
};

bool Handler::Open(bool object) {
  if (frames_.empty()) {
    top_seen_ = true;
    top_is_object_ = object;
    if (object) {
      frames_.push_back(Frame::kRoot);
    } else {
      saw_events_ = true;
      frames_.push_back(Frame::kEventList);
    }
    return true;
  }
  Frame next = Frame::kSkip;
  switch (frames_.back()) {
    case Frame::kRoot:
      if (key_ == "traceEvents" && !object) {
        saw_events_ = true;
        next = Frame::kEventList;
      }
      break;
    case Frame::kEventList:
      if (!object) return ValueInEventList("an array");
      event_ = Event();
      // The '{' was just consumed.
      event_.offset = reader_.offset() - 1;
      event_.line = reader_.line();
      next = Frame::kEvent;
      break;
    case Frame::kEvent:
      if (key_ == "args" && object) next = Frame::kArgs;
      MarkBadType();
      break;
    case Frame::kArgs:
      if (key_ == "grid" && !object) {
        next = Frame::kGrid;
        grid_index_ = 0;
        event_.has_grid = true;
      }
      break;
    case Frame::kGrid:
    case Frame::kSkip:
      break;
  }
  frames_.push_back(next);
  return true;
}

bool Handler::Close() {
  const Frame closed = frames_.back();
  frames_.pop_back();
  if (closed == Frame::kEvent) return EndEvent();
  return true;
}

// null, true, false (and binary, which JSON text never has).
bool Handler::Scalar() {
  if (!frames_.empty() && frames_.back() == Frame::kEvent) MarkBadType();
  if (!frames_.empty() && frames_.back() == Frame::kGrid) ++grid_index_;
  return ValueInEventList("a literal");
}

bool Handler::ValueInEventList(const char* what) {
  if (!frames_.empty() && frames_.back() == Frame::kEventList) {
    return Fail(base::DataError(source_ + ":byte " + std::to_string(reader_.offset()),
                                std::string("a traceEvents element is ") + what +
                                    ", not an event object (line " +
                                    std::to_string(reader_.line()) + ")"));
  }
  if (frames_.empty()) top_seen_ = true;
  return true;
}

bool Handler::string(Json::string_t& value) {
  if (frames_.empty() || frames_.back() != Frame::kEvent) {
    if (!frames_.empty() && frames_.back() == Frame::kArgs && key_ == "grid") {
      event_.has_grid = false;  // not a dimension list: as if absent
    }
    return ValueInEventList("a string");
  }
  if (key_ == "name") {
    event_.name = std::move(value);
    event_.name_field = Field::kOk;
  } else if (key_ == "cat") {
    event_.cat = std::move(value);
    event_.cat_field = Field::kOk;
  } else if (key_ == "ph") {
    event_.ph = std::move(value);
    event_.ph_field = Field::kOk;
  } else if (key_ == "tid") {
    event_.tid = std::hash<std::string>{}(value);
  } else if (key_ == "ts") {
    event_.ts_field = Field::kBadType;
  } else if (key_ == "dur") {
    event_.dur_field = Field::kBadType;
  }
  return true;
}

bool Handler::Number(std::optional<int64_t> integer, const std::string& text) {
  if (frames_.empty()) {
    top_seen_ = true;
    return true;
  }
  switch (frames_.back()) {
    case Frame::kRoot:
      if (key_ == "baseTimeNanoseconds" && integer && *integer >= 0) {
        result_.base_time_ns = *integer;
        if (result_.events == 0) {
          base_ = *integer;
          result_.base_time_applied = true;
        }
      }
      break;
    case Frame::kEventList:
      return ValueInEventList("a number");
    case Frame::kEvent:
      if (key_ == "ts" || key_ == "dur") {
        const std::optional<int64_t> ns = MicrosecondsTextToNs(text);
        if (!ns) event_.time_overflow = true;
        (key_ == "ts" ? event_.ts_ns : event_.dur_ns) = ns.value_or(0);
        (key_ == "ts" ? event_.ts_field : event_.dur_field) = Field::kOk;
      } else if (key_ == "name") {
        event_.name_field = Field::kBadType;
      } else if (key_ == "tid" && integer) {
        // libkineto writes |tid| (output_json.cpp sanitizeTid); do the same for other writers.
        event_.tid =
            *integer < 0 ? 0 - static_cast<uint64_t>(*integer) : static_cast<uint64_t>(*integer);
      }
      break;
    case Frame::kArgs:
      if (key_ == "correlation" && integer && *integer > 0) {
        event_.correlation = static_cast<uint64_t>(*integer);
      } else if (key_ == "device" && integer) {
        event_.device = *integer;
      } else if (key_ == "stream" && integer) {
        event_.stream = *integer;
      }
      break;
    case Frame::kGrid:
      if (grid_index_ < 3) event_.grid[static_cast<size_t>(grid_index_)] = integer.value_or(1);
      ++grid_index_;
      break;
    case Frame::kSkip:
      break;
  }
  return true;
}

bool Handler::AddDispatch(const Event& e, std::string_view name, trace::DispatchKind kind) {
  trace::Dispatch d;
  d.kind = kind;
  d.correlation = e.correlation;
  if (e.device < INT16_MIN || e.device > INT16_MAX) {
    return Fail(EventError(e, "device " + std::to_string(e.device) + " is out of range"));
  }
  d.device = static_cast<int16_t>(e.device);
  d.stream = static_cast<uint32_t>(e.stream);
  d.start = e.ts_ns;
  d.end = e.ts_ns + e.dur_ns;
  d.name = names_.Intern(name);
  if (e.has_grid) {
    d.grid = 1;
    for (int64_t v : e.grid) {
      if (__builtin_mul_overflow(d.grid, std::max<int64_t>(v, 1), &d.grid)) {
        return Fail(EventError(e, "grid size does not fit in 64 bits"));
      }
    }
  }
  d.line = dispatches_ < UINT32_MAX ? ++dispatches_ : dispatches_;
  builder_.AddDispatch(d);
  return true;
}

bool Handler::EndEvent() {
  ++result_.events;
  Event& e = event_;
  const Category category = e.cat_field == Field::kOk ? CategoryOf(e.cat) : Category::kOther;
  if (category == Category::kOther || e.ph_field != Field::kOk || e.ph != "X") {
    ++result_.skipped[e.cat_field == Field::kOk ? e.cat : std::string()];
    return true;
  }
  if (e.name_field != Field::kOk) {
    return Fail(EventError(e, e.name_field == Field::kAbsent
                                  ? e.cat + " event without a name"
                                  : e.cat + " event whose name is not a string"));
  }
  for (auto [field, label] : {std::pair{e.ts_field, "ts"}, std::pair{e.dur_field, "dur"}}) {
    if (field == Field::kAbsent) return Fail(EventError(e, e.cat + " event without " + label));
    if (field == Field::kBadType) {
      return Fail(EventError(e, e.cat + " event whose " + label + " is not a number"));
    }
  }
  if (e.time_overflow || __builtin_add_overflow(e.ts_ns, base_, &e.ts_ns) ||
      e.ts_ns > INT64_MAX - std::max<int64_t>(e.dur_ns, 0)) {
    return Fail(EventError(e, "time does not fit in 64-bit nanoseconds"));
  }
  if (e.dur_ns < 0) {
    return Fail(EventError(e, "end before start (dur " + std::to_string(e.dur_ns) + " ns)"));
  }
  switch (category) {
    case Category::kKernel:
      ++result_.kernels;
      return AddDispatch(e, base::DemangledOrSelf(e.name), trace::DispatchKind::kKernel);
    case Category::kMemcpy:
    case Category::kMemset:
      ++result_.memory_ops;
      if (!options_.memory_ops_as_dispatches) return true;
      e.has_grid = false;
      return AddDispatch(e, MemoryOpName(category == Category::kMemset, e.name),
                         category == Category::kMemset ? trace::DispatchKind::kMemset
                                                       : trace::DispatchKind::kMemcpy);
    case Category::kLaunch:
      if (e.correlation != 0) {
        ++result_.launch_calls;
        builder_.AddLaunch(trace::ApiCall{names_.Intern(e.name), e.ts_ns, e.ts_ns + e.dur_ns, e.tid,
                                          e.correlation});
      }
      return true;
    case Category::kAnnotation:
      result_.ranges.push_back(
          trace::Range{names_.Intern(e.name), e.ts_ns, e.ts_ns + e.dur_ns, e.tid, 0});
      return true;
    case Category::kOther:
      break;
  }
  return true;
}

bool Handler::parse_error(std::size_t position, const std::string&,
                          const nlohmann::detail::exception& e) {
  std::string what = e.what();
  // "[json.exception.parse_error.101] parse error at line 3, column 1: ..." → from "parse error".
  if (const size_t at = what.find("] "); at != std::string::npos) what = what.substr(at + 2);
  // nlohmann counts bytes read (1-based, the end of input included); report the 0-based offset
  // of the last byte read, which is the file's size when it ended too early.
  const size_t offset = position > 0 ? position - 1 : 0;
  return Fail(
      base::DataError(source_ + ":byte " + std::to_string(offset), "malformed JSON: " + what));
}

// Nesting depth per thread: by start, the longer range first on ties; a range is inside the
// innermost open range that has not ended by its start.
void AssignDepths(std::vector<trace::Range>& ranges) {
  std::stable_sort(ranges.begin(), ranges.end(), [](const trace::Range& a, const trace::Range& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.start != b.start) return a.start < b.start;
    return a.end > b.end;
  });
  std::vector<trace::TimestampNs> open_ends;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (i == 0 || ranges[i].thread != ranges[i - 1].thread) open_ends.clear();
    while (!open_ends.empty() && open_ends.back() <= ranges[i].start) open_ends.pop_back();
    ranges[i].depth = static_cast<int32_t>(open_ends.size());
    open_ends.push_back(ranges[i].end);
  }
  std::stable_sort(ranges.begin(), ranges.end(), [](const trace::Range& a, const trace::Range& b) {
    if (a.start != b.start) return a.start < b.start;
    return a.depth < b.depth;
  });
}

base::StatusOr<KinetoImport> Handler::Finish() {
  if (!top_seen_ || (!top_is_object_ && !saw_events_)) {
    return base::DataError(source_, "the top level is not a JSON object or array");
  }
  if (!saw_events_) {
    return base::DataError(source_, "no traceEvents array: not a Chrome/Kineto trace",
                           "export it with torch.profiler's export_chrome_trace()");
  }
  AssignDepths(result_.ranges);
  trace::ImportedTrace& t = builder_.trace();
  for (const trace::Range& r : result_.ranges) builder_.AddRange(r);
  // libkineto stamps CLOCK_REALTIME; without the base before the events, the times stay
  // relative to it: a clock of the file's own.
  t.clock =
      result_.base_time_applied ? trace::ClockDomain::kRealtime : trace::ClockDomain::kSession;
  if (result_.base_time_ns && !result_.base_time_applied) {
    t.diagnostics.Add(
        trace::Diag::kBaseTimeAfterEvents, 1,
        {source_, "", "baseTimeNanoseconds " + std::to_string(*result_.base_time_ns)});
  }
  int64_t skipped = 0;
  std::string categories;
  for (const auto& [cat, n] : result_.skipped) {
    skipped += n;
    if (!categories.empty()) categories += ", ";
    categories += (cat.empty() ? std::string("(no cat)") : cat) + " " + std::to_string(n);
  }
  t.diagnostics.Add(trace::Diag::kEventsSkipped, skipped, {source_, "", categories});
  return std::move(result_);
}

bool IsGzip(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
         static_cast<unsigned char>(head[1]) == 0x8b;
}

base::StatusOr<KinetoImport> Run(const std::string& source, ByteReader& reader,
                                 trace::TraceBuilder& builder, const KinetoImportOptions& options) {
  Handler handler(source, reader, builder, options);
  bool ok = false;
  try {
    ok = Json::sax_parse(ByteIterator(&reader), ByteIterator(), &handler);
  } catch (const std::exception& e) {  // nlohmann reports through parse_error; be safe anyway
    return base::DataError(source + ":byte " + std::to_string(reader.offset()),
                           std::string("malformed JSON: ") + e.what());
  }
  if (reader.read_error() != 0) {
    return base::IoError(source, std::string("read failed: ") + std::strerror(reader.read_error()));
  }
  if (!ok) {
    if (!handler.status().ok()) return handler.status();
    return base::DataError(source, "malformed JSON");
  }
  return handler.Finish();
}

}  // namespace

base::StatusOr<KinetoImport> ImportKinetoJson(const std::string& path, trace::TraceBuilder& builder,
                                              const KinetoImportOptions& options) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) return base::IoError(path, std::string("cannot open: ") + std::strerror(errno));
  std::array<char, 2> magic{};
  const size_t n = std::fread(magic.data(), 1, magic.size(), file.get());
  if (IsGzip(std::string_view(magic.data(), n))) {
    return base::DataError(path, "the trace is gzip-compressed",
                           "decompress it first (gunzip -k " + path + ")");
  }
  if (std::fseek(file.get(), 0, SEEK_SET) != 0) {
    return base::IoError(path, std::string("cannot read: ") + std::strerror(errno));
  }
  ByteReader reader(file.get());
  return Run(path, reader, builder, options);
}

base::StatusOr<KinetoImport> ImportKinetoJson(const std::string& path, trace::StringPool& names,
                                              trace::DispatchSink& sink,
                                              const KinetoImportOptions& options) {
  trace::TraceBuilder builder(names, sink);
  return ImportKinetoJson(path, builder, options);
}

base::StatusOr<KinetoImport> ImportKinetoJsonText(std::string_view text,
                                                  const std::string& source_name,
                                                  trace::StringPool& names,
                                                  trace::DispatchSink& sink,
                                                  const KinetoImportOptions& options) {
  if (IsGzip(text)) {
    return base::DataError(source_name, "the trace is gzip-compressed", "decompress it first");
  }
  ByteReader reader(text);
  trace::TraceBuilder builder(names, sink);
  return Run(source_name, reader, builder, options);
}

namespace {

class KinetoJsonImporterImpl final : public Importer {
 public:
  std::string_view name() const override { return "kineto-json"; }
  std::string_view description() const override {
    return "PyTorch profiler (Kineto) Chrome-trace JSON";
  }
  std::string_view produced_by() const override {
    return "torch.profiler.profile(...).export_chrome_trace(FILE)";
  }
  std::string_view default_pack() const override { return "pytorch-cuda"; }
  Recognition Recognize(const FileProbe& probe) const override {
    return LooksLikeKinetoJson(probe.head()) ? Recognition::kYes : Recognition::kNo;
  }
  base::Status Import(const std::string& path, trace::TraceBuilder& builder) const override {
    KinetoImportOptions options;
    options.memory_ops_as_dispatches = true;
    return ImportKinetoJson(path, builder, options).status();
  }
};

}  // namespace

const Importer& KinetoJsonImporter() {
  static const KinetoJsonImporterImpl importer;
  return importer;
}

bool LooksLikeKinetoJson(std::string_view head) {
  if (IsGzip(head)) return true;
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  if (head[first] == '[') {
    const size_t next = head.find_first_not_of(" \t\r\n", first + 1);
    return next != std::string_view::npos && head[next] == '{';
  }
  return head[first] == '{' && (head.find("\"traceEvents\"") != std::string_view::npos ||
                                head.find("\"schemaVersion\"") != std::string_view::npos);
}

}  // namespace decodeprof::io
