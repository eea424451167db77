// Room for millions of records at once: a vector reserved to its final size (no copies as it
// grows) on large pages where the kernel gives them (faulting a window of millions of
// dispatches in 4 KiB at a time costs more than reading them).
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "src/base/spill.h"

namespace decodeprof::base {

// Asks for large pages for [data, data + bytes) (madvise MADV_HUGEPAGE on the 2 MiB-aligned
// part): a hint; nothing changes where the kernel has none. A block kept in a file
// (base/spill.h) gets it too: the kernel then keeps the file's pages in 2 MiB folios and maps
// a whole one at a fault, which costs far less than a fault per 4 KiB page (2 CPUs, 4.2 M
// kernels, a 16 MiB budget: 6.3-6.7 -> 3.8-4.3 s), as long as every pass over such a block
// lets go of it as it goes (spill::ReleaseBehind): one that reads a block of hundreds of MiB
// without letting go maps it whole within milliseconds, faster than the watcher drops it.
inline void AdviseLargePages([[maybe_unused]] const void* data, [[maybe_unused]] size_t bytes) {
#if defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const auto begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): madvise takes the aligned address back
  if (begin < end) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

// Reserves room for `n` elements of `v` (only address space: memory is used as they come) on
// large pages. A reservation that fails is ignored: the vector then grows as it goes.
template <typename T, typename A>
void ReserveLarge(std::vector<T, A>& v, size_t n) {
  if (n <= v.capacity()) return;
  try {
    v.reserve(n);
  } catch (const std::bad_alloc&) {
    return;
  } catch (const std::length_error&) {
    return;
  }
  AdviseLargePages(v.data(), v.capacity() * sizeof(T));
}

// Faults in the pages of [data, data + bytes) on background threads (madvise
// MADV_POPULATE_WRITE, Linux 5.14 and later; nothing elsewhere), so that the thread that fills
// the memory later finds it there instead of stopping to have each page cleared. The contents
// are not touched: the memory may be written meanwhile. Joined by the destructor, which must
// run before the memory is freed.
class Prefault {
 public:
  Prefault(void* data, size_t bytes, int threads) {
    // A block kept in a file (base/spill.h) is not brought in all at once: its pages are
    // resident only as they are used.
    if (spill::InFile(data)) return;
#if defined(MADV_POPULATE_WRITE)
    constexpr uintptr_t kPage = 4096;
    const auto begin = (reinterpret_cast<uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
    const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kPage - 1);
    if (begin >= end || threads < 1) return;
    const uintptr_t pages = (end - begin) / kPage;
    const auto n = static_cast<uintptr_t>(threads);
    for (uintptr_t t = 0; t < n; ++t) {
      const uintptr_t from = begin + pages * t / n * kPage;
      const uintptr_t to = begin + pages * (t + 1) / n * kPage;
      if (from >= to) continue;
      workers_.emplace_back([from, to] {
        // NOLINTNEXTLINE(performance-no-int-to-ptr): madvise takes the aligned address back
        ::madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
      });
    }
#else
    (void)data;
    (void)bytes;
    (void)threads;
#endif
  }
  Prefault(const Prefault&) = delete;
  Prefault& operator=(const Prefault&) = delete;
  ~Prefault() {
    for (std::thread& t : workers_) t.join();
  }

 private:
  std::vector<std::thread> workers_;
};

// The most threads that fault in one block of memory (Prefault).
inline constexpr int kPrefaultThreads = 8;

// The pages of `v`'s room from its end up to `n` elements (at most its capacity) faulted in on
// several threads (Prefault, at most kPrefaultThreads, one per CPU of the machine) before it
// returns; below 4 MiB, nothing (the calling thread faults them in faster than threads start).
template <typename T, typename A>
void FaultInRoom(std::vector<T, A>& v, size_t n) {
  constexpr size_t kWorthThreads = size_t{4} << 20;
  const size_t end = std::min(n, v.capacity());
  if (end <= v.size() || (end - v.size()) * sizeof(T) < kWorthThreads) return;
  const unsigned cpus = std::thread::hardware_concurrency();
  const Prefault pages(v.data() + v.size(), (end - v.size()) * sizeof(T),
                       static_cast<int>(std::clamp<unsigned>(cpus, 1, kPrefaultThreads)));
}

// Room for `n` elements of `v` (ReserveLarge) with its pages faulted in on several threads
// (Prefault, at most kPrefaultThreads, one per CPU of the machine) before it returns: for the
// per-dispatch arrays a pass over a window of millions fills on the calling thread, which
// would otherwise stop at every page to have it cleared (4.2 M dispatches on 2 CPUs: the
// calling thread's CPU after the import 0.54 -> 0.45 s). Below 4 MiB, no threads.
template <typename T, typename A>
void ReserveFaultedIn(std::vector<T, A>& v, size_t n) {
  ReserveLarge(v, n);
  FaultInRoom(v, v.capacity());
}

// resize(n) of `v`. Where the room is in a file block (base/spill.h), the values are written
// in steps, each let go once written (spill::Release): one resize would map the whole room in
// at once, which the watcher then has to drop (the launch join's two per-dispatch arrays:
// 256 MiB at once at 16.8 M dispatches).
template <typename T, typename A>
void ResizeLettingGo(std::vector<T, A>& v, size_t n, const T& value = T()) {
  if (n <= v.size() || !spill::InFile(v.data())) {
    v.resize(n, value);
    return;
  }
  const size_t step = std::max<size_t>(1, spill::kReleaseBytes / sizeof(T));
  spill::AppendReleaseBehind<T> written(v.data(), v.size());
  while (v.size() < n) {
    v.resize(std::min(n, v.size() + step), value);
    written.Appended(v.data(), v.size());
  }
}

// resize(n) of `v` after ReserveFaultedIn(v, n), letting go of a file block as it writes
// (ResizeLettingGo).
template <typename T, typename A>
void ResizeFaultedIn(std::vector<T, A>& v, size_t n, const T& value = T()) {
  ReserveFaultedIn(v, n);
  ResizeLettingGo(v, n, value);
}

}  // namespace decodeprof::base
