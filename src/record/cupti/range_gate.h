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
// Sampling (`decodeprof record --sample-steps N`, DECODEPROF_RECORD_SAMPLE_STEPS): with
// `every` N > 1 the gate counts the openings that make the count 1 (steps, when the name is
// the step range's) and switches recording on only for the middle one of each group of N —
// openings N/2, N/2 + N, N/2 + 2N, ... (0-based): the first steps of a decode are often unlike
// the rest. The closing that ends a sampled opening switches it off again.
//
// Stretching (SetStretch(k), DECODEPROF_RECORD_SAMPLE_STRETCH, default 3): when a sampled
// period's switch off was deferred (its GPU work outlived its range) and the GPU was D steps
// behind the host when that work finished, recording was on for D + 1 steps, not one. The
// next sampled step is then at least (k + 1)(D + 1) openings after this one (never fewer
// than N), so that recording stays on for at most 1/(k + 1) of the steps however far the
// host runs ahead; and no step is sampled while a deferral is still under way. StretchText()
// says how far it went (meta sample_stretch).
//
// The gate also keeps its periods on the host clock (CLOCK_MONOTONIC, clock.h): each runs
// from just before a switch on (a timed gate's: just after it) to just after the switch off
// that ends it. Covers() answers
// whether a host time lies in one, for records the gate cannot switch and that are therefore
// kept on and filtered by time instead (the launch API records: CUPTI does not turn those
// back on once they were switched off, recorder_attach.cc).
//
// Thread-safety: one mutex, held across the switch, so that a thread returning from Open()
// knows that recording is on (a kernel it launches next is recorded) and so that switches
// never cross. The switch calls into CUPTI with it held: safe because no CUPTI callback ever
// takes it (recorder.h, lock order). counts() does not take it; Covers() takes only a leaf
// mutex of the periods.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace decodeprof::record::cupti {

class RangeGate {
 public:
  // Switches recording on (true) or off (false). Returns false when CUPTI refused any part
  // of it; the gate then counts a switch failure (and still takes the new state as reached:
  // what could be switched was).
  using SwitchFn = std::function<bool(bool on)>;

  // `name` "" = no gating: Matches() is always false and nothing is ever switched. `every`:
  // record one opening in `every` (1 = all of them).
  explicit RangeGate(std::string name, int64_t every = 1)
      : name_(std::move(name)), every_(every > 0 ? every : 1), next_sample_(every_ / 2) {}
  RangeGate(const RangeGate&) = delete;
  RangeGate& operator=(const RangeGate&) = delete;

  const std::string& name() const { return name_; }
  bool gating() const { return !name_.empty() || timed_; }
  // Timed sampling (`--sample-time ON/PERIOD`): no range opens the gate; a timer thread
  // switches it with SetTimed. Call before Attach.
  void MakeTimed() { timed_ = true; }
  bool timed() const { return timed_; }
  void SetTimed(bool on);
  // True when a range named `range_name` opens or closes the gate (exact, byte for byte).
  bool Matches(std::string_view range_name) const { return !name_.empty() && range_name == name_; }

  void Open();
  void Close();
  // CUDA graph launches as steps (`--sample-steps N` on an engine without step ranges, such
  // as llama.cpp or torch.compile: recorder.h, "Graph launches as steps"): with
  // EnableGraphSteps() and until the first range of the name opens, each outermost graph
  // launch is a step, counted and sampled like a range's opening. OpenGraph returns whether
  // it acted as an opening; only then is CloseGraph to be called when the launch returns.
  void EnableGraphSteps() { graph_steps_ = true; }
  // Stretch factor k (above; 0 = never stretch). Call before Attach.
  void SetStretch(int64_t k) { stretch_ = k > 0 ? k : 0; }
  // "" when never stretched, else e.g. "asked one step in 32; stretched 2 times, up to one in
  // 204: the GPU ran up to 50 steps behind the host".
  std::string StretchText() const;
  bool OpenGraph();
  void CloseGraph();
  // Whether a sampled period is open now (read without the lock: a hint for callbacks).
  bool period_open() const { return period_open_.load(std::memory_order_acquire); }
  // Gives the gate its switch; `on_now` says whether recording is on at this moment. Called
  // once (later calls are ignored).
  void Attach(SwitchFn switch_fn, bool on_now);

  struct Counts {
    int64_t periods = 0;          // switches to on that CUPTI accepted in full
    int64_t switch_failures = 0;  // switches (on or off) CUPTI refused in part or in whole
    int64_t openings = 0;         // openings that made the count 1 (sampled or not)
  };
  Counts counts() const {
    return Counts{periods_.load(std::memory_order_relaxed),
                  switch_failures_.load(std::memory_order_relaxed),
                  openings_.load(std::memory_order_relaxed)};
  }
  int64_t every() const { return every_; }
  // A sampled recording: one step in every() > 1 (--sample-steps), or timed (--sample-time).
  bool sampling() const { return every_ > 1 || timed_; }
  // The periods so far as [begin, end] on CLOCK_MONOTONIC (end INT64_MAX while open).
  std::vector<std::pair<int64_t, int64_t>> periods() const;
  // Ranges of the name open now (for tests).
  int64_t open_ranges() const;

  // True when host time `ns` (CLOCK_MONOTONIC) lies in a period of recording: from just
  // before a switch on to just after the switch off (a period still open runs on; one that
  // began before Attach() runs from the start). Always true when not gating.
  // A period whose switch off was deferred (DeferRecordsEnd) covers until it is done.
  bool Covers(int64_t ns) const;

  // Deferred switch off (recorder.h, "Periods that outlive their range"). Called by the
  // switch while it switches off (mu_ held by the gate): the period ends now, but recording
  // stays on until FinishDeferred, and Covers() keeps covering until then.
  void DeferRecordsEnd() { deferring_ = true; }
  // Runs `off` under the gate's mutex when the period's switch off is still deferred (no new
  // period began meanwhile); when it returns true, the deferral is over. Any thread.
  void FinishDeferred(const std::function<bool()>& off);
  bool deferred() const;

  // Launches whose kernels are not to be written (graph launches made while a deferred
  // switch off kept recording on: their records may be overwritten by a later unrecorded
  // replay). Any thread; DroppedLaunch is cheap while the set is empty.
  void DropLaunch(uint32_t correlation);
  bool DroppedLaunch(uint32_t correlation) const;

 private:
  void SwitchLocked(bool on);  // mu_ held
  bool OpenLocked();           // mu_ held: an opening; true when it made the count 1

  const std::string name_;
  const int64_t every_;
  bool timed_ = false;
  mutable std::mutex mu_;  // guards everything below; held across switch_ (see above)
  SwitchFn switch_;        // empty until Attach
  int64_t open_ = 0;       // ranges of the name open now
  bool on_ = false;        // the state last switched to (or given to Attach)
  bool sampled_ = false;   // the opening now open is one to record
  bool graph_steps_ = false;
  bool ranges_seen_ = false;      // a range of the name opened: graph launches are steps no more
  bool deferring_ = false;        // set by the switch during a switch off (DeferRecordsEnd)
  bool deferred_ = false;         // the last period's switch off is deferred
  int64_t stretch_ = 0;           // SetStretch
  int64_t next_sample_ = 0;       // the opening to sample next (every_ / 2 at first)
  int64_t sampled_opening_ = -1;  // the last opening sampled
  int64_t stretches_ = 0;         // times the next sample was put off
  int64_t max_gap_ = 0;           // the longest gap put in, in openings
  int64_t max_behind_ = 0;        // the most steps the GPU was behind at a deferred switch off
  std::atomic<bool> period_open_{false};
  std::atomic<int64_t> periods_{0};
  std::atomic<int64_t> openings_{0};
  std::atomic<int64_t> switch_failures_{0};

  mutable std::mutex spans_mu_;  // leaf: guards spans_ and dropped_
  // The periods on CLOCK_MONOTONIC, in order; end is INT64_MAX while open, records_end
  // (Covers) the same as end unless the switch off was deferred (INT64_MAX until done).
  struct Span {
    int64_t begin;
    int64_t end;
    int64_t records_end;
  };
  std::vector<Span> spans_;
  std::unordered_set<uint32_t> dropped_;
  std::atomic<bool> any_dropped_{false};
};

}  // namespace decodeprof::record::cupti
