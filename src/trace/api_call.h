// A host API call that launched GPU work (cudaLaunchKernel, cuLaunchKernel, cudaGraphLaunch,
// cudaMemcpyAsync, hipLaunchKernel, ...): the other side of the kernel → launch join.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "src/trace/dispatch.h"
#include "src/trace/string_pool.h"

namespace decodeprof::trace {

struct ApiCall {
  // The call's name (native: the recorded API name; Kineto: the event name; nsys: the
  // runtime/driver API name from its nameId).
  StringId name = 0;
  TimestampNs start = 0;  // on the trace's clock
  TimestampNs end = 0;
  // OS thread id of the calling thread (native: gettid(); Kineto: |tid|; nsys: the tid part
  // of globalTid).
  uint64_t thread = 0;
  // The id the launched dispatches carry (Dispatch::correlation); never 0 in the model.
  uint64_t correlation = 0;
};

// True for the launch calls that replay a CUDA or HIP graph (cudaGraphLaunch, cuGraphLaunch,
// hipGraphLaunch and their _ptsz variants): all the graph's kernels carry the call's
// correlation id.
inline bool IsGraphLaunch(std::string_view call_name) {
  return call_name.find("GraphLaunch") != std::string_view::npos;
}

// Where a builder puts launch calls when they should not stay in the trace model (a one-pass
// import that keeps only the window's).
class LaunchSink {
 public:
  virtual ~LaunchSink() = default;
  virtual void Add(const ApiCall& call) = 0;
  // As DispatchSink::AddAll: several calls at once, the same as Add for each.
  virtual void AddAll(std::span<const ApiCall> calls) {
    for (const ApiCall& call : calls) Add(call);
  }
  // As DispatchSink::Room and AddFilled: room for `n` calls to fill in place (empty when the
  // sink has none), then its filled prefix handed on.
  virtual std::span<ApiCall> Room(size_t /*n*/) { return {}; }
  virtual void AddFilled(std::span<const ApiCall> /*filled*/) {}
  // As DispatchSink::Expect: an upper bound on the launch calls coming; a hint only.
  virtual void Expect(size_t /*calls*/) {}
};

}  // namespace decodeprof::trace
