// decodeprof::guard — the guard's log lines (seed spec 1.10).
//
// A note goes to stderr as `decodeprof: guard: <timestamp> <message>` and, with --log, to
// the log file as `<timestamp> <message>`. Clean monitor samples go to the log file only.
// Each line is written with one write(2) on an O_APPEND descriptor, so several guards can
// share a log and its lines stay whole and in event order.
#pragma once

#include <string>
#include <string_view>

#include "src/base/status.h"
#include "src/guard/clock.h"

namespace decodeprof::guard {

class Notes {
 public:
  // `stderr_fd` is normally 2; `log_fd` is -1 without --log. Notes does not own them.
  Notes(Clock* clock, int stderr_fd, int log_fd)
      : clock_(clock), stderr_fd_(stderr_fd), log_fd_(log_fd) {}

  void Note(std::string_view message);
  void LogOnly(std::string_view message);
  bool has_log() const { return log_fd_ >= 0; }

 private:
  Clock* clock_;
  int stderr_fd_;
  int log_fd_;
};

// Opens FILE for appending (created 0666 minus umask) with O_CLOEXEC, through
// base::OpenStreamOutput: only a regular file, never through a symlink, never a directory,
// device, FIFO or socket. The error is the kMsgCannotOpenLog text (kUsage, exit 2).
base::StatusOr<int> OpenLog(const std::string& path);

// Writes all of `text` to `fd`, retrying short writes and EINTR; errors are ignored (the
// guard never stops because stderr is closed).
void WriteAll(int fd, std::string_view text);

}  // namespace decodeprof::guard
