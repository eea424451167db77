#include <algorithm>
#include <string>
#include <utility>

#include "src/trace/trace.h"

namespace decodeprof::trace {

void CountingSink::Check(const Dispatch& d) {
  if (d.end == d.start && IsTimestamp(d.start)) {
    if (zero_length_++ == 0) first_zero_line_ = d.line;
    return;
  }
  if (bad_) return;
  if (d.start < 0) {
    bad_ = BadDispatch{d.line, "starts at a negative time (" + std::to_string(d.start) + " ns)"};
  } else if (d.end > kMaxTimestampNs) {
    bad_ = BadDispatch{d.line, "ends at " + std::to_string(d.end) +
                                   " ns, beyond the latest time a trace can hold (2^62 ns): "
                                   "it cannot be right"};
  } else if (d.end < d.start) {
    bad_ = BadDispatch{d.line, "ends before it starts (" + std::to_string(d.end) + " < " +
                                   std::to_string(d.start) + " ns)"};
  } else {
    bad_ = BadDispatch{d.line, "runs " + std::to_string(d.end - d.start) +
                                   " ns, longer than a day: its end (" + std::to_string(d.end) +
                                   " ns) cannot be right"};
  }
}

void CountingSink::AddAll(std::span<const Dispatch> dispatches) {
  if (!device_filter_) {
    for (const Dispatch& d : dispatches) {
      Count(d);
      Widen(d);
    }
    next_.AddAll(dispatches);
    return;
  }
  for (const Dispatch& d : dispatches) {
    Count(d);
    if (d.device == *device_filter_) Widen(d);
  }
  // The runs of the filter's device, each as one block.
  size_t from = 0;
  while (from < dispatches.size()) {
    while (from < dispatches.size() && dispatches[from].device != *device_filter_) ++from;
    size_t to = from;
    while (to < dispatches.size() && dispatches[to].device == *device_filter_) ++to;
    if (to > from) next_.AddAll(dispatches.subspan(from, to - from));
    from = to;
  }
}

void TraceBuilder::AddLaunches(std::span<const ApiCall> calls) {
  // Calls with a bad time or correlation 0 take the one-call path (its note, its drop); the
  // runs between them go on as blocks.
  const auto plain = [this](const ApiCall& call) {
    return call.correlation != 0 && (trace_.bad_record || !BadTimes(call.start, call.end));
  };
  size_t from = 0;
  while (from < calls.size()) {
    size_t to = from;
    while (to < calls.size() && plain(calls[to])) ++to;
    if (to > from) {
      const std::span<const ApiCall> run = calls.subspan(from, to - from);
      launches_seen_ += static_cast<int64_t>(run.size());
      if (launch_sink_ != nullptr) {
        launch_sink_->AddAll(run);
      } else {
        trace_.launches.insert(trace_.launches.end(), run.begin(), run.end());
      }
    }
    if (to < calls.size()) AddLaunch(calls[to++]);
    from = to;
  }
}

void TraceBuilder::AddFilledLaunches(std::span<ApiCall> filled) {
  // The calls without a correlation id dropped and the rest counted in one pass which, where
  // the room is in files (base/spill.h), lets go of what it has passed (a room can hold every
  // call of the trace). The kept ones are written behind the read, where the read let go:
  // both let go.
  base::spill::ReleaseBehind<ApiCall> read(filled.data(), 0);
  base::spill::ReleaseBehind<ApiCall> written(filled.data(), 0);
  size_t kept = 0;
  for (size_t i = 0; i < filled.size(); ++i) {
    read.Passed(i);
    if (filled[i].correlation == 0) continue;
    CountLaunch(filled[i]);
    written.Passed(kept);
    filled[kept++] = filled[i];
  }
  filled = filled.first(kept);
  if (launch_sink_ != nullptr) {
    launch_sink_->AddFilled(filled);
  } else {
    trace_.launches.insert(trace_.launches.end(), filled.begin(), filled.end());
  }
}

void TraceBuilder::NoteBadTimes(std::string what, TimestampNs start, TimestampNs end) {
  if (start < 0) {
    what += " starts at a negative time (" + std::to_string(start) + " ns)";
  } else if (start > kMaxTimestampNs || end > kMaxTimestampNs) {
    what += " ends at " + std::to_string(std::max(start, end)) +
            " ns, beyond the latest time a trace can hold (2^62 ns)";
  } else {
    what +=
        " ends before it starts (" + std::to_string(end) + " < " + std::to_string(start) + " ns)";
  }
  trace_.bad_record = std::move(what);
}

void CountingSink::AddCountsTo(ImportedTrace& t) const {
  for (const auto& [device, n] : per_device_) t.dispatches_per_device[device] += n;
  t.kernels += kernels_;
  t.memory_ops += memory_ops_;
  t.diagnostics.Add(Diag::kZeroDurationDispatches, zero_length_,
                    {"", std::string(position_word_) + " " + std::to_string(first_zero_line_), ""});
  if (bad_ && (!t.bad_dispatch || bad_->line < t.bad_dispatch->line)) t.bad_dispatch = bad_;
}

}  // namespace decodeprof::trace
