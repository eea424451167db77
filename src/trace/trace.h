// The trace model: what every importer produces, whatever the format (ARCHITECTURE.md "The
// trace model carries what real traces hold").
//
// Dispatches are streamed (a trace holds millions; a consumer keeps only its window), so an
// import is a TraceBuilder fed by the importer: dispatches go to the consumer's
// DispatchSink, everything else — small by comparison — is kept in an ImportedTrace.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "src/trace/api_call.h"
#include "src/trace/diagnostics.h"
#include "src/trace/dispatch.h"
#include "src/trace/dispatch_sink.h"
#include "src/trace/range.h"
#include "src/trace/string_pool.h"

namespace decodeprof::trace {

// A GPU as the trace describes it (native: table devices; nsys: TARGET_INFO_GPU; Kineto:
// deviceProperties). Only the id is certain; the name is "" when the source has none.
struct Device {
  int32_t id = 0;
  std::string name;
};

// Everything an import gives besides the dispatches.
struct ImportedTrace {
  // The registry name of the format it was read as ("native", "nsys-sqlite", ...).
  std::string format;
  // The host clock of every timestamp; nullopt when the source does not say (rocprofv3 CSV,
  // a native file converted from it): a bench log's marks then pick the clock.
  std::optional<ClockDomain> clock;
  // False when the source carries no grid sizes at all (rocprofv3 CSV without Grid_Size
  // columns: every Dispatch::grid is 0, seed spec 2.2).
  bool has_grid = true;
  // Launch API calls with a non-zero correlation id, in source order.
  std::vector<ApiCall> launches;
  // Annotation ranges, by start, then depth (the importers sort them so).
  std::vector<Range> ranges;
  std::vector<Device> devices;
  // Dispatches per device and kind, as streamed (before any device filter).
  std::map<int32_t, int64_t> dispatches_per_device;
  int64_t kernels = 0;
  int64_t memory_ops = 0;
  // What the importer counted (skipped events, recorder counters, ...).
  Diagnostics diagnostics;
  // Source metadata worth showing (native meta keys, nsys export version, ...).
  std::map<std::string, std::string> meta;
};

// A sink in front of another that counts what passes (per device, kernels and memory
// operations) and, with a device filter, forwards only that device's dispatches.
class CountingSink final : public DispatchSink {
 public:
  explicit CountingSink(DispatchSink& next) : next_(next) {}
  void set_device_filter(std::optional<int32_t> device) { device_filter_ = device; }
  void Add(const Dispatch& d) override {
    ++per_device_[d.device];
    ++(d.kind == DispatchKind::kKernel ? kernels_ : memory_ops_);
    if (!device_filter_ || *device_filter_ == d.device) next_.Add(d);
  }
  // Adds the counts into `t` (dispatches_per_device, kernels, memory_ops).
  void AddCountsTo(ImportedTrace& t) const {
    for (const auto& [device, n] : per_device_) t.dispatches_per_device[device] += n;
    t.kernels += kernels_;
    t.memory_ops += memory_ops_;
  }

 private:
  DispatchSink& next_;
  std::optional<int32_t> device_filter_;
  std::map<int32_t, int64_t> per_device_;
  int64_t kernels_ = 0;
  int64_t memory_ops_ = 0;
};

// The one way importers write the model. Dispatches are counted (per device and kind) and
// forwarded to the sink; when a device filter is set, only that device's dispatches are.
class TraceBuilder {
 public:
  TraceBuilder(StringPool& names, DispatchSink& sink) : names_(names), counter_(sink) {}

  StringPool& names() { return names_; }
  ImportedTrace& trace() { return trace_; }
  Diagnostics& diagnostics() { return trace_.diagnostics; }

  void set_device_filter(std::optional<int32_t> device) { counter_.set_device_filter(device); }

  void AddDispatch(const Dispatch& d) { counter_.Add(d); }
  // A launch call; calls with correlation 0 launch nothing that can be joined and are dropped.
  void AddLaunch(const ApiCall& call) {
    if (call.correlation != 0) trace_.launches.push_back(call);
  }
  void AddRange(const Range& r) { trace_.ranges.push_back(r); }

  ImportedTrace Finish() && {
    counter_.AddCountsTo(trace_);
    return std::move(trace_);
  }

 private:
  StringPool& names_;
  CountingSink counter_;
  ImportedTrace trace_;
};

// The kernel → launch join, done once for every format: correlation id → the launch call
// (the earliest by start when several share an id, then the first in source order).
class LaunchIndex {
 public:
  explicit LaunchIndex(std::span<const ApiCall> launches);
  // The launch of correlation id `correlation`, or null (0, or no call has it).
  const ApiCall* Find(uint64_t correlation) const;
  bool empty() const { return calls_.empty(); }

 private:
  std::vector<ApiCall> calls_;  // by correlation; one per id
};

}  // namespace decodeprof::trace
