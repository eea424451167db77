#include "src/guard/proc_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "src/base/parse.h"

namespace decodeprof::guard {

std::optional<ProcStat> ParseStat(std::string_view line) {
  const size_t open = line.find('(');
  const size_t close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  ProcStat stat;
  stat.comm = std::string(line.substr(open + 1, close - open - 1));
  // After ")": " <state> <ppid> ...".
  std::string_view rest = line.substr(close + 1);
  std::string_view fields[2];
  for (std::string_view& field : fields) {
    const size_t start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(start);
    const size_t end = rest.find_first_of(" \n");
    field = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
  }
  const std::optional<int64_t> ppid = base::ParseInt64(fields[1]);
  if (!ppid) return std::nullopt;
  stat.ppid = *ppid;
  return stat;
}

void ProcSnapshot::Add(int64_t pid, ProcStat stat) { processes_[pid] = std::move(stat); }

std::string ProcSnapshot::CommOrUnknown(int64_t pid) const {
  const auto it = processes_.find(pid);
  return it == processes_.end() ? std::string("?") : it->second.comm;
}

bool ProcSnapshot::DescendsFrom(int64_t pid, int64_t root) const {
  // A bounded walk: a corrupt table with a parent cycle must not hang the guard.
  for (size_t steps = 0; pid != 0 && pid != 1 && steps <= processes_.size(); ++steps) {
    if (pid == root) return true;
    const auto it = processes_.find(pid);
    if (it == processes_.end()) return false;
    pid = it->second.ppid;
  }
  return false;
}

ProcSnapshot ProcFs::Snapshot() {
  ProcSnapshot snapshot;
  for (const int64_t pid : ListPids()) {
    const std::optional<std::string> text = ReadStat(pid);
    if (!text) continue;
    std::optional<ProcStat> stat = ParseStat(*text);
    if (stat) snapshot.Add(pid, std::move(*stat));
  }
  return snapshot;
}

bool ProcFs::DescendsFrom(int64_t pid, int64_t root) {
  for (int steps = 0; pid != 0 && pid != 1 && steps < 65536; ++steps) {
    if (pid == root) return true;
    const std::optional<std::string> text = ReadStat(pid);
    if (!text) return false;
    const std::optional<ProcStat> stat = ParseStat(*text);
    if (!stat) return false;
    pid = stat->ppid;
  }
  return false;
}

std::vector<int64_t> DirProcFs::ListPids() {
  std::vector<int64_t> pids;
  const std::optional<std::vector<std::string>> names = ListDirectory(root_);
  if (!names) return pids;
  for (const std::string& name : *names) {
    const std::optional<uint64_t> pid = base::ParseUnsigned(name);
    if (pid && *pid <= static_cast<uint64_t>(INT64_MAX)) pids.push_back(static_cast<int64_t>(*pid));
  }
  return pids;
}

std::optional<std::string> DirProcFs::ReadStat(int64_t pid) {
  return ReadSmallFile(root_ + "/" + std::to_string(pid) + "/stat");
}

std::optional<std::string> ReadSmallFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string content;
  char buffer[4096];
  while (content.size() < (64u << 10)) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return std::nullopt;
    }
    content.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return content;
}

std::optional<std::vector<std::string>> ListDirectory(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());  // glibc opens directories with O_CLOEXEC
  if (dir == nullptr) return std::nullopt;
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    names.emplace_back(entry->d_name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace decodeprof::guard
