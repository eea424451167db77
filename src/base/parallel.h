// Passes over millions of records split across the CPUs: [0, n) cut into contiguous parts, each
// run on a thread of its own (the first on the calling thread). A caller that merges the
// parts' results in part order gets what one pass in order gives, whatever the part count.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <thread>
#include <type_traits>
#include <vector>

#include "src/base/spill.h"

namespace decodeprof::base {

// The CPUs this process may run on (its affinity mask, e.g. under taskset), else the machine's,
// as ThreadsOn counts them while the memory budget's watcher runs (spill::WantsACpu); at
// least 1. DECODEPROF_THREADS (1 to kMaxPassParts) sets it instead: to hold a run to fewer
// threads, or to play a host of many CPUs on a few.
unsigned UsableCpus();

// The most threads a pass runs on while large blocks go to files (spill::WantsACpu). Each
// thread holds what it has read between two releases (spill::ReleaseBehind), and past 8 more
// threads add memory, not speed: 16 CPUs, a 64 MiB budget, a native window of 16.8 M kernels
// peaked at 232 MiB in 4.90 s on 15 threads and at 163 MiB in 4.79 s on 8 (docs/performance.md,
// the eleventh session).
inline constexpr unsigned kThreadsWithFileBlocks = 8;

// The threads a pass may use on `cpus` CPUs: all of them, or, while the watcher runs
// (`watched`), one fewer (of spill::kCpusToLeaveOne or more: the watcher's) and at most
// kThreadsWithFileBlocks; at least 1.
unsigned ThreadsOn(unsigned cpus, bool watched);

// What a parse bound by the CPU (a text format read in parts, each into a room of its own) may
// use: the threads UsableCpus gives, but not held to kThreadsWithFileBlocks, which bounds what
// the threads of a pass over a window in files map in at once; a parse thread holds only the
// room it writes. (On 16 CPUs the 600 MB rocprofv3 CSV's parse took 0.074 s on 8 threads and
// 0.052 s on 15 once the window's room was a file: docs/performance.md, the fifteenth session.)
unsigned ParseThreads();
// ParseThreads' count on `cpus` CPUs: all of them, less the watcher's one (`watched`).
unsigned ParseThreadsOn(unsigned cpus, bool watched);

// The most parts a pass is cut into (the passes over a window are bound by memory: a host
// with 16 CPUs reads faster on 16 threads than on 8).
inline constexpr size_t kMaxPassParts = 16;
// The fewest records a pass over a window gives a thread of its own (fewer: not worth one).
inline constexpr size_t kMinPassPart = size_t{1} << 16;

// The fewest records a part of a pass gets where each part keeps an entry for every distinct
// name it meets (sums by kernel name): at least kRecordsPerNameInAPart a name, so that the
// parts' entries stay a fraction of the window however many names it has. On 15 threads a
// window of 4.2 M kernels with 200 000 names that recur every step held 3 M such entries.
inline constexpr size_t kRecordsPerNameInAPart = 8;
inline size_t MinPartForNames(size_t names) {
  return std::max(kMinPassPart, names * kRecordsPerNameInAPart);
}

// How many parts ForParts cuts `n` items into: one per usable CPU, at most kMaxPassParts, none
// below `min_size` items; at least 1.
size_t PassParts(size_t n, size_t min_size);

namespace parallel_internal {
// The threads RunParts hands parts 1.. to: kept between passes, so that a pass does not pay
// for starting and joining a thread per part (a whole-window summary makes about 30 passes).
// One pass at a time: Start returns false, running nothing, while another holds the pool (a
// pass inside a part, or on another thread); the caller then starts threads of its own.
// Start(parts, call, fn) runs call(fn, k) for each k in [1, parts), each on a thread of its
// own (the pool grows to parts - 1 threads), until Wait() returns.
bool Start(size_t parts, void (*call)(void*, size_t), void* fn);
void Wait();
}  // namespace parallel_internal

// Runs fn(part) for each part in [0, parts), part 0 on the calling thread and each other on a
// thread of its own, and waits for all. Parts may wait for one another (each has a thread).
// fn must not throw. For a second pass over the parts of an earlier ForParts (the same
// bounds, kept by the caller).
template <typename Fn>
void RunParts(size_t parts, Fn&& fn) {
  if (parts <= 1) {
    if (parts == 1) fn(size_t{0});
    return;
  }
  using F = std::remove_reference_t<Fn>;
  void (*const call)(void*, size_t) = [](void* f, size_t k) { (*static_cast<F*>(f))(k); };
  if (parallel_internal::Start(parts, call, const_cast<void*>(static_cast<const void*>(&fn)))) {
    fn(size_t{0});
    parallel_internal::Wait();
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(parts - 1);
  for (size_t k = 1; k < parts; ++k) threads.emplace_back([&fn, k] { fn(k); });
  fn(size_t{0});
  for (std::thread& t : threads) t.join();
}

// Runs fn(part, begin, end) for each of the PassParts(n, min_size) parts of [0, n), part k
// from k * n / parts, and waits for all; returns the number of parts. fn must not throw.
template <typename Fn>
size_t ForParts(size_t n, size_t min_size, Fn&& fn) {
  const size_t parts = PassParts(n, min_size);
  const auto bound = [&](size_t k) { return n / parts * k + std::min(k, n % parts); };
  RunParts(parts, [&](size_t k) { fn(k, bound(k), bound(k + 1)); });
  return parts;
}

// Whether pred(i) holds for every i of [0, n), asked in parts on several threads (each part
// stops at its first false). pred must not throw. `reads`: an array pred reads at i (and
// around), whose parts read are let go where it is in files (spill::ReleaseBehind).
template <typename Pred, typename Read = char>
bool AllInParts(size_t n, Pred&& pred, const Read* reads = nullptr) {
  std::array<bool, kMaxPassParts> all{};
  const size_t parts = ForParts(n, kMinPassPart, [&](size_t k, size_t b, size_t e) {
    bool ok = true;
    spill::ReleaseBehind<Read> behind(reads, b);
    for (size_t i = b; i < e && ok; ++i) {
      behind.Passed(i);
      ok = pred(i);
    }
    all[k] = ok;
  });
  return std::all_of(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(parts),
                     [](bool ok) { return ok; });
}

// The sum of fn(i) over [0, n) in parts on several threads, the parts' sums added in part
// order (for integers: what one pass gives). fn must not throw. `reads`: as AllInParts'.
template <typename T, typename Fn, typename Read = char>
T SumInParts(size_t n, Fn&& fn, const Read* reads = nullptr) {
  std::array<T, kMaxPassParts> sums{};
  const size_t parts = ForParts(n, kMinPassPart, [&](size_t k, size_t b, size_t e) {
    T sum{};
    spill::ReleaseBehind<Read> behind(reads, b);
    for (size_t i = b; i < e; ++i) {
      behind.Passed(i);
      sum += fn(i);
    }
    sums[k] = sum;
  });
  T total{};
  for (size_t k = 0; k < parts; ++k) total += sums[k];
  return total;
}

}  // namespace decodeprof::base
