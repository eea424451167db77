// The Kineto importer on simdjson's On-Demand API, streamed (io::JsonStream, in io/common
// because it is a JSON reader any importer can use; json_stream.h has the details).
//
// Design, and why. On-Demand needs the document in memory with padding, and a trace is GBs,
// so the file is read in windows of about 2 MB and traceEvents is parsed a run of elements at
// a time, in place: the ',' before a run and the ',' after it are overwritten with '[' and ']'.
// simdjson's iterate_many/document_stream was the other candidate; in 3.0 it splits only
// whitespace-separated documents, not an array's comma-separated elements. A run ends where a
// cheap look back from the window's end finds "}," — a wrong guess (inside a string or a
// nested object) cannot parse, and only then is the tail scanned byte by byte. Memory is the
// window, simdjson's index of it and what the import returns (the launch-call table, the
// ranges), whatever the file's size. On-Demand skips what is not asked for, so every value is
// visited and checked; for a malformed file, nlohmann-json's SAX parser is run over it once to
// give the error the old streaming importer gave (message, byte offset, line), and what came
// before the error is imported first, in order. Each event's fields are taken by key and JSON
// type exactly as that importer's SAX handler took them, so every trace reads as before.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <unordered_map>
#include <utility>

#include "src/base/demangle.h"
#include "src/io/common/json_stream.h"
#include "src/io/format_names.h"
#include "src/io/kineto_json/kineto_json_importer.h"

namespace decodeprof::io {
namespace {

namespace od = simdjson::ondemand;
using Type = od::json_type;

// Kineto names copies "Memcpy <kind> (<src> -> <dst>)" (CuptiActivity.cpp memcpyName, the
// same on ROCm's roctracer); the kinds map onto CUpti_ActivityMemcpyKind for
// trace::MemcpyName, named for the runtime that made them.
std::string_view MemoryOpName(bool memset, std::string_view name, trace::Runtime runtime) {
  if (memset) return trace::MemsetName(runtime);
  static constexpr std::array<std::pair<std::string_view, int>, 5> kKinds = {{
      {"Memcpy HtoD", 1},
      {"Memcpy DtoH", 2},
      {"Memcpy DtoD", 8},
      {"Memcpy HtoH", 9},
      {"Memcpy PtoP", 10},
  }};
  for (const auto& [prefix, kind] : kKinds) {
    if (name.starts_with(prefix)) return trace::MemcpyName(kind, runtime);
  }
  return trace::MemcpyName(0, runtime);
}

enum class Category { kKernel, kMemcpy, kMemset, kLaunch, kAnnotation, kOther };

// `text` == `literal`, compared with a memcmp of constant length, which the compiler turns into
// a few loads: string_view's operator== called memcmp for every key of every event, a fifth of
// the import of a large trace.
template <size_t N>
inline bool Is(std::string_view text, const char (&literal)[N]) {
  return text.size() == N - 1 && std::memcmp(text.data(), literal, N - 1) == 0;
}

Category CategoryOf(std::string_view cat) {
  if (Is(cat, "kernel") || Is(cat, "Kernel")) return Category::kKernel;
  if (Is(cat, "gpu_memcpy") || Is(cat, "Memcpy")) return Category::kMemcpy;
  if (Is(cat, "gpu_memset") || Is(cat, "Memset")) return Category::kMemset;
  if (Is(cat, "cuda_runtime") || Is(cat, "cuda_driver") || Is(cat, "Runtime")) {
    return Category::kLaunch;
  }
  if (Is(cat, "user_annotation")) return Category::kAnnotation;
  return Category::kOther;
}

// The keys read, of an event and of its args.
enum class Key {
  kName,
  kCat,
  kPh,
  kTs,
  kDur,
  kTid,
  kArgs,
  kCorrelation,
  kDevice,
  kStream,
  kGrid,
  kOther
};

Key KeyOf(std::string_view k) {
  switch (k.size()) {  // by length first: most keys of an event are none of these
    case 2:
      return Is(k, "ph") ? Key::kPh : Is(k, "ts") ? Key::kTs : Key::kOther;
    case 3:
      return Is(k, "cat")   ? Key::kCat
             : Is(k, "dur") ? Key::kDur
             : Is(k, "tid") ? Key::kTid
                            : Key::kOther;
    case 4:
      return Is(k, "name")   ? Key::kName
             : Is(k, "args") ? Key::kArgs
             : Is(k, "grid") ? Key::kGrid
                             : Key::kOther;
    case 6:
      return Is(k, "device") ? Key::kDevice : Is(k, "stream") ? Key::kStream : Key::kOther;
    case 11:
      return Is(k, "correlation") ? Key::kCorrelation : Key::kOther;
    default:
      return Key::kOther;
  }
}

// A used field's state while one event is read.
enum class Field : uint8_t { kAbsent, kOk, kBadType };

// One traceEvents element, as far as the importer needs it (views into the parser's buffer).
struct Event {
  uint64_t offset = 0;  // of its '{'
  std::string_view ph, cat, name;
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
  // args.correlation, args.device or args.stream holding something other than an integer
  // (text, a fraction, a literal, a container): the error of a dispatch; of a launch call,
  // only for its correlation (roctracer writes a launch's stream as "0x0").
  const char* bad_arg = nullptr;
  bool bad_correlation = false;
};

class Reader {
 public:
  Reader(JsonStream& json, trace::TraceBuilder& builder, const KinetoImportOptions& options)
      : json_(json), names_(builder.names()), builder_(builder), options_(options) {}
  base::StatusOr<KinetoImport> Run(const std::string& source);

 private:
  JsonStep Member(std::string_view key, od::value& value);
  JsonStep DistributedInfo(od::value& value);
  JsonStep DeviceProperties(od::value& value);
  JsonStep Element(od::object& object, uint64_t offset);
  JsonStep Args(od::value& value, Event& e);
  JsonStep EndEvent(Event& e);
  JsonStep AddDispatch(const Event& e, std::string_view name, trace::DispatchKind kind);

  JsonStream& json_;
  trace::StringPool& names_;
  trace::TraceBuilder& builder_;
  const KinetoImportOptions& options_;
  int64_t base_ = 0;
  uint32_t dispatches_ = 0;
  // The trace is PyTorch on ROCm: a top-level roctracer_version / hip_runtime_version /
  // hip_driver_version, or a HIP launch call, came before (names the copies that follow).
  trace::Runtime runtime_ = trace::Runtime::kCuda;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // Mangled kernel names → their demangled ids (demangled once each).
  std::unordered_map<std::string, trace::StringId, Hash, std::equal_to<>> demangled_;
  std::vector<std::pair<std::string, int64_t>> skipped_;  // few categories: searched linearly
  KinetoImport result_;
  std::string rank_problem_;  // a distributedInfo that cannot be right
};

// A top-level member: baseTimeNanoseconds is used (when an integer >= 0), applied to the
// events that follow it.
JsonStep Reader::Member(std::string_view key, od::value& value) {
  Type type;
  if (value.type().get(type)) return JsonStep::kBad;
  if (type == Type::object && key == "distributedInfo") return DistributedInfo(value);
  if (type == Type::array && key == "deviceProperties") return DeviceProperties(value);
  if (key == "roctracer_version" || key == "hip_runtime_version" || key == "hip_driver_version") {
    runtime_ = trace::Runtime::kHip;
  }
  if (type != Type::number || key != "baseTimeNanoseconds") {
    return json_.Skip(value) ? JsonStep::kBad : JsonStep::kOk;
  }
  const std::optional<std::string_view> text = json_.Number(value);
  if (!text) return JsonStep::kBad;
  if (const std::optional<int64_t> n = JsonInteger(*text); n && *n >= 0) {
    result_.base_time_ns = *n;
    if (result_.events == 0) {
      base_ = *n;
      result_.base_time_applied = true;
    }
  }
  return JsonStep::kOk;
}

// torch.profiler's {"backend": "nccl", "rank": R, "world_size": W, ...}: the rank of a
// torch.distributed process. Integer rank and world_size are used; anything else is skipped.
JsonStep Reader::DistributedInfo(od::value& value) {
  od::object object;
  if (value.get_object().get(object)) return JsonStep::kBad;
  std::optional<int64_t> rank, world_size;
  for (auto field : object) {
    std::string_view k;
    Type type;
    if (field.error() || json_.Key(field.value_unsafe(), k)) return JsonStep::kBad;
    od::value& v = field.value_unsafe().value();
    if (v.type().get(type)) return JsonStep::kBad;
    if (type == Type::number && (k == "rank" || k == "world_size")) {
      const std::optional<std::string_view> text = json_.Number(v);
      if (!text) return JsonStep::kBad;
      (k == "rank" ? rank : world_size) = JsonInteger(*text);
    } else if (json_.Skip(v)) {
      return JsonStep::kBad;
    }
  }
  if (!rank) return JsonStep::kOk;
  if (*rank < 0 || *rank > INT32_MAX ||
      (world_size && (*world_size < 1 || *world_size > INT32_MAX || *rank >= *world_size))) {
    rank_problem_ = "distributedInfo: rank " + std::to_string(*rank) +
                    (world_size ? " of world_size " + std::to_string(*world_size) : "") +
                    " is not a rank (0 <= rank < world_size)";
    return JsonStep::kOk;
  }
  trace::RankInfo info;
  info.rank = static_cast<int32_t>(*rank);
  if (world_size) info.world_size = static_cast<int32_t>(*world_size);
  result_.rank = info;
  return JsonStep::kOk;
}

// torch.profiler's [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": ...}, ...]:
// the GPUs of the process, as the model's devices (their names find the peak bandwidth,
// src/device). An element without an integer id from 0 to INT32_MAX, or with an id seen
// before, is skipped; a name that is not a string is "".
JsonStep Reader::DeviceProperties(od::value& value) {
  od::array array;
  if (value.get_array().get(array)) return JsonStep::kBad;
  for (auto element : array) {
    od::value item;
    Type type;
    if (element.get(item) || item.type().get(type)) return JsonStep::kBad;
    if (type != Type::object) {
      if (json_.Skip(item)) return JsonStep::kBad;
      continue;
    }
    od::object object;
    if (item.get_object().get(object)) return JsonStep::kBad;
    std::optional<int64_t> id;
    std::string name;
    for (auto field : object) {
      std::string_view k;
      if (field.error() || json_.Key(field.value_unsafe(), k)) return JsonStep::kBad;
      od::value& v = field.value_unsafe().value();
      if (v.type().get(type)) return JsonStep::kBad;
      if (type == Type::number && k == "id") {
        const std::optional<std::string_view> text = json_.Number(v);
        if (!text) return JsonStep::kBad;
        id = JsonInteger(*text);
      } else if (type == Type::string && k == "name") {
        std::string_view s;
        if (v.get_string().get(s)) return JsonStep::kBad;
        name = std::string(s);
      } else if (json_.Skip(v)) {
        return JsonStep::kBad;
      }
    }
    if (!id || *id < 0 || *id > INT32_MAX) continue;
    std::vector<trace::Device>& devices = builder_.trace().devices;
    const auto same = [&](const trace::Device& d) { return d.id == *id; };
    if (std::find_if(devices.begin(), devices.end(), same) != devices.end()) continue;
    devices.push_back(trace::Device{static_cast<int32_t>(*id), std::move(name)});
  }
  return JsonStep::kOk;
}

// One event: its fields by key and JSON type. A used field of the wrong type is kBadType;
// later occurrences of a key overwrite earlier ones.
JsonStep Reader::Element(od::object& object, uint64_t offset) {
  Event e;
  e.offset = offset;
  for (auto field : object) {
    std::string_view k;
    Type type;
    if (field.error() || json_.Key(field.value_unsafe(), k)) return JsonStep::kBad;
    od::value& value = field.value_unsafe().value();
    if (value.type().get(type)) return JsonStep::kBad;
    const Key key = KeyOf(k);
    Field* const used = key == Key::kName  ? &e.name_field
                        : key == Key::kCat ? &e.cat_field
                        : key == Key::kPh  ? &e.ph_field
                        : key == Key::kTs  ? &e.ts_field
                        : key == Key::kDur ? &e.dur_field
                                           : nullptr;
    simdjson::error_code err = simdjson::SUCCESS;
    if (type == Type::string &&
        (key == Key::kName || key == Key::kCat || key == Key::kPh || key == Key::kTid)) {
      std::string_view s;
      if (value.get_string().get(s)) return JsonStep::kBad;
      if (key == Key::kTid) {
        e.tid = std::hash<std::string_view>{}(s);  // a thread name: its hash
        continue;
      }
      (key == Key::kName ? e.name : key == Key::kCat ? e.cat : e.ph) = s;
      *used = Field::kOk;
    } else if (type == Type::string) {
      if (key == Key::kTs || key == Key::kDur) *used = Field::kBadType;
      err = json_.Skip(value);
    } else if (type == Type::number) {
      const std::optional<std::string_view> text = json_.Number(value);
      if (!text) return JsonStep::kBad;
      if (key == Key::kTs || key == Key::kDur) {
        const std::optional<int64_t> ns = MicrosecondsTextToNs(*text);
        if (!ns) e.time_overflow = true;
        (key == Key::kTs ? e.ts_ns : e.dur_ns) = ns.value_or(0);
        *used = Field::kOk;
      } else if (key == Key::kName) {
        *used = Field::kBadType;
      } else if (key == Key::kTid) {
        // libkineto writes |tid| (output_json.cpp sanitizeTid); do the same for other writers.
        if (const auto tid = JsonInteger(*text)) {
          e.tid = *tid < 0 ? 0 - static_cast<uint64_t>(*tid) : static_cast<uint64_t>(*tid);
        }
      }
    } else {  // a literal or a container: a bad type for a used field
      if (used != nullptr) *used = Field::kBadType;
      if (key == Key::kArgs && type == Type::object) {
        if (const JsonStep s = Args(value, e); s != JsonStep::kOk) return s;
      } else {
        err = json_.Skip(value);
      }
    }
    if (err) return JsonStep::kBad;
  }
  return EndEvent(e);
}

// args: correlation (> 0), device and stream when integers; grid when an array (a string
// grid: none).
JsonStep Reader::Args(od::value& value, Event& e) {
  od::object object;
  if (value.get_object().get(object)) return JsonStep::kBad;
  for (auto field : object) {
    std::string_view k;
    Type type;
    if (field.error() || json_.Key(field.value_unsafe(), k)) return JsonStep::kBad;
    od::value& v = field.value_unsafe().value();
    if (v.type().get(type)) return JsonStep::kBad;
    const Key key = KeyOf(k);
    const bool integer_arg = key == Key::kCorrelation || key == Key::kDevice || key == Key::kStream;
    const char* arg_name = key == Key::kCorrelation ? "args.correlation"
                           : key == Key::kDevice    ? "args.device"
                                                    : "args.stream";
    if (type == Type::number) {
      const std::optional<std::string_view> text = json_.Number(v);
      if (!text) return JsonStep::kBad;
      if (!integer_arg) continue;
      if (const std::optional<int64_t> n = JsonInteger(*text)) {
        if (key == Key::kCorrelation && *n > 0) e.correlation = static_cast<uint64_t>(*n);
        if (key == Key::kDevice) e.device = *n;
        if (key == Key::kStream) e.stream = *n;
      } else {
        e.bad_arg = arg_name;
        e.bad_correlation = e.bad_correlation || key == Key::kCorrelation;
      }
      continue;
    }
    if (integer_arg && type != Type::null) {
      e.bad_arg = arg_name;
      e.bad_correlation = e.bad_correlation || key == Key::kCorrelation;
    }
    if (key == Key::kGrid && type == Type::string) e.has_grid = false;
    if (key != Key::kGrid || type != Type::array) {
      if (json_.Skip(v)) return JsonStep::kBad;
      continue;
    }
    // The dimensions: numbers (a non-integer as 1) and literals count, nothing else does.
    e.has_grid = true;
    size_t index = 0;
    od::array grid;
    if (v.get_array().get(grid)) return JsonStep::kBad;
    for (auto element : grid) {
      od::value dim;
      if (element.get(dim) || dim.type().get(type)) return JsonStep::kBad;
      if (type == Type::number) {
        const std::optional<std::string_view> text = json_.Number(dim);
        if (!text) return JsonStep::kBad;
        if (index < 3) e.grid[index] = JsonInteger(*text).value_or(1);
      } else if (json_.Skip(dim)) {
        return JsonStep::kBad;
      }
      if (type != Type::string && type != Type::object && type != Type::array) ++index;
    }
  }
  return JsonStep::kOk;
}

JsonStep Reader::AddDispatch(const Event& e, std::string_view name, trace::DispatchKind kind) {
  trace::Dispatch d;
  d.kind = kind;
  d.correlation = e.correlation;
  if (e.device < 0 || e.device > INT16_MAX) {
    return json_.Fail(
        e.offset, "args.device " + std::to_string(e.device) + " is beyond its range (0 to 32767)");
  }
  if (e.stream < 0 || e.stream > UINT32_MAX) {
    return json_.Fail(e.offset, "args.stream " + std::to_string(e.stream) +
                                    " is beyond its range (0 to 4294967295)");
  }
  d.device = static_cast<int16_t>(e.device);
  d.stream = static_cast<uint32_t>(e.stream);
  d.start = e.ts_ns;
  d.end = e.ts_ns + e.dur_ns;
  if (kind != trace::DispatchKind::kKernel || !name.starts_with("_Z")) {
    d.name = names_.Intern(name);
  } else if (auto it = demangled_.find(name); it != demangled_.end()) {
    d.name = it->second;
  } else {
    d.name = demangled_[std::string(name)] = names_.Intern(base::DemangledOrSelf(name));
  }
  if (e.has_grid) {
    d.grid = 1;
    for (int64_t v : e.grid) {
      if (__builtin_mul_overflow(d.grid, std::max<int64_t>(v, 1), &d.grid)) {
        return json_.Fail(e.offset, "grid size does not fit in 64 bits");
      }
    }
  }
  d.line = dispatches_ < UINT32_MAX ? ++dispatches_ : dispatches_;
  builder_.AddDispatch(d);
  return JsonStep::kOk;
}

JsonStep Reader::EndEvent(Event& e) {
  ++result_.events;
  const Category category = e.cat_field == Field::kOk ? CategoryOf(e.cat) : Category::kOther;
  if (category == Category::kOther || e.ph_field != Field::kOk || e.ph != "X") {
    const std::string_view cat = e.cat_field == Field::kOk ? e.cat : std::string_view();
    auto it = std::find_if(skipped_.begin(), skipped_.end(),
                           [cat](const auto& entry) { return entry.first == cat; });
    if (it == skipped_.end()) it = skipped_.insert(it, {std::string(cat), 0});
    ++it->second;
    return JsonStep::kOk;
  }
  const auto fail = [&](const std::string& what) {
    return json_.Fail(e.offset, std::string(e.cat) + " event " + what);
  };
  if (e.name_field != Field::kOk) {
    return fail(e.name_field == Field::kAbsent ? "without a name" : "whose name is not a string");
  }
  for (auto [field, label] : {std::pair{e.ts_field, "ts"}, std::pair{e.dur_field, "dur"}}) {
    if (field == Field::kAbsent) return fail(std::string("without ") + label);
    if (field == Field::kBadType) return fail(std::string("whose ") + label + " is not a number");
  }
  if (e.bad_correlation && category != Category::kAnnotation) {
    return fail("whose args.correlation is not an integer");
  }
  if (e.bad_arg != nullptr && category != Category::kLaunch && category != Category::kAnnotation) {
    return fail(std::string("whose ") + e.bad_arg + " is not an integer");
  }
  if (e.time_overflow || __builtin_add_overflow(e.ts_ns, base_, &e.ts_ns) ||
      e.ts_ns > INT64_MAX - std::max<int64_t>(e.dur_ns, 0)) {
    return json_.Fail(e.offset, "time does not fit in 64-bit nanoseconds");
  }
  if (e.dur_ns < 0) {
    return json_.Fail(e.offset, "end before start (dur " + std::to_string(e.dur_ns) + " ns)");
  }
  switch (category) {
    case Category::kKernel:
      ++result_.kernels;
      return AddDispatch(e, e.name, trace::DispatchKind::kKernel);
    case Category::kMemcpy:
    case Category::kMemset:
      ++result_.memory_ops;
      if (!options_.memory_ops_as_dispatches) return JsonStep::kOk;
      e.has_grid = false;
      return AddDispatch(e, MemoryOpName(category == Category::kMemset, e.name, runtime_),
                         category == Category::kMemset ? trace::DispatchKind::kMemset
                                                       : trace::DispatchKind::kMemcpy);
    case Category::kLaunch:
      if (e.name.starts_with("hip")) runtime_ = trace::Runtime::kHip;
      if (e.correlation != 0) {
        ++result_.launch_calls;
        builder_.AddLaunch(trace::ApiCall{names_.Intern(e.name), e.ts_ns, e.ts_ns + e.dur_ns, e.tid,
                                          e.correlation});
      }
      return JsonStep::kOk;
    case Category::kAnnotation:
      result_.ranges.push_back(
          trace::Range{names_.Intern(e.name), e.ts_ns, e.ts_ns + e.dur_ns, e.tid, 0});
      return JsonStep::kOk;
    case Category::kOther:
      break;
  }
  return JsonStep::kOk;
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

base::StatusOr<KinetoImport> Reader::Run(const std::string& source) {
  DP_RETURN_IF_ERROR(
      json_.Run([this](std::string_view key, od::value& value) { return Member(key, value); },
                [this](od::object& event, uint64_t offset) { return Element(event, offset); }));
  if (json_.top() == JsonStream::Top::kScalar) {
    return base::DataError(source, "the top level is not a JSON object or array");
  }
  if (!json_.saw_list()) {
    return base::DataError(source, "no traceEvents array: not a Chrome/Kineto trace",
                           "export it with torch.profiler's export_chrome_trace()");
  }
  if (!rank_problem_.empty()) {
    return base::DataError(source, rank_problem_,
                           "a torch.profiler trace of one process names "
                           "its own rank");
  }
  for (auto& [cat, n] : skipped_) result_.skipped[cat] += n;
  if (result_.rank) builder_.trace().rank = result_.rank;
  AssignDepths(result_.ranges);
  trace::ImportedTrace& t = builder_.trace();
  t.in_order_streams = true;  // CUDA (or HIP) streams, as torch.profiler names them
  if (runtime_ == trace::Runtime::kHip) t.runtime = trace::Runtime::kHip;
  for (const trace::Range& r : result_.ranges) builder_.AddRange(r);
  // libkineto stamps CLOCK_REALTIME; without the base before the events, the times stay
  // relative to it: a clock of the file's own.
  t.clock =
      result_.base_time_applied ? trace::ClockDomain::kRealtime : trace::ClockDomain::kSession;
  if (result_.base_time_ns && !result_.base_time_applied) {
    t.diagnostics.Add(trace::Diag::kBaseTimeAfterEvents, 1,
                      {source, "", "baseTimeNanoseconds " + std::to_string(*result_.base_time_ns)});
  }
  int64_t skipped = 0;
  std::string categories;
  for (const auto& [cat, n] : result_.skipped) {
    skipped += n;
    if (!categories.empty()) categories += ", ";
    categories += (cat.empty() ? std::string("(no cat)") : cat) + " " + std::to_string(n);
  }
  t.diagnostics.Add(trace::Diag::kEventsSkipped, skipped, {source, "", categories});
  return std::move(result_);
}

base::StatusOr<KinetoImport> Import(const std::string& source, JsonStream& json,
                                    trace::TraceBuilder& builder,
                                    const KinetoImportOptions& options, uint64_t bytes) {
  // Launch calls are the bulk of what is kept: reserve address space for as many as the input
  // can hold (each takes well over 96 bytes), so that the table is never copied as it grows.
  try {
    builder.trace().launches.reserve(static_cast<size_t>(bytes / 96));
  } catch (const std::bad_alloc&) {  // then it grows as it goes
  }
  if (options.window_bytes > 0) json.set_window(options.window_bytes);
  return Reader(json, builder, options).Run(source);
}

}  // namespace

base::StatusOr<KinetoImport> ImportKinetoJson(const std::string& path, trace::TraceBuilder& builder,
                                              const KinetoImportOptions& options) {
  DP_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, InputStream::Open(path));
  // A compressed trace is about ten times its file's size.
  const uint64_t bytes = in->file_bytes() * (in->compressed() ? 10 : 1);
  JsonStream json(path, std::move(in), "traceEvents", "event");
  return Import(path, json, builder, options, bytes);
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
  trace::TraceBuilder builder(names, sink);
  if (DetectCompression(text) != Compression::kNone) {
    DP_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in,
                        InputStream::FromMemory(text, source_name));
    JsonStream json(source_name, std::move(in), "traceEvents", "event");
    return Import(source_name, json, builder, options, text.size() * 10);
  }
  JsonStream json(source_name, text, "traceEvents", "event");
  return Import(source_name, json, builder, options, text.size());
}

namespace {

class KinetoJsonImporterImpl final : public Importer {
 public:
  std::string_view name() const override { return kKinetoJsonFormat; }
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
  // A Chrome trace without GPU events (torch.profiler recording the CPU only, or a trace of
  // another tool in Chrome's format): what it holds instead, by category.
  base::Status NoDispatch(const std::string& path, const trace::ImportedTrace& t) const override {
    std::string held;
    for (const trace::DiagnosticEntry& e : t.diagnostics.entries()) {
      if (e.code == trace::Diag::kEventsSkipped) {
        held = "; its other events: " + base::Excerpt(e.first.detail);
      }
    }
    return base::DataError(
        path,
        "a Chrome-trace JSON without GPU events (no kernel, gpu_memcpy or gpu_memset event" + held +
            ")",
        "decodeprof needs the GPU's activity in the trace: it was recorded without it, or the "
        "GPU did no work while it ran");
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
