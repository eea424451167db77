// Shared pieces of the libFuzzer targets (tests/fuzz/*_fuzzer.cc, docs/fuzzing.md).
//
//   FUZZ_CHECK(cond)   an internal invariant; prints it and aborts (libFuzzer saves the input as
//                      a crash-* artifact). Never used for what an error Status may report.
//   FuzzFile           the per-process temporary file an importer reads by path (under
//                      /dev/shm when writable, else $TMPDIR, else /tmp), rewritten for every
//                      input and removed at exit, with SQLite's journal files.
//   CheckingSink       a DispatchSink that discards, after checking each dispatch: end >= start,
//                      its name resolves in the StringPool, a known kind, a 1-based line.
//   CheckImported      the same kind of checks over the rest of an import: ranges and launch
//                      calls end >= start with resolvable names, launches carry a non-zero
//                      correlation, ranges sorted by start.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "src/trace/trace.h"

#define FUZZ_CHECK(cond)                                                                     \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

namespace decodeprof::fuzz {

class FuzzFile {
 public:
  // `stem` names the target, `extension` includes its dot (".csv").
  FuzzFile(std::string_view stem, std::string_view extension) {
    std::string dir = "/dev/shm";
    if (::access(dir.c_str(), W_OK) != 0) {
      const char* tmp = std::getenv("TMPDIR");
      dir = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
    }
    path_ = dir + "/decodeprof_" + std::string(stem) + "_" + std::to_string(::getpid()) +
            std::string(extension);
  }
  ~FuzzFile() { Remove(); }
  FuzzFile(const FuzzFile&) = delete;
  FuzzFile& operator=(const FuzzFile&) = delete;

  const std::string& path() const { return path_; }

  // Removes the file and SQLite's companions, so that no input sees the last one's leftovers.
  void Remove() const {
    for (const char* suffix : {"", "-journal", "-wal", "-shm"}) ::unlink((path_ + suffix).c_str());
  }

  // Replaces the file's content with `size` bytes at `data`; aborts if that fails (the target
  // would otherwise fuzz nothing).
  void Write(const uint8_t* data, size_t size) const {
    Remove();
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FUZZ_CHECK(fd >= 0);
    size_t done = 0;
    while (done < size) {
      const ssize_t n = ::write(fd, data + done, size - done);
      FUZZ_CHECK(n > 0);
      done += static_cast<size_t>(n);
    }
    FUZZ_CHECK(::close(fd) == 0);
  }

 private:
  std::string path_;
};

// The file of this process for target `stem` (one per process, reused across inputs).
inline const FuzzFile& TheFuzzFile(std::string_view stem, std::string_view extension) {
  static const FuzzFile file(stem, extension);
  return file;
}

inline bool ValidKind(trace::DispatchKind kind) {
  return kind == trace::DispatchKind::kKernel || kind == trace::DispatchKind::kMemcpy ||
         kind == trace::DispatchKind::kMemset;
}

// Discards every dispatch after checking it; keeps them when `keep` (for the targets that
// compare two reads of one input).
class CheckingSink final : public trace::DispatchSink {
 public:
  explicit CheckingSink(const trace::StringPool& names, bool keep = false)
      : names_(names), keep_(keep) {}
  void Add(const trace::Dispatch& d) override {
    FUZZ_CHECK(d.end >= d.start);
    FUZZ_CHECK(d.name < names_.size());
    FUZZ_CHECK(ValidKind(d.kind));
    FUZZ_CHECK(d.line >= 1);
    FUZZ_CHECK(d.grid >= 0);
    ++count_;
    if (keep_) kept_.push_back(d);
  }
  int64_t count() const { return count_; }
  const trace::DispatchVector& kept() const { return kept_; }

 private:
  const trace::StringPool& names_;
  bool keep_;
  int64_t count_ = 0;
  trace::DispatchVector kept_;
};

inline void CheckImported(const trace::ImportedTrace& t, const trace::StringPool& names) {
  for (const trace::ApiCall& c : t.launches) {
    FUZZ_CHECK(c.end >= c.start);
    FUZZ_CHECK(c.name < names.size());
    FUZZ_CHECK(c.correlation != 0);
  }
  for (size_t i = 0; i < t.ranges.size(); ++i) {
    const trace::Range& r = t.ranges[i];
    FUZZ_CHECK(r.end >= r.start);
    FUZZ_CHECK(r.name < names.size());
    // Not checked: depth, which a native file gives as it is (consumers take any negative
    // depth as "does not nest").
    if (i > 0) FUZZ_CHECK(t.ranges[i - 1].start <= r.start);
  }
  int64_t per_device = 0;
  for (const auto& [device, n] : t.dispatches_per_device) {
    FUZZ_CHECK(n > 0);
    per_device += n;
  }
  FUZZ_CHECK(per_device == t.kernels + t.memory_ops);
}

// Two dispatches read from the same input by two paths are the same record.
inline bool SameDispatch(const trace::Dispatch& a, const trace::Dispatch& b) {
  return a.start == b.start && a.end == b.end && a.grid == b.grid &&
         a.correlation == b.correlation && a.name == b.name && a.line == b.line &&
         a.stream == b.stream && a.device == b.device && a.kind == b.kind;
}

}  // namespace decodeprof::fuzz
