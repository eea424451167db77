#include "src/base/temporary_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <string>

namespace decodeprof::base {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// One registered path. `state`: 0 free, 1 being filled or emptied, 2 in use.
struct Entry {
  std::atomic<int> state{0};
  pid_t pid = 0;
  bool directory = false;
  char path[PATH_MAX] = {};
};

Entry g_entries[kMaxTemporaryFiles];
std::atomic<bool> g_installed{false};
// SignalBlocks alive on any thread: a handler waits for none before it removes the files.
std::atomic<int> g_blocks{0};
static_assert(std::atomic<int>::is_always_lock_free, "read in a signal handler");

sigset_t HandledSet() {
  sigset_t set;
  sigemptyset(&set);
  for (const int signo : kSignals) sigaddset(&set, signo);
  return set;
}

// The files of directory `path` (one level), then the directory: async-signal-safe.
void RemoveDirectory(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buffer[4096];
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long offset = 0; offset < n;) {
        // struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name.
        unsigned short reclen = 0;
        std::memcpy(&reclen, buffer + offset + 16, sizeof reclen);
        const char* name = buffer + offset + 19;
        if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0) {
          (void)::unlinkat(fd, name, 0);
        }
        if (reclen == 0) break;
        offset += reclen;
      }
    }
    ::close(fd);
  }
  (void)::rmdir(path);
}

void OnSignal(int signo) {
  const int saved_errno = errno;
  // Another thread may be between creating a file and registering it (its SignalBlock sent the
  // signal here): it gets there without this thread, in a few system calls.
  while (g_blocks.load(std::memory_order_acquire) > 0) ::sched_yield();
  RemoveTemporaryFiles();
  // The default action, now: the process ends by the signal, as it would have without us.
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  ::sigaction(signo, &action, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signo);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(signo);
  errno = saved_errno;  // not reached for SIGINT, SIGTERM and SIGHUP
}

}  // namespace

void InstallTemporaryFileCleanup() {
  if (g_installed.exchange(true)) return;
  for (const int signo : kSignals) {
    struct sigaction old {};
    if (::sigaction(signo, nullptr, &old) != 0) continue;
    if (old.sa_handler == SIG_IGN) continue;  // nohup and the like: stays ignored
    struct sigaction action {};
    action.sa_handler = OnSignal;
    action.sa_mask = HandledSet();  // one cleanup at a time
    action.sa_flags = SA_RESTART;
    ::sigaction(signo, &action, nullptr);
  }
}

int RegisterTemporary(const std::string& path, bool directory) {
  std::string absolute = path;
  if (!path.starts_with('/')) {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) == nullptr) return -1;
    absolute = std::string(cwd) + "/" + path;
  }
  if (absolute.size() >= PATH_MAX) return -1;
  const SignalBlock block;
  for (int i = 0; i < kMaxTemporaryFiles; ++i) {
    int expected = 0;
    if (!g_entries[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_entries[i].path, absolute.c_str(), absolute.size() + 1);
    g_entries[i].pid = ::getpid();
    g_entries[i].directory = directory;
    g_entries[i].state.store(2, std::memory_order_release);
    return i;
  }
  return -1;
}

void UnregisterTemporary(int handle) {
  if (handle < 0 || handle >= kMaxTemporaryFiles) return;
  const SignalBlock block;
  g_entries[handle].state.store(0, std::memory_order_release);
}

void RemoveTemporaryFiles() {
  const pid_t self = ::getpid();
  for (Entry& entry : g_entries) {
    if (entry.state.load(std::memory_order_acquire) != 2 || entry.pid != self) continue;
    if (entry.directory) {
      RemoveDirectory(entry.path);
    } else {
      (void)::unlink(entry.path);
    }
  }
}

int TemporaryFileCount() {
  const pid_t self = ::getpid();
  int count = 0;
  for (const Entry& entry : g_entries) {
    if (entry.state.load(std::memory_order_acquire) == 2 && entry.pid == self) ++count;
  }
  return count;
}

SignalBlock::SignalBlock() {
  const sigset_t set = HandledSet();
  ::pthread_sigmask(SIG_BLOCK, &set, &old_);
  g_blocks.fetch_add(1, std::memory_order_acq_rel);
}

SignalBlock::~SignalBlock() {
  g_blocks.fetch_sub(1, std::memory_order_acq_rel);
  ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace decodeprof::base
