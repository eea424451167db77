// decodeprof::guard — the host-wide lock and its holder file (seed spec 1.5, 1.9).
//
// One flock(2) lock serializes every guard of the host. The lock file is created
// world-writable (so any user's guard can share it), refused unless it is a regular file
// (a FIFO would block the open), and opened read-only with O_CLOEXEC: flock works on a
// read-only descriptor, and close-on-exec keeps the lock out of the command and of any
// daemon it leaves behind. The lock is released when the guard exits.
//
// Whoever holds the lock records itself in `<lock>.holder` (`key=value` lines: pid, start,
// mode, cmd) and removes the file before it exits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "src/base/status.h"
#include "src/guard/clock.h"
#include "src/guard/notes.h"
#include "src/guard/proc_fs.h"

namespace decodeprof::guard {

inline constexpr char kDefaultLockPath[] = "/tmp/decodeprof-gpu-guard.lock";

class LockFile {
 public:
  // Opens the lock at `path`, creating it (mode 0666) first when `create` and it is
  // missing. Errors are kUsage statuses with the kMsgLockNotRegular / kMsgCannotOpenLock
  // texts (exit 2).
  static base::StatusOr<LockFile> Open(const std::string& path, bool create = true);

  LockFile(LockFile&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  LockFile& operator=(LockFile&&) = delete;
  LockFile(const LockFile&) = delete;
  ~LockFile();

  // flock(LOCK_EX | LOCK_NB): true when this descriptor now holds the lock.
  bool TryLock();
  void Unlock();
  int fd() const { return fd_; }

 private:
  explicit LockFile(int fd) : fd_(fd) {}
  int fd_;
};

// The --max-wait budget (seed spec 1.4): one budget for the lock wait and every idle wait,
// counted from guard start, excluding the time the command ran.
struct Budget {
  uint64_t max_wait = 0;  // seconds; 0 = unlimited
  double start = 0;       // Clock::Now() at guard start
  double run_secs = 0;    // the command's run time so far

  bool limited() const { return max_wait > 0; }
  double Waited(double now) const { return now - start - run_secs; }
};

enum class LockOutcome { kAcquired, kGaveUp, kInterrupted };

// Takes the lock: at once when free (note "acquired ... after 0s"); otherwise notes
// "waiting for guard lock", polls every 50 ms until it is free, the budget is spent
// ("gave up waiting ...") or a signal arrives (kInterrupted, nothing noted).
LockOutcome AcquireLock(LockFile& lock, const std::string& path, const Budget& budget, Clock& clock,
                        Notes& notes);

// ---- holder file ------------------------------------------------------------------------
std::string HolderPath(const std::string& lock_path);

struct HolderInfo {
  int64_t pid = 0;
  std::string start;  // timestamp of acquisition
  std::string mode;   // "guard" or "hold"
  std::string cmd;    // command words joined by spaces
};
std::string FormatHolder(const HolderInfo& info);
// The pid= value of a holder file's text, if any.
std::optional<int64_t> HolderPid(std::string_view text);

// Writes the holder file on construction and removes it on destruction.
class HolderRecord {
 public:
  HolderRecord(std::string path, const HolderInfo& info, Notes& notes);
  ~HolderRecord();
  HolderRecord(const HolderRecord&) = delete;
  HolderRecord& operator=(const HolderRecord&) = delete;

 private:
  std::string path_;
  bool written_ = false;
};

// `--status` (seed spec 1.9): the text to print and the exit status (0 free, 1 held,
// 2 when the lock path cannot be used). `proc` answers whether the holder pid still lives.
struct LockStatus {
  int exit_code = 0;
  std::string text;  // lines for stdout (or the error for stderr when exit_code is 2)
};
LockStatus QueryLockStatus(const std::string& lock_path, ProcFs& proc);

}  // namespace decodeprof::guard
