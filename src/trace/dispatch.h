// One GPU dispatch — a kernel or a memory operation — as every importer produces it: a small
// POD (a full trace holds millions of them).
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "src/base/for_overwrite.h"
#include "src/trace/string_pool.h"

namespace decodeprof::trace {

// Host-clock nanoseconds on the trace's ClockDomain.
using TimestampNs = int64_t;
using DurationNs = int64_t;

// The range of every time a trace holds: 0 to 2^62 ns (146 years; on the wall clock, the
// year 2116), so that the sum or the difference of two times never overflows. A time beyond
// it in a file is a data error naming its position.
inline constexpr TimestampNs kMaxTimestampNs = int64_t{1} << 62;
inline constexpr bool IsTimestamp(TimestampNs t) { return t >= 0 && t <= kMaxTimestampNs; }

// The host clock every timestamp of a trace is on.
//   kBoottime, kMonotonic — CLOCK_BOOTTIME / CLOCK_MONOTONIC: the clocks of a bench log's
//     [phase] lines (decodeprof record: monotonic; rocprofv3: either, chosen by the marks).
//   kRealtime — CLOCK_REALTIME (wall clock): Kineto traces.
//   kSession — nanoseconds since the start of the file's own session, with no known relation
//     to a system clock (Nsight Systems exports without TARGET_INFO_SESSION_START_TIME's
//     systemClockNs).
// A bench log's marks apply only to the first two (IsLogClock); with the others, phase marks
// come from the trace's own ranges.
enum class ClockDomain : uint8_t { kBoottime, kMonotonic, kRealtime, kSession };
inline constexpr ClockDomain kAllClocks[] = {ClockDomain::kBoottime, ClockDomain::kMonotonic,
                                             ClockDomain::kRealtime, ClockDomain::kSession};
inline const char* ClockName(ClockDomain c) {
  switch (c) {
    case ClockDomain::kBoottime:
      return "boottime";
    case ClockDomain::kMonotonic:
      return "monotonic";
    case ClockDomain::kRealtime:
      return "realtime";
    case ClockDomain::kSession:
      break;
  }
  return "session";
}
// True for the clocks a bench log's [phase] lines are printed on.
inline bool IsLogClock(ClockDomain c) {
  return c == ClockDomain::kBoottime || c == ClockDomain::kMonotonic;
}

// What a dispatch did on the GPU. Memory operations are GPU work like kernels: they count in
// GPU busy, dispatch counts and the kernel table (class "memcpy" / "memset" in every pack).
enum class DispatchKind : uint8_t { kKernel = 0, kMemcpy = 1, kMemset = 2 };
inline const char* DispatchKindName(DispatchKind k) {
  switch (k) {
    case DispatchKind::kKernel:
      return "kernel";
    case DispatchKind::kMemcpy:
      return "memcpy";
    case DispatchKind::kMemset:
      break;
  }
  return "memset";
}

// Names of memory operations, the same in every format of a runtime (nsys's and Kineto's
// spellings are mapped onto them; CUpti_ActivityMemcpyKind numbers in MemcpyName, and nsys's
// ENUM_CUDA_MEMCPY_OPER, which adds 11..13 for unified-memory migrations). The runtime that
// made the copy names it: "[CUDA memcpy Host-to-Device]" in a CUDA trace, "[HIP memcpy
// Host-to-Device]" in a ROCm one (rocpd, a native file converted from it, a Kineto trace
// of PyTorch on ROCm).
enum class Runtime : uint8_t { kCuda, kHip };
inline constexpr std::string_view kMemsetName = "[CUDA memset]";
inline constexpr std::string_view kHipMemsetName = "[HIP memset]";
inline std::string_view MemsetName(Runtime runtime) {
  return runtime == Runtime::kHip ? kHipMemsetName : kMemsetName;
}
inline std::string_view MemcpyName(int64_t cupti_copy_kind, Runtime runtime = Runtime::kCuda) {
  const bool hip = runtime == Runtime::kHip;
  switch (cupti_copy_kind) {
    case 1:
      return hip ? "[HIP memcpy Host-to-Device]" : "[CUDA memcpy Host-to-Device]";
    case 2:
      return hip ? "[HIP memcpy Device-to-Host]" : "[CUDA memcpy Device-to-Host]";
    case 8:
      return hip ? "[HIP memcpy Device-to-Device]" : "[CUDA memcpy Device-to-Device]";
    case 9:
      return hip ? "[HIP memcpy Host-to-Host]" : "[CUDA memcpy Host-to-Host]";
    case 10:
      return hip ? "[HIP memcpy Peer-to-Peer]" : "[CUDA memcpy Peer-to-Peer]";
    case 11:
      return hip ? "[HIP memcpy Unified Host-to-Device]" : "[CUDA memcpy Unified Host-to-Device]";
    case 12:
      return hip ? "[HIP memcpy Unified Device-to-Host]" : "[CUDA memcpy Unified Device-to-Host]";
    case 13:
      return hip ? "[HIP memcpy Unified Device-to-Device]"
                 : "[CUDA memcpy Unified Device-to-Device]";
    default:
      return hip ? "[HIP memcpy]" : "[CUDA memcpy]";
  }
}
// The copy kind of a MemcpyName of either runtime; 0 for any other name.
inline int32_t MemcpyKindOf(std::string_view name) {
  for (int32_t kind : {1, 2, 8, 9, 10, 11, 12, 13}) {
    if (MemcpyName(kind, Runtime::kCuda) == name || MemcpyName(kind, Runtime::kHip) == name) {
      return kind;
    }
  }
  return 0;
}

struct Dispatch {
  // Start and end on the trace's clock. native: CUPTI's GPU timestamps mapped to the host
  // clock; rocprofv3: Start/End_Timestamp; Kineto: baseTimeNanoseconds + ts (+ dur); nsys:
  // start/end of the CUPTI_ACTIVITY_KIND_* row mapped onto the trace's clock.
  TimestampNs start = 0;
  TimestampNs end = 0;
  // Product of the present grid dimensions, each max(value, 1); 0 when the trace has no grid
  // (rocprofv3 without Grid_Size columns, seed spec 2.2) and for memory operations.
  int64_t grid = 0;
  // The host launch call's correlation id (CUPTI / nsys correlationId, Kineto
  // args.correlation, rocprofv3 Correlation_Id); 0 = none. Joins to ApiCall::correlation.
  uint64_t correlation = 0;
  // Kernel: its demangled name. Memory operation: MemcpyName / kMemsetName.
  StringId name = 0;
  // 1-based position of the record in its source, for messages and to break start-time ties
  // in file order: the CSV line (rocprofv3), the position in start order (native, nsys), the
  // position among the streamed dispatches (Kineto). Saturates at UINT32_MAX.
  uint32_t line = 0;
  // Stream (CUDA) or queue (ROCm) id as the source numbers it; 0 when the source has none.
  uint32_t stream = 0;
  // Device ordinal as the source numbers it (CUDA device id, nsys deviceId, Kineto
  // args.device, rocprofv3 Agent_Id); 0 when the source has none.
  int16_t device = 0;
  DispatchKind kind = DispatchKind::kKernel;

  DurationNs duration() const { return end - start; }
};
static_assert(sizeof(Dispatch) == 48, "keep Dispatch small: traces hold millions");
static_assert(std::is_trivially_copyable_v<Dispatch>, "Dispatch is a plain record");

// Dispatches in memory (a window, a part, a trace read whole): a vector whose room can be
// made without writing it first (base::ResizeForOverwrite), for the threads that fill it.
using DispatchVector = base::ForOverwriteVector<Dispatch>;

}  // namespace decodeprof::trace
