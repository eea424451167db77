// Helpers for tests that run processes and watch files: time, polling, text files and
// process liveness. Shared by the CLI tests of the guard and of profile.
#pragma once

#include <sys/types.h>

#include <string>

namespace decodeprof::testing {

double Now();  // CLOCK_MONOTONIC seconds
void SleepSecs(double secs);
std::string ReadText(const std::string& path);  // "" when missing
bool Exists(const std::string& path);
void WriteText(const std::string& path, const std::string& text);
// Occurrences of `needle` in `text` (overlapping ones counted).
int Count(const std::string& text, const std::string& needle);
// Gone = no such process, or a zombie.
bool ProcessGone(pid_t pid);

// Polls `predicate` every 20 ms for at most `timeout_secs`.
template <typename Fn>
bool WaitFor(Fn predicate, double timeout_secs) {
  const double deadline = Now() + timeout_secs;
  while (Now() < deadline) {
    if (predicate()) return true;
    SleepSecs(0.02);
  }
  return predicate();
}

}  // namespace decodeprof::testing
