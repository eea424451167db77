#include "src/guard/lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "src/base/file_io.h"
#include "src/base/parse.h"
#include "src/guard/messages.h"
#include "src/guard/time_math.h"

namespace decodeprof::guard {
namespace {

constexpr double kLockPollSecs = 0.05;

}  // namespace

base::StatusOr<LockFile> LockFile::Open(const std::string& path, bool create) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (create) {
      // World-writable so that any user's guard shares it; losing a creation race is fine.
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0) {
        ::fchmod(fd, 0666);
        ::close(fd);
      }
    }
  } else if (!S_ISREG(st.st_mode)) {
    return base::UsageError(fmt::format(kMsgLockNotRegular, path));
  }
  // O_NONBLOCK: should the path have become a FIFO since the stat, the open must not block.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return base::UsageError(fmt::format(kMsgCannotOpenLock, path, std::strerror(errno)));
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return base::UsageError(fmt::format(kMsgLockNotRegular, path));
  }
  return LockFile(fd);
}

LockFile::~LockFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool LockFile::TryLock() {
  for (;;) {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return true;
    if (errno != EINTR) return false;
  }
}

void LockFile::Unlock() { ::flock(fd_, LOCK_UN); }

LockOutcome AcquireLock(LockFile& lock, const std::string& path, const Budget& budget, Clock& clock,
                        Notes& notes) {
  const double begin = clock.Now();
  if (lock.TryLock()) {
    notes.Note(fmt::format(kMsgAcquiredLock, path, 0));
    return LockOutcome::kAcquired;
  }
  notes.Note(fmt::format(kMsgWaitingForLock, path));
  for (;;) {
    const double now = clock.Now();
    double deadline = DeadlineAfter(now, kLockPollSecs);
    if (budget.limited()) {
      const double left = static_cast<double>(budget.max_wait) - budget.Waited(now);
      if (left <= 1e-3) {  // (a millisecond of slack: sleeps never land exactly)
        notes.Note(fmt::format(kMsgGaveUpLock, path, std::llround(now - begin)));
        return LockOutcome::kGaveUp;
      }
      deadline = std::min(deadline, DeadlineAfter(now, left));
    }
    if (clock.SleepUntil(deadline) == Wake::kInterrupted) return LockOutcome::kInterrupted;
    if (lock.TryLock()) {
      notes.Note(fmt::format(kMsgAcquiredLock, path, std::llround(clock.Now() - begin)));
      return LockOutcome::kAcquired;
    }
  }
}

std::string HolderPath(const std::string& lock_path) { return lock_path + ".holder"; }

std::string FormatHolder(const HolderInfo& info) {
  return fmt::format("pid={}\nstart={}\nmode={}\ncmd={}\n", info.pid, info.start, info.mode,
                     info.cmd);
}

std::optional<int64_t> HolderPid(std::string_view text) {
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (line.substr(0, 4) == "pid=") return base::ParseInt64(line.substr(4));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return std::nullopt;
}

HolderRecord::HolderRecord(std::string path, const HolderInfo& info, Notes& notes)
    : path_(std::move(path)) {
  const base::Status status = base::WriteFileAtomic(path_, FormatHolder(info));
  if (status.ok()) {
    written_ = true;
  } else {
    notes.Note(fmt::format(kMsgCannotWriteHolder, path_, status.message()));
  }
}

HolderRecord::~HolderRecord() {
  if (written_) ::unlink(path_.c_str());
}

LockStatus QueryLockStatus(const std::string& lock_path, ProcFs& proc) {
  struct stat st {};
  if (::stat(lock_path.c_str(), &st) != 0 && errno == ENOENT) {
    return LockStatus{kExitOk, std::string(kStatusFree) + "\n"};
  }
  base::StatusOr<LockFile> lock = LockFile::Open(lock_path, /*create=*/false);
  if (!lock.ok()) return LockStatus{kExitUsage, lock.status().message()};
  if (lock->TryLock()) {
    lock->Unlock();
    return LockStatus{kExitOk, std::string(kStatusFree) + "\n"};
  }
  std::string text = std::string(kStatusHeld) + "\n";
  const std::optional<std::string> holder = ReadSmallFile(HolderPath(lock_path));
  if (!holder) {
    text += std::string(kStatusNoHolderFile) + "\n";
    return LockStatus{kExitHeld, text};
  }
  text += *holder;
  if (!holder->empty() && holder->back() != '\n') text += '\n';
  const std::optional<int64_t> pid = HolderPid(*holder);
  if (pid && !proc.ReadStat(*pid)) text += fmt::format(kStatusStale, *pid) + "\n";
  return LockStatus{kExitHeld, text};
}

}  // namespace decodeprof::guard
