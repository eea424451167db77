#include "src/trace/spool.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace decodeprof::trace {

SpillFile::~SpillFile() {
  if (fd_ >= 0) close(fd_);
}

bool SpillFile::Open() {
  if (fd_ >= 0) return true;
  if (!status_.ok()) return false;
  const char* env = std::getenv("TMPDIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : "/tmp";
  fd_ = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0) {  // a file system without O_TMPFILE: a named file, unlinked at once
    std::string path = dir + "/decodeprof-spool.XXXXXX";
    fd_ = mkostemp(path.data(), O_CLOEXEC);
    if (fd_ >= 0) unlink(path.c_str());
  }
  if (fd_ < 0) {
    status_ =
        base::IoError(dir, std::string("cannot create a temporary file: ") + std::strerror(errno),
                      "set TMPDIR to a writable directory");
    return false;
  }
  return true;
}

void SpillFile::Write(const void* data, size_t bytes) {
  if (!Open()) return;
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = write(fd_, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      status_ =
          base::IoError("temporary file",
                        std::string("cannot write: ") + (n < 0 ? std::strerror(errno) : "no space"),
                        "free space in TMPDIR (or set it to another directory)");
      return;
    }
    p += n;
    bytes -= static_cast<size_t>(n);
    written_ += n;
  }
}

void SpillFile::Clear() {
  if (fd_ >= 0) close(fd_);  // (unlinked: closing frees it)
  fd_ = -1;
  written_ = 0;
}

void SpillFile::Rewind() {
  if (fd_ >= 0 && lseek(fd_, 0, SEEK_SET) < 0 && status_.ok()) {
    status_ = base::IoError("temporary file", std::string("cannot seek: ") + std::strerror(errno));
  }
}

size_t SpillFile::Read(void* data, size_t bytes) {
  if (fd_ < 0 || !status_.ok()) return 0;
  char* p = static_cast<char*>(data);
  size_t got = 0;
  while (got < bytes) {
    const ssize_t n = read(fd_, p + got, bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      status_ =
          base::IoError("temporary file", std::string("cannot read: ") + std::strerror(errno));
      return 0;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return got;
}

}  // namespace decodeprof::trace
