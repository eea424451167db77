#include "src/guard/monitor.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "src/guard/messages.h"
#include "src/guard/time_math.h"

namespace decodeprof::guard {
namespace {

// The index of the first tick strictly after `now` on the schedule begun at `start`.
int64_t NextTick(double start, double now) { return TickAfter(start, now, kSamplePeriodSecs); }

double TickTime(double start, int64_t tick) {
  return start + static_cast<double>(tick) * kSamplePeriodSecs;
}

}  // namespace

IdleOutcome IdleWait(uint64_t idle_secs, Sampler& sampler, Clock& clock, Notes& notes,
                     const Budget& budget) {
  notes.Note(fmt::format(kMsgWaitingForIdle, idle_secs));
  const double start = clock.Now();
  const int64_t needed = TicksFor(idle_secs, kSamplePeriodSecs);
  std::optional<int64_t> streak_start;  // tick of the first quiet sample of the streak
  std::string last_blocked;             // what the last sample that was not quiet saw
  int64_t tick = 0;
  while (needed > 0) {
    const Sample sample = sampler.Take();
    if (sample.quiet()) {
      if (!streak_start) streak_start = tick;
      if (tick - *streak_start >= needed) break;
    } else {
      if (streak_start && tick > *streak_start) {
        const auto secs =
            std::llround(static_cast<double>(tick - *streak_start) * kSamplePeriodSecs);
        notes.Note(fmt::format(kMsgIdleStreakReset, secs, JoinList(sample.holders),
                               JoinList(sample.compilers)));
      }
      streak_start.reset();
      last_blocked =
          fmt::format(kMsgBlockedBy, JoinList(sample.holders), JoinList(sample.compilers));
    }
    if (budget.limited() && budget.Waited(clock.Now()) >= static_cast<double>(budget.max_wait)) {
      notes.Note(fmt::format(kMsgGaveUpIdle, budget.max_wait, idle_secs) +
                 (last_blocked.empty() ? std::string() : "; last blocked by " + last_blocked));
      return IdleOutcome::kGaveUp;
    }
    tick = std::max(tick + 1, NextTick(start, clock.Now()));
    for (;;) {
      const Wake wake = clock.SleepUntil(TickTime(start, tick));
      if (wake == Wake::kInterrupted) return IdleOutcome::kInterrupted;
      if (wake == Wake::kDeadline) break;
    }
  }
  notes.Note(fmt::format(kMsgIdleFor, idle_secs, sampler.gpu()->EmptyPhrase()));
  return IdleOutcome::kIdle;
}

MonitorResult Monitor(ChildWatch& child, Sampler& sampler, Clock& clock, Notes& notes) {
  MonitorResult result;
  const double start = clock.Now();
  int64_t tick = 0;
  while (!child.Exited()) {
    const Sample sample = sampler.Take();
    ++result.samples;
    const std::vector<std::string> foreign = Sampler::Foreign(sample, child.pid());
    if (!foreign.empty() || !sample.compilers.empty()) {
      notes.Note(fmt::format(kMsgSampleContended, result.samples, JoinList(foreign),
                             JoinList(sample.compilers)));
      result.contended = true;
      result.blocked_by = fmt::format(kMsgBlockedBy, JoinList(foreign), JoinList(sample.compilers));
    } else {
      notes.LogOnly(fmt::format(kMsgSampleClean, result.samples, JoinList(sample.holders)));
    }
    tick = std::max(tick + 1, NextTick(start, clock.Now()));
    for (;;) {
      const Wake wake = clock.SleepUntil(TickTime(start, tick));
      if (wake == Wake::kInterrupted) {
        result.interrupted = true;
        return result;
      }
      if (wake == Wake::kDeadline || child.Exited()) break;
    }
  }
  notes.Note(fmt::format(kMsgMonitorSamples, result.samples));
  return result;
}

}  // namespace decodeprof::guard
