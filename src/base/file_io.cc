#include "src/base/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

namespace decodeprof::base {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

}  // namespace

StatusOr<std::string> ReadFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(path, "cannot open: " + ErrnoText(errno));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return IoError(path, "is a directory, not a file");
  }
  std::string content;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return IoError(path, "cannot read: " + ErrnoText(err));
    }
    content.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return content;
}

StatusOr<std::string> ReadFilePrefix(const std::string& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(path, "cannot open: " + ErrnoText(errno));
  std::string head(max_bytes, '\0');
  size_t got = 0;
  while (got < max_bytes) {
    const ssize_t n = ::read(fd, head.data() + got, max_bytes - got);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return IoError(path, "cannot read: " + ErrnoText(err));
    }
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  head.resize(got);
  return head;
}

Status WriteFileAtomic(const std::string& path, std::string_view content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError(path, "cannot write: " + ErrnoText(errno));
  const char* data = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return IoError(path, "cannot write: " + ErrnoText(err));
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return IoError(path, "cannot write: " + ErrnoText(err));
  }
  return OkStatus();
}

AtomicFileWriter::AtomicFileWriter(std::string path)
    : path_(std::move(path)), tmp_(path_ + ".tmp." + std::to_string(::getpid())) {}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && fd_ != -1) ::unlink(tmp_.c_str());
}

Status AtomicFileWriter::Open() {
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    fd_ = -1;
    return IoError(path_, "cannot write: " + ErrnoText(errno));
  }
  buffer_.reserve(1 << 20);
  return OkStatus();
}

void AtomicFileWriter::Write(std::string_view data) {
  buffer_.append(data);
  if (buffer_.size() >= (1 << 20)) (void)Flush();
}

Status AtomicFileWriter::Flush() {
  const char* data = buffer_.data();
  size_t left = buffer_.size();
  while (left > 0 && error_ == 0) {
    const ssize_t n = ::write(fd_, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
      break;
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  buffer_.clear();
  if (error_ != 0) return IoError(path_, "cannot write: " + ErrnoText(error_));
  return OkStatus();
}

Status AtomicFileWriter::Commit() {
  if (fd_ < 0) return InternalError(path_, "write before open");
  DP_RETURN_IF_ERROR(Flush());
  const int fd = fd_;
  fd_ = -2;  // closed, temporary file still to be removed on failure
  if (::close(fd) != 0 || ::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    return IoError(path_, "cannot write: " + ErrnoText(err));
  }
  committed_ = true;
  return OkStatus();
}

Status MakeDirs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError(dir, "cannot create directory: " + ec.message());
  return OkStatus();
}

}  // namespace decodeprof::base
