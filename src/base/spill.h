// decodeprof's large blocks (the per-dispatch arrays of a window: the dispatches, the launch
// calls, the classes and roles, the launch context) within a memory budget: blocks that fit in
// the budget are kept in memory; past it, each new block is a shared mapping of an unlinked
// temporary file, and a watcher thread keeps the resident part of those under the budget's
// rest by dropping their pages from the process (madvise MADV_DONTNEED) when more are resident.
// Their contents stay in the file (in the page cache, written back to disk only under memory
// pressure), and the next access maps them in again, so every result is the same whatever the
// budget; only the time changes (a page mapped in again costs a fault).
//
// A file block's disk space is reserved when it is made (fallocate): a full disk makes the
// allocation stay in memory instead of a fault later.
//
// Environment (read once, at the first large block):
//   DECODEPROF_MEMORY_MIB=N   the budget in MiB (at least 16; default: a quarter of the memory
//                             available at the first large block, /proc/meminfo's
//                             MemAvailable, and at most 256 MiB: a window of about 2.5 M
//                             dispatches in memory);
//   DECODEPROF_SPILL=off      every block in memory, as malloc gives it (no budget);
//   DECODEPROF_SPILL=DIR      the directory for the files (default: $TMPDIR, else /var/tmp).
// A directory on tmpfs or ramfs (a file there is memory under another name), one that cannot
// hold a file, or a file system without fallocate leaves every block in memory; a
// DECODEPROF_SPILL that names such a directory says so, once, on standard error.
//
// src/cli/spill_new.cc routes the decodeprof program's operator new here; nothing else does
// (the recorder's library, loaded into the programs it records, never replaces their
// allocator).
#pragma once

#include <cstddef>
#include <cstdint>

namespace decodeprof::base::spill {

// The smallest block handled here; smaller ones are malloc's.
inline constexpr size_t kMinBytes = size_t{4} << 20;

// A block of `bytes` (at least kMinBytes; aligned to 2 MiB) in a file when the blocks in memory
// and this one would pass the budget; else nullptr, and the caller allocates it as usual
// (malloc) and tells NoteInMemory(block, bytes). nullptr too where DECODEPROF_SPILL is off or
// no file block can be made. A nullptr reserves `bytes` of the budget at once, until that
// NoteInMemory: threads that ask at the same moment (a part each) do not all fit in one room.
void* Allocate(size_t bytes) noexcept;

// A block the caller allocated with malloc after Allocate(reserved) gave nullptr (reserved: 0
// where Allocate was not asked; block: nullptr where malloc failed, which only gives the
// reservation back). A block of kMinBytes or more counts against the budget until NoteFreed.
// Both read its size from malloc (malloc_usable_size), so that a free without a size finds it.
void NoteInMemory(void* block, size_t reserved) noexcept;
void NoteFreed(void* block) noexcept;

// Frees a block Allocate returned.
void Free(void* block) noexcept;

// Whether `p` points into the address range of the file blocks (one of them, or room for one).
bool Owns(const void* p) noexcept;

// Whether `p` points into a file block.
bool InFile(const void* p) noexcept;

// Whether the passes should leave a CPU to the watcher: file blocks can be made, and either
// some are live or DECODEPROF_MEMORY_MIB set the budget (the window is expected to pass it).
// With every CPU busy, the watcher's wake-ups wait for a time slice while the passes map in
// hundreds of MiB (16 CPUs, 4.2 M kernels, a 64 MiB budget: 487 MiB at peak).
bool WantsACpu() noexcept;

// The fewest usable CPUs of which the passes leave one to the watcher when it wants one
// (base::UsableCpus); with fewer it shares them and looks less often.
inline constexpr unsigned kCpusToLeaveOne = 4;

// Drops the file blocks' pages from the process now (their contents stay in their files).
void Trim() noexcept;

// Drops from the process the pages wholly inside [p, p + bytes) that belong to a file block
// (their contents stay in the file; the next access maps them in again); nothing for memory
// outside the file blocks. For a pass that has read a stretch of an array and will not come
// back to it soon: the watcher alone drops pages after the fact, and threads reading a window
// in parts map it in faster than it can look (16 CPUs, 4.2 M kernels, a 64 MiB budget: the
// launch join mapped 392 MiB between two looks).
void Release(const void* p, size_t bytes) noexcept;

// The large pages the file blocks are mapped in where the kernel gives them
// (base::AdviseLargePages): a pass lets go of whole ones only, so that no release splits one
// (a release that covers part of a large page unmaps all of it, and the pass maps the rest in
// again, a page at a time; 2 CPUs, a 600 MB rocprofv3 CSV, a 32 MiB budget: 5 % of the time
// went to splitting them).
inline constexpr size_t kLargePageBytes = size_t{2} << 20;

// The bytes a ReleaseBehind lets pass before it releases them: one large page.
inline constexpr size_t kReleaseBytes = kLargePageBytes;

// For a pass over an array in index order from `begin`: Passed(i) says that the elements from
// `begin` to i are done with, and each whole large page (kLargePageBytes, aligned) among them
// is released (Release) once passed, the one that holds `begin` included; when the pass ends
// (the destructor), the large pages up to the end of the last element passed go too. A large
// page at either end of a part may be another thread's too: that thread maps it in again at
// its next access, once (a large page kept at each end held 2 MiB an array a thread until the
// watcher's next look: 15 threads over three arrays, 180 MiB). Without `begin`, the first
// Passed(i) sets it (a pass that finds its place by a search); a Passed(i) before the place
// sets it again. Costs a comparison per call where the array is not in a file block. The array
// must outlive it.
template <typename T>
class ReleaseBehind {
 public:
  ReleaseBehind(const T* data, size_t begin) noexcept
      : data_(InFile(data) ? data : nullptr),
        from_(data_ == nullptr || begin == kUnset ? kUnsetAddress : AlignDown(data_ + begin)) {}
  explicit ReleaseBehind(const T* data) noexcept : ReleaseBehind(data, kUnset) {}
  ReleaseBehind(const ReleaseBehind&) = delete;
  ReleaseBehind& operator=(const ReleaseBehind&) = delete;
  // A moved-from one releases nothing more.
  ReleaseBehind(ReleaseBehind&& other) noexcept
      : data_(other.data_), from_(other.from_), last_(other.last_) {
    other.data_ = nullptr;
  }
  ReleaseBehind& operator=(ReleaseBehind&& other) noexcept {
    if (this != &other) {
      Finish();
      data_ = other.data_;
      from_ = other.from_;
      last_ = other.last_;
      other.data_ = nullptr;
    }
    return *this;
  }
  ~ReleaseBehind() { Finish(); }

  void Passed(size_t i) noexcept {
    if (data_ == nullptr) return;
    const auto at = reinterpret_cast<uintptr_t>(data_ + i);
    last_ = at;
    if (from_ == kUnsetAddress || at < from_) {
      from_ = AlignDown(at);
    } else if (const uintptr_t to = AlignDown(at); to - from_ >= kReleaseBytes) {
      // NOLINTNEXTLINE(performance-no-int-to-ptr): a place in the array
      Release(reinterpret_cast<const void*>(from_), to - from_);
      from_ = to;
    }
  }

  // Releases the large pages from the last release up to the end of the last element passed
  // (the destructor does it; nothing where none was passed).
  void Finish() noexcept {
    if (data_ == nullptr || from_ == kUnsetAddress || last_ == kUnsetAddress) return;
    const uintptr_t to = AlignUp(last_ + sizeof(T));
    // NOLINTNEXTLINE(performance-no-int-to-ptr): a place in the array
    if (to > from_) Release(reinterpret_cast<const void*>(from_), to - from_);
    Forget();
  }
  // Releases nothing more (the array is gone).
  void Forget() noexcept {
    from_ = kUnsetAddress;
    last_ = kUnsetAddress;
  }

 private:
  static constexpr size_t kUnset = ~size_t{0};
  static constexpr uintptr_t kUnsetAddress = ~uintptr_t{0};
  static uintptr_t AlignDown(uintptr_t at) noexcept { return at & ~(kLargePageBytes - 1); }
  static uintptr_t AlignDown(const T* p) noexcept {
    return AlignDown(reinterpret_cast<uintptr_t>(p));
  }
  static uintptr_t AlignUp(uintptr_t at) noexcept {
    return (at + kLargePageBytes - 1) & ~(kLargePageBytes - 1);
  }
  const T* data_;
  uintptr_t from_;
  uintptr_t last_ = kUnsetAddress;
};

// For an array appended to (a vector's push_back) in a pass: Appended(data, size) after each
// append releases each whole large page appended, and after the array grew into a new block,
// those the copy wrote (Release: nothing where the block is in memory).
template <typename T>
class AppendReleaseBehind {
 public:
  AppendReleaseBehind(const T* data, size_t size) noexcept : data_(data), behind_(data, size) {}
  void Appended(const T* data, size_t size) noexcept {
    if (data != data_) {
      data_ = data;
      behind_.Forget();  // the block it read is gone
      behind_ = ReleaseBehind<T>(data, 0);
    }
    behind_.Passed(size);
  }

 private:
  const T* data_;
  ReleaseBehind<T> behind_;
};

struct Stats {
  uint64_t budget_bytes = 0;   // 0 until the settings are read, or with the spill off
  uint64_t memory_blocks = 0;  // large blocks in memory since the start (NoteInMemory)
  uint64_t file_blocks = 0;    // blocks made in files since the start
  uint64_t file_bytes = 0;     // their bytes
  uint64_t live_memory_bytes = 0;
  uint64_t live_file_bytes = 0;
  uint64_t trims = 0;     // times the file blocks' pages were dropped
  uint64_t releases = 0;  // Release calls that dropped pages
};
Stats GetStats() noexcept;

// For tests: read the environment again at the next Allocate (only while no block is live).
void ResetSettingsForTest() noexcept;

}  // namespace decodeprof::base::spill
