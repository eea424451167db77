// Turns the records of one completed CUPTI activity buffer into rows of the native file.
//
// Handles CONCURRENT_KERNEL (CUpti_ActivityKernel10), MEMCPY (Memcpy6), MEMSET (Memset4),
// RUNTIME/DRIVER (CUpti_ActivityAPI), DEVICE (Device5). Kernel names are demangled once per
// distinct name (abi::__cxa_demangle; a name that does not demangle is kept as it is).
// Timestamps are CUPTI's, which the recorder has put on CLOCK_MONOTONIC through its
// timestamp callback, plus `offset_ns` when that callback was refused (clock_mapper.h).
//
// Losses are counted, never asserted (style.md 7.8 rule 4): a kernel/memory record whose
// start or end is 0 (CUPTI could not time it) → incomplete; a row the writer refused →
// write failure; a buffer walk that ends in an error other than "no more records" →
// translation failure; a record of a kind not enabled here → unknown (informational).
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "src/native_format/native_writer.h"
#include "src/record/cupti/range_gate.h"

namespace decodeprof::record::cupti {

// cuptiActivityGetNextRecord's signature (the seam the tests feed with fake buffers).
using NextRecordFn = CUptiResult (*)(uint8_t* buffer, size_t valid_bytes, CUpti_Activity** record);

struct TranslateCounts {
  int64_t kernels = 0;
  int64_t memory_ops = 0;
  int64_t api_calls = 0;
  int64_t devices = 0;
  int64_t incomplete = 0;
  int64_t translation_failures = 0;
  int64_t write_failures = 0;
  int64_t unknown = 0;
  int64_t api_calls_outside_range = 0;  // dropped: outside the gate's periods (--only-range)
  int64_t api_calls_other = 0;          // dropped: not a launch API (set_launch_apis_only)
  int64_t dropped_after_period = 0;     // kernels/copies of launches RangeGate::DroppedLaunch
};

class RecordTranslator {
 public:
  // `gate`: launch API records that start outside its periods are dropped (counted in
  // api_calls_outside_range); a gate that does not gate, or nullptr, keeps them all.
  RecordTranslator(native_format::NativeWriter& writer, NextRecordFn next, int64_t offset_ns,
                   const RangeGate* gate = nullptr)
      : writer_(writer), next_(next), offset_ns_(offset_ns), gate_(gate) {}
  // Keeps only the API records of kLaunchApis (when whole API kinds are enabled: the gate's
  // switch mode, config.h ApiGate::kSwitch); the others are counted in api_calls_other.
  void set_launch_apis_only(bool only) { launch_apis_only_ = only; }

  // Writes every record of `buffer` (the first `valid_bytes`) and adds to counts().
  void Translate(uint8_t* buffer, size_t valid_bytes);

  // The attachment of CUPTI the next buffers come from (recorder.h, "Detaching": CUPTI is
  // finalized and attached again, and a fresh CUPTI may start its correlation ids over).
  // When it changes, the first id of the new attachment that is not above every earlier
  // attachment's moves that attachment's ids past every id written so far, so that ids stay
  // unique in the file (launch calls still pair with their kernels: same attachment).
  void SetEpoch(uint32_t epoch);

  const TranslateCounts& counts() const { return counts_; }
  // The CUDA devices of the kernels written so far, ascending ("0,1"; "" before the first):
  // the native file's meta devices_used.
  std::string KernelDevices() const;

  // The name of a launch API callback id of `kind` (RUNTIME or DRIVER), e.g.
  // "cudaLaunchKernel"; "<runtime|driver> api <cbid>" for ids outside the launch set.
  static std::string ApiName(CUpti_ActivityKind kind, uint32_t cbid);

 private:
  bool launch_apis_only_ = false;
  void AddKernel(const CUpti_ActivityKernel10& k);
  template <typename Record>
  void AddMemoryOp(const Record& m, native_format::MemoryOpKind kind, int32_t copy_kind);
  void AddApi(const CUpti_ActivityAPI& a);
  void AddDevice(const CUpti_ActivityDevice5& d);
  // The (demangled, mangled) string ids of a kernel name; false after a write failure.
  bool KernelNames(const char* name, native_format::StringRef* demangled,
                   native_format::StringRef* mangled);
  bool Ok(const base::Status& status);
  uint32_t Correlation(uint32_t raw);  // raw CUPTI id → the file's (SetEpoch)

  native_format::NativeWriter& writer_;
  NextRecordFn next_;
  int64_t offset_ns_;
  const RangeGate* gate_;
  TranslateCounts counts_;
  uint32_t correlation_base_ = 0;
  uint32_t written_max_ = 0;  // the largest id written
  uint32_t raw_max_ = 0;      // the largest raw id of this attachment
  uint32_t previous_raw_max_ = 0;
  uint32_t epoch_ = 0;
  bool epoch_begun_ = false;  // the epoch changed; no id seen since
  std::set<uint32_t> kernel_devices_;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::pair<native_format::StringRef, native_format::StringRef>,
                     Hash, std::equal_to<>>
      kernel_names_;
  std::unordered_map<uint64_t, native_format::StringRef> api_names_;  // kind << 32 | cbid
  std::unordered_map<uint64_t, bool> is_launch_api_;                  // kind << 32 | cbid
};

// The launch API callback ids the recorder enables (cudaLaunchKernel & co., cudaGraphLaunch,
// cuLaunchKernel & co., cuGraphLaunch).
struct LaunchApi {
  CUpti_ActivityKind kind;
  uint32_t cbid;
  const char* name;
};
extern const LaunchApi kLaunchApis[];
extern const size_t kLaunchApiCount;

}  // namespace decodeprof::record::cupti
