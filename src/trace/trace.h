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
#include <string_view>
#include <vector>

#include "src/base/spill.h"
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

// The traced process's place in a multi-process job (a tensor-parallel decode under
// torchrun, mpirun or srun): what the recorder took from the launcher's variables
// (native meta rank, world_size, local_rank, run_id, devices_used; docs/multi-gpu.md).
struct RankInfo {
  int32_t rank = 0;
  std::optional<int32_t> world_size;  // >= 1 and > rank when known
  std::optional<int32_t> local_rank;
  // The same for every process of one recorded job ("" when the file does not say).
  std::string run_id;
  // The CUDA devices the process ran kernels on, ascending (empty when not known).
  std::vector<int32_t> devices_used;
};

// The first dispatch that cannot be right, as CountingSink found it.
struct BadDispatch {
  uint32_t line = 0;  // Dispatch::line
  std::string what;   // "starts at a negative time (-5 ns)", ...
};

// The longest a dispatch can run: a day. Nothing in a decode runs that long; a longer one is
// a broken timestamp (an end of INT64_MAX, a clock mix-up).
inline constexpr DurationNs kMaxDispatchNs = int64_t{86'400} * 1'000'000'000;

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
  // True when each stream runs its kernels one after another, so that a kernel ending after
  // the next kernel of its stream ended has a wrong timestamp (CUDA streams: CUPTI, nsys,
  // Kineto); false where a queue may run them at once (a ROCm queue's packets without the
  // barrier bit) or the source does not say.
  bool in_order_streams = false;
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
  // The first dispatch that cannot be right (CountingSink's checks); the job fails with it.
  std::optional<BadDispatch> bad_dispatch;
  // The first annotation range or launch call whose times cannot be right (outside
  // [0, kMaxTimestampNs], or an end before the start), as TraceBuilder found it: what it is
  // and where ("annotation range 3 ('decodeprof:decode') starts at -5 ns"). The job fails
  // with it.
  std::optional<std::string> bad_record;
  // The GPU runtime that recorded it, where the source tells: kHip for rocpd, a native file
  // converted from rocpd, a Kineto trace of PyTorch on ROCm (roctracer keys, hip* launch
  // calls); nullopt when it does not say. Names the copies, and chooses a ROCm pack.
  std::optional<Runtime> runtime;
  // Source metadata worth showing (native meta keys, nsys export version, ...).
  std::map<std::string, std::string> meta;
  // The process's rank in a multi-process job; nullopt when the source does not say.
  std::optional<RankInfo> rank;
};

// A sink in front of another that checks and counts what passes (per device, kernels and
// memory operations) and, with a device filter, forwards only that device's dispatches.
// Checks, the same for every format: a negative start, an end beyond kMaxTimestampNs or
// before the start, or a dispatch longer than kMaxDispatchNs is an error (the first one is kept:
// bad()); a zero-length dispatch is counted as diagnostic zero_duration_dispatches.
class CountingSink final : public DispatchSink {
 public:
  explicit CountingSink(DispatchSink& next) : next_(next) {}
  void set_device_filter(std::optional<int32_t> device) { device_filter_ = device; }
  // How positions are named in examples: "line" (text formats) or "record".
  void set_position_word(std::string_view word) { position_word_ = word; }
  void Add(const Dispatch& d) override {
    Count(d);
    if (!device_filter_ || *device_filter_ == d.device) {
      Widen(d);
      next_.Add(d);
    }
  }
  // The same as Add for each; forwarded as blocks (runs of the filter's device).
  void AddAll(std::span<const Dispatch> dispatches) override;
  // Room only without a device filter (the dispatches of other devices cannot be dropped in
  // place).
  std::span<Dispatch> Room(size_t n) override {
    return device_filter_ ? std::span<Dispatch>() : next_.Room(n);
  }
  void AddFilled(std::span<const Dispatch> filled) override {
    // A room is the whole window at once where the importer reads in place: where it is in
    // files (base/spill.h), what was counted goes as the count goes.
    base::spill::ReleaseBehind<Dispatch> counted(filled.data(), 0);
    for (size_t i = 0; i < filled.size(); ++i) {
      counted.Passed(i);
      Count(filled[i]);
      Widen(filled[i]);
    }
    next_.AddFilled(filled);
  }
  void Done() override { next_.Done(); }
  // The earliest start and the latest end of the dispatches forwarded so far ({INT64_MAX,
  // INT64_MIN} before any): a whole window's span, found in the count's pass.
  std::pair<TimestampNs, TimestampNs> forwarded_span() const { return span_; }
  void Expect(size_t dispatches) override { next_.Expect(dispatches); }
  // Adds the counts, the diagnostics and the first bad dispatch into `t`.
  void AddCountsTo(ImportedTrace& t) const;
  const std::optional<BadDispatch>& bad() const { return bad_; }

 private:
  void Count(const Dispatch& d) {
    if (d.device != last_device_ || last_count_ == nullptr) {
      last_device_ = d.device;
      last_count_ = &per_device_[d.device];
    }
    ++*last_count_;
    ++(d.kind == DispatchKind::kKernel ? kernels_ : memory_ops_);
    // In this order: the length is computed only for times inside [0, kMaxTimestampNs].
    if (d.start < 0 || d.end > kMaxTimestampNs || d.end < d.start ||
        d.end - d.start > kMaxDispatchNs || d.end == d.start) {
      Check(d);
    }
  }
  void Check(const Dispatch& d);
  void Widen(const Dispatch& d) {
    span_.first = std::min(span_.first, d.start);
    span_.second = std::max(span_.second, d.end);
  }

  DispatchSink& next_;
  std::pair<TimestampNs, TimestampNs> span_{INT64_MAX, INT64_MIN};
  std::optional<int32_t> device_filter_;
  std::map<int32_t, int64_t> per_device_;
  int32_t last_device_ = 0;
  int64_t* last_count_ = nullptr;
  int64_t kernels_ = 0;
  int64_t memory_ops_ = 0;
  int64_t zero_length_ = 0;
  uint32_t first_zero_line_ = 0;
  std::optional<BadDispatch> bad_;
  std::string_view position_word_ = "record";
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
  void set_position_word(std::string_view word) { counter_.set_position_word(word); }

  void AddDispatch(const Dispatch& d) { counter_.Add(d); }
  // Several dispatches at once: the same as AddDispatch for each, in order.
  void AddDispatches(std::span<const Dispatch> dispatches) { counter_.AddAll(dispatches); }
  // Room for `n` dispatches to fill in place, on any thread, or an empty span (DispatchSink::
  // Room); then the filled prefix, in order, with AddFilledDispatches before any other add.
  std::span<Dispatch> DispatchRoom(size_t n) { return counter_.Room(n); }
  void AddFilledDispatches(std::span<const Dispatch> filled) { counter_.AddFilled(filled); }
  // The same for launch calls (LaunchSink::Room): empty unless a launch sink gives room. Calls
  // with correlation 0 are dropped from the filled prefix in place.
  std::span<ApiCall> LaunchRoom(size_t n) {
    return launch_sink_ != nullptr ? launch_sink_->Room(n) : std::span<ApiCall>();
  }
  void AddFilledLaunches(std::span<ApiCall> filled);
  // A launch call; calls with correlation 0 launch nothing that can be joined and are dropped.
  void AddLaunch(const ApiCall& call) {
    if (call.correlation == 0) return;
    CountLaunch(call);
    if (launch_sink_ != nullptr) {
      launch_sink_->Add(call);
    } else {
      trace_.launches.push_back(call);
    }
  }
  // Several launch calls at once: the same as AddLaunch for each, in order.
  void AddLaunches(std::span<const ApiCall> calls);
  // Sends launch calls to `sink` instead of the model's `launches`.
  void set_launch_sink(LaunchSink* sink) { launch_sink_ = sink; }
  // Set by a caller whose sinks keep every dispatch and launch call (the whole trace is the
  // window): an importer may then read ahead without bound, e.g. in parts on several threads.
  void set_keeps_everything(bool keeps) { keeps_everything_ = keeps; }
  bool keeps_everything() const { return keeps_everything_; }
  // How many dispatches and launch calls the importer knows to be coming (upper bounds; a
  // hint to the sinks, DispatchSink::Expect).
  void Expect(size_t dispatches, size_t launches) {
    counter_.Expect(dispatches);
    if (launch_sink_ != nullptr) launch_sink_->Expect(launches);
  }
  void AddRange(const Range& r) {
    if (!trace_.bad_record && BadTimes(r.start, r.end)) {
      NoteBadTimes("annotation range " + std::to_string(trace_.ranges.size() + 1) + " ('" +
                       std::string(names_.Get(r.name)) + "')",
                   r.start, r.end);
    }
    trace_.ranges.push_back(r);
  }

  // The earliest start and the latest end of the dispatches forwarded to the sink so far
  // (CountingSink::forwarded_span).
  std::pair<TimestampNs, TimestampNs> dispatch_span() const { return counter_.forwarded_span(); }

  ImportedTrace Finish() && {
    counter_.AddCountsTo(trace_);
    return std::move(trace_);
  }

 private:
  static bool BadTimes(TimestampNs start, TimestampNs end) {
    return !IsTimestamp(start) || !IsTimestamp(end) || end < start;
  }
  void NoteBadTimes(std::string what, TimestampNs start, TimestampNs end);
  // Counts a kept launch call and notes the first one whose times cannot be right.
  void CountLaunch(const ApiCall& call) {
    ++launches_seen_;
    if (!trace_.bad_record && BadTimes(call.start, call.end)) {
      NoteBadTimes("launch call " + std::to_string(launches_seen_) + " ('" +
                       std::string(names_.Get(call.name)) + "')",
                   call.start, call.end);
    }
  }

  StringPool& names_;
  CountingSink counter_;
  int64_t launches_seen_ = 0;
  ImportedTrace trace_;
  LaunchSink* launch_sink_ = nullptr;
  bool keeps_everything_ = false;
};

// The kernel → launch join, done once for every format: correlation id → the launch call
// (the earliest by start when several share an id, then the first in source order).
class LaunchIndex {
 public:
  // Refers to `launches` (which must outlive it) when they are already in increasing
  // correlation order, one per id; else keeps a sorted copy.
  explicit LaunchIndex(std::span<const ApiCall> launches);
  LaunchIndex(const LaunchIndex&) = delete;  // calls_ may point into owned_
  LaunchIndex& operator=(const LaunchIndex&) = delete;
  // The launch of correlation id `correlation`, or null (0, or no call has it).
  const ApiCall* Find(uint64_t correlation) const;
  // The same, for a caller that asks for ids mostly in increasing order (the dispatches of a
  // window, in start order): `hint` (0 at first) keeps where the last one was, and the next
  // ids are looked for a few calls on before the whole index is searched.
  const ApiCall* Find(uint64_t correlation, size_t& hint) const;
  bool empty() const { return calls_.empty(); }
  // The calls by correlation id (a hint indexes them).
  const ApiCall* data() const { return calls_.data(); }

 private:
  std::span<const ApiCall> calls_;  // by correlation; one per id
  std::vector<ApiCall> owned_;      // the sorted copy, when one was needed
};

}  // namespace decodeprof::trace
