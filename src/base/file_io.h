// File helpers: whole-file reads with clear errors, and the one way decodeprof writes an
// output file.
//
// Output files (issue 11, "Output paths"): every output goes to a new temporary file in the
// target's directory (`<path>.tmp.<pid>`, created with O_EXCL | O_NOFOLLOW, so it never
// opens an existing file or follows a link) and is renamed onto `path` only when complete.
// The rename replaces nothing but a regular file: a symlink (even one to a regular file, or
// a dangling one), a directory, a device, a FIFO or a socket at `path` is refused, and so is
// a file that is one of the command's inputs. CheckOutputTarget says so before any work is
// done; WriteFileAtomic and AtomicFileWriter check again right before the rename, so a run
// that fails leaves no output and no temporary file behind, and so does one ended by SIGINT,
// SIGTERM or SIGHUP (the temporary file is registered with temporary_files.h, whose handler
// removes it before the process ends by the signal). kStdout ("-") names standard
// output, for the commands that write one file; a command that writes several refuses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::base {

// Inputs (docs/trace-formats.md "Files, pipes and limits"): decodeprof reads only regular
// files. A FIFO, pipe, socket, character or block device, or directory is refused at once —
// opened with O_NONBLOCK, so a FIFO without a writer never blocks — as kIo naming the path:
// "is a FIFO or pipe, not a regular file" (and so on) with a hint to save it to a file.
// Files read whole have a cap on their size, checked before anything is read (a huge sparse
// file) and again while reading (a file that grows):
inline constexpr size_t kMiB = size_t{1} << 20;
inline constexpr size_t kMaxConfigBytes = 64 * kMiB;    // packs, units files, config.json
inline constexpr size_t kMaxSummaryBytes = 256 * kMiB;  // summary JSON (report, diff)
inline constexpr size_t kMaxLogBytes = 256 * kMiB;      // bench logs (decompressed)
inline constexpr size_t kMaxRunLogBytes = 1024 * kMiB;  // the logs `profile` captures itself

// Opens `path` for reading as an input: a regular file (followed through symlinks), refused
// as above otherwise. Returns the descriptor (O_CLOEXEC, blocking; the caller closes it).
// Errors (kIo naming `path`): "cannot open: <errno text>"; the refusals above.
StatusOr<int> OpenInputFile(const std::string& path);

// Checks that `path` can be opened as an input (OpenInputFile, then closed).
Status CheckInputFile(const std::string& path);

// Reads the whole file, a regular file of at most `max_bytes` (OpenInputFile). Errors, all
// naming the path: kIo for a missing, unreadable or non-regular file; kData "larger than
// <N> MiB: not <kind>" (`kind`: "a pack file", ...) for a larger one.
StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes = kMaxSummaryBytes,
                               std::string_view kind = "a file decodeprof reads whole");

// The refusal of an input larger than `max_bytes` (kData, where = path), as ReadFile says it.
Status TooLargeError(const std::string& path, size_t max_bytes, std::string_view kind);

// Reads at most `max_bytes` from the start of the file (format sniffing); a regular file
// (OpenInputFile).
StatusOr<std::string> ReadFilePrefix(const std::string& path, size_t max_bytes);

// The output path that means standard output.
inline constexpr std::string_view kStdout = "-";

// Checks that an output may be written to `path`. OK when `path` does not exist or is a
// regular file (not followed through a symlink: lstat), and is not one of `inputs` (paths
// the same command reads; empty ones are skipped). Files that exist are compared by device
// and inode (so a hard link, `./x` for `x`, or a path through a symlinked directory is the
// same file); a `path` that does not exist yet is compared by its absolute path with the
// symlinks of its existing parents resolved. For kStdout: OK unless standard output is a
// regular file that is one of `inputs` (`> input`).
// Errors, all naming `path` as where:
//   kIo    — "refusing to replace a symlink" (or a directory, a character device, a block
//            device, a FIFO, a socket); "cannot write: <errno text>" when lstat fails for
//            another reason than ENOENT (a parent is not a directory, no permission);
//   kUsage — an empty path or one ending in '/' ("is not a file name"); a path that is an
//            input ("refusing to overwrite an input of this command: <input>").
Status CheckOutputTarget(const std::string& path, const std::vector<std::string>& inputs = {});

// Checks a name that becomes part of an output file name (summarize --name, profile's run
// names): not empty, not "." or "..", and no '/', NUL or other control character (bytes
// below 0x20 and 0x7f). Names may start with '.' (".x" gives the file ".x_summary.json").
// Error (kUsage): "<option> must be a plain file name, got '<name>'" with the rule as hint.
Status CheckOutputName(std::string_view name, std::string_view option);

// Writes `content` to `path` as described above: CheckOutputTarget(path, inputs), the
// temporary file, the check again, rename. For kStdout the content goes to standard output.
// On failure the temporary file is removed and `path` is untouched. Errors: those of
// CheckOutputTarget; kIo "cannot write: ..." naming `path`.
Status WriteFileAtomic(const std::string& path, std::string_view content,
                       const std::vector<std::string>& inputs = {});

// The size bound of an output made from inputs of `input_bytes` in all: max(1 GiB, 64 × the
// inputs), or the environment's DECODEPROF_MAX_OUTPUT_BYTES when set to a positive integer.
inline constexpr uint64_t kMinOutputLimitBytes = uint64_t{1} << 30;
inline constexpr uint64_t kOutputPerInputByte = 64;
uint64_t OutputSizeLimit(uint64_t input_bytes);

// Refuses an output of `estimated_bytes` over OutputSizeLimit(the sizes of the regular files
// among `inputs`), before anything is written: error kData naming `path` ("would be about N
// MB, over the limit of M MB ...") with `hint` (what makes it smaller) and the override.
Status CheckOutputSize(const std::string& path, uint64_t estimated_bytes,
                       const std::vector<std::string>& inputs, std::string_view hint);

// Streams a large output through the same temporary file and renames it onto `path` on
// Commit(). Open() runs CheckOutputTarget(path, inputs); Commit() checks the target again
// right before the rename. Destroying it without a successful Commit() removes the temporary
// file, so a failed run never leaves a partial output behind. For kStdout the data goes to
// standard output (buffered; Commit() flushes it; nothing can be taken back on failure).
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path, std::vector<std::string> inputs = {});
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  Status Open();
  // Buffered; errors surface at the next flush or at Commit().
  void Write(std::string_view data);
  Status Commit();

 private:
  Status Flush();
  void Discard();
  std::string path_;
  std::vector<std::string> inputs_;
  std::string tmp_;        // "" for kStdout, and before Open()
  int registration_ = -1;  // its entry in temporary_files.h's table
  std::string buffer_;
  int fd_ = -1;
  int error_ = 0;
  bool to_stdout_ = false;
  bool committed_ = false;
};

// Opens `path` for an output that is written while a command runs and so cannot go through a
// temporary file (the guard's --log, a child's captured output): appended to (`append`) or
// truncated, created 0666 minus umask when missing. Only a regular file is opened: lstat
// first, then O_NOFOLLOW | O_NONBLOCK | O_NOCTTY (a FIFO never blocks the open) and fstat, so
// a symlink, directory, device, FIFO or socket is refused without being written to. Returns
// the descriptor (O_CLOEXEC; the caller closes it). Errors (kIo naming `path`): "refusing to
// write to a symlink" (and so on); "cannot open: <errno text>".
StatusOr<int> OpenStreamOutput(const std::string& path, bool append);

// Creates `dir` and its parents when missing.
Status MakeDirs(const std::string& dir);

}  // namespace decodeprof::base
