#include "src/guard/notes.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "src/base/file_io.h"
#include "src/guard/messages.h"

namespace decodeprof::guard {
namespace {

// base::OpenStreamOutput's words for an open that failed (file_io.h).
constexpr std::string_view kCannotOpenPrefix = "cannot open: ";

}  // namespace

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
  base::StatusOr<int> fd = base::OpenStreamOutput(path, /*append=*/true);
  if (fd.ok()) return fd;
  // The catalogue's text: "cannot open log PATH: <why>", without base's own "cannot open: ".
  std::string why = fd.status().message();
  if (why.starts_with(kCannotOpenPrefix)) why.erase(0, std::string_view(kCannotOpenPrefix).size());
  return base::UsageError(fmt::format(kMsgCannotOpenLog, path, why));
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
