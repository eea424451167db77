#include "src/record/cupti/range_gate.h"

#include <algorithm>
#include <limits>

#include "src/record/cupti/clock.h"

namespace decodeprof::record::cupti {

namespace {
constexpr int64_t kOpen = std::numeric_limits<int64_t>::max();
}  // namespace

void RangeGate::SwitchLocked(bool on) {
  const int64_t before = MonotonicNs();
  deferring_ = false;
  const bool ok = switch_(on);
  {
    std::lock_guard<std::mutex> lock(spans_mu_);
    if (on) {
      // A period that begins while the last one's switch off is deferred ends that deferral:
      // recording simply stays on.
      if (deferred_ && !spans_.empty() && spans_.back().records_end == kOpen) {
        spans_.back().records_end = before;
      }
      deferred_ = false;
      // A timer's period begins once recording is on (attaching CUPTI again, when it was
      // detached, takes ~20 ms: steps that began meanwhile are not whole in the trace); a
      // range's period, from just before its range opened.
      const int64_t begin = timed_ ? MonotonicNs() : before;
      spans_.push_back({begin, kOpen, kOpen});
    } else if (!spans_.empty() && spans_.back().end == kOpen) {
      spans_.back().end = MonotonicNs();
      deferred_ = deferring_;
      if (!deferred_) spans_.back().records_end = spans_.back().end;
    }
  }
  on_ = on;
  period_open_.store(on, std::memory_order_release);
  if (!ok) {
    switch_failures_.fetch_add(1, std::memory_order_relaxed);
  } else if (on) {
    periods_.fetch_add(1, std::memory_order_relaxed);
  }
}

bool RangeGate::OpenLocked() {
  if (++open_ != 1) return false;
  const int64_t opening = openings_.fetch_add(1, std::memory_order_relaxed);
  // Not while the last sampled step's switch off waits for its GPU work (its stretch is
  // decided when that ends: FinishDeferred).
  sampled_ = opening >= next_sample_ && !(deferred_ && every_ > 1);
  if (sampled_) {
    sampled_opening_ = opening;
    next_sample_ = opening + every_;
  }
  if (sampled_ && switch_ && !on_) SwitchLocked(true);
  return true;
}

void RangeGate::Open() {
  if (!gating()) return;
  std::lock_guard<std::mutex> lock(mu_);
  ranges_seen_ = true;
  OpenLocked();
}

bool RangeGate::OpenGraph() {
  if (!graph_steps_ || every_ <= 1) return false;
  std::lock_guard<std::mutex> lock(mu_);
  // A launch while another thread's launch is still in its call is part of that step.
  if (ranges_seen_ || open_ > 0) return false;
  OpenLocked();
  return true;
}

void RangeGate::CloseGraph() { Close(); }

void RangeGate::Close() {
  if (!gating()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (open_ == 0) return;
  if (--open_ == 0 && switch_ && on_) SwitchLocked(false);
}

void RangeGate::SetTimed(bool on) {
  if (!timed_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (on) openings_.fetch_add(1, std::memory_order_relaxed);
  sampled_ = on;
  if (switch_ && on_ != on) SwitchLocked(on);
}

void RangeGate::Attach(SwitchFn switch_fn, bool on_now) {
  if (!gating() || !switch_fn) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (switch_) return;
  switch_ = std::move(switch_fn);
  on_ = on_now;
  const bool want = timed_ ? sampled_ : open_ > 0 && sampled_;
  if (on_ != want) {
    SwitchLocked(want);
  } else if (want) {
    periods_.fetch_add(1, std::memory_order_relaxed);  // a period that began before CUPTI came
    period_open_.store(true, std::memory_order_release);
    std::lock_guard<std::mutex> spans_lock(spans_mu_);
    spans_.push_back({std::numeric_limits<int64_t>::min(), kOpen, kOpen});
  }
}

bool RangeGate::Covers(int64_t ns) const {
  if (!gating()) return true;
  std::lock_guard<std::mutex> lock(spans_mu_);
  // The last period that begins at or before ns.
  auto it = std::upper_bound(spans_.begin(), spans_.end(), ns,
                             [](int64_t t, const Span& span) { return t < span.begin; });
  return it != spans_.begin() && ns <= std::prev(it)->records_end;
}

void RangeGate::FinishDeferred(const std::function<bool()>& off) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!deferred_ || on_) return;
  if (!off()) return;
  if (stretch_ > 0 && every_ > 1 && sampled_opening_ >= 0) {
    // The steps opened since the sampled one ran with recording on.
    const int64_t behind = openings_.load(std::memory_order_relaxed) - 1 - sampled_opening_;
    const int64_t gap = (stretch_ + 1) * (behind + 1);
    if (gap > every_) {
      next_sample_ = std::max(next_sample_, sampled_opening_ + gap);
      ++stretches_;
      max_gap_ = std::max(max_gap_, gap);
    }
    max_behind_ = std::max(max_behind_, behind);
  }
  std::lock_guard<std::mutex> spans_lock(spans_mu_);
  deferred_ = false;
  if (!spans_.empty() && spans_.back().records_end == kOpen) {
    spans_.back().records_end = MonotonicNs();
  }
}

std::string RangeGate::StretchText() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (stretches_ == 0) return "";
  return "asked one step in " + std::to_string(every_) + "; stretched " +
         std::to_string(stretches_) + " times, up to one in " + std::to_string(max_gap_) +
         ": the GPU ran up to " + std::to_string(max_behind_) + " steps behind the host";
}

bool RangeGate::deferred() const {
  std::lock_guard<std::mutex> lock(mu_);
  return deferred_;
}

void RangeGate::DropLaunch(uint32_t correlation) {
  std::lock_guard<std::mutex> lock(spans_mu_);
  dropped_.insert(correlation);
  any_dropped_.store(true, std::memory_order_release);
}

bool RangeGate::DroppedLaunch(uint32_t correlation) const {
  if (!any_dropped_.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::mutex> lock(spans_mu_);
  return dropped_.count(correlation) != 0;
}

std::vector<std::pair<int64_t, int64_t>> RangeGate::periods() const {
  std::lock_guard<std::mutex> lock(spans_mu_);
  std::vector<std::pair<int64_t, int64_t>> out;
  out.reserve(spans_.size());
  for (const Span& s : spans_) out.emplace_back(s.begin, s.end);
  return out;
}

int64_t RangeGate::open_ranges() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_;
}

}  // namespace decodeprof::record::cupti
