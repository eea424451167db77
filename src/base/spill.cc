#include "src/base/spill.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DECODEPROF_SPILL_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define DECODEPROF_SPILL_ASAN 1
#endif
#if defined(DECODEPROF_SPILL_ASAN)
#include <sanitizer/lsan_interface.h>
#endif

namespace decodeprof::base::spill {
namespace {

// The address range the blocks are mapped into, reserved once (address space only), so that
// Owns is one comparison and a freed block's range is there for the next.
constexpr uintptr_t kRangeBytes = uintptr_t{1} << 39;  // 512 GiB
// File blocks start at multiples of this and take whole multiples (freed ranges merge back
// into few holes).
constexpr uintptr_t kGrain = uintptr_t{2} << 20;
constexpr uint64_t kMinBudget = uint64_t{16} << 20;
// The default budget at most: about 2.5 M dispatches' arrays in memory (about 100 bytes each).
// A larger window goes past it to files, and its peak grows little with its size (16 CPUs, a
// range a launch: 445, 431 and 559 MiB at 4.2, 8.4 and 16.8 M kernels, at 0.96-1.16 times the
// time in memory; docs/performance.md, the eighth session).
constexpr uint64_t kDefaultBudgetCap = uint64_t{256} << 20;

std::atomic<uintptr_t> g_base{0};
std::atomic<uint64_t> g_releases{0};

struct State {
  std::mutex mu;
  bool settings_read = false;
  bool files = false;  // file blocks can be made
  bool explicit_dir = false;
  bool budget_set = false;  // DECODEPROF_MEMORY_MIB
  bool told = false;        // the note that blocks go to files
  std::string dir;
  bool said = false;  // the one line on standard error
  bool watcher_started = false;
  std::map<uintptr_t, uintptr_t> free_ranges;  // offset -> bytes, in the reserved range
  std::map<uintptr_t, size_t> live;            // file blocks: address -> bytes
  Stats stats;
  long shared_floor_pages = 0;  // statm's shared pages before the first file block
};

State& S() {
  static State* const s = new State;  // never destroyed: blocks may be freed at exit
  return *s;
}

void Say(const std::string& line) {
  const std::string text = "decodeprof: note: " + line + "\n";
  [[maybe_unused]] const ssize_t n = ::write(2, text.data(), text.size());
}

// A number from a file of /proc: the first integer after `key` (the whole file if key is
// empty); -1 where it cannot be read.
long long ProcNumber(const char* path, const char* key, int field) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  const char* at = buf;
  if (*key != '\0') {
    at = std::strstr(buf, key);
    if (at == nullptr) return -1;
    at += std::strlen(key);
  }
  long long value = -1;
  for (int i = 0; i <= field; ++i) {
    char* end = nullptr;
    value = std::strtoll(at, &end, 10);
    if (end == at) return -1;
    at = end;
  }
  return value;
}

// statm's third field: the resident pages that are file-backed or shared, where the file
// blocks' pages count; -1 where it cannot be read.
long SharedResidentPages() { return static_cast<long>(ProcNumber("/proc/self/statm", "", 2)); }

void TrimLocked(State& s) {
  for (const auto& [addr, bytes] : s.live) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the block's address, kept as a number
    ::madvise(reinterpret_cast<void*>(addr), bytes, MADV_DONTNEED);
  }
  ++s.stats.trims;
}

// How many of the file blocks' bytes may be resident: the budget's rest after the blocks in
// memory, at least a quarter of it.
uint64_t FileAllowance(const State& s) {
  const uint64_t budget = s.stats.budget_bytes;
  const uint64_t in_memory = s.stats.live_memory_bytes;
  return std::max(budget > in_memory ? budget - in_memory : 0, budget / 4);
}

// Keeps the file blocks' resident pages within FileAllowance while any file block is live.
void Watch() {
  // Where the process may (root, or a real-time limit), the watcher runs before the threads
  // that fill the blocks whenever it wakes: it only reads a number and drops pages, and a
  // wake-up that waits for a time slice lets tens of MiB more be mapped in meanwhile. Elsewhere
  // it is an ordinary thread.
  sched_param param{};
  param.sched_priority = 1;
  ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &param);
  State& s = S();
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  // With kCpusToLeaveOne CPUs or more the passes leave one to the watcher (WantsACpu): it
  // looks often. With fewer it shares them with the passes, and each look takes a slice from one.
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  const bool own_cpu = ::sched_getaffinity(0, sizeof(cpus), &cpus) == 0 &&
                       CPU_COUNT(&cpus) >= static_cast<int>(kCpusToLeaveOne);
  const auto tick = std::chrono::microseconds(own_cpu ? 100 : 500);
  std::vector<std::pair<uintptr_t, size_t>> blocks;
  for (;;) {
    bool busy = false;
    blocks.clear();
    {
      const std::lock_guard lock(s.mu);
      busy = s.stats.live_file_bytes > FileAllowance(s);
      if (busy) {
        const long shared = SharedResidentPages();
        if (shared < 0 ||
            static_cast<uint64_t>(std::max(0L, shared - s.shared_floor_pages)) * page >
                FileAllowance(s)) {
          blocks.assign(s.live.begin(), s.live.end());
          ++s.stats.trims;
        }
      }
    }
    // Dropped without the lock: the passes' threads ask it (ReleaseBehind, Allocate) while a
    // trim walks GiBs of mappings. A block freed meanwhile is a range of the reservation or
    // another file block, whose pages lose nothing either.
    for (const auto& [addr, bytes] : blocks) {
      // NOLINTNEXTLINE(performance-no-int-to-ptr): the block's address, kept as a number
      ::madvise(reinterpret_cast<void*>(addr), bytes, MADV_DONTNEED);
    }
    std::this_thread::sleep_for(busy ? tick : std::chrono::microseconds(10000));
  }
}

bool ReserveRange(State& s) {
  if (g_base.load(std::memory_order_relaxed) != 0) return true;  // reserved once, kept
  void* range = ::mmap(nullptr, kRangeBytes + kGrain, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (range == MAP_FAILED) return false;
  const uintptr_t base = (reinterpret_cast<uintptr_t>(range) + kGrain - 1) & ~(kGrain - 1);
  s.free_ranges.emplace(0, kRangeBytes);
  g_base.store(base, std::memory_order_release);
  return true;
}

void ReadSettings(State& s) {
  s.settings_read = true;
  s.files = false;
  s.budget_set = false;
  s.told = false;
  s.stats.budget_bytes = 0;
  const char* spill = std::getenv("DECODEPROF_SPILL");
  s.explicit_dir = spill != nullptr && *spill != '\0';
  if (s.explicit_dir && std::strcmp(spill, "off") == 0) return;
  uint64_t budget = 0;
  if (const char* mib = std::getenv("DECODEPROF_MEMORY_MIB"); mib != nullptr && *mib != '\0') {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(mib, &end, 10);  // NOLINT(google-runtime-int)
    if (end != mib && *end == '\0' && n <= (uint64_t{1} << 30)) budget = uint64_t{n} << 20;
    s.budget_set = budget > 0;
  }
  if (budget == 0) {
    const long long available_kib = ProcNumber("/proc/meminfo", "MemAvailable:", 0);
    budget = available_kib > 0
                 ? std::min(static_cast<uint64_t>(available_kib) * 1024 / 4, kDefaultBudgetCap)
                 : kDefaultBudgetCap;
  }
  s.stats.budget_bytes = std::max(budget, kMinBudget);
  if (s.explicit_dir) {
    s.dir = spill;
  } else if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp != '\0') {
    s.dir = tmp;
  } else {
    s.dir = "/var/tmp";
  }
  struct statfs fs {};
  if (::statfs(s.dir.c_str(), &fs) != 0) {
    if (s.explicit_dir) {
      Say("DECODEPROF_SPILL: " + s.dir + ": " + std::strerror(errno) +
          "; every block stays in memory");
    }
    return;
  }
  if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) {
    if (s.explicit_dir) {
      Say("DECODEPROF_SPILL: " + s.dir + " is held in memory (tmpfs); every block stays in memory");
    }
    return;
  }
  if (!ReserveRange(s)) return;
  s.files = true;
  s.said = !s.explicit_dir;
}

// A file of `bytes` in the spill directory, its disk space reserved; -1 where none.
int SpillFile(const State& s, size_t bytes) {
  int fd = ::open(s.dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::string path = s.dir + "/decodeprof-spill-XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) return -1;
    ::unlink(path.c_str());
  }
  // fallocate, not posix_fallocate (which writes zeros where the file system has none).
  if (::fallocate(fd, 0, 0, static_cast<off_t>(bytes)) != 0) {
    const int err = errno;
    ::close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

// Maps a new file of `size` bytes at `addr`; nullptr where none can be made.
void* MapFileBlock(State& s, uintptr_t addr, uintptr_t size) {
  const int fd = SpillFile(s, size);
  if (fd < 0) {
    if (!s.said) {
      s.said = true;
      Say("DECODEPROF_SPILL: " + s.dir + ": cannot hold a block of " + std::to_string(size) +
          " bytes (" + std::strerror(errno) + "); it stays in memory");
    }
    return nullptr;
  }
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a place in the reserved range
  void* p = ::mmap(reinterpret_cast<void*>(addr), size, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED, fd, 0);
  ::close(fd);
  return p == MAP_FAILED ? nullptr : p;
}

}  // namespace

namespace {

// Allocate's file block, with s.mu held; nullptr where the block is to be malloc's.
void* AllocateLocked(State& s, size_t bytes) {
  if (!s.settings_read) ReadSettings(s);
  if (!s.files) return nullptr;
  const uintptr_t size = (bytes + kGrain - 1) & ~(kGrain - 1);
  if (s.stats.live_memory_bytes + size <= s.stats.budget_bytes) return nullptr;
  auto hole = s.free_ranges.begin();
  while (hole != s.free_ranges.end() && hole->second < size) ++hole;
  if (hole == s.free_ranges.end()) return nullptr;
  const uintptr_t offset = hole->first;
  const uintptr_t addr = g_base.load(std::memory_order_relaxed) + offset;
  if (s.stats.live_file_bytes == 0) s.shared_floor_pages = std::max(0L, SharedResidentPages());
  void* p = MapFileBlock(s, addr, size);
  if (p == nullptr) return nullptr;
  if (!s.told) {
    s.told = true;
    if (!s.budget_set) {
      Say("the large blocks pass the memory budget (" + std::to_string(s.stats.budget_bytes >> 20) +
          " MiB: a quarter of the memory available, at most 256 MiB); the next ones go to files "
          "in " +
          s.dir +
          " (slower; DECODEPROF_MEMORY_MIB sets the budget, DECODEPROF_SPILL=off keeps them "
          "in memory)");
    }
  }
  const uintptr_t rest = hole->second - size;
  s.free_ranges.erase(hole);
  if (rest > 0) s.free_ranges.emplace(offset + size, rest);
  s.live.emplace(addr, size);
  ++s.stats.file_blocks;
  s.stats.file_bytes += size;
  s.stats.live_file_bytes += size;
  if (!s.watcher_started) {
    s.watcher_started = true;
    std::thread(Watch).detach();
  }
#if defined(DECODEPROF_SPILL_ASAN)
  // The leak checker scans the block for the pointers it holds (a vector of strings).
  __lsan_register_root_region(p, size);
#endif
  return p;
}

}  // namespace

void* Allocate(size_t bytes) noexcept {
  if (bytes < kMinBytes) return nullptr;
  State& s = S();
  const std::lock_guard lock(s.mu);
  void* p = AllocateLocked(s, bytes);
  // Reserved until NoteInMemory (spill.h).
  if (p == nullptr) s.stats.live_memory_bytes += bytes;
  return p;
}

void NoteInMemory(void* block, size_t reserved) noexcept {
  const size_t size = block == nullptr ? 0 : ::malloc_usable_size(block);
  if (size < kMinBytes && reserved == 0) return;
  State& s = S();
  const std::lock_guard lock(s.mu);
  s.stats.live_memory_bytes -= std::min<uint64_t>(reserved, s.stats.live_memory_bytes);
  if (size < kMinBytes) return;
  ++s.stats.memory_blocks;
  s.stats.live_memory_bytes += size;
}

void NoteFreed(void* block) noexcept {
  const size_t size = block == nullptr ? 0 : ::malloc_usable_size(block);
  if (size < kMinBytes) return;
  State& s = S();
  const std::lock_guard lock(s.mu);
  s.stats.live_memory_bytes -= std::min<uint64_t>(size, s.stats.live_memory_bytes);
}

void Free(void* block) noexcept {
  if (block == nullptr) return;
  State& s = S();
  const auto addr = reinterpret_cast<uintptr_t>(block);
  uintptr_t size = 0;
  {
    const std::lock_guard lock(s.mu);
    const auto it = s.live.find(addr);
    if (it == s.live.end()) std::abort();  // not a block made here: a double or wrong free
    size = it->second;
    s.stats.live_file_bytes -= size;
    s.live.erase(it);
  }
#if defined(DECODEPROF_SPILL_ASAN)
  __lsan_unregister_root_region(block, size);
#endif
  // The range goes back to the reservation (a file goes with its only mapping), without the
  // lock, and the file's pages first (MADV_REMOVE punches them out of the file, holding the
  // process's mappings for reading only): the unmapping of a file of hundreds of MiB holds
  // them for writing while its pages go, 50-190 ms on a 2-CPU VM (blocks of 98-770 MiB; 0.1 ms
  // after MADV_REMOVE), and meanwhile the watcher waits, on this lock and on the mappings,
  // while the passes map pages in (16 threads, 16.8 M kernels: 300-900 MiB at peak with a
  // 64 MiB budget). The range is neither live nor free until it is back. Where the mapping
  // fails, the range stays out of use, its pages dropped: given up, it could be mapped by
  // anyone, and Owns would take their blocks for ours.
  ::madvise(block, size, MADV_REMOVE);  // where a file system cannot, the unmapping does it
  if (::mmap(block, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
             0) == MAP_FAILED) {
    ::madvise(block, size, MADV_DONTNEED);
    return;
  }
  const std::lock_guard lock(s.mu);
  uintptr_t offset = addr - g_base.load(std::memory_order_relaxed);
  uintptr_t bytes = size;
  auto next = s.free_ranges.lower_bound(offset);
  if (next != s.free_ranges.end() && next->first == offset + bytes) {
    bytes += next->second;
    next = s.free_ranges.erase(next);
  }
  if (next != s.free_ranges.begin()) {
    const auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      bytes += prev->second;
      s.free_ranges.erase(prev);
    }
  }
  s.free_ranges.emplace(offset, bytes);
}

bool Owns(const void* p) noexcept {
  const uintptr_t base = g_base.load(std::memory_order_acquire);
  const auto addr = reinterpret_cast<uintptr_t>(p);
  return base != 0 && addr >= base && addr - base < kRangeBytes;
}

bool InFile(const void* p) noexcept {
  if (!Owns(p)) return false;
  State& s = S();
  const std::lock_guard lock(s.mu);
  const auto addr = reinterpret_cast<uintptr_t>(p);
  auto it = s.live.upper_bound(addr);
  if (it == s.live.begin()) return false;
  --it;
  return addr - it->first < it->second;
}

bool WantsACpu() noexcept {
  State& s = S();
  const std::lock_guard lock(s.mu);
  if (!s.settings_read) ReadSettings(s);
  return s.files && (s.budget_set || s.stats.live_file_bytes > 0);
}

void Trim() noexcept {
  State& s = S();
  const std::lock_guard lock(s.mu);
  TrimLocked(s);
}

void Release(const void* p, size_t bytes) noexcept {
  if (!Owns(p)) return;
  static const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t first = (begin + page - 1) & ~(page - 1);
  const uintptr_t last = (begin + bytes) & ~(page - 1);
  if (last <= first) return;
  // Without the lock: the caller holds the block, and the pages of a shared file mapping lose
  // nothing when dropped (another thread touching one maps it in again).
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a place in the caller's block
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  g_releases.fetch_add(1, std::memory_order_relaxed);
}

Stats GetStats() noexcept {
  State& s = S();
  const std::lock_guard lock(s.mu);
  Stats stats = s.stats;
  stats.releases = g_releases.load(std::memory_order_relaxed);
  return stats;
}

void ResetSettingsForTest() noexcept {
  State& s = S();
  const std::lock_guard lock(s.mu);
  if (s.live.empty()) {
    s.settings_read = false;
    s.said = false;
    s.stats.live_memory_bytes = 0;
  }
}

}  // namespace decodeprof::base::spill
