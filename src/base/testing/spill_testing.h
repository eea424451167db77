// Test helpers for code whose large blocks may be in files (base/spill.h): a spill directory
// with a budget, a vector allocator that asks spill::Allocate as the CLI's operator new does,
// and the process's resident file pages.
#pragma once

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

#include "src/base/spill.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::base::spill::testing {

// A directory for the spill's files (testing::TempDir), and the environment that names it with
// a budget of `budget_mib`; the settings are read again at the next block. A directory held in
// memory (tmpfs) keeps every block in memory: the tests that need files skip there.
class SpillDir {
 public:
  explicit SpillDir(const char* budget_mib) : temp_("decodeprof-spill-") {
    ::setenv("DECODEPROF_SPILL", temp_.path().c_str(), 1);
    ::setenv("DECODEPROF_MEMORY_MIB", budget_mib, 1);
    ResetSettingsForTest();
  }
  ~SpillDir() {
    ::unsetenv("DECODEPROF_SPILL");
    ::unsetenv("DECODEPROF_MEMORY_MIB");
    ResetSettingsForTest();
  }
  SpillDir(const SpillDir&) = delete;
  SpillDir& operator=(const SpillDir&) = delete;
  bool InMemoryFileSystem() const {
    struct statfs st {};
    return ::statfs(temp_.path().c_str(), &st) == 0 &&
           (st.f_type == TMPFS_MAGIC || st.f_type == RAMFS_MAGIC);
  }
  const std::string& path() const { return temp_.path(); }

 private:
  decodeprof::testing::TempDir temp_;
};

// The blocks of a vector made by Allocate and Free, as the CLI's operator new makes them.
template <typename T>
struct SpillAllocator {
  using value_type = T;
  SpillAllocator() = default;
  template <typename U>
  SpillAllocator(const SpillAllocator<U>& /*other*/) noexcept {}  // NOLINT
  T* allocate(size_t n) {
    void* p = Allocate(n * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t /*n*/) noexcept { Free(p); }
  friend bool operator==(const SpillAllocator& /*a*/, const SpillAllocator& /*b*/) { return true; }
};

// statm's shared resident pages, in bytes: where the file blocks' pages count.
inline uint64_t SharedResidentBytes() {
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  char buf[128] = {};
  const ssize_t n = fd < 0 ? -1 : ::read(fd, buf, sizeof buf - 1);
  if (fd >= 0) ::close(fd);
  if (n <= 0) return 0;
  // statm: size resident shared ...
  char* at = buf;
  for (int field = 0; field < 2; ++field) {
    std::strtoull(at, &at, 10);
  }
  const uint64_t shared = std::strtoull(at, nullptr, 10);
  return shared * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace decodeprof::base::spill::testing
