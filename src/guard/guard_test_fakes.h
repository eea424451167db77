// Fakes for the guard's unit tests: a clock whose sleeps only advance time, a process
// table in memory, a scripted GPU source, a child that exits at a given time, and a
// memory file that collects note lines.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "src/guard/child.h"
#include "src/guard/clock.h"
#include "src/guard/gpu_source.h"
#include "src/guard/messages.h"
#include "src/guard/proc_fs.h"

namespace decodeprof::guard::testing {

class FakeClock final : public Clock {
 public:
  double Now() override { return now_; }
  std::string Timestamp() override { return "2026-09-30T19:36:18+0900"; }
  Wake SleepUntil(double deadline) override {
    ++sleeps_;
    if (interrupt_at_ && deadline >= *interrupt_at_) {
      now_ = std::max(now_, *interrupt_at_);
      return Wake::kInterrupted;
    }
    if (child_exit_at_ && deadline > *child_exit_at_ && now_ < *child_exit_at_) {
      now_ = *child_exit_at_;
      return Wake::kChild;
    }
    now_ = std::max(now_, deadline);
    return Wake::kDeadline;
  }
  void Advance(double secs) { now_ += secs; }
  void InterruptAt(double t) { interrupt_at_ = t; }
  void ChildExitsAt(double t) { child_exit_at_ = t; }
  int sleeps() const { return sleeps_; }

 private:
  double now_ = 1000.0;
  std::optional<double> interrupt_at_;
  std::optional<double> child_exit_at_;
  int sleeps_ = 0;
};

// pid -> (ppid, comm).
class FakeProcFs final : public ProcFs {
 public:
  void Add(int64_t pid, int64_t ppid, const std::string& comm) { table_[pid] = {ppid, comm}; }
  void Remove(int64_t pid) { table_.erase(pid); }
  std::vector<int64_t> ListPids() override {
    std::vector<int64_t> pids;
    for (const auto& [pid, entry] : table_) pids.push_back(pid);
    return pids;
  }
  std::optional<std::string> ReadStat(int64_t pid) override {
    const auto it = table_.find(pid);
    if (it == table_.end()) return std::nullopt;
    return std::to_string(pid) + " (" + it->second.second + ") S " +
           std::to_string(it->second.first) + " 1 1 0 -1\n";
  }

 private:
  std::map<int64_t, std::pair<int64_t, std::string>> table_;
};

// Returns the scripted readings in order; the last one repeats. `on_read` (optional) runs
// before each reading, so a test can change the world as time passes.
class FakeGpuSource final : public GpuHolderSource {
 public:
  void Push(GpuReading reading) { readings_.push_back(std::move(reading)); }
  std::function<void(int)> on_read;
  std::set<int> failing_reads;  // read numbers (0-based) that fail
  base::StatusOr<GpuReading> Read() override {
    const int n = reads_++;
    if (on_read) on_read(n);
    if (failing_reads.count(n) != 0) return base::IoError("fake", "cannot read");
    if (readings_.empty()) return GpuReading{};
    if (readings_.size() > 1) {
      GpuReading front = readings_.front();
      readings_.pop_front();
      return front;
    }
    return readings_.front();
  }
  const char* EmptyPhrase() const override { return kKfdEmpty; }
  std::string Describe() const override { return "fake"; }
  int reads() const { return reads_; }

 private:
  std::deque<GpuReading> readings_;
  int reads_ = 0;
};

inline GpuReading Kfd(std::vector<std::string> ids) {
  GpuReading reading;
  for (auto& id : ids) reading.processes.push_back(GpuProcess{std::move(id), -1});
  return reading;
}

// A child that exits once the clock reaches `exit_at`.
class FakeChild final : public ChildWatch {
 public:
  FakeChild(Clock* clock, int64_t pid, double exit_at)
      : clock_(clock), pid_(pid), exit_at_(exit_at) {}
  int64_t pid() const override { return pid_; }
  bool Exited() override { return clock_->Now() >= exit_at_; }

 private:
  Clock* clock_;
  int64_t pid_;
  double exit_at_;
};

// A memory file for Notes; Text() returns everything written so far.
class MemFile {
 public:
  MemFile() : fd_(::memfd_create("guard-test", MFD_CLOEXEC)) {}
  ~MemFile() { ::close(fd_); }
  int fd() const { return fd_; }
  std::string Text() const {
    std::string text;
    char buffer[4096];
    off_t offset = 0;
    for (;;) {
      const ssize_t n = ::pread(fd_, buffer, sizeof buffer, offset);
      if (n <= 0) break;
      text.append(buffer, static_cast<size_t>(n));
      offset += n;
    }
    return text;
  }

 private:
  int fd_;
};

// The whole file ("" when missing).
inline std::string ReadAll(const std::string& path) {
  const std::optional<std::string> text = ReadSmallFile(path);
  return text.value_or("");
}

// Occurrences of `needle` in `text`.
inline int CountOf(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace decodeprof::guard::testing
