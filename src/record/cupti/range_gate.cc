#include "src/record/cupti/range_gate.h"

namespace decodeprof::record::cupti {

void RangeGate::SwitchLocked(bool on) {
  const bool ok = switch_(on);
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
  if (++open_ == 1 && switch_ && !on_) SwitchLocked(true);
}

void RangeGate::Close() {
  if (!gating()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (open_ == 0) return;
  if (--open_ == 0 && switch_ && on_) SwitchLocked(false);
}

void RangeGate::Attach(SwitchFn switch_fn, bool on_now) {
  if (!gating() || !switch_fn) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (switch_) return;
  switch_ = std::move(switch_fn);
  on_ = on_now;
  const bool want = open_ > 0;
  if (on_ != want) {
    SwitchLocked(want);
  } else if (want) {
    periods_.fetch_add(1, std::memory_order_relaxed);  // a period that began before CUPTI came
  }
}

int64_t RangeGate::open_ranges() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_;
}

}  // namespace decodeprof::record::cupti
