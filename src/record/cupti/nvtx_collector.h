// NvtxCollector: the NVTX ranges and marks of the process, timed on CLOCK_MONOTONIC by the
// caller and held until the drain thread takes them.
//
// Push/pop ranges nest per thread and domain: Push returns the new range's depth (0 =
// outermost), Pop closes the innermost open range of that thread and domain and returns its
// depth, or -1 when none is open (counted as an unmatched pop). Start/end ranges get an id
// from Start and may end on any thread. Completed ranges and marks queue up to `max_pending`
// events; past that they are dropped and counted (the drain thread is stuck or far behind).
//
// With a RangeGate (`--only-range`), every range whose name the gate matches calls the
// gate's Open() once it is stored and Close() once it is taken off the open ranges (whether
// or not the completed event fits in the queue), after the collector's mutex is released.
// Ranges that were refused (Disable) or never opened (unmatched pops) do not reach the gate.
//
// Thread-safe through one mutex (a leaf: nothing is called while it is held). After
// Disable() — at exit, and in a forked child, where the mutex may have been held by a
// thread that no longer exists — every call returns at once without locking.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/native_format/schema.h"
#include "src/record/cupti/range_gate.h"

namespace decodeprof::record::cupti {

// Domains are identified by a stable pointer to their name ("" = NVTX's default domain).
using NvtxDomain = const std::string*;

struct NvtxRangeEvent {
  std::string name;
  NvtxDomain domain = nullptr;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t thread = 0;
  int32_t depth = 0;  // -1 for start/end ranges
  native_format::RangeKind kind = native_format::RangeKind::kPushPop;
};

struct NvtxMarkEvent {
  std::string name;
  NvtxDomain domain = nullptr;
  int64_t time_ns = 0;
  uint64_t thread = 0;
};

struct NvtxCounts {
  int64_t dropped = 0;         // events refused because max_pending were queued
  int64_t unmatched_pops = 0;  // Pop with no open range
  int64_t unended = 0;         // ranges still open (push/pop and start/end)
};

class NvtxCollector {
 public:
  // `gate` (may be null: no gating) must outlive the collector.
  explicit NvtxCollector(size_t max_pending, RangeGate* gate = nullptr)
      : max_pending_(max_pending), gate_(gate != nullptr && gate->gating() ? gate : nullptr) {}

  int Push(NvtxDomain domain, std::string name, int64_t now_ns, uint64_t thread);
  int Pop(NvtxDomain domain, int64_t now_ns, uint64_t thread);
  uint64_t Start(NvtxDomain domain, std::string name, int64_t now_ns, uint64_t thread);
  void End(uint64_t id, int64_t now_ns);
  void Mark(NvtxDomain domain, std::string name, int64_t now_ns, uint64_t thread);

  // Moves the queued events out (appending to the vectors).
  void Take(std::vector<NvtxRangeEvent>* ranges, std::vector<NvtxMarkEvent>* marks);
  NvtxCounts counts() const;
  void Disable() { disabled_.store(true, std::memory_order_release); }
  bool disabled() const { return disabled_.load(std::memory_order_acquire); }

  // The domain pointer for a name, created on first sight; valid as long as the collector.
  NvtxDomain Domain(const std::string& name);
  // A registered string (nvtxDomainRegisterString): a pointer valid as long as the collector.
  const std::string* RegisterString(std::string text);
  static NvtxDomain DefaultDomain();

 private:
  struct Open {
    std::string name;
    NvtxDomain domain;
    int64_t start_ns;
    uint64_t thread;
    bool gates;  // its name is the gate's
  };
  bool Gates(const std::string& name) const { return gate_ != nullptr && gate_->Matches(name); }
  bool Full() const { return ranges_.size() + marks_.size() >= max_pending_; }

  const size_t max_pending_;
  RangeGate* const gate_;  // null when not gating
  std::atomic<bool> disabled_{false};
  mutable std::mutex mu_;                                   // guards everything below; a leaf lock
  std::unordered_map<uint64_t, std::vector<Open>> stacks_;  // thread → open push ranges
  std::unordered_map<uint64_t, Open> started_;              // id → open start/end range
  uint64_t next_id_ = 1;
  std::vector<NvtxRangeEvent> ranges_;
  std::vector<NvtxMarkEvent> marks_;
  std::unordered_map<std::string, std::unique_ptr<std::string>> domains_;
  std::deque<std::string> registered_;  // deque: stable addresses
  NvtxCounts counts_;
};

}  // namespace decodeprof::record::cupti
