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
  const bool ok = switch_(on);
  {
    std::lock_guard<std::mutex> lock(spans_mu_);
    if (on) {
      // A timer's period begins once recording is on (attaching CUPTI again, when it was
      // detached, takes ~20 ms: steps that began meanwhile are not whole in the trace); a
      // range's period, from just before its range opened.
      spans_.emplace_back(timed_ ? MonotonicNs() : before, kOpen);
    } else if (!spans_.empty() && spans_.back().second == kOpen) {
      spans_.back().second = MonotonicNs();
    }
  }
  on_ = on;
  if (!ok) {
    switch_failures_.fetch_add(1, std::memory_order_relaxed);
  } else if (on) {
    periods_.fetch_add(1, std::memory_order_relaxed);
  }
}

void RangeGate::Open() {
  if (!gating()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (++open_ != 1) return;
  const int64_t opening = openings_.fetch_add(1, std::memory_order_relaxed);
  sampled_ = opening % every_ == every_ / 2;
  if (sampled_ && switch_ && !on_) SwitchLocked(true);
}

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
    std::lock_guard<std::mutex> spans_lock(spans_mu_);
    spans_.emplace_back(std::numeric_limits<int64_t>::min(), kOpen);
  }
}

bool RangeGate::Covers(int64_t ns) const {
  if (!gating()) return true;
  std::lock_guard<std::mutex> lock(spans_mu_);
  // The last period that begins at or before ns.
  auto it = std::upper_bound(
      spans_.begin(), spans_.end(), ns,
      [](int64_t t, const std::pair<int64_t, int64_t>& span) { return t < span.first; });
  return it != spans_.begin() && ns <= std::prev(it)->second;
}

std::vector<std::pair<int64_t, int64_t>> RangeGate::periods() const {
  std::lock_guard<std::mutex> lock(spans_mu_);
  return spans_;
}

int64_t RangeGate::open_ranges() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_;
}

}  // namespace decodeprof::record::cupti
