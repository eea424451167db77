#include "src/base/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "src/base/temporary_files.h"

namespace decodeprof::base {
namespace {

namespace fs = std::filesystem;

constexpr size_t kFlushBytes = size_t{1} << 20;
// <name>_decode_dispatches.csv.tmp.<pid>.<n> must fit NAME_MAX (255 bytes).
constexpr size_t kMaxOutputName = 200;

std::string ErrnoText(int err) { return std::strerror(err); }

// Writes all of `data`; returns 0 or the errno of the failure.
int WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

std::string KindText(mode_t mode) {
  if (S_ISLNK(mode)) return "a symlink";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "something that is not a regular file";
}

Status RefuseKind(const std::string& path, const char* verb, mode_t mode) {
  std::string what = std::string("refusing to ") + verb + " " + KindText(mode);
  if (S_ISLNK(mode)) {
    char target[4096];
    const ssize_t n = ::readlink(path.c_str(), target, sizeof target);
    if (n > 0) what += " (to " + std::string(target, static_cast<size_t>(n)) + ")";
  }
  return IoError(path, what,
                 "decodeprof writes only onto a regular file or a new name: remove it, or "
                 "choose another path");
}

// OK when `path` does not exist (*exists = false) or is a regular file, not followed through
// a symlink (*exists = true, *st its lstat).
Status CheckRegularOrMissing(const std::string& path, const char* verb, struct stat* st,
                             bool* exists) {
  *exists = false;
  if (::lstat(path.c_str(), st) != 0) {
    if (errno == ENOENT) return OkStatus();
    return IoError(path, "cannot write: " + ErrnoText(errno));
  }
  *exists = true;
  if (S_ISREG(st->st_mode)) return OkStatus();
  return RefuseKind(path, verb, st->st_mode);
}

// The absolute path with `.`, `..` and the symlinks of its existing part resolved.
std::string ResolvedPath(const std::string& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  if (ec) return fs::path(path).lexically_normal().string();
  const fs::path resolved = fs::weakly_canonical(absolute, ec);
  return (ec ? absolute : resolved).lexically_normal().string();
}

// The input that `path` names too, or null. `st`: the lstat of `path` when it exists.
const std::string* SameAsInput(const std::string& path, const struct stat* st,
                               const std::vector<std::string>& inputs) {
  std::string resolved;
  for (const std::string& input : inputs) {
    if (input.empty()) continue;
    if (st != nullptr) {
      struct stat in {};
      if (::stat(input.c_str(), &in) == 0 && in.st_dev == st->st_dev && in.st_ino == st->st_ino) {
        return &input;
      }
      continue;
    }
    if (resolved.empty()) resolved = ResolvedPath(path);
    if (ResolvedPath(input) == resolved) return &input;
  }
  return nullptr;
}

Status InputClash(const std::string& path, const std::string& input) {
  return Status(ErrorKind::kUsage, path,
                "refusing to overwrite an input of this command (" + input + ")",
                "write the output to another path");
}

// Standard output as an output: refused only when it is a regular file that is an input
// (`decodeprof ... -o - >> input`).
Status CheckStdout(const std::vector<std::string>& inputs) {
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) return OkStatus();
  for (const std::string& input : inputs) {
    struct stat in {};
    if (!input.empty() && ::stat(input.c_str(), &in) == 0 && in.st_dev == st.st_dev &&
        in.st_ino == st.st_ino) {
      return InputClash("standard output", input);
    }
  }
  return OkStatus();
}

// A new file beside `path`: `<path>.tmp.<pid>` (or `.<n>` after it when that name is taken).
// O_EXCL | O_NOFOLLOW: an existing file or link of that name is never opened. Registered
// (temporary_files.h) in the same step, so a SIGINT, SIGTERM or SIGHUP removes it.
StatusOr<int> CreateTemporary(const std::string& path, std::string* tmp, int* registration) {
  const std::string stem = path + ".tmp." + std::to_string(::getpid());
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = attempt == 0 ? stem : stem + "." + std::to_string(attempt);
    const SignalBlock block;
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      *registration = RegisterTemporary(name);
      *tmp = std::move(name);
      return fd;
    }
    if (errno != EEXIST) return IoError(path, "cannot write: " + ErrnoText(errno));
  }
  return IoError(path, "cannot write: every temporary name beside it is taken");
}

}  // namespace

StatusOr<int> OpenInputFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once (and is then refused).
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENXIO) {  // a socket, or a device without its driver
      return IoError(path, "is not a regular file",
                     "decodeprof reads its inputs from regular files only: save the data to a "
                     "file first");
    }
    return IoError(path, "cannot open: " + ErrnoText(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return IoError(path, "cannot open: " + ErrnoText(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    if (S_ISDIR(st.st_mode)) return IoError(path, "is a directory, not a file");
    const std::string kind = S_ISFIFO(st.st_mode) ? "a FIFO or pipe" : KindText(st.st_mode);
    return IoError(path, "is " + kind + ", not a regular file",
                   "decodeprof reads its inputs from regular files only (a trace is read more "
                   "than once, an SQLite file needs random access): save the data to a file "
                   "first");
  }
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl >= 0) (void)::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return fd;
}

Status CheckInputFile(const std::string& path) {
  DP_ASSIGN_OR_RETURN(const int fd, OpenInputFile(path));
  ::close(fd);
  return OkStatus();
}

Status TooLargeError(const std::string& path, size_t max_bytes, std::string_view kind) {
  return DataError(
      path, "larger than " + std::to_string(max_bytes / kMiB) + " MiB: not " + std::string(kind),
      "decodeprof reads such a file whole and caps its size (docs/trace-formats.md "
      "\"Files, pipes and limits\")");
}

StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes, std::string_view kind) {
  DP_ASSIGN_OR_RETURN(const int fd, OpenInputFile(path));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return TooLargeError(path, max_bytes, kind);
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
    if (content.size() + static_cast<size_t>(n) > max_bytes) {  // it grew while read
      ::close(fd);
      return TooLargeError(path, max_bytes, kind);
    }
    content.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return content;
}

StatusOr<std::string> ReadFilePrefix(const std::string& path, size_t max_bytes) {
  DP_ASSIGN_OR_RETURN(const int fd, OpenInputFile(path));
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

Status CheckOutputTarget(const std::string& path, const std::vector<std::string>& inputs) {
  if (path == kStdout) return CheckStdout(inputs);
  if (path.empty()) return UsageError("empty output path", "name the file to write");
  if (path.back() == '/') {
    return Status(ErrorKind::kUsage, path, "is not a file name (it ends in '/')",
                  "name the file to write, not its directory");
  }
  struct stat st {};
  bool exists = false;
  DP_RETURN_IF_ERROR(CheckRegularOrMissing(path, "replace", &st, &exists));
  if (const std::string* input = SameAsInput(path, exists ? &st : nullptr, inputs)) {
    return InputClash(path, *input);
  }
  return OkStatus();
}

Status CheckOutputName(std::string_view name, std::string_view option) {
  bool bad = name.empty() || name == "." || name == ".." || name.size() > kMaxOutputName;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte == '/' || byte < 0x20 || byte == 0x7f) bad = true;
  }
  if (!bad) return OkStatus();
  std::string shown;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      shown += "\\x";
      shown += kHex[byte >> 4];
      shown += kHex[byte & 0xf];
    } else {
      shown += c;
    }
  }
  return UsageError(std::string(option) + " must be a plain file name, got '" + shown + "'",
                    "a name is 1 to " + std::to_string(kMaxOutputName) +
                        " bytes without '/' or control characters, and not '.' or '..'");
}

uint64_t OutputSizeLimit(uint64_t input_bytes) {
  if (const char* env = std::getenv("DECODEPROF_MAX_OUTPUT_BYTES"); env != nullptr) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (errno == 0 && end != env && *end == '\0' && v > 0 && env[0] != '-') return v;
  }
  const uint64_t scaled = input_bytes > UINT64_MAX / kOutputPerInputByte
                              ? UINT64_MAX
                              : input_bytes * kOutputPerInputByte;
  return std::max(kMinOutputLimitBytes, scaled);
}

Status CheckOutputSize(const std::string& path, uint64_t estimated_bytes,
                       const std::vector<std::string>& inputs, std::string_view hint) {
  uint64_t input_bytes = 0;
  for (const std::string& input : inputs) {
    struct stat st {};
    if (input.empty() || ::stat(input.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    input_bytes += static_cast<uint64_t>(st.st_size);
  }
  const uint64_t limit = OutputSizeLimit(input_bytes);
  if (estimated_bytes <= limit) return OkStatus();
  const auto mb = [](uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20); };
  return DataError(
      path == kStdout ? "standard output" : path,
      "refusing to write an output of about " + mb(estimated_bytes) + " MiB: over the limit of " +
          mb(limit) + " MiB (64 times the input's " + mb(input_bytes) + " MiB, at least 1 GiB)",
      std::string(hint) + "; or raise the limit with DECODEPROF_MAX_OUTPUT_BYTES=<bytes>");
}

Status WriteFileAtomic(const std::string& path, std::string_view content,
                       const std::vector<std::string>& inputs) {
  AtomicFileWriter writer(path, inputs);
  DP_RETURN_IF_ERROR(writer.Open());
  writer.Write(content);
  return writer.Commit();
}

AtomicFileWriter::AtomicFileWriter(std::string path, std::vector<std::string> inputs)
    : path_(std::move(path)), inputs_(std::move(inputs)) {}

AtomicFileWriter::~AtomicFileWriter() { Discard(); }

void AtomicFileWriter::Discard() {
  if (fd_ >= 0 && !to_stdout_) ::close(fd_);
  fd_ = -1;
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
  UnregisterTemporary(registration_);
  registration_ = -1;
  tmp_.clear();
}

Status AtomicFileWriter::Open() {
  if (fd_ != -1 || committed_) return InternalError(path_, "opened twice");
  DP_RETURN_IF_ERROR(CheckOutputTarget(path_, inputs_));
  if (path_ == kStdout) {
    to_stdout_ = true;
    fd_ = STDOUT_FILENO;
  } else {
    DP_ASSIGN_OR_RETURN(fd_, CreateTemporary(path_, &tmp_, &registration_));
  }
  buffer_.reserve(kFlushBytes);
  return OkStatus();
}

void AtomicFileWriter::Write(std::string_view data) {
  buffer_.append(data);
  if (buffer_.size() >= kFlushBytes) (void)Flush();
}

Status AtomicFileWriter::Flush() {
  if (error_ == 0 && !buffer_.empty()) {
    if (to_stdout_) {
      if (std::fwrite(buffer_.data(), 1, buffer_.size(), stdout) != buffer_.size()) {
        error_ = errno != 0 ? errno : EIO;
      }
    } else {
      error_ = WriteAll(fd_, buffer_);
    }
  }
  buffer_.clear();
  if (error_ != 0) return IoError(path_, "cannot write: " + ErrnoText(error_));
  return OkStatus();
}

Status AtomicFileWriter::Commit() {
  if (fd_ < 0) return InternalError(path_, "commit without a successful open");
  Status status = Flush();
  if (to_stdout_) {
    fd_ = -1;
    if (status.ok() && std::fflush(stdout) != 0) {
      status = IoError(path_, "cannot write: " + ErrnoText(errno));
    }
    committed_ = status.ok();
    return status;
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && status.ok()) status = IoError(path_, "cannot write: " + ErrnoText(errno));
  // The target is checked again right before the rename: it may have changed while the
  // output was computed (rename(2) itself would replace a symlink, a device or a FIFO).
  if (status.ok()) status = CheckOutputTarget(path_, inputs_);
  if (status.ok()) {
    const SignalBlock block;  // renamed and forgotten in one step for the signal handler
    if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
      status = IoError(path_, "cannot write: " + ErrnoText(errno));
    } else {
      UnregisterTemporary(registration_);
      registration_ = -1;
    }
  }
  committed_ = status.ok();
  if (committed_) tmp_.clear();
  Discard();
  return status;
}

StatusOr<int> OpenStreamOutput(const std::string& path, bool append) {
  struct stat st {};
  bool exists = false;
  DP_RETURN_IF_ERROR(CheckRegularOrMissing(path, "write to", &st, &exists));
  const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
                    (append ? O_APPEND : O_TRUNC);
  const int fd = ::open(path.c_str(), flags, 0666);
  if (fd < 0) return IoError(path, "cannot open: " + ErrnoText(errno));
  // Refused after the open too: the path may have changed since the lstat.
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return RefuseKind(path, "write to", st.st_mode);
  }
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl >= 0) (void)::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return fd;
}

Status MakeDirs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError(dir, "cannot create directory: " + ec.message());
  return OkStatus();
}

}  // namespace decodeprof::base
