#include "src/base/stage_times.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>

#include "src/base/spill.h"

namespace decodeprof::base {
namespace {

struct Clock {
  std::mutex mu;
  bool started = false;
  double wall = 0;
  double cpu = 0;
  double process_cpu = 0;
};

Clock& TheClock() {
  static Clock clock;
  return clock;
}

double Seconds(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The process's resident memory now (/proc/self/statm); 0 where it cannot be read.
double ResidentMiB() {
  std::ifstream statm("/proc/self/statm");
  unsigned long size = 0;
  unsigned long resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
         (1024.0 * 1024.0);
}

}  // namespace

bool StageTimesOn() {
  const char* env = std::getenv("DECODEPROF_STAGE_TIMES");
  return env != nullptr && *env != '\0' && std::string_view(env) != "0";
}

void StartStages() {
  if (!StageTimesOn()) return;
  Clock& c = TheClock();
  const std::lock_guard<std::mutex> lock(c.mu);
  c.started = true;
  c.wall = Seconds(CLOCK_MONOTONIC);
  c.cpu = Seconds(CLOCK_THREAD_CPUTIME_ID);
  c.process_cpu = Seconds(CLOCK_PROCESS_CPUTIME_ID);
}

void MarkStage(std::string_view stage, std::FILE* out) {
  if (!StageTimesOn()) return;
  Clock& c = TheClock();
  const std::lock_guard<std::mutex> lock(c.mu);
  const double wall = Seconds(CLOCK_MONOTONIC);
  const double cpu = Seconds(CLOCK_THREAD_CPUTIME_ID);
  const double process_cpu = Seconds(CLOCK_PROCESS_CPUTIME_ID);
  if (c.started) {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const spill::Stats spilled = spill::GetStats();
    std::fprintf(out,
                 "decodeprof: stage %-18s %8.3f s wall %8.3f s CPU on this thread %8.3f s CPU in "
                 "all %7.1f MiB RSS %7.1f MiB peak RSS; large blocks %llu in memory, %llu in "
                 "files (%.1f MiB, %llu trims, %llu releases)\n",
                 std::string(stage).c_str(), wall - c.wall, cpu - c.cpu,
                 process_cpu - c.process_cpu, ResidentMiB(),
                 static_cast<double>(usage.ru_maxrss) / 1024.0,
                 static_cast<unsigned long long>(spilled.memory_blocks),  // NOLINT
                 static_cast<unsigned long long>(spilled.file_blocks),    // NOLINT
                 static_cast<double>(spilled.file_bytes) / (1024.0 * 1024.0),
                 static_cast<unsigned long long>(spilled.trims),      // NOLINT
                 static_cast<unsigned long long>(spilled.releases));  // NOLINT
  }
  c.started = true;
  c.wall = wall;
  c.cpu = cpu;
  c.process_cpu = process_cpu;
}

}  // namespace decodeprof::base
