#include "src/report/chrome_trace.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "src/base/file_io.h"
#include "src/base/py_format.h"

namespace decodeprof::report {
namespace {

constexpr int kGpuPid = 1;
constexpr int kCpuPid = 2;
constexpr int kGapTid = 0;
constexpr int kFirstLaneTid = 1;

// Reserved colour names of the trace viewer (catapult's color_scheme), distinct enough to
// tell classes apart; "other" is always grey.
constexpr std::array<std::string_view, 14> kClassColours = {"thread_state_running",
                                                            "rail_response",
                                                            "rail_animation",
                                                            "thread_state_iowait",
                                                            "rail_load",
                                                            "startup",
                                                            "good",
                                                            "bad",
                                                            "yellow",
                                                            "olive",
                                                            "rail_idle",
                                                            "thread_state_runnable",
                                                            "terrible",
                                                            "generic_work"};
constexpr std::string_view kOtherColour = "grey";

void AppendInt(std::string& s, int64_t v) { s += std::to_string(v); }
void AppendUint(std::string& s, uint64_t v) { s += std::to_string(v); }

// Picks the first lane whose last slice ended at or before `start`, or opens one.
size_t PickLane(std::vector<trace::TimestampNs>& lane_end, const trace::Dispatch& d) {
  for (size_t i = 0; i < lane_end.size(); ++i) {
    if (lane_end[i] <= d.start) {
      lane_end[i] = d.end;
      return i;
    }
  }
  lane_end.push_back(d.end);
  return lane_end.size() - 1;
}

class EventWriter {
 public:
  EventWriter(const std::function<void(std::string_view)>& out, trace::TimestampNs origin)
      : out_(out), origin_(origin) {}

  // Starts an event: `{"name":<name>,` plus the separator from the previous one.
  std::string& Begin(std::string_view name) {
    line_.clear();
    if (!first_) line_ += ",\n";
    first_ = false;
    line_ += "{\"name\":";
    line_ += base::JsonQuote(name);
    return line_;
  }
  void Flush() { out_(line_); }

  void Ts(trace::TimestampNs t) {
    line_ += ",\"ts\":";
    line_ += MicrosText(t - origin_);
  }
  void Dur(trace::DurationNs d) {
    line_ += ",\"dur\":";
    line_ += MicrosText(d);
  }
  void PidTid(int pid, uint64_t tid) {
    line_ += ",\"pid\":";
    AppendInt(line_, pid);
    line_ += ",\"tid\":";
    AppendUint(line_, tid);
  }

  void Metadata(std::string_view kind, int pid, uint64_t tid, std::string_view key,
                std::string_view value_json) {
    Begin(kind);
    line_ += ",\"ph\":\"M\"";
    PidTid(pid, tid);
    line_ += ",\"args\":{\"";
    line_ += key;
    line_ += "\":";
    line_ += value_json;
    line_ += "}}";
    Flush();
  }

 private:
  const std::function<void(std::string_view)>& out_;
  trace::TimestampNs origin_;
  std::string line_;
  bool first_ = true;
};

struct Layout {
  trace::TimestampNs origin = 0;
  size_t lanes = 0;
  std::set<uint64_t> cpu_threads;
};

bool HasLaunches(const ChromeTraceInput& in) {
  return !in.launch_time.empty() && in.launch_time.size() == in.dispatches.size() &&
         in.launch_thread.size() == in.dispatches.size();
}

// First pass: the origin, the number of GPU lanes and the CPU threads (metadata comes first).
Layout Plan(const ChromeTraceInput& in) {
  Layout layout;
  std::optional<trace::TimestampNs> origin;
  const auto take = [&origin](trace::TimestampNs t) { origin = origin ? std::min(*origin, t) : t; };
  std::vector<trace::TimestampNs> lane_end;
  const bool launches = HasLaunches(in);
  for (size_t i = 0; i < in.dispatches.size(); ++i) {
    const trace::Dispatch& d = in.dispatches[i];
    take(d.start);
    PickLane(lane_end, d);
    if (launches && in.launch_time[i] != analysis::kUnknownLaunch) {
      take(in.launch_time[i]);
      layout.cpu_threads.insert(in.launch_thread[i]);
    }
  }
  for (const trace::Range& r : in.ranges) {
    take(r.start);
    layout.cpu_threads.insert(r.thread);
  }
  layout.origin = origin.value_or(0);
  layout.lanes = lane_end.size();
  return layout;
}

void WriteMetadata(const ChromeTraceInput& in, const Layout& layout, EventWriter& w) {
  if (!in.dispatches.empty()) {
    w.Metadata("process_name", kGpuPid, 0, "name", "\"GPU\"");
    w.Metadata("process_sort_index", kGpuPid, 0, "sort_index", "0");
    w.Metadata("thread_name", kGpuPid, kGapTid, "name", "\"host gaps\"");
    w.Metadata("thread_sort_index", kGpuPid, kGapTid, "sort_index", std::to_string(layout.lanes));
    for (size_t lane = 0; lane < layout.lanes; ++lane) {
      const std::string name = lane == 0 ? "GPU" : "GPU overlap " + std::to_string(lane);
      w.Metadata("thread_name", kGpuPid, kFirstLaneTid + lane, "name", base::JsonQuote(name));
      w.Metadata("thread_sort_index", kGpuPid, kFirstLaneTid + lane, "sort_index",
                 std::to_string(lane));
    }
  }
  if (!layout.cpu_threads.empty()) {
    w.Metadata("process_name", kCpuPid, 0, "name", "\"CPU\"");
    w.Metadata("process_sort_index", kCpuPid, 0, "sort_index", "1");
    for (uint64_t tid : layout.cpu_threads) {
      w.Metadata("thread_name", kCpuPid, tid, "name",
                 base::JsonQuote("CPU thread " + std::to_string(tid)));
    }
  }
}

void WriteRanges(const ChromeTraceInput& in, EventWriter& w) {
  for (size_t i = 0; i < in.ranges.size(); ++i) {
    const trace::Range& r = in.ranges[i];
    const std::string_view name = in.names->Get(r.name);
    if (r.depth >= 0) {
      std::string& line = w.Begin(name);
      line += ",\"cat\":\"range\",\"ph\":\"X\"";
      w.Ts(r.start);
      w.Dur(r.end - r.start);
      w.PidTid(kCpuPid, r.thread);
      line += "}";
      w.Flush();
      continue;
    }
    for (const bool begin : {true, false}) {
      std::string& line = w.Begin(name);
      line += begin ? ",\"cat\":\"range\",\"ph\":\"b\",\"id\":"
                    : ",\"cat\":\"range\",\"ph\":\"e\",\"id\":";
      AppendUint(line, i);
      w.Ts(begin ? r.start : r.end);
      w.PidTid(kCpuPid, r.thread);
      line += "}";
      w.Flush();
    }
  }
}

struct ClassCache {
  explicit ClassCache(const analysis::Pack* pack) : pack_(pack) {}
  // Class id of a dispatch, classified once per distinct name (memory operations have names
  // of their own, so a name never stands for two kinds).
  analysis::ClassId Get(const trace::StringPool& names, const trace::Dispatch& d) {
    const trace::StringId id = d.name;
    if (id >= cache_.size()) cache_.resize(static_cast<size_t>(id) + 1, -1);
    if (cache_[id] < 0) cache_[id] = pack_->ClassOf(d, names.Get(id));
    return static_cast<analysis::ClassId>(cache_[id]);
  }

 private:
  const analysis::Pack* pack_;
  std::vector<int32_t> cache_;
};

void WriteDispatches(const ChromeTraceInput& in, EventWriter& w, ChromeTraceStats& stats) {
  const bool launches = HasLaunches(in);
  ClassCache classes(in.pack);
  std::vector<trace::TimestampNs> lane_end;
  std::optional<trace::TimestampNs> busy_until;
  for (size_t i = 0; i < in.dispatches.size(); ++i) {
    const trace::Dispatch& d = in.dispatches[i];
    if (busy_until && d.start > *busy_until) {
      std::string& line = w.Begin("host gap");
      line += ",\"cat\":\"gap\",\"ph\":\"X\"";
      w.Ts(*busy_until);
      w.Dur(d.start - *busy_until);
      w.PidTid(kGpuPid, kGapTid);
      line += "}";
      w.Flush();
      ++stats.host_gaps;
    }
    busy_until = busy_until ? std::max(*busy_until, d.end) : d.end;

    const std::string_view name = in.names->Get(d.name);
    const size_t lane = PickLane(lane_end, d);
    const bool launch_known = launches && in.launch_time[i] != analysis::kUnknownLaunch;
    std::string& line = w.Begin(name);
    line += ",\"cat\":\"";
    line += trace::DispatchKindName(d.kind);  // kernel, memcpy or memset
    line += "\",\"ph\":\"X\"";
    w.Ts(d.start);
    w.Dur(d.duration());
    w.PidTid(kGpuPid, kFirstLaneTid + lane);
    std::optional<analysis::ClassId> cls;
    if (in.pack != nullptr) {
      cls = classes.Get(*in.names, d);
      line += ",\"cname\":\"";
      line += *cls == in.pack->other_class() ? kOtherColour
                                             : kClassColours[*cls % kClassColours.size()];
      line += "\"";
    }
    line += ",\"args\":{\"index\":";
    AppendUint(line, i);
    if (cls) {
      line += ",\"class\":";
      line += base::JsonQuote(in.pack->class_names()[*cls]);
    }
    if (d.grid != 0) {
      line += ",\"grid\":";
      AppendInt(line, d.grid);
    }
    if (launch_known) {
      line += ",\"launch_thread\":";
      AppendUint(line, in.launch_thread[i]);
      line += ",\"launch_to_start_us\":";
      line += MicrosText(d.start - in.launch_time[i]);
    }
    line += "}}";
    w.Flush();
    if (launch_known) {
      std::string& l = w.Begin("launch");
      l += ",\"cat\":\"launch\",\"ph\":\"i\",\"s\":\"t\"";
      w.Ts(in.launch_time[i]);
      w.PidTid(kCpuPid, in.launch_thread[i]);
      l += ",\"args\":{\"kernel\":";
      l += base::JsonQuote(name);
      l += ",\"index\":";
      AppendUint(l, i);
      l += "}}";
      w.Flush();
      ++stats.launches;
    }
  }
  stats.dispatches = static_cast<int64_t>(in.dispatches.size());
}

}  // namespace

std::string MicrosText(int64_t ns) {
  std::string s;
  // Magnitude as unsigned: INT64_MIN has no positive int64.
  uint64_t mag = static_cast<uint64_t>(ns);
  if (ns < 0) {
    s += '-';
    mag = ~mag + 1;
  }
  s += std::to_string(mag / 1000);
  const uint64_t frac = mag % 1000;
  s += '.';
  s += static_cast<char>('0' + frac / 100);
  s += static_cast<char>('0' + frac / 10 % 10);
  s += static_cast<char>('0' + frac % 10);
  return s;
}

ChromeTraceStats WriteChromeTrace(const ChromeTraceInput& in,
                                  const std::function<void(std::string_view)>& out) {
  const Layout layout = Plan(in);
  ChromeTraceStats stats;
  stats.origin_ns = layout.origin;
  stats.gpu_lanes = static_cast<int64_t>(layout.lanes);
  stats.cpu_threads = static_cast<int64_t>(layout.cpu_threads.size());
  stats.ranges = static_cast<int64_t>(in.ranges.size());

  out("{\"traceEvents\":[\n");
  EventWriter w(out, layout.origin);
  WriteMetadata(in, layout, w);
  WriteRanges(in, w);
  WriteDispatches(in, w, stats);

  std::string tail = "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"origin_ns\":";
  tail += base::JsonQuote(std::to_string(layout.origin));
  for (const auto& [key, value] : in.other_data) {
    tail += ",";
    tail += base::JsonQuote(key);
    tail += ":";
    tail += base::JsonQuote(value);
  }
  tail += "}}\n";
  out(tail);
  return stats;
}

base::StatusOr<ChromeTraceStats> WriteChromeTraceFile(const std::string& path,
                                                      const ChromeTraceInput& in,
                                                      const std::vector<std::string>& inputs) {
  // Refused before anything is written when the names make it huge (a 1 MB kernel name in
  // every event): about 320 bytes per event besides the name, twice with its launch.
  uint64_t estimate = 4096;
  for (const trace::Dispatch& d : in.dispatches) estimate += 2 * in.names->Get(d.name).size() + 320;
  for (const trace::Range& r : in.ranges) estimate += in.names->Get(r.name).size() + 200;
  DP_RETURN_IF_ERROR(base::CheckOutputSize(
      path, estimate, inputs, "export a part of the trace: --window decode, or a shorter trace"));
  base::AtomicFileWriter writer(path, inputs);
  DP_RETURN_IF_ERROR(writer.Open());
  const ChromeTraceStats stats =
      WriteChromeTrace(in, [&writer](std::string_view text) { writer.Write(text); });
  DP_RETURN_IF_ERROR(writer.Commit());
  return stats;
}

}  // namespace decodeprof::report
