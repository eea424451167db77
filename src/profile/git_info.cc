#include "src/profile/git_info.h"

#include "src/profile/process.h"

namespace decodeprof::profile {
namespace {

// The command's stdout without its trailing newline, or "" when it failed.
std::string GitLine(const std::vector<std::string>& argv) {
  base::StatusOr<Captured> run = CaptureOutput(argv);
  if (!run.ok() || run->status != 0) return "";
  std::string out = run->out;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

GitInfo ReadGitInfo() {
  GitInfo info;
  info.root = GitLine({"git", "rev-parse", "--show-toplevel"});
  if (info.root.empty()) return info;
  info.commit = GitLine({"git", "rev-parse", "--short=8", "HEAD"});
  if (info.commit.empty()) return info;
  base::StatusOr<Captured> status =
      CaptureOutput({"git", "status", "--porcelain", "--untracked-files=no"});
  info.dirty = status.ok() && status->status == 0 && !status->out.empty();
  return info;
}

std::string ProvenanceNote(const std::string& commit) {
  return "note: the source tree differs from " + commit + "; record the diff with the results";
}

}  // namespace decodeprof::profile
