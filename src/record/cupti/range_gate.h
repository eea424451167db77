// RangeGate: keeps CUPTI's activity recording on only while an NVTX range of one name is
// open (`decodeprof record --only-range NAME`, DECODEPROF_RECORD_ONLY_RANGE;
// docs/recording.md, "Recording only a range").
//
// The NVTX collector calls Open() for every range of that name that opens and Close() for
// every one that closes — push/pop and start/end, any domain, any thread. The gate keeps one
// count over all of them: the opening that makes the count 1 switches recording on, the
// closing that makes it 0 switches it off. Nested and overlapping ranges of the name (on one
// thread or many) thus form one period. A Close() with nothing open is ignored (the count
// never goes below 0; the collector only closes ranges it saw open).
//
// Until Attach() the gate only counts (the NVTX injection may come before CUDA's, so a range
// may open before CUPTI is there). Attach() hands it the switch — the recorder's
// enable/disable of its activity kinds — and the state CUPTI is in, and brings CUPTI in line
// with the count at once.
//
// Thread-safety: one mutex, held across the switch, so that a thread returning from Open()
// knows that recording is on (a kernel it launches next is recorded) and so that switches
// never cross. The switch calls into CUPTI with it held: safe because no CUPTI callback ever
// takes it (recorder.h, lock order). counts() does not take it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace decodeprof::record::cupti {

class RangeGate {
 public:
  // Switches recording on (true) or off (false). Returns false when CUPTI refused any part
  // of it; the gate then counts a switch failure (and still takes the new state as reached:
  // what could be switched was).
  using SwitchFn = std::function<bool(bool on)>;

  // `name` "" = no gating: Matches() is always false and nothing is ever switched.
  explicit RangeGate(std::string name) : name_(std::move(name)) {}
  RangeGate(const RangeGate&) = delete;
  RangeGate& operator=(const RangeGate&) = delete;

  const std::string& name() const { return name_; }
  bool gating() const { return !name_.empty(); }
  // True when a range named `range_name` opens or closes the gate (exact, byte for byte).
  bool Matches(std::string_view range_name) const { return !name_.empty() && range_name == name_; }

  void Open();
  void Close();
  // Gives the gate its switch; `on_now` says whether recording is on at this moment. Called
  // once (later calls are ignored).
  void Attach(SwitchFn switch_fn, bool on_now);

  struct Counts {
    int64_t periods = 0;          // switches to on that CUPTI accepted in full
    int64_t switch_failures = 0;  // switches (on or off) CUPTI refused in part or in whole
  };
  Counts counts() const {
    return Counts{periods_.load(std::memory_order_relaxed),
                  switch_failures_.load(std::memory_order_relaxed)};
  }
  // Ranges of the name open now (for tests).
  int64_t open_ranges() const;

 private:
  void SwitchLocked(bool on);  // mu_ held

  const std::string name_;
  mutable std::mutex mu_;  // guards everything below; held across switch_ (see above)
  SwitchFn switch_;        // empty until Attach
  int64_t open_ = 0;       // ranges of the name open now
  bool on_ = false;        // the state last switched to (or given to Attach)
  std::atomic<int64_t> periods_{0};
  std::atomic<int64_t> switch_failures_{0};
};

}  // namespace decodeprof::record::cupti
