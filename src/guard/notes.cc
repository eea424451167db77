#include "src/guard/notes.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/guard/messages.h"

namespace decodeprof::guard {

void Notes::Note(std::string_view message) {
  const std::string line = clock_->Timestamp() + " " + std::string(message) + "\n";
  WriteAll(stderr_fd_, kStderrPrefix + line);
  if (log_fd_ >= 0) WriteAll(log_fd_, line);
}

void Notes::LogOnly(std::string_view message) {
  if (log_fd_ < 0) return;
  WriteAll(log_fd_, clock_->Timestamp() + " " + std::string(message) + "\n");
}

base::StatusOr<int> OpenLog(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return base::UsageError(fmt::format(kMsgCannotOpenLog, path, std::strerror(errno)));
  return fd;
}

void WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace decodeprof::guard
