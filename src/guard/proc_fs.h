// decodeprof::guard — reading the process table (seed spec 1.3).
//
// ProcFs is the guard's only view of /proc. DirProcFs reads a directory laid out like
// /proc (`<root>/<pid>/stat`), so tests hand it a fixture tree. A ProcSnapshot is one pass
// over all processes: each sample of the guard takes exactly one, and every question of
// that sample (which holders exist, their names, their ancestry, which compilers run) is
// answered from it, so a sample is self-consistent (seed spec 1.10, the granite sample 4).
//
// Must not depend on anything but base.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace decodeprof::guard {

// The two fields of /proc/<pid>/stat the guard uses.
struct ProcStat {
  std::string comm;  // the kernel's (15-byte) command name, as in /proc/<pid>/comm
  int64_t ppid = 0;
};

// Parses a stat line: comm is what lies between the first '(' and the LAST ')', the PPID
// is the second field after that ')' (comm may hold spaces and parentheses). Nullopt when
// the line does not have that shape.
std::optional<ProcStat> ParseStat(std::string_view line);

class ProcSnapshot {
 public:
  void Add(int64_t pid, ProcStat stat);

  bool Exists(int64_t pid) const { return processes_.count(pid) != 0; }
  // The comm of `pid`, or "?" when the process is not in the snapshot (seed spec 1.3).
  std::string CommOrUnknown(int64_t pid) const;
  // True when walking parent links from `pid` reaches `root` before 0 or 1 (seed spec 1.3,
  // descends_from). A pid is its own descendant. A process missing from the snapshot
  // ends the walk with false.
  bool DescendsFrom(int64_t pid, int64_t root) const;
  // Every process, in ascending pid order.
  const std::map<int64_t, ProcStat>& processes() const { return processes_; }

 private:
  std::map<int64_t, ProcStat> processes_;
};

class ProcFs {
 public:
  virtual ~ProcFs() = default;
  // Numeric entries of the process directory (any order).
  virtual std::vector<int64_t> ListPids() = 0;
  // Contents of <pid>/stat, or nullopt when the process is gone or unreadable.
  virtual std::optional<std::string> ReadStat(int64_t pid) = 0;

  // One pass over ListPids(); processes that vanish or have an unparsable stat are left out.
  ProcSnapshot Snapshot();
  // Ancestry from live reads (used once, for DECODEPROF_GUARD_LOCK_HELD).
  bool DescendsFrom(int64_t pid, int64_t root);
};

// Reads a /proc-shaped directory; every open uses O_CLOEXEC.
class DirProcFs final : public ProcFs {
 public:
  explicit DirProcFs(std::string root = "/proc") : root_(std::move(root)) {}
  std::vector<int64_t> ListPids() override;
  std::optional<std::string> ReadStat(int64_t pid) override;

 private:
  std::string root_;
};

// Reads a small file (at most 64 KiB) with O_CLOEXEC; nullopt when it cannot be opened.
std::optional<std::string> ReadSmallFile(const std::string& path);

// Entry names of a directory except "." and dot-entries, sorted; nullopt when it cannot be
// opened. (The seed's glob skips dot-entries too.)
std::optional<std::vector<std::string>> ListDirectory(const std::string& path);

}  // namespace decodeprof::guard
